package dev.jiyi.providers;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Shared fixtures of the provider tests: endpoints on a local mock server, answers, the X2 leak check. */
final class ProviderTestKit {

    static final JsonMapper JSON = JsonMapper.builder().build();

    /** Distinctive, so that a leak into a message cannot be a coincidence. */
    static final String API_KEY = "sk-jiyi-test-KEY-4f1c9e";
    static final String BODY_SECRET = "BODY-SECRET-d41c8b";

    static final String ZH = "我叫小明，住在杭州。上周我养了一只猫，名字叫“团子”。";
    static final String EN = "I moved to Berlin in March and I prefer tea over coffee.";
    static final String MIXED = "今天 deploy 了 v2.3，我有点 nervous，but it went fine 😅";

    private ProviderTestKit() {
    }

    static Endpoint endpoint(MockWebServer server, String apiKey) {
        return endpoint(server, apiKey, Duration.ofSeconds(5));
    }

    static Endpoint endpoint(MockWebServer server, String apiKey, Duration timeout) {
        return new Endpoint(server.url("/v1").toString(), "test-model", apiKey, timeout);
    }

    static MockResponse json(String body) {
        return new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json").body(body).build();
    }

    /** A chat-completions answer whose {@code choices[0].message.content} is {@code content}. */
    static MockResponse chatAnswer(String content) {
        ObjectNode root = JSON.createObjectNode();
        root.put("id", "chatcmpl-1").put("object", "chat.completion").put("model", "test-model");
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0).put("finish_reason", "stop");
        choice.putObject("message").put("role", "assistant").put("content", content);
        return json(JSON.writeValueAsString(root));
    }

    /** A failing answer whose body holds a secret and the event's text, neither of which may leak. */
    static MockResponse failure(int code, String eventText) {
        return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json")
                .body("{\"error\": {\"message\": \"" + BODY_SECRET + " while reading: " + eventText + "\"}}")
                .build();
    }

    static JsonNode body(RecordedRequest request) {
        return JSON.readTree(request.getBody().utf8());
    }

    /**
     * X2 / O7: the message names no response body, credential, URL, port or input text, and no
     * cause carries them either.
     */
    static void assertSanitized(ProviderException e, MockWebServer server, String... inputs) {
        assertThat(e.getMessage())
                .doesNotContain(BODY_SECRET)
                .doesNotContain(API_KEY)
                .doesNotContain("http")
                .doesNotContain("127.0.0.1")
                .doesNotContain("localhost")
                .doesNotContain(server.getHostName())
                .doesNotContain(Integer.toString(server.getPort()))
                .doesNotContain("/v1");
        for (String input : inputs) {
            assertThat(e.getMessage()).doesNotContain(input);
        }
        assertThat(e.getCause()).isNull();
    }
}
