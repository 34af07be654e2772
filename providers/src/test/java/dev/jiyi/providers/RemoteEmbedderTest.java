package dev.jiyi.providers;

import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.jiyi.providers.ProviderTestKit.API_KEY;
import static dev.jiyi.providers.ProviderTestKit.EN;
import static dev.jiyi.providers.ProviderTestKit.ZH;
import static dev.jiyi.providers.ProviderTestKit.assertSanitized;
import static dev.jiyi.providers.ProviderTestKit.body;
import static dev.jiyi.providers.ProviderTestKit.endpoint;
import static dev.jiyi.providers.ProviderTestKit.failure;
import static dev.jiyi.providers.ProviderTestKit.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.within;

/** {@link RemoteEmbedder} against a local mock server. */
class RemoteEmbedderTest {

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

    /** An embeddings answer: item {@code i} is {@code vectors[i]} with index {@code indexes[i]}. */
    private static String answer(int[] indexes, double[]... vectors) {
        ObjectNode root = ProviderTestKit.JSON.createObjectNode();
        root.put("object", "list").put("model", "test-model");
        ArrayNode data = root.putArray("data");
        for (int i = 0; i < vectors.length; i++) {
            ObjectNode item = data.addObject();
            item.put("object", "embedding");
            if (indexes != null) {
                item.put("index", indexes[i]);
            }
            ArrayNode embedding = item.putArray("embedding");
            for (double x : vectors[i]) {
                embedding.add(x);
            }
        }
        return ProviderTestKit.JSON.writeValueAsString(root);
    }

    /** A vector pointing along axis {@code axis}, longer than unit so normalization shows. */
    private static double[] axis(int axis, int dimensions) {
        double[] v = new double[dimensions];
        v[axis] = axis + 2;
        return v;
    }

    private static List<String> inputs(RecordedRequest request) {
        List<String> texts = new ArrayList<>();
        body(request).path("input").forEach(t -> texts.add(t.stringValue()));
        return texts;
    }

    @Test
    @DisplayName("V1 five texts in batches of two: three requests, order kept when data comes back out of order")
    void batches() throws InterruptedException {
        server.enqueue(json(answer(new int[] {1, 0}, axis(1, 5), axis(0, 5))));
        server.enqueue(json(answer(new int[] {1, 0}, axis(3, 5), axis(2, 5))));
        server.enqueue(json(answer(new int[] {0}, axis(4, 5))));
        List<String> texts = List.of("a", ZH, EN, "d", "e");

        List<float[]> vectors = new RemoteEmbedder(endpoint(server, API_KEY), "1", 2).embed(texts);

        assertThat(server.getRequestCount()).isEqualTo(3);
        RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(first.getMethod()).isEqualTo("POST");
        assertThat(first.getTarget()).isEqualTo("/v1/embeddings");
        assertThat(first.getHeaders().get("Authorization")).isEqualTo("Bearer " + API_KEY);
        assertThat(body(first).path("model").stringValue()).isEqualTo("test-model");
        assertThat(inputs(first)).containsExactly("a", ZH);
        assertThat(inputs(server.takeRequest(5, TimeUnit.SECONDS))).containsExactly(EN, "d");
        assertThat(inputs(server.takeRequest(5, TimeUnit.SECONDS))).containsExactly("e");
        assertThat(vectors).hasSize(5);
        for (int i = 0; i < 5; i++) {
            float[] expected = new float[5];
            expected[i] = 1f;
            assertThat(vectors.get(i)).as("vector %d", i).containsExactly(expected, within(1e-6f));
        }
    }

    @Test
    @DisplayName("V1 vectors come back at unit length; items without index are taken in order")
    void normalized() {
        server.enqueue(json(answer(null, new double[] {3, 4}, new double[] {-1, 1e-3})));

        List<float[]> vectors = new RemoteEmbedder(endpoint(server, null), "1", 64).embed(List.of("x", "y"));

        assertThat(vectors.get(0)).containsExactly(new float[] {0.6f, 0.8f}, within(1e-6f));
        float[] y = vectors.get(1);
        assertThat((double) y[0] * y[0] + (double) y[1] * y[1]).isCloseTo(1.0, within(1e-6));
        assertThat(y[0]).isNegative();
    }

    @Test
    @DisplayName("V1 no texts: no request, no vectors")
    void empty() {
        assertThat(new RemoteEmbedder(endpoint(server, API_KEY), "1", 2).embed(List.of())).isEmpty();
        assertThat(server.getRequestCount()).isZero();
    }

    @Test
    @DisplayName("V1 one text through the default method")
    void single() {
        server.enqueue(json(answer(new int[] {0}, new double[] {0, 2})));

        assertThat(new RemoteEmbedder(endpoint(server, API_KEY), "1", 64).embed(ZH))
                .containsExactly(new float[] {0, 1}, within(1e-6f));
    }

    @Test
    @DisplayName("V1 the wrong number of vectors is MALFORMED_ANSWER")
    void wrongCount() {
        server.enqueue(json(answer(new int[] {0}, new double[] {1, 0})));

        assertMalformed(() -> new RemoteEmbedder(endpoint(server, API_KEY), "1", 64).embed(List.of("a", "b")),
                "embedding endpoint answered 1 vectors for 2 texts");
    }

    @Test
    @DisplayName("V1 vectors of different dimensions, in one batch or across batches, are MALFORMED_ANSWER")
    void mismatchedDimensions() {
        server.enqueue(json(answer(new int[] {0, 1}, new double[] {1, 0}, new double[] {1, 0, 0})));
        server.enqueue(json(answer(new int[] {0}, new double[] {1, 0})));
        server.enqueue(json(answer(new int[] {0}, new double[] {1, 0, 0})));

        assertMalformed(() -> new RemoteEmbedder(endpoint(server, API_KEY), "1", 64).embed(List.of("a", "b")),
                "embedding endpoint answered vectors of 2 and 3 dimensions");
        assertMalformed(() -> new RemoteEmbedder(endpoint(server, API_KEY), "1", 1).embed(List.of("a", "b")),
                "embedding endpoint answered vectors of 2 and 3 dimensions");
    }

    @Test
    @DisplayName("V1 a zero vector, a repeated or out-of-range index, a non-number, no data: MALFORMED_ANSWER")
    void otherMalformed() {
        RemoteEmbedder embedder = new RemoteEmbedder(endpoint(server, API_KEY), "1", 64);
        server.enqueue(json(answer(new int[] {0, 1}, new double[] {1, 0}, new double[] {0, 0})));
        server.enqueue(json(answer(new int[] {1, 1}, new double[] {1, 0}, new double[] {0, 1})));
        server.enqueue(json(answer(new int[] {0, 2}, new double[] {1, 0}, new double[] {0, 1})));
        server.enqueue(json("{\"data\": [{\"index\": 0, \"embedding\": [1, \"2\"]}, {\"index\": 1, \"embedding\": [1, 2]}]}"));
        server.enqueue(json("{\"data\": [{\"index\": 0, \"embedding\": []}, {\"index\": 1, \"embedding\": [1, 2]}]}"));
        server.enqueue(json("{\"object\": \"list\"}"));

        assertMalformed(() -> embedder.embed(List.of("a", "b")), "embedding endpoint answered a zero vector for text 1");
        assertMalformed(() -> embedder.embed(List.of("a", "b")), "embedding endpoint answered index 1 twice");
        assertMalformed(() -> embedder.embed(List.of("a", "b")),
                "embedding endpoint answered an item whose index is not an integer from 0 to 1");
        assertMalformed(() -> embedder.embed(List.of("a", "b")),
                "embedding endpoint answered a non-number in the embedding of text 0");
        assertMalformed(() -> embedder.embed(List.of("a", "b")),
                "embedding endpoint answered no embedding array for text 0");
        assertMalformed(() -> embedder.embed(List.of("a", "b")), "embedding endpoint answered without a data array");
    }

    private void assertMalformed(Runnable call, String message) {
        ProviderException e = catchThrowableOfType(ProviderException.class, call::run);
        assertThat(e.kind()).isEqualTo(ProviderException.Kind.MALFORMED_ANSWER);
        assertThat(e.getMessage()).isEqualTo(message);
        assertSanitized(e, server);
    }

    @Test
    @DisplayName("V2 HTTP 500 is HTTP_STATUS with a sanitized message")
    void httpStatus() {
        server.enqueue(failure(500, ZH));

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new RemoteEmbedder(endpoint(server, API_KEY), "1", 64).embed(List.of(ZH, EN)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.HTTP_STATUS);
        assertThat(e.status()).isEqualTo(500);
        assertThat(e.getMessage()).isEqualTo("embedding endpoint answered HTTP 500");
        assertSanitized(e, server, ZH, EN);
    }

    @Test
    @DisplayName("V2 a closed port is NETWORK with a sanitized message")
    void connectionRefused() {
        Endpoint endpoint = endpoint(server, API_KEY, Duration.ofSeconds(2));
        server.close();

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> new RemoteEmbedder(endpoint, "1", 64).embed(List.of(ZH)));

        assertThat(e.kind()).isEqualTo(ProviderException.Kind.NETWORK);
        assertThat(e.getMessage()).isEqualTo("embedding endpoint could not be reached (connection refused)");
        assertSanitized(e, server, ZH);
    }

    @Test
    @DisplayName("V1 the fingerprint is endpoint + model + configured version, without key or user-info")
    void fingerprint() {
        Endpoint endpoint = new Endpoint("http://embed:" + API_KEY + "@127.0.0.1:8080/v1/", "bge-m3", API_KEY,
                Duration.ofSeconds(30));

        String fingerprint = new RemoteEmbedder(endpoint, "2", 64).fingerprint();

        assertThat(fingerprint).isEqualTo("openai-compatible:http://127.0.0.1:8080/v1|bge-m3|2")
                .doesNotContain(API_KEY).doesNotContain("embed:");
        assertThat(new RemoteEmbedder(endpoint, "3", 64).fingerprint()).isNotEqualTo(fingerprint);
    }

    @Test
    @DisplayName("V1 a batch size below one and a blank version are NOT_CONFIGURED")
    void configuration() {
        Endpoint endpoint = endpoint(server, API_KEY);

        assertThatThrownBy(() -> new RemoteEmbedder(endpoint, "1", 0))
                .isInstanceOfSatisfying(ProviderException.class,
                        e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.NOT_CONFIGURED))
                .hasMessage("batch size: must be at least 1");
        assertThatThrownBy(() -> new RemoteEmbedder(endpoint, " ", 8))
                .isInstanceOfSatisfying(ProviderException.class,
                        e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.NOT_CONFIGURED))
                .hasMessage("embedding version: is required");
    }

    @Test
    @DisplayName("V1 the request body is exactly model and input")
    void requestBody() throws InterruptedException {
        server.enqueue(json(answer(new int[] {0}, new double[] {1, 1})));

        new RemoteEmbedder(endpoint(server, null), "1", 64).embed(List.of(EN));

        JsonNode body = body(server.takeRequest(5, TimeUnit.SECONDS));
        List<String> keys = new ArrayList<>();
        body.properties().forEach(e -> keys.add(e.getKey()));
        assertThat(keys).containsExactly("model", "input");
    }
}
