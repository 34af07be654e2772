package dev.jiyi.bench;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.engine.Home;
import dev.jiyi.engine.Jiyi;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A chat archive of {@code size} memories in the default scope (one {@link ChatCorpus} event and one
 * memory derived from it per row, loaded through the batch APIs with the FTS5 index attached, as
 * {@link SemanticHarness} builds them), optionally with a vector per memory, kept under a cache
 * directory and reused by later runs: building a million rows takes several minutes.
 *
 * <p>A directory is used only when its {@code archive.properties} says it is complete; one left by
 * an interrupted build is deleted and built again. The same file keeps the build times, so a reused
 * archive still reports what building it cost. Nothing here ever touches {@code $JIYI_HOME}.
 */
public final class CachedArchive {

    /** Where archives are kept unless {@code --archives} says otherwise. */
    public static final Path DEFAULT_ROOT = Path.of(System.getProperty("java.io.tmpdir"), "jiyi-bench-archives");

    private static final String PROPERTIES = "archive.properties";
    private static final String COMPLETE = "complete";

    /**
     * How the archive's vectors are drawn: uniform on the sphere; around seeded centroids with
     * isotropic noise; or from a seeded low-dimensional subspace ({@link VectorSource#SUBSPACE}
     * dimensions). The first two have the full intrinsic dimension of the space, HNSW's hard case;
     * text embeddings concentrate near a subspace of a few tens of dimensions, which the third models.
     */
    public enum Distribution { RANDOM, CLUSTERED, LOWRANK }

    /**
     * A vector per memory: {@code dimensions} floats of unit length, stored through
     * {@link Authority#storeVectors} under {@link #fingerprint}.
     */
    public record VectorSpec(int dimensions, Distribution distribution) {

        public VectorSpec {
            if (dimensions < 2) {
                throw new IllegalArgumentException("dimensions: must be at least 2, was " + dimensions);
            }
        }

        /** The fingerprint the vectors are stored under: no model made them. */
        public String fingerprint() {
            return "bench:" + distribution.name().toLowerCase(Locale.ROOT) + "-" + dimensions;
        }
    }

    private final Path dir;
    private final Properties properties;
    private final boolean reused;

    private CachedArchive(Path dir, Properties properties, boolean reused) {
        this.dir = dir;
        this.properties = properties;
        this.reused = reused;
    }

    /**
     * The archive of {@code size} memories made from {@code seed} (with vectors when {@code vectors}
     * is not null) under {@code root}: the cached one if complete, else built now.
     */
    public static CachedArchive open(Path root, int size, long seed, VectorSpec vectors, int chunkSize, PrintStream log) {
        if (size < 1 || chunkSize < 1) {
            throw new IllegalArgumentException("size and chunk size must be at least 1");
        }
        String name = "chat-" + size + "-s" + seed + (vectors == null ? ""
                : "-" + vectors.distribution().name().toLowerCase(Locale.ROOT) + vectors.dimensions());
        String what = String.format(Locale.ROOT, "%,d memories%s", size,
                vectors == null ? "" : " with " + vectors.fingerprint() + " vectors");
        return open(root, name, what, archive -> archive.build(size, seed, vectors, chunkSize), log);
    }

    /**
     * The realistic archive of {@code size} turns of {@link ZipfCorpus} made from {@code seed}, one
     * event and one memory each, in its four scopes: the cached one if complete, else built now.
     */
    public static CachedArchive openZipf(Path root, int size, long seed, int chunkSize, PrintStream log) {
        if (size < 1 || chunkSize < 1) {
            throw new IllegalArgumentException("size and chunk size must be at least 1");
        }
        return open(root, "zipf-" + size + "-s" + seed + "-v" + ZIPF_VERSION,
                String.format(Locale.ROOT, "a realistic archive of %,d turns", size),
                archive -> archive.buildZipf(new ZipfCorpus(seed, size), chunkSize), log);
    }

    /**
     * Changes with any change to {@link ZipfCorpus}'s output, or to what a home built now holds that
     * the benchmarks measure, so that no stale archive is reused. 2: FTS5's kept row lengths
     * ({@code fts5_lengths}), which an archive from before would fill only a few blocks a write.
     * 3: FTS5's merges keep up with batches (an archive from before holds 25 and 56 segments).
     * 4: the analysis of {@code analysis-2} (English irregular forms); an archive from before would
     * rebuild both indexes when first opened, in steps whose segments are not an import's.
     */
    static final int ZIPF_VERSION = 4;

    /**
     * The archive called {@code name} under {@code root}: the cached one if its properties say it is
     * complete, else an empty directory that {@code build} fills (through {@link #home()}, recording
     * figures with {@link #record}) before it is marked complete. An archive left incomplete by an
     * interrupted build is deleted and built again.
     *
     * @param what what the archive holds, for the log line
     */
    public static CachedArchive open(Path root, String name, String what, Consumer<CachedArchive> build, PrintStream log) {
        Path dir = root.resolve(name);
        Path file = dir.resolve(PROPERTIES);
        Properties p = read(file);
        if ("true".equals(p.getProperty(COMPLETE))) {
            log.printf(Locale.ROOT, "reusing the archive %s%n", dir);
            return new CachedArchive(dir, p, true);
        }
        deleteTree(dir);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the archive directory " + dir, e);
        }
        log.printf(Locale.ROOT, "building %s in %s (kept for later runs) ...%n", what, dir);
        CachedArchive archive = new CachedArchive(dir, new Properties(), false);
        build.accept(archive);
        archive.properties.setProperty(COMPLETE, "true");
        archive.write();
        return archive;
    }

    public Path dir() {
        return dir;
    }

    public Home home() {
        return new Home(dir);
    }

    /** Whether this run found the archive already built. */
    public boolean reused() {
        return reused;
    }

    /** A figure recorded in {@code archive.properties} (build times in nanoseconds), or -1. */
    public long figure(String key) {
        return Long.parseLong(properties.getProperty(key, "-1"));
    }

    /** The texts recorded with {@link #note} under keys that start with {@code prefix}, by the rest of the key. */
    public java.util.Map<String, String> notes(String prefix) {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith(prefix)) {
                out.put(key.substring(prefix.length()), properties.getProperty(key));
            }
        }
        return out;
    }

    /** Records a text in {@code archive.properties}, so that later runs can read it. */
    public void note(String key, String value) {
        properties.setProperty(key, value);
        write();
    }

    /** Records a figure in {@code archive.properties}, so that later runs can report it. */
    public void record(String key, long value) {
        properties.setProperty(key, Long.toString(value));
        write();
    }

    private void build(int size, long seed, VectorSpec vectors, int chunkSize) {
        ChatCorpus corpus = new ChatCorpus(seed, "archive" + size);
        SplittableRandom quotes = new SplittableRandom(seed);
        long events = 0;
        long memories = 0;
        try (Jiyi jiyi = Jiyi.open(home())) {
            Authority authority = jiyi.authority();
            for (int done = 0; done < size; done += chunkSize) {
                List<EventSubmission> chunk = corpus.nextEvents(Math.min(chunkSize, size - done));
                long t = System.nanoTime();
                DeletionHarness.require(authority.submitEvents(chunk));
                events += System.nanoTime() - t;
                List<Derivation> drafts = chunk.stream().map(e -> SemanticHarness.derivation(e, quotes)).toList();
                t = System.nanoTime();
                DeletionHarness.require(authority.addMemories(drafts));
                memories += System.nanoTime() - t;
            }
            properties.setProperty("memories", Integer.toString(size));
            properties.setProperty("eventsNanos", Long.toString(events));
            properties.setProperty("memoriesNanos", Long.toString(memories));
            if (vectors != null) {
                properties.setProperty("vectorsNanos", Long.toString(storeVectors(authority, vectors, seed, chunkSize)));
            }
            // What building the FTS5 index alone costs: mark it stale and time the open that rebuilds it.
            authority.markIndexStale("fts5");
        }
        long t = System.nanoTime();
        try (Jiyi reopened = Jiyi.open(home())) {
            properties.setProperty("fts5RebuildNanos", Long.toString(System.nanoTime() - t));
        }
    }

    private void buildZipf(ZipfCorpus corpus, int chunkSize) {
        long events = 0;
        long memories = 0;
        try (Jiyi jiyi = Jiyi.open(home())) {
            Authority authority = jiyi.authority();
            for (long from = 0; from < corpus.size(); from += chunkSize) {
                long to = Math.min(corpus.size(), from + chunkSize);
                List<EventSubmission> chunk = corpus.events(from, to);
                long t = System.nanoTime();
                DeletionHarness.require(authority.submitEvents(chunk));
                events += System.nanoTime() - t;
                List<Derivation> drafts = new ArrayList<>(chunk.size());
                for (int i = 0; i < chunk.size(); i++) {
                    drafts.add(corpus.memory(chunk.get(i), from + i));
                }
                t = System.nanoTime();
                DeletionHarness.require(authority.addMemories(drafts));
                memories += System.nanoTime() - t;
            }
            properties.setProperty("memories", Long.toString(corpus.size()));
            properties.setProperty("eventsNanos", Long.toString(events));
            properties.setProperty("memoriesNanos", Long.toString(memories));
        }
    }

    /** Stores one generated vector per memory, in pages of {@code chunkSize}; returns the nanoseconds spent. */
    private static long storeVectors(Authority authority, VectorSpec spec, long seed, int chunkSize) {
        VectorSource source = new VectorSource(spec, seed);
        long nanos = 0;
        long after = 0;
        for (List<VectorCache.Task> tasks = authority.memoriesWithoutVectors(Scope.DEFAULT, spec.fingerprint(), after,
                chunkSize); !tasks.isEmpty();
             tasks = authority.memoriesWithoutVectors(Scope.DEFAULT, spec.fingerprint(), after, chunkSize)) {
            long t = System.nanoTime();
            List<VectorCache.NewVector> page = new ArrayList<>(tasks.size());
            for (VectorCache.Task task : tasks) {
                page.add(new VectorCache.NewVector(task.memoryId(), task.contentHash(), source.next()));
            }
            VectorCache.Stored stored = authority.storeVectors(spec.fingerprint(), page);
            nanos += System.nanoTime() - t;
            if (stored.stored() != tasks.size()) {
                throw new IllegalStateException("stored " + stored.stored() + " of " + tasks.size() + " vectors");
            }
            after = tasks.getLast().rowId();
        }
        VectorCache.Coverage coverage = authority.vectorCoverage(Scope.DEFAULT, spec.fingerprint(), Instant.now(), false);
        if (!coverage.complete()) {
            throw new IllegalStateException("expected a vector for every memory, found " + coverage);
        }
        return nanos;
    }

    /**
     * Seeded unit vectors of a {@link VectorSpec}: uniform on the sphere, or, clustered, a seeded
     * centroid of {@link #CENTROIDS} plus Gaussian noise of about the centroid's length, normalized
     * (neighbours of one cluster then have cosines around 0.5, as a text model's do). The archive and
     * the queries draw from sources of different seeds and the same centroids.
     */
    public static final class VectorSource {

        /** Clusters of the clustered distribution. */
        public static final int CENTROIDS = 1_000;

        /** Dimensions of the low-rank distribution's subspace. */
        public static final int SUBSPACE = 32;

        private final VectorSpec spec;
        private final SplittableRandom random;
        private final List<float[]> centroids;

        public VectorSource(VectorSpec spec, long seed) {
            this.spec = spec;
            this.random = new SplittableRandom(seed);
            this.centroids = switch (spec.distribution()) {
                case CLUSTERED -> SemanticHarness.randomUnitVectors(new SplittableRandom(seed ^ 0x5DEECE66DL), CENTROIDS,
                        spec.dimensions());
                // The subspace's basis: the same for every seed, like the centroids.
                case LOWRANK -> SemanticHarness.randomUnitVectors(new SplittableRandom(0x5DEECE66DL), SUBSPACE,
                        spec.dimensions());
                case RANDOM -> List.of();
            };
        }

        /** The next vector, of unit length. */
        public float[] next() {
            int d = spec.dimensions();
            if (centroids.isEmpty()) {
                return SemanticHarness.randomUnitVectors(random, 1, d).getFirst();
            }
            if (spec.distribution() == Distribution.LOWRANK) {
                double[] x = new double[d];
                for (float[] basis : centroids) {
                    double z = random.nextGaussian();
                    for (int i = 0; i < d; i++) {
                        x[i] += z * basis[i];
                    }
                }
                double sum = 0;
                for (double xi : x) {
                    sum += xi * xi;
                }
                float[] v = new float[d];
                double norm = Math.sqrt(sum);
                for (int i = 0; i < d; i++) {
                    v[i] = (float) (x[i] / norm);
                }
                return v;
            }
            float[] c = centroids.get(random.nextInt(centroids.size()));
            float[] v = new float[d];
            double sigma = 1 / Math.sqrt(d);
            double sum = 0;
            for (int i = 0; i < d; i++) {
                double x = c[i] + sigma * random.nextGaussian();
                v[i] = (float) x;
                sum += x * x;
            }
            double norm = Math.sqrt(sum);
            for (int i = 0; i < d; i++) {
                v[i] = (float) (v[i] / norm);
            }
            return v;
        }
    }

    // ---------------------------------------------------------------- sizes on disk

    /** Bytes of the database file plus its write-ahead log, if any. */
    public long databaseBytes() {
        Path db = home().database();
        return size(db) + size(db.resolveSibling(db.getFileName() + "-wal"));
    }

    /**
     * Bytes of the FTS5 tables ({@code events_fts*}, {@code memories_fts*}) inside the database, from
     * SQLite's {@code dbstat} table, read through a connection of its own; -1 when this SQLite has no
     * {@code dbstat}.
     */
    public long fts5Bytes() {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + home().database().toAbsolutePath());
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COALESCE(SUM(pgsize), 0) FROM dbstat "
                     + "WHERE name LIKE 'events\\_fts%' ESCAPE '\\' OR name LIKE 'memories\\_fts%' ESCAPE '\\'")) {
            return rs.next() ? rs.getLong(1) : -1;
        } catch (SQLException e) {
            if (String.valueOf(e.getMessage()).contains("dbstat")) {
                return -1;
            }
            throw new IllegalStateException("cannot read dbstat of " + home().database(), e);
        }
    }

    /** Bytes of every file under {@code dir} (0 when it does not exist). */
    public static long treeBytes(Path dir) {
        return treeBytes(dir, name -> true);
    }

    /** Bytes of the files under {@code dir} whose name {@code filter} accepts. */
    public static long treeBytes(Path dir, java.util.function.Predicate<String> filter) {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).filter(f -> filter.test(f.getFileName().toString()))
                    .mapToLong(CachedArchive::size).sum();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the size of " + dir, e);
        }
    }

    /**
     * Copies the archive's files (database and index directories) into {@code target}, for a run that
     * changes them, each synced to disk so that the run does not pay for writing the copy back.
     */
    public void copyTo(Path target) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.toList()) {
                Path to = target.resolve(dir.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else if (!p.getFileName().toString().equals("write.lock")) {
                    Files.copy(p, to);
                    // On disk before the run that uses the copy: else its first fsync writes the copy back.
                    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(to,
                            java.nio.file.StandardOpenOption.WRITE)) {
                        ch.force(true);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy the archive " + dir + " to " + target, e);
        }
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the size of " + file, e);
        }
    }

    // ---------------------------------------------------------------- archive.properties

    private static Properties read(Path file) {
        Properties p = new Properties();
        if (Files.exists(file)) {
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        return p;
    }

    private void write() {
        try (Writer w = Files.newBufferedWriter(dir.resolve(PROPERTIES), StandardCharsets.UTF_8)) {
            properties.store(w, "jiyi benchmark archive: build figures in nanoseconds");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(PROPERTIES), e);
        }
    }

    /** Deletes {@code dir} and everything under it, if it exists. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
