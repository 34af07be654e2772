package dev.jiyi.engine;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Embedders;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * {@code reindex --vectors} (V3): embeds every memory of a scope that has no vector of the current
 * fingerprint of its language's model ({@link Embedders#forText}), outside any database
 * transaction, staging the vectors in a temporary file beside the
 * database (so memory use does not grow with the archive). Only when every batch has succeeded are
 * the staged vectors stored, in one transaction that rechecks each memory: one deleted, revoked or
 * changed meanwhile gets no vector. A failure stores nothing and leaves the old vectors in place.
 */
public final class VectorReindex {

    /** Memories read and embedded per step. */
    static final int STEP = 256;

    /**
     * What a run did: the fingerprints of the models it embedded with (the Chinese or only one first).
     */
    public record Report(List<String> fingerprints, int embedded, int stored, int skipped) {

        /** The first model's fingerprint (the only one unless the models are one per language). */
        public String fingerprint() {
            return fingerprints.getFirst();
        }
    }

    private final Authority authority;
    private final Embedders embedders;
    private final Path stagingDir;

    public VectorReindex(Authority authority, Embedders embedders, Path stagingDir) {
        this.authority = authority;
        this.embedders = embedders;
        this.stagingDir = stagingDir;
    }

    /**
     * Embeds the scope's memories that have no vector of the model of their language, showing the
     * memories embedded and their rate as progress. Every model embeds before any vector is stored;
     * then all are stored in one transaction.
     *
     * @throws dev.jiyi.providers.ProviderException when a model fails; nothing is stored then
     */
    public Report run(Scope scope, Output output) throws IOException {
        removeAbandoned();
        Map<Embedder, Path> staged = new LinkedHashMap<>();
        // No total: counting the memories without a vector first would read them all twice.
        try (Progress progress = output.progress("reindex --vectors", 0)) {
            try {
                int embedded = 0;
                for (Embedder model : embedders.all()) {
                    Path staging = Files.createTempFile(stagingDir, "vectors-", ".staging");
                    staged.put(model, staging);
                    embedded += stage(scope, model, staging, progress);
                }
                Map<String, Iterable<VectorCache.NewVector>> byModel = new LinkedHashMap<>();
                staged.forEach((model, file) -> byModel.put(model.fingerprint(), () -> read(file)));
                VectorCache.Stored done = authority.storeVectors(byModel);
                return new Report(embedders.all().stream().map(Embedder::fingerprint).toList(), embedded, done.stored(),
                        done.skipped());
            } catch (IOException | RuntimeException e) {
                progress.stop(); // the last line says it stopped, not that it was done
                throw e;
            }
        } finally {
            for (Path staging : staged.values()) {
                Files.deleteIfExists(staging);
            }
        }
    }

    /** Embeds, with {@code model}, the memories of its language that have no vector of it; returns how many. */
    private int stage(Scope scope, Embedder model, Path staging, Progress progress) throws IOException {
        String fingerprint = model.fingerprint();
        int embedded = 0;
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(staging)))) {
            long after = 0;
            for (List<VectorCache.Task> tasks = authority.memoriesWithoutVectors(scope, fingerprint, after, STEP);
                 !tasks.isEmpty(); tasks = authority.memoriesWithoutVectors(scope, fingerprint, after, STEP)) {
                after = tasks.getLast().rowId();
                List<VectorCache.Task> mine = tasks.stream().filter(t -> embedders.forText(t.text()) == model).toList();
                if (mine.isEmpty()) {
                    continue;
                }
                List<float[]> vectors = model.embed(mine.stream().map(VectorCache.Task::text).toList());
                for (int i = 0; i < mine.size(); i++) {
                    write(out, mine.get(i), vectors.get(i));
                }
                embedded += mine.size();
                progress.advance(mine.size());
            }
        }
        return embedded;
    }

    /**
     * Deletes staging files a killed run left behind (they hold memory IDs and vectors, which must
     * not outlive a deletion). A running reindex writes its file every few seconds, so only files
     * untouched for {@link #ABANDONED_AFTER} go.
     */
    private void removeAbandoned() throws IOException {
        java.time.Instant cutoff = java.time.Instant.now().minus(ABANDONED_AFTER);
        try (java.util.stream.Stream<Path> files = Files.list(stagingDir)) {
            for (Path p : files.filter(f -> f.getFileName().toString().matches("vectors-.*\\.staging")).toList()) {
                try {
                    if (Files.getLastModifiedTime(p).toInstant().isBefore(cutoff)) {
                        Files.deleteIfExists(p);
                    }
                } catch (IOException gone) {
                    // another run removed it first
                }
            }
        }
    }

    static final java.time.Duration ABANDONED_AFTER = java.time.Duration.ofMinutes(10);

    private static void write(DataOutputStream out, VectorCache.Task task, float[] vector) throws IOException {
        out.writeUTF(task.memoryId());
        out.writeUTF(task.contentHash());
        out.writeInt(vector.length);
        for (float f : vector) {
            out.writeFloat(f);
        }
    }

    /** The staged vectors, in order, read as the store consumes them. */
    private static Iterator<VectorCache.NewVector> read(Path staging) {
        DataInputStream in;
        try {
            in = new DataInputStream(new BufferedInputStream(Files.newInputStream(staging)));
        } catch (IOException e) {
            throw new UncheckedIOException("reading staged vectors", e);
        }
        return new Iterator<>() {
            private VectorCache.NewVector next = advance();

            private VectorCache.NewVector advance() {
                try {
                    String id;
                    try {
                        id = in.readUTF();
                    } catch (EOFException end) {
                        in.close();
                        return null;
                    }
                    String hash = in.readUTF();
                    float[] v = new float[in.readInt()];
                    for (int i = 0; i < v.length; i++) {
                        v[i] = in.readFloat();
                    }
                    return new VectorCache.NewVector(id, hash, v);
                } catch (IOException e) {
                    throw new UncheckedIOException("reading staged vectors", e);
                }
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public VectorCache.NewVector next() {
                if (next == null) {
                    throw new NoSuchElementException();
                }
                VectorCache.NewVector current = next;
                next = advance();
                return current;
            }
        };
    }
}
