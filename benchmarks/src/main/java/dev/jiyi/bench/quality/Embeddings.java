package dev.jiyi.bench.quality;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.engine.Progress;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Embedders;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Vectors for the semantic and deep runs: every memory of a loaded archive embedded in batches and
 * stored in the authority's vector cache the way {@code jiyi reindex --vectors} does it (memories
 * without a vector of the model's fingerprint, then {@code storeVectors}, which rechecks each
 * memory's text), and an embedder that remembers the vectors of texts it has embedded, so a query
 * is embedded once for the calibration and for every mode and threshold that follows.
 */
final class Embeddings {

    /** Memories read and embedded per step (as {@code reindex --vectors}). */
    static final int STEP = 256;

    private Embeddings() {
    }

    /** What embedding an archive did: the vectors by memory ID of each model, and how long it took. */
    record Archive(Map<Embedder, Map<String, float[]>> vectors, int stored, int skipped, double seconds) {

        int size() {
            return vectors.values().stream().mapToInt(Map::size).sum();
        }
    }

    /**
     * Embeds and stores a vector for every memory of the scopes that has none of its language's
     * model's fingerprint (as {@code reindex --vectors}).
     *
     * @param progress advanced by each memory embedded
     */
    static Archive embed(Authority authority, Iterable<Scope> scopes, Embedders models, Progress progress) {
        Map<Embedder, Map<String, float[]>> vectors = new LinkedHashMap<>();
        int stored = 0;
        int skipped = 0;
        long start = System.nanoTime();
        for (Embedder embedder : models.all()) {
            String fingerprint = embedder.fingerprint();
            Map<String, float[]> mine = vectors.computeIfAbsent(embedder, k -> new HashMap<>());
            for (Scope scope : new LinkedHashSet<>(toList(scopes))) {
                long after = 0;
                for (List<VectorCache.Task> tasks = authority.memoriesWithoutVectors(scope, fingerprint, after, STEP);
                     !tasks.isEmpty(); tasks = authority.memoriesWithoutVectors(scope, fingerprint, after, STEP)) {
                    after = tasks.getLast().rowId();
                    tasks = tasks.stream().filter(t -> models.forText(t.text()) == embedder).toList();
                    if (tasks.isEmpty()) {
                        continue;
                    }
                    List<float[]> embedded = embedder.embed(tasks.stream().map(VectorCache.Task::text).toList());
                    List<VectorCache.NewVector> batch = new ArrayList<>(tasks.size());
                    for (int i = 0; i < tasks.size(); i++) {
                        VectorCache.Task t = tasks.get(i);
                        batch.add(new VectorCache.NewVector(t.memoryId(), t.contentHash(), embedded.get(i)));
                        mine.put(t.memoryId(), embedded.get(i));
                    }
                    VectorCache.Stored s = authority.storeVectors(fingerprint, batch);
                    stored += s.stored();
                    skipped += s.skipped();
                    progress.advance(tasks.size());
                }
            }
        }
        return new Archive(vectors, stored, skipped, (System.nanoTime() - start) / 1e9);
    }

    private static <T> List<T> toList(Iterable<T> items) {
        List<T> out = new ArrayList<>();
        items.forEach(out::add);
        return out;
    }

    /** The dot product of two unit vectors: their cosine similarity. */
    static double cosine(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /**
     * A query embedder that answers a query it has embedded before from memory (same fingerprint as
     * the model it wraps, and the model's query form), so repeated recalls of the same question do
     * not re-run the model.
     */
    static final class Caching implements Embedder {

        private final Embedder model;
        private final Map<String, float[]> cache = new ConcurrentHashMap<>();

        Caching(Embedder model) {
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

        /** Each text as a query ({@link Embedder#embedQuery}). */
        @Override
        public List<float[]> embed(List<String> texts) {
            return texts.stream().map(t -> cache.computeIfAbsent(t, model::embedQuery)).toList();
        }

        @Override
        public float[] embedQuery(String query) {
            return embed(query);
        }
    }
}
