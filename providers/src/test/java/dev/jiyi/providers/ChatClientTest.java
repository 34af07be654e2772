package dev.jiyi.providers;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.jiyi.providers.ProviderTestKit.API_KEY;
import static dev.jiyi.providers.ProviderTestKit.BODY_SECRET;
import static dev.jiyi.providers.ProviderTestKit.EN;
import static dev.jiyi.providers.ProviderTestKit.MIXED;
import static dev.jiyi.providers.ProviderTestKit.ZH;
import static dev.jiyi.providers.ProviderTestKit.assertSanitized;
import static dev.jiyi.providers.ProviderTestKit.body;
import static dev.jiyi.providers.ProviderTestKit.chatAnswer;
import static dev.jiyi.providers.ProviderTestKit.endpoint;
import static dev.jiyi.providers.ProviderTestKit.failure;
import static dev.jiyi.providers.ProviderTestKit.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@link ChatClient} against a local mock server: the request, the reply, and the failures (X2). */
class ChatClientTest {

    private static final String SYSTEM = "背景 (context): {\"persona\": \"一个耐心的助手\"}";

    private MockWebServer server;

    @BeforeEach
    void start() throws IOException {
        server = new MockWebServer();
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static List<ChatMessage> turn(String user) {
        return List.of(ChatMessage.system(SYSTEM), ChatMessage.user(user));
    }

    @ParameterizedTest
    @ValueSource(strings = {ZH, EN, MIXED, "  \"quotes\", \\ and a\nnewline  "})
    @DisplayName("sends the model and the messages exactly, in order, with the bearer key and nothing else")
    void request(String user) throws InterruptedException {
        server.enqueue(chatAnswer("好的"));

        new ChatClient(endpoint(server, API_KEY)).reply(turn(user));

        RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request.getMethod()).isEqualTo("POST");
        assertThat(request.getTarget()).isEqualTo("/v1/chat/completions");
        assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer " + API_KEY);
        JsonNode body = body(request);
        assertThat(body.propertyNames()).containsExactlyInAnyOrder("model", "messages");
        assertThat(body.path("model").stringValue()).isEqualTo("test-model");
        JsonNode messages = body.path("messages");
        assertThat(messages.size()).isEqualTo(2);
        assertThat(messages.path(0).path("role").stringValue()).isEqualTo("system");
        assertThat(messages.path(0).path("content").stringValue()).isEqualTo(SYSTEM);
        assertThat(messages.path(1).path("role").stringValue()).isEqualTo("user");
        assertThat(messages.path(1).path("content").stringValue()).isEqualTo(user);
    }

    @Test
    @DisplayName("sends no Authorization header when no key is set")
    void noKey() throws InterruptedException {
        server.enqueue(chatAnswer("hi"));

        new ChatClient(endpoint(server, null)).reply(turn(EN));

        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization")).isNull();
    }

    @Test
    @DisplayName("returns the first choice's text exactly, its finish reason and the reported usage")
    void reply() {
        server.enqueue(json("""
                {"choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": "你住在杭州，养了一只猫叫团子。 You like tea.\\n"}},
                             {"index": 1, "message": {"role": "assistant", "content": "second"}}],
                 "usage": {"prompt_tokens": 321, "completion_tokens": 17, "total_tokens": 338}}"""));

        ChatReply reply = new ChatClient(endpoint(server, API_KEY)).reply(turn(ZH));

        assertThat(reply.content()).isEqualTo("你住在杭州，养了一只猫叫团子。 You like tea.\n");
        assertThat(reply.finishReason()).isEqualTo("stop");
        assertThat(reply.truncated()).isFalse();
        assertThat(reply.promptTokens()).isEqualTo(321);
        assertThat(reply.completionTokens()).isEqualTo(17);
    }

    @Test
    @DisplayName("a reply cut off at the length limit is still a reply, marked truncated; usage may be absent")
    void truncated() {
        server.enqueue(json("{\"choices\": [{\"finish_reason\": \"length\", \"message\": {\"content\": \"我记得你说过\"}}]}"));

        ChatReply reply = new ChatClient(endpoint(server, API_KEY)).reply(turn(ZH));

        assertThat(reply.content()).isEqualTo("我记得你说过");
        assertThat(reply.truncated()).isTrue();
        assertThat(reply.promptTokens()).isNull();
        assertThat(reply.completionTokens()).isNull();
    }

    @ParameterizedTest
    @ValueSource(ints = {500, 429, 401})
    @DisplayName("X2 a non-2xx answer is HTTP_STATUS; neither its body, the key, the URL nor the text is in the message")
    void httpStatus(int status) {
        server.enqueue(failure(status, ZH));

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new ChatClient(endpoint(server, API_KEY)).reply(turn(ZH)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.HTTP_STATUS);
        assertThat(e.status()).isEqualTo(status);
        assertThat(e.getMessage()).isEqualTo("chat endpoint answered HTTP " + status);
        assertSanitized(e, server, ZH, SYSTEM, "耐心");
    }

    @Test
    @DisplayName("X2 no answer within the timeout is TIMEOUT, sanitized")
    void timeout() {
        server.enqueue(new MockResponse.Builder(chatAnswer("late")).headersDelay(3, TimeUnit.SECONDS).build());

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new ChatClient(endpoint(server, API_KEY, Duration.ofMillis(300))).reply(turn(MIXED)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.TIMEOUT);
        assertThat(e.getMessage()).isEqualTo("chat endpoint did not answer within 300 ms");
        assertSanitized(e, server, MIXED);
    }

    @Test
    @DisplayName("X2 a body that is not JSON is MALFORMED_ANSWER, without the body")
    void garbage() {
        server.enqueue(new MockResponse.Builder().code(200).body("{\"choices\": [" + BODY_SECRET + " 你好").build());

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new ChatClient(endpoint(server, API_KEY)).reply(turn(ZH)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.MALFORMED_ANSWER);
        assertThat(e.getMessage()).isEqualTo("chat endpoint answered with something other than JSON");
        assertSanitized(e, server, ZH, "你好");
    }

    @Test
    @DisplayName("X2 JSON without a choices[0].message.content string is MALFORMED_ANSWER")
    void noContent() {
        server.enqueue(json("{\"choices\": []}"));
        server.enqueue(json("{\"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": null}}]}"));
        server.enqueue(json("{\"choices\": [{\"message\": {\"content\": [\"" + BODY_SECRET + "\"]}}]}"));
        server.enqueue(json("[1, 2]"));
        ChatClient client = new ChatClient(endpoint(server, API_KEY));

        for (int i = 0; i < 4; i++) {
            ProviderException e = catchThrowableOfType(ProviderException.class, () -> client.reply(turn(EN)));
            assertThat(e.kind()).isEqualTo(ProviderException.Kind.MALFORMED_ANSWER);
            assertThat(e.getMessage()).isEqualTo("chat endpoint answered without a choices[0].message.content string");
            assertSanitized(e, server, EN);
        }
    }
}
