package dev.jiyi.bench;

import dev.jiyi.providers.Embedder;
import java.util.List;
/**
 * The embedder recall is given, timing each call, so that a recall's query embedding can be told
 * apart from the rest of it. Single-threaded use only, as the harness does.
 */
final class TimedEmbedder implements Embedder {

    private final Embedder model;
    private long lastNanos;
    private float[] lastVector;

    TimedEmbedder(Embedder model) {
        this.model = model;
    }

    @Override
    public String fingerprint() {
        return model.fingerprint();
    }

    @Override
    public double cosineThreshold() {
        return model.cosineThreshold();
    }

    @Override
    public double standaloneThreshold(String query, double threshold, long vectors) {
        return model.standaloneThreshold(query, threshold, vectors);
    }

    @Override
    public float[] embedQuery(String query) {
        long t = System.nanoTime();
        float[] vector = model.embedQuery(query);
        lastNanos = System.nanoTime() - t;
        lastVector = vector;
        return vector;
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        long t = System.nanoTime();
        List<float[]> vectors = model.embed(texts);
        lastNanos = System.nanoTime() - t;
        lastVector = vectors.getLast();
        return vectors;
    }

    /** Forgets the last call's time, so that a recall that embeds nothing reads zero. */
    void reset() {
        lastNanos = 0;
    }

    long lastNanos() {
        return lastNanos;
    }

    /** The last vector of the last call. */
    float[] lastVector() {
        return lastVector;
    }
}
