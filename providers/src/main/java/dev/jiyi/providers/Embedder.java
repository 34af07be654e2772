package dev.jiyi.providers;

import java.util.List;

/**
 * Turns texts into unit-length vectors (so cosine similarity is a dot product). Implementations:
 * {@link RemoteEmbedder} (OpenAI-compatible {@code /embeddings}) and {@link LocalEmbedder} (a
 * {@link LocalModel} on ONNX Runtime). A home's models and which one embeds a text: {@link Embedders}.
 */
public interface Embedder {

    /** R3: the similarity at or below which an unknown model's vectors are not evidence. */
    double DEFAULT_COSINE_THRESHOLD = 0.3;

    /** V1: vectors of another fingerprint are never compared with this one's. */
    String fingerprint();

    /**
     * One vector per text, in order, each of unit length.
     *
     * @throws ProviderException on any failure; its message is safe to store and show
     */
    List<float[]> embed(List<String> texts);

    /**
     * The cosine similarity at or below which this model's vectors are not evidence, unless
     * {@code recall.cosine_threshold} is set: {@link #DEFAULT_COSINE_THRESHOLD} unless the model
     * is known to place unrelated texts higher (see {@link LocalModel#BGE_SMALL_ZH}).
     */
    default double cosineThreshold() {
        return DEFAULT_COSINE_THRESHOLD;
    }

    /**
     * The similarity at or above which this model's vectors are evidence on their own for
     * {@code query}, when nothing lexical supports a recall (R6, R11), given the threshold in force
     * ({@link #cosineThreshold} or {@code recall.cosine_threshold}) and how many vectors of this
     * model the recall compares with (the more there are, the higher the best of them lies by
     * chance): below it, similar memories still rank, but only beside lexical evidence. By default
     * the threshold itself.
     */
    default double standaloneThreshold(String query, double threshold, long vectors) {
        return threshold;
    }

    default float[] embed(String text) {
        return embed(List.of(text)).getFirst();
    }

    /** A query's vector: the text, or the text with the instruction the model wants for queries. */
    default float[] embedQuery(String query) {
        return embed(query);
    }
}
