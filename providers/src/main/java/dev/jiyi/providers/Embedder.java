package dev.jiyi.providers;

import java.util.List;

/**
 * Turns texts into unit-length vectors (so cosine similarity is a dot product). Implementations:
 * {@link RemoteEmbedder} (OpenAI-compatible {@code /embeddings}) and {@link LocalEmbedder} (BGE small
 * zh v1.5, quantized, on ONNX Runtime).
 */
public interface Embedder {

    /** V1: vectors of another fingerprint are never compared with this one's. */
    String fingerprint();

    /**
     * One vector per text, in order, each of unit length.
     *
     * @throws ProviderException on any failure; its message is safe to store and show
     */
    List<float[]> embed(List<String> texts);

    default float[] embed(String text) {
        return embed(List.of(text)).getFirst();
    }
}
