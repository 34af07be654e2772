package dev.jiyi.providers;

/** Turns one event into candidate memories (X1). Called outside any database transaction. */
public interface Extractor {

    /** Which model produced an answer: endpoint, model and prompt version (never the key). */
    String fingerprint();

    /**
     * @throws ProviderException on any failure; its message is safe to store (X2)
     */
    ExtractionAnswer extract(ExtractionInput input);
}
