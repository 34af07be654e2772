package dev.jiyi.cli;

import dev.jiyi.engine.Output;

import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.QueueDispatcher;
import mockwebserver3.RecordedRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Local stand-ins for the extraction model and the embedding endpoint (X1: no test calls a remote
 * endpoint): OpenAI-compatible answers for a {@link MockWebServer}, a deterministic embeddings
 * {@link Dispatcher}, and the leak check of X2 / O7.
 */
final class MockModels {

    /** Distinctive, so that a leak into a message or the database cannot be a coincidence. */
    static final String API_KEY = "sk-jiyi-cli-KEY-7f3a91e2";
    static final String EMBED_KEY = "sk-jiyi-embed-KEY-55c0d1";
    static final String BODY_SECRET = "BODY-SECRET-c0ffee-91d2";
    static final String MODEL = "mock-extractor";
    static final String EMBED_MODEL = "mock-embedder";
    static final int DIMENSIONS = 8;

    private MockModels() {
    }

    /** A queue dispatcher that answers an unexpected request with HTTP 599 instead of blocking. */
    static QueueDispatcher queue(MockWebServer server) {
        QueueDispatcher queue = new QueueDispatcher();
        queue.setFailFast(new MockResponse.Builder().code(599).body("{\"error\":\"unexpected request\"}").build());
        server.setDispatcher(queue);
        return queue;
    }

    /** One memory item of a model answer; {@code extra} are further key/value pairs. */
    static Map<String, Object> item(String text, String quote, String kind, String basis, Object confidence,
                                    Object... extra) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("text", text);
        m.put("quote", quote);
        m.put("kind", kind);
        m.put("basis", basis);
        m.put("confidence", confidence);
        for (int i = 0; i < extra.length; i += 2) {
            m.put((String) extra[i], extra[i + 1]);
        }
        return m;
    }

    /** The content string {@code {"memories": [...]}} of these items. */
    @SafeVarargs
    static String memories(Map<String, Object>... items) {
        return Output.mapper().writeValueAsString(Map.of("memories", List.of(items)));
    }

    /** A chat-completions answer whose {@code choices[0].message.content} is {@code content}. */
    static MockResponse chat(String content) {
        ObjectNode root = Output.mapper().createObjectNode();
        root.put("id", "chatcmpl-1").put("object", "chat.completion").put("model", MODEL);
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0).put("finish_reason", "stop");
        choice.putObject("message").put("role", "assistant").put("content", content);
        return json(200, Output.mapper().writeValueAsString(root));
    }

    static MockResponse json(int code, String body) {
        return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json").body(body).build();
    }

    /** A failing answer whose body holds a secret and the event's text, neither of which may leak. */
    static MockResponse failure(int code, String eventText) {
        return json(code, "{\"error\":{\"message\":\"" + BODY_SECRET + " while reading: " + eventText
                + "\",\"key\":\"" + API_KEY + "\"}}");
    }

    static JsonNode body(RecordedRequest request) {
        return Output.mapper().readTree(request.getBody().utf8());
    }

    /** The settings of a runner whose extraction model is {@code model} and embeddings {@code embed}. */
    static CliRunner configure(CliRunner cli, MockWebServer model, MockWebServer embed) {
        cli.env("JIYI_EXTRACT_URL", model.url("/v1").toString())
                .env("JIYI_EXTRACT_MODEL", MODEL)
                .env("JIYI_EXTRACT_API_KEY", API_KEY)
                .env("JIYI_EXTRACT_TIMEOUT_SECONDS", "10");
        return embedWith(cli, embed);
    }

    static CliRunner embedWith(CliRunner cli, MockWebServer embed) {
        return cli.env("JIYI_EMBED_URL", embed.url("/v1").toString())
                .env("JIYI_EMBED_MODEL", EMBED_MODEL)
                .env("JIYI_EMBED_API_KEY", EMBED_KEY)
                .env("JIYI_EMBED_TIMEOUT_SECONDS", "10");
    }

    /**
     * X2 / O7: {@code text} (a stored error, stdout or stderr) holds no response body, no credential,
     * no endpoint address and none of the given inputs.
     */
    static void assertNoLeak(String what, String text, MockWebServer server, String... inputs) {
        assertThat(text).as(what)
                .doesNotContain(BODY_SECRET)
                .doesNotContain(API_KEY)
                .doesNotContain(EMBED_KEY)
                .doesNotContain("unexpected request")
                .doesNotContain(server.url("/v1").toString())
                .doesNotContain(server.getHostName() + ":" + server.getPort())
                .doesNotContain("127.0.0.1:" + server.getPort());
        for (String input : inputs) {
            assertThat(text).as(what).doesNotContain(input);
        }
    }

    /**
     * An OpenAI-compatible {@code /embeddings} endpoint: each text gets a deterministic, non-zero
     * {@value #DIMENSIONS}-dimensional vector derived from its SHA-256. {@link #hook} may answer a
     * request differently (by 1-based request number and the texts), or run code before answering.
     */
    static final class Embeddings extends Dispatcher {

        final AtomicInteger requests = new AtomicInteger();
        final List<List<String>> inputs = new CopyOnWriteArrayList<>();
        final List<String> authorizations = new CopyOnWriteArrayList<>();
        /** Returns a response to use instead of the normal one, or null for the normal one. */
        volatile BiFunction<Integer, List<String>, MockResponse> hook = (n, texts) -> null;

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            int n = requests.incrementAndGet();
            List<String> texts = new ArrayList<>();
            JsonNode body = body(request);
            body.get("input").forEach(t -> texts.add(t.asString()));
            inputs.add(texts);
            authorizations.add(String.valueOf(request.getHeaders().get("Authorization")));
            MockResponse special = hook.apply(n, texts);
            if (special != null) {
                return special;
            }
            ObjectNode root = Output.mapper().createObjectNode();
            ArrayNode data = root.putArray("data");
            for (int i = 0; i < texts.size(); i++) {
                ObjectNode item = data.addObject();
                item.put("object", "embedding").put("index", i);
                ArrayNode v = item.putArray("embedding");
                for (float f : vector(texts.get(i))) {
                    v.add(f);
                }
            }
            root.put("model", EMBED_MODEL);
            return json(200, Output.mapper().writeValueAsString(root));
        }

        /** All texts embedded so far, in request order. */
        List<String> allTexts() {
            return inputs.stream().flatMap(List::stream).toList();
        }

        static float[] vector(String text) {
            byte[] hash;
            try {
                hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            float[] v = new float[DIMENSIONS];
            for (int i = 0; i < DIMENSIONS; i++) {
                v[i] = ((hash[i] & 0xff) - 127.5f) / 127.5f; // never 0
            }
            return v;
        }
    }
}
