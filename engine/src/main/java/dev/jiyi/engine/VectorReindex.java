package dev.jiyi.engine;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.providers.Embedder;

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
import java.util.List;
import java.util.NoSuchElementException;

/**
 * {@code reindex --vectors} (V3): embeds every memory of a scope that has no vector of the current
 * fingerprint, outside any database transaction, staging the vectors in a temporary file beside the
 * database (so memory use does not grow with the archive). Only when every batch has succeeded are
 * the staged vectors stored, in one transaction that rechecks each memory: one deleted, revoked or
 * changed meanwhile gets no vector. A failure stores nothing and leaves the old vectors in place.
 */
public final class VectorReindex {

    /** Memories read and embedded per step. */
    static final int STEP = 256;

    /** What a run did. */
    public record Report(String fingerprint, int embedded, int stored, int skipped) {
    }

    private final Authority authority;
    private final Embedder embedder;
    private final Path stagingDir;

    public VectorReindex(Authority authority, Embedder embedder, Path stagingDir) {
        this.authority = authority;
        this.embedder = embedder;
        this.stagingDir = stagingDir;
    }

    /**
     * Embeds the scope's memories that have no vector of this model, showing the memories embedded
     * and their rate as progress.
     *
     * @throws dev.jiyi.providers.ProviderException when the model fails; nothing is stored then
     */
    public Report run(Scope scope, Output output) throws IOException {
        String fingerprint = embedder.fingerprint();
        removeAbandoned();
        Path staging = Files.createTempFile(stagingDir, "vectors-", ".staging");
        // No total: counting the memories without a vector first would read them all twice.
        try (Progress progress = output.progress("reindex --vectors", 0)) {
            try {
                int embedded = 0;
                try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(staging)))) {
                    long after = 0;
                    for (List<VectorCache.Task> tasks = authority.memoriesWithoutVectors(scope, fingerprint, after, STEP);
                         !tasks.isEmpty(); tasks = authority.memoriesWithoutVectors(scope, fingerprint, after, STEP)) {
                        List<float[]> vectors = embedder.embed(tasks.stream().map(VectorCache.Task::text).toList());
                        for (int i = 0; i < tasks.size(); i++) {
                            write(out, tasks.get(i), vectors.get(i));
                        }
                        embedded += tasks.size();
                        progress.advance(tasks.size());
                        after = tasks.getLast().rowId();
                    }
                }
                VectorCache.Stored stored = authority.storeVectors(fingerprint, () -> read(staging));
                return new Report(fingerprint, embedded, stored.stored(), stored.skipped());
            } catch (IOException | RuntimeException e) {
                progress.stop(); // the last line says it stopped, not that it was done
                throw e;
            }
        } finally {
            Files.deleteIfExists(staging);
        }
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
