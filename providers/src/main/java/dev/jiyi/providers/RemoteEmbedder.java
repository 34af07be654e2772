package dev.jiyi.providers;

import okhttp3.OkHttpClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Embeddings from an OpenAI-compatible {@code /embeddings} endpoint: {@code {"model", "input": [...]}}
 * in batches of at most {@code batchSize} texts, vectors put back in input order by each item's
 * {@code index}, checked (one vector per text, one dimension for all) and scaled to unit length.
 * Failures are {@link ProviderException}s whose messages are safe to store.
 */
public final class RemoteEmbedder implements Embedder {

    /** Texts per request unless configured otherwise; OpenAI accepts far more, small servers not always. */
    public static final int DEFAULT_BATCH_SIZE = 64;

    private final Endpoint endpoint;
    private final String version;
    private final int batchSize;
    private final OpenAiHttp http;

    /** @param version the configured version: changing it makes every stored vector stale (V1) */
    public RemoteEmbedder(Endpoint endpoint, String version, int batchSize) {
        this(endpoint, version, batchSize, OpenAiHttp.sharedClient());
    }

    /** @param client shared for its connections; its timeouts are replaced by the endpoint's */
    public RemoteEmbedder(Endpoint endpoint, String version, int batchSize, OkHttpClient client) {
        if (version == null || version.isBlank()) {
            throw new ProviderException(ProviderException.Kind.NOT_CONFIGURED, "embedding version: is required");
        }
        if (batchSize < 1) {
            throw new ProviderException(ProviderException.Kind.NOT_CONFIGURED, "batch size: must be at least 1");
        }
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.version = version;
        this.batchSize = batchSize;
        this.http = new OpenAiHttp(endpoint, client, "embedding endpoint");
    }

    @Override
    public String fingerprint() {
        return Fingerprints.remote(endpoint.baseUrl(), endpoint.model(), version);
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        List<float[]> vectors = new ArrayList<>(texts.size());
        for (int from = 0; from < texts.size(); from += batchSize) {
            vectors.addAll(embedBatch(texts.subList(from, Math.min(texts.size(), from + batchSize)), from));
        }
        for (float[] v : vectors) {
            if (v.length != vectors.getFirst().length) {
                throw http.malformed("answered vectors of " + vectors.getFirst().length + " and " + v.length
                        + " dimensions");
            }
        }
        return vectors;
    }

    /** @param offset the position of the batch's first text in the caller's list, for messages */
    private List<float[]> embedBatch(List<String> texts, int offset) {
        ObjectNode body = OpenAiHttp.JSON.createObjectNode();
        body.put("model", endpoint.model());
        ArrayNode input = body.putArray("input");
        texts.forEach(input::add);

        JsonNode data = http.post("embeddings", body).path("data");
        if (!data.isArray()) {
            throw http.malformed("answered without a data array");
        }
        if (data.size() != texts.size()) {
            throw http.malformed("answered " + data.size() + " vectors for " + texts.size() + " texts");
        }
        float[][] vectors = new float[texts.size()][];
        for (int position = 0; position < data.size(); position++) {
            JsonNode item = data.get(position);
            int index = indexOf(item, position, texts.size());
            if (vectors[index] != null) {
                throw http.malformed("answered index " + index + " twice");
            }
            vectors[index] = vector(item.path("embedding"), offset + index);
        }
        return List.of(vectors);
    }

    /** The item's {@code index}, or its position when it has none; either must name a text of the batch. */
    private int indexOf(JsonNode item, int position, int count) {
        JsonNode index = item.path("index");
        if (index.isMissingNode()) {
            return position;
        }
        if (!index.isIntegralNumber() || !index.canConvertToInt() || index.intValue() < 0
                || index.intValue() >= count) {
            throw http.malformed("answered an item whose index is not an integer from 0 to " + (count - 1));
        }
        return index.intValue();
    }

    private float[] vector(JsonNode embedding, int text) {
        if (!embedding.isArray() || embedding.isEmpty()) {
            throw http.malformed("answered no embedding array for text " + text);
        }
        float[] v = new float[embedding.size()];
        for (int i = 0; i < v.length; i++) {
            JsonNode x = embedding.get(i);
            if (!x.isNumber()) {
                throw http.malformed("answered a non-number in the embedding of text " + text);
            }
            v[i] = x.numberValue().floatValue();
        }
        if (!UnitVectors.normalize(v)) {
            throw http.malformed("answered a zero vector for text " + text);
        }
        return v;
    }
}
