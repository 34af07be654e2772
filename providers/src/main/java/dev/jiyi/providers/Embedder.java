package dev.jiyi.providers;

import java.util.List;

/**
 * Turns texts into unit-length vectors (so cosine similarity is a dot product). Implementations:
 * {@link RemoteEmbedder} (OpenAI-compatible {@code /embeddings}) and {@link LocalEmbedder} (BGE small
 * zh v1.5, quantized, on ONNX Runtime).
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
     * is known to place unrelated texts higher (see {@link LocalEmbedder#COSINE_THRESHOLD}).
     */
    default double cosineThreshold() {
        return DEFAULT_COSINE_THRESHOLD;
    }

    /**
     * The similarity at or above which this model's vectors are evidence on their own for
     * {@code query}, when nothing lexical supports a recall (R6, R11), given the threshold in force
     * ({@link #cosineThreshold} or {@code recall.cosine_threshold}): below it, similar memories still
     * rank, but only beside lexical evidence. By default the threshold itself.
     */
    default double standaloneThreshold(String query, double threshold) {
        return threshold;
    }

    default float[] embed(String text) {
        return embed(List.of(text)).getFirst();
    }
}
