package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.Neighbours;
import dev.jiyi.authority.index.VectorIndex;
import dev.jiyi.authority.index.VectorQuery;
import dev.jiyi.bench.CachedArchive.Distribution;
import dev.jiyi.bench.CachedArchive.VectorSpec;
import dev.jiyi.bench.LuceneRecallHarness.Latency;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.lucene.LuceneOptions.VectorFormat;
import dev.jiyi.lucene.LuceneIndex;
import dev.jiyi.lucene.LuceneOptions;

import org.apache.lucene.codecs.CompoundDirectory;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.FSDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Deep recall's nearest-neighbour search, Lucene's HNSW graph against the exact scan of the vector
 * cache: {@code ./jiyi bench vectors}. For each of {@code --sizes} it opens (or builds once, under
 * {@code --archives}) a chat archive with a generated unit vector per memory ({@link CachedArchive},
 * {@code --dimensions}, {@code --distribution}), then
 * <ol>
 *   <li>runs {@code --queries} queries (vectors drawn like the archive's, another seed) through the
 *   exact scan ({@link ExactVectorScan}, via {@code snapshot.nearest}): its latency and the true
 *   nearest {@code --k}, the ground truth;</li>
 *   <li>for each of {@code --formats} (float, int8): builds a Lucene index of the archive in a
 *   directory of its own if it has none (timed; its size, and the size of its vector files), then
 *   for each of {@code --knn-candidates} runs the same queries through {@code snapshot.nearest}
 *   on Lucene (graph search with the eligibility filter, then rescoring by the exact vectors from
 *   the authority): latency and recall@k against the exact scan.</li>
 * </ol>
 * Queries take every neighbour (minimum similarity -1), so recall@k compares full lists.
 */
@Command(name = "vector-recall-harness", mixinStandardHelpOptions = true,
        description = "Measures Lucene HNSW (float, int8) against the exact vector scan: latency, recall@k, size.")
public final class VectorRecallHarness implements Callable<Integer> {

    @Option(names = "--sizes", paramLabel = "N,N", split = ",", defaultValue = "100000,1000000",
            description = "Archive sizes in memories with a vector each (default: ${DEFAULT-VALUE}).")
    int[] sizes;

    @Option(names = "--dimensions", paramLabel = "D", defaultValue = "512",
            description = "Vector dimensions (default: ${DEFAULT-VALUE}, the local model's).")
    int dimensions;

    @Option(names = "--distribution", paramLabel = "clustered|random|lowrank", defaultValue = "CLUSTERED",
            description = "How vectors are drawn (default: clustered).")
    Distribution distribution;

    @Option(names = "--formats", paramLabel = "float,int8", split = ",", defaultValue = "FLOAT,INT8",
            description = "Lucene vector formats to measure (default: float,int8).")
    List<VectorFormat> formats;

    @Option(names = "--knn-candidates", paramLabel = "N,N", split = ",", defaultValue = "100,50,200",
            description = "Lucene's knnCandidates values to measure (default: ${DEFAULT-VALUE}; 100 is jiyi's default).")
    int[] knnCandidates;

    @Option(names = "--k", paramLabel = "K", defaultValue = "10",
            description = "Neighbours asked of each search; recall@K is measured (default: ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "--queries", paramLabel = "N", defaultValue = "100",
            description = "Measured queries per index and setting (default: ${DEFAULT-VALUE}).")
    int queries;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "20",
            description = "Unmeasured queries per index and setting first (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--rebuild", description = "Rebuild (and time) the Lucene indexes even when the archive has them.")
    boolean rebuild;

    @Mixin
    ArchiveOptions common = new ArchiveOptions();

    private final PrintStream out;

    public VectorRecallHarness(PrintStream out) {
        this.out = out;
    }

    public static CommandLine command(PrintStream out) {
        return new CommandLine(new VectorRecallHarness(out)).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** One Lucene format with one knnCandidates: latency and mean recall@k against the exact scan. */
    public record Hnsw(VectorFormat format, int knnCandidates, Latency latency, double recallAtK) {
    }

    /** One Lucene format's index: build time, directory size and the bytes of its vector files. */
    public record Build(VectorFormat format, long buildNanos, boolean reused, long directoryBytes, long vectorBytes) {
    }

    public record SizeResult(int memories, int dimensions, Distribution distribution, long vectorsStoreNanos,
                             long databaseBytes, Latency exact, List<Build> builds, List<Hnsw> hnsw) {
    }

    public record Report(long seed, String java, int processors, long maxHeapBytes, String loadAtStart,
                         String loadAtEnd, int k, List<SizeResult> sizes) {
    }

    @Override
    public Integer call() throws IOException {
        require("--queries", queries, 1);
        require("--warmup", warmup, 0);
        require("--k", k, 1);
        ChineseTokens.warmUp();
        Runtime rt = Runtime.getRuntime();
        String loadAtStart = IngestHarness.loadAverage();
        out.printf(Locale.ROOT, "jiyi HNSW vs exact scan harness: seed %d, Java %s, %d processors, max heap %d MiB%n",
                common.seed, System.getProperty("java.version"), rt.availableProcessors(), rt.maxMemory() >> 20);
        out.println("load average at start: " + loadAtStart);
        List<SizeResult> results = new ArrayList<>();
        for (int size : sizes) {
            require("--sizes", size, 2);
            SizeResult r = run(size);
            print(r);
            results.add(r);
        }
        String loadAtEnd = IngestHarness.loadAverage();
        out.println("load average at end: " + loadAtEnd);
        if (common.json != null) {
            Report report = new Report(common.seed, System.getProperty("java.version"), rt.availableProcessors(),
                    rt.maxMemory(), loadAtStart, loadAtEnd, k, results);
            common.writeJson(report, out);
        }
        return 0;
    }

    SizeResult run(int size) {
        VectorSpec spec = new VectorSpec(dimensions, distribution);
        CachedArchive archive = common.archive(size, spec, out);
        CachedArchive.VectorSource source = new CachedArchive.VectorSource(spec, common.seed + 1);
        List<float[]> warm = new ArrayList<>();
        for (int i = 0; i < warmup; i++) {
            warm.add(source.next());
        }
        List<float[]> measured = new ArrayList<>();
        for (int i = 0; i < queries; i++) {
            measured.add(source.next());
        }
        try (Jiyi jiyi = Jiyi.open(archive.home())) {
            Authority authority = jiyi.authority();
            Eligibility eligible = Eligibility.current(Scope.DEFAULT, Instant.now());
            ExactVectorScan exact = new ExactVectorScan();
            out.printf(Locale.ROOT, "  exact scan of %,d vectors, %d queries ...%n", size, queries);
            search(authority, exact, spec, eligible, warm);
            long[] exactNanos = new long[queries];
            List<List<Long>> truth = new ArrayList<>();
            for (int i = 0; i < queries; i++) {
                long t = System.nanoTime();
                Neighbours n = search(authority, exact, spec, eligible, measured.get(i));
                exactNanos[i] = System.nanoTime() - t;
                truth.add(n.nearest().stream().map(Candidate::rowId).toList());
            }
            List<Build> builds = new ArrayList<>();
            List<Hnsw> hnsw = new ArrayList<>();
            for (VectorFormat format : formats) {
                Path root = archive.dir().resolve("lucene-" + format.code());
                String key = "luceneBuildNanos." + format.code();
                LuceneOptions options = LuceneOptions.defaults().withVectors(format);
                boolean built = false;
                if (rebuild || !LuceneIndex.exists(root) || archive.figure(key) < 0) {
                    out.printf(Locale.ROOT, "  building the Lucene index with %s vectors ...%n", format.code());
                    try (LuceneIndex lucene = LuceneIndex.open(root, options)) {
                        long t = System.nanoTime();
                        lucene.rebuild(authority);
                        archive.record(key, System.nanoTime() - t);
                        built = true;
                    }
                }
                long vectorBytes;
                try (LuceneIndex lucene = LuceneIndex.open(root, options)) {
                    vectorBytes = vectorBytes(lucene.directory().orElseThrow(
                            () -> new IllegalStateException("the Lucene index in " + root + " has no directory")));
                }
                builds.add(new Build(format, archive.figure(key), !built, CachedArchive.treeBytes(root), vectorBytes));
                for (int candidates : knnCandidates) {
                    require("--knn-candidates", candidates, 1);
                    try (LuceneIndex lucene = LuceneIndex.open(root, options.withKnnCandidates(candidates))) {
                        lucene.catchUp(authority);
                        search(authority, lucene, spec, eligible, warm);
                        long[] nanos = new long[queries];
                        double found = 0;
                        for (int i = 0; i < queries; i++) {
                            long t = System.nanoTime();
                            Neighbours n = search(authority, lucene, spec, eligible, measured.get(i));
                            nanos[i] = System.nanoTime() - t;
                            found += recall(truth.get(i), n.nearest());
                        }
                        hnsw.add(new Hnsw(format, candidates, Latency.of(nanos), found / queries));
                    }
                }
            }
            return new SizeResult(size, dimensions, distribution, archive.figure("vectorsNanos"),
                    archive.databaseBytes(), Latency.of(exactNanos), builds, hnsw);
        }
    }

    private Neighbours search(Authority authority, VectorIndex index, VectorSpec spec, Eligibility eligible,
                              float[] vector) {
        VectorQuery q = new VectorQuery(vector, spec.fingerprint(), eligible, k, -1.0, 0);
        return authority.read(s -> s.nearest(index, q));
    }

    private void search(Authority authority, VectorIndex index, VectorSpec spec, Eligibility eligible,
                        List<float[]> vectors) {
        for (float[] v : vectors) {
            search(authority, index, spec, eligible, v);
        }
    }

    /** The share of the true nearest that the search found (1 when there are none). */
    static double recall(List<Long> truth, List<Candidate> found) {
        if (truth.isEmpty()) {
            return 1;
        }
        Set<Long> rows = new HashSet<>();
        for (Candidate c : found) {
            rows.add(c.rowId());
        }
        return truth.stream().filter(rows::contains).count() / (double) truth.size();
    }

    /** Lucene's vector files: {@code .vec}, {@code .vex}, {@code .vem} and their quantized kin ({@code .veq}, {@code .vemq}, ...). */
    static boolean vectorFile(String name) {
        int dot = name.lastIndexOf('.');
        return dot >= 0 && name.substring(dot + 1).startsWith("ve");
    }

    /**
     * Bytes of the vector files of the index's latest commit, counting those packed inside compound
     * files ({@code .cfs}) entry by entry.
     */
    static long vectorBytes(Path index) {
        try (FSDirectory dir = FSDirectory.open(index)) {
            long bytes = 0;
            for (SegmentCommitInfo segment : SegmentInfos.readLatestCommit(dir)) {
                SegmentInfo info = segment.info;
                if (info.getUseCompoundFile()) {
                    try (CompoundDirectory cfs = info.getCodec().compoundFormat().getCompoundReader(dir, info)) {
                        for (String name : cfs.listAll()) {
                            bytes += vectorFile(name) ? cfs.fileLength(name) : 0;
                        }
                    }
                }
                for (String name : segment.files()) {
                    bytes += vectorFile(name) ? dir.fileLength(name) : 0;
                }
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the segments of " + index, e);
        }
    }

    // ---------------------------------------------------------------- the report

    private void print(SizeResult r) {
        out.printf(Locale.ROOT, "%,d memories with a %s vector of %d dimensions each; database %.1f MiB "
                        + "(vectors stored in %.1f s when built)%n", r.memories(),
                r.distribution().name().toLowerCase(Locale.ROOT), r.dimensions(), r.databaseBytes() / 1048576.0,
                r.vectorsStoreNanos() / 1e9);
        for (Build b : r.builds()) {
            out.printf(Locale.ROOT, "  Lucene %-5s index: built in %.1f s%s; directory %.1f MiB, of which vector files %.1f MiB%n",
                    b.format().code(), b.buildNanos() / 1e9, b.reused() ? " (when first built)" : "",
                    b.directoryBytes() / 1048576.0, b.vectorBytes() / 1048576.0);
        }
        out.printf(Locale.ROOT, "  %-22s %-38s %s%n", "search (k " + k + ")", "latency", "recall@" + k);
        out.printf(Locale.ROOT, "  %-22s %-38s %s%n", "exact scan", r.exact(), "1 (ground truth)");
        for (Hnsw h : r.hnsw()) {
            out.printf(Locale.ROOT, "  %-22s %-38s %.3f%n", "hnsw " + h.format().code() + " cand " + h.knnCandidates(),
                    h.latency(), h.recallAtK());
        }
    }

    private void require(String option, int value, int min) {
        if (value < min) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    option + ": must be at least " + min + ", was " + value);
        }
    }
}
