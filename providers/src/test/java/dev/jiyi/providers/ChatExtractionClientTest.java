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
import java.util.concurrent.TimeUnit;

import static dev.jiyi.providers.ProviderTestKit.API_KEY;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@link ChatExtractionClient} against a local mock server: the request, the answer, every failure. */
class ChatExtractionClientTest {

    private static final String ONE_MEMORY = """
            {"memories": [{"text": "用户住在杭州", "quote": "住在杭州", "kind": "fact", "basis": "user_statement",
              "confidence": 0.9, "subject": "user", "fact_key": "home_city"}]}""";

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

    private static ExtractionInput input(String text) {
        return new ExtractionInput("evt-42", "user", "conversation", "2024-05-01T02:00:00Z", text);
    }

    @Test
    @DisplayName("X1 sends model, the prompt, response_format json_object, temperature 0 and the bearer key")
    void request() throws InterruptedException {
        server.enqueue(chatAnswer(ONE_MEMORY));

        new ChatExtractionClient(endpoint(server, API_KEY)).extract(input(ZH));

        RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request.getMethod()).isEqualTo("POST");
        assertThat(request.getTarget()).isEqualTo("/v1/chat/completions");
        assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer " + API_KEY);
        assertThat(request.getHeaders().get("Content-Type")).startsWith("application/json");
        JsonNode body = body(request);
        assertThat(body.path("model").stringValue()).isEqualTo("test-model");
        assertThat(body.path("response_format").path("type").stringValue()).isEqualTo("json_object");
        assertThat(body.path("temperature").isNumber()).isTrue();
        assertThat(body.path("temperature").doubleValue()).isZero();
        JsonNode messages = body.path("messages");
        assertThat(messages.size()).isEqualTo(2);
        assertThat(messages.path(0).path("role").stringValue()).isEqualTo("system");
        assertThat(messages.path(0).path("content").stringValue()).isEqualTo(ExtractionPrompt.SYSTEM);
        assertThat(messages.path(1).path("role").stringValue()).isEqualTo("user");
    }

    @Test
    @DisplayName("X1 sends no Authorization header when no key is set")
    void noKey() throws InterruptedException {
        server.enqueue(chatAnswer(ONE_MEMORY));

        new ChatExtractionClient(endpoint(server, null)).extract(input(EN));

        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Authorization")).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {ZH, EN, MIXED, "  leading and trailing spaces, \"quotes\", \\ and a\nnewline  "})
    @DisplayName("X1 the user message carries the event as JSON, its text exactly (Chinese, English, mixed)")
    void userMessage(String text) throws InterruptedException {
        server.enqueue(chatAnswer("{\"memories\": []}"));

        new ChatExtractionClient(endpoint(server, API_KEY)).extract(input(text));

        JsonNode user = ProviderTestKit.JSON.readTree(
                body(server.takeRequest(5, TimeUnit.SECONDS)).path("messages").path(1).path("content").stringValue());
        assertThat(user.path("text").stringValue()).isEqualTo(text);
        assertThat(user.path("event_id").stringValue()).isEqualTo("evt-42");
        assertThat(user.path("role").stringValue()).isEqualTo("user");
        assertThat(user.path("category").stringValue()).isEqualTo("conversation");
        assertThat(user.path("occurred_at").stringValue()).isEqualTo("2024-05-01T02:00:00Z");
    }

    @Test
    @DisplayName("X1 the answer's content is parsed, with its digest")
    void answer() {
        server.enqueue(chatAnswer(ONE_MEMORY));

        ExtractionAnswer answer = new ChatExtractionClient(endpoint(server, API_KEY)).extract(input(ZH));

        assertThat(answer.memories()).singleElement().satisfies(m -> {
            assertThat(m.quote()).isEqualTo("住在杭州");
            assertThat(m.factKey()).isEqualTo("home_city");
        });
        assertThat(answer.digest()).isEqualTo(ChatExtractionClient.parse(ONE_MEMORY).digest());
    }

    @Test
    @DisplayName("X1 a base URL without a path gets /chat/completions at the root")
    void rootBaseUrl() throws InterruptedException {
        server.enqueue(chatAnswer(ONE_MEMORY));
        Endpoint root = new Endpoint(server.url("/").toString(), "m", null, Duration.ofSeconds(5));

        new ChatExtractionClient(root).extract(input(EN));

        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getTarget()).isEqualTo("/chat/completions");
    }

    @ParameterizedTest
    @ValueSource(ints = {429, 500, 401})
    @DisplayName("X2 a non-2xx answer is HTTP_STATUS with its status and a sanitized message")
    void httpStatus(int status) {
        server.enqueue(failure(status, ZH));

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new ChatExtractionClient(endpoint(server, API_KEY)).extract(input(ZH)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.HTTP_STATUS);
        assertThat(e.status()).isEqualTo(status);
        assertThat(e.getMessage()).isEqualTo("extraction endpoint answered HTTP " + status);
        assertSanitized(e, server, ZH, "住在杭州", "evt-42");
    }

    @Test
    @DisplayName("X2 no headers within the timeout is TIMEOUT, sanitized")
    void timeoutWaitingForHeaders() {
        server.enqueue(new MockResponse.Builder(chatAnswer(ONE_MEMORY)).headersDelay(3, TimeUnit.SECONDS).build());

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new ChatExtractionClient(endpoint(server, API_KEY, Duration.ofMillis(300))).extract(input(MIXED)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.TIMEOUT);
        assertThat(e.getMessage()).isEqualTo("extraction endpoint did not answer within 300 ms");
        assertSanitized(e, server, MIXED);
    }

    @Test
    @DisplayName("X2 a body that does not finish within the timeout is TIMEOUT")
    void timeoutWaitingForBody() {
        server.enqueue(new MockResponse.Builder(chatAnswer(ONE_MEMORY)).bodyDelay(3, TimeUnit.SECONDS).build());

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new ChatExtractionClient(endpoint(server, API_KEY, Duration.ofMillis(300))).extract(input(ZH)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.TIMEOUT);
        assertSanitized(e, server, ZH);
    }

    @Test
    @DisplayName("X2 a closed port is NETWORK (connection refused), sanitized")
    void connectionRefused() {
        Endpoint endpoint = endpoint(server, API_KEY);
        server.close();

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new ChatExtractionClient(endpoint).extract(input(EN)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.NETWORK);
        assertThat(e.getMessage()).isEqualTo("extraction endpoint could not be reached (connection refused)");
        assertSanitized(e, server, EN);
    }

    @Test
    @DisplayName("X2 an envelope without choices, or whose content is not a string, is MALFORMED_ANSWER")
    void malformedEnvelope() {
        server.enqueue(json("{\"choices\": []}"));
        server.enqueue(json("{\"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": null}}]}"));
        server.enqueue(json("{\"choices\": [{\"message\": {\"content\": {\"memories\": []}}}]}"));
        server.enqueue(json("[1, 2]"));
        ChatExtractionClient client = new ChatExtractionClient(endpoint(server, API_KEY));

        for (int i = 0; i < 4; i++) {
            ProviderException e = catchThrowableOfType(ProviderException.class, () -> client.extract(input(ZH)));
            assertThat(e.kind()).isEqualTo(ProviderException.Kind.MALFORMED_ANSWER);
            assertThat(e.getMessage())
                    .isEqualTo("extraction endpoint answered without a choices[0].message.content string");
            assertSanitized(e, server, ZH);
        }
    }

    @Test
    @DisplayName("X2 a body that is not JSON is MALFORMED_ANSWER, without the body")
    void bodyNotJson() {
        server.enqueue(new MockResponse.Builder().code(200)
                .body("<html>" + ProviderTestKit.BODY_SECRET + " " + ZH + "</html>").build());

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new ChatExtractionClient(endpoint(server, API_KEY)).extract(input(ZH)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.MALFORMED_ANSWER);
        assertThat(e.getMessage()).isEqualTo("extraction endpoint answered with something other than JSON");
        assertSanitized(e, server, ZH);
    }

    @Test
    @DisplayName("X2 content cut off at the length limit is MALFORMED_ANSWER that says so")
    void cutOff() {
        String envelope = "{\"choices\": [{\"finish_reason\": \"length\", \"message\": {\"content\":"
                + " \"{\\\"memories\\\": [{\\\"text\\\": \\\"住在\"}}]}";
        server.enqueue(json(envelope));

        assertThatThrownBy(() -> new ChatExtractionClient(endpoint(server, API_KEY)).extract(input(ZH)))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.MALFORMED_ANSWER);
                    assertThat(e.getMessage()).contains("length limit").doesNotContain("住在");
                });
    }

    @Test
    @DisplayName("X2 content that is not an answer object is MALFORMED_ANSWER, without the content")
    void contentNotAnswer() {
        server.enqueue(chatAnswer("Sure! " + ZH));
        server.enqueue(chatAnswer("[{\"text\": \"" + ZH + "\"}]"));
        ChatExtractionClient client = new ChatExtractionClient(endpoint(server, API_KEY));

        assertThatThrownBy(() -> client.extract(input(ZH)))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.MALFORMED_ANSWER);
                    assertSanitized(e, server, ZH, "Sure");
                });
        assertThatThrownBy(() -> client.extract(input(ZH)))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.MALFORMED_ANSWER);
                    assertSanitized(e, server, ZH);
                });
    }

    @Test
    @DisplayName("X1 V1 the fingerprint names endpoint, model and prompt version, never the key")
    void fingerprint() {
        Endpoint withCredentials = new Endpoint("https://bob:pw@api.example.com/v1/?key=" + API_KEY, "gpt-4o-mini",
                API_KEY, Duration.ofSeconds(60));

        String fingerprint = new ChatExtractionClient(withCredentials).fingerprint();

        assertThat(fingerprint).isEqualTo("openai-compatible:https://api.example.com/v1|gpt-4o-mini|extract-1")
                .doesNotContain(API_KEY).doesNotContain("bob").doesNotContain("pw");
    }

    @Test
    @DisplayName("X2 a base URL that is not http(s) is NOT_CONFIGURED, without the URL")
    void badBaseUrl() {
        Endpoint ftp = new Endpoint("ftp://alice:" + API_KEY + "@files.example.com", "m", null, Duration.ofSeconds(1));

        assertThatThrownBy(() -> new ChatExtractionClient(ftp))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.NOT_CONFIGURED);
                    assertThat(e.getMessage()).startsWith("endpoint:").doesNotContain(API_KEY)
                            .doesNotContain("files.example.com");
                });
    }
}
