package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Progress;
import dev.jiyi.lucene.Analysis;
import dev.jiyi.lucene.LuceneIndex;
import dev.jiyi.lucene.LuceneOptions;
import dev.jiyi.lucene.LuceneStatus;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * FTS5 against Lucene for fast recall, side by side on the same archive: {@code ./jiyi bench lucene}.
 * For each of {@code --sizes} it opens (or builds once, under {@code --archives}) a chat archive of
 * that many memories in one scope ({@link CachedArchive}), builds its Lucene index if it has none
 * (timed), and prints
 * <ol>
 *   <li>the build times and on-disk sizes of both indexes (FTS5 tables' share of the SQLite file,
 *   from {@code dbstat}; the Lucene directory);</li>
 *   <li>for each kind of query ({@link QueryKind}), the latency of the lexical candidate search
 *   through the seam ({@code snapshot.memoryCandidates(index, q, Eligibility.current(scope, now),
 *   50)}) and of a whole fast {@link Recall} on each index, p50, p99 and maximum, the two indexes
 *   interleaved query by query so that both see the same machine;</li>
 *   <li>at the sizes in {@code --delete-sizes}, on a copy of the archive: {@code --deletions}
 *   permanent deletions of one event (and its memory), each timed in the authority (FTS5 included)
 *   and then in Lucene's catch-up, which deletes the documents, merges away the deleted ones
 *   ({@code forceMergeDeletes}, D1) and commits.</li>
 * </ol>
 * At the end it prints, per query kind, how Lucene's p99 grew from the smallest size to each other.
 */
@Command(name = "lucene-recall-harness", mixinStandardHelpOptions = true,
        description = "Measures fast recall on FTS5 and Lucene side by side, index sizes and Lucene's deletion cost.")
public final class LuceneRecallHarness implements Callable<Integer> {

    /** Candidates asked of the lexical seam, as the issue measures it. */
    public static final int CANDIDATES = 50;
    /** Results asked of each fast recall. */
    public static final int RECALL_LIMIT = 10;

    /**
     * What a query is made of: a window of a corpus text (Chinese, English or mixed, in the corpus's
     * proportions); only very common characters (我, 的, 了: stop words, R6, so both indexes should
     * find nothing quickly); the corpus's most frequent words that are not stop words (long posting
     * lists); or a long mixed Chinese and English text of several corpus sentences (many terms).
     */
    public enum QueryKind { WINDOW, COMMON, FREQUENT, LONG }

    static final List<String> COMMON = List.of("我", "的", "了", "我的", "的了", "我了", "我的了", "了的我", "我的我的",
            "的的的了了了我我我");
    static final List<String> FREQUENT = List.of("提醒", "记得", "下周", "今天", "项目", "September", "meeting",
            "提醒我 记得", "下周 meeting", "今天 项目 deadline", "remember Friday", "记得 提醒 下周 今天");
    /** Long queries are this many characters at least (several corpus texts joined). */
    static final int LONG_MIN = 300;

    @Option(names = "--sizes", paramLabel = "N,N", split = ",", defaultValue = "10000,100000,1000000",
            description = "Archive sizes in memories (default: ${DEFAULT-VALUE}).")
    int[] sizes;

    @Option(names = "--queries", paramLabel = "N", defaultValue = "200",
            description = "Measured queries per kind and size (default: ${DEFAULT-VALUE}).")
    int queries;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "50",
            description = "Unmeasured queries per kind before the measured ones (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--long-queries", paramLabel = "N", defaultValue = "100",
            description = "Measured long queries per size, after at most 10 unmeasured ones: FTS5 takes seconds "
                    + "per long query at 1M (default: ${DEFAULT-VALUE}, capped by --queries).")
    int longQueries;

    @Option(names = "--deletions", paramLabel = "K", defaultValue = "10",
            description = "Deletions timed at each size of --delete-sizes (default: ${DEFAULT-VALUE}).")
    int deletions;

    @Option(names = "--delete-sizes", paramLabel = "N,N", split = ",", defaultValue = "100000",
            description = "Sizes (of --sizes) at which deletion is measured, on a copy (default: ${DEFAULT-VALUE}).")
    int[] deleteSizes;

    @Option(names = "--analysis", paramLabel = "jiyi|smartcn", defaultValue = "JIYI",
            description = "Lucene's analysis (default: jiyi, the same tokens as FTS5).")
    Analysis analysis;

    @Option(names = "--no-recall", description = "Time only the candidate search, not whole fast recalls (quicker at 1M).")
    boolean noRecall;

    @Option(names = "--rebuild", description = "Rebuild (and time) the Lucene index even when the archive has one.")
    boolean rebuild;

    @Mixin
    ArchiveOptions common = new ArchiveOptions();

    private final PrintStream out;

    public LuceneRecallHarness(PrintStream out) {
        this.out = out;
    }

    public static CommandLine command(PrintStream out) {
        return new CommandLine(new LuceneRecallHarness(out)).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** Nearest-rank p50, p99 and maximum of some durations. */
    public record Latency(long p50Nanos, long p99Nanos, long maxNanos) {

        static Latency of(long[] nanos) {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            return new Latency(IngestHarness.percentile(sorted, 50), IngestHarness.percentile(sorted, 99),
                    sorted[sorted.length - 1]);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "p50 %6.2f  p99 %6.2f  max %6.2f ms", p50Nanos / 1e6, p99Nanos / 1e6,
                    maxNanos / 1e6);
        }
    }

    /** One index on one kind of query: the seam's candidate search and the whole fast recall (null with --no-recall). */
    public record Timing(String index, QueryKind kind, int queries, double meanChars, Latency candidates,
                         double meanCandidates, Latency recall, double meanItems) {
    }

    /**
     * Build times and sizes: the archive's load (events and memories through the batch APIs, FTS5
     * attached), FTS5's rebuild on open, Lucene's rebuild ({@code reused} when the cached archive
     * already had both).
     */
    public record Indexes(long eventsNanos, long memoriesNanos, long fts5RebuildNanos, long luceneBuildNanos,
                          boolean reused, long databaseBytes, long fts5Bytes, long luceneBytes) {
    }

    /** Deletion at one size: the authority's delete (FTS5 included), then Lucene's catch-up with its merge. */
    public record Deletions(int count, Latency authority, Latency luceneCatchUp, long luceneBytesBefore,
                            long luceneBytesAfter) {
    }

    public record SizeResult(int memories, Indexes indexes, List<Timing> timings, Deletions deletions) {
    }

    public record Report(long seed, String java, int processors, long maxHeapBytes, String loadAtStart,
                         String loadAtEnd, List<SizeResult> sizes) {
    }

    @Override
    public Integer call() throws IOException {
        require("--queries", queries, 1);
        require("--warmup", warmup, 0);
        require("--deletions", deletions, 1);
        require("--long-queries", longQueries, 1);
        ChineseTokens.warmUp();
        Runtime rt = Runtime.getRuntime();
        String loadAtStart = IngestHarness.loadAverage();
        out.printf(Locale.ROOT, "jiyi FTS5 vs Lucene fast recall harness: seed %d, Java %s, %d processors, max heap %d MiB%n",
                common.seed, System.getProperty("java.version"), rt.availableProcessors(), rt.maxMemory() >> 20);
        out.println("load average at start: " + loadAtStart);
        List<SizeResult> results = new ArrayList<>();
        for (int size : sizes) {
            require("--sizes", size, 2);
            SizeResult r = run(size);
            print(r);
            results.add(r);
        }
        printGrowth(results);
        String loadAtEnd = IngestHarness.loadAverage();
        out.println("load average at end: " + loadAtEnd);
        if (common.json != null) {
            Report report = new Report(common.seed, System.getProperty("java.version"), rt.availableProcessors(),
                    rt.maxMemory(), loadAtStart, loadAtEnd, results);
            common.writeJson(report, out);
        }
        return 0;
    }

    private LuceneOptions options() {
        return LuceneOptions.defaults().withAnalysis(analysis);
    }

    private Path luceneRoot(CachedArchive archive) {
        return archive.dir().resolve(analysis == Analysis.JIYI ? "lucene"
                : "lucene-" + analysis.name().toLowerCase(Locale.ROOT));
    }

    SizeResult run(int size) {
        CachedArchive archive = common.archive(size, null, out);
        Indexes indexes;
        List<Timing> timings = new ArrayList<>();
        String luceneKey = "luceneBuildNanos." + analysis.name().toLowerCase(Locale.ROOT);
        try (Jiyi jiyi = Jiyi.open(archive.home());
             LuceneIndex lucene = LuceneIndex.open(luceneRoot(archive), options())) {
            Authority authority = jiyi.authority();
            boolean built = false;
            if (rebuild || !LuceneIndex.exists(luceneRoot(archive)) || archive.figure(luceneKey) < 0) {
                long t = System.nanoTime();
                lucene.rebuild(authority);
                archive.record(luceneKey, System.nanoTime() - t);
                built = true;
            }
            catchUp(lucene, authority);
            if (!lucene.takeNotices().isEmpty() && !built) {
                out.println("  (the cached Lucene index was outdated and was rebuilt on first use; its build time is the"
                        + " one recorded earlier, pass --rebuild to measure it again)");
            }
            indexes = new Indexes(archive.figure("eventsNanos"), archive.figure("memoriesNanos"),
                    archive.figure("fts5RebuildNanos"), archive.figure(luceneKey), archive.reused() && !built,
                    archive.databaseBytes(), archive.fts5Bytes(), CachedArchive.treeBytes(luceneRoot(archive)));

            Instant now = Instant.now();
            Clock clock = Clock.fixed(now, ZoneOffset.UTC);
            LexicalIndex fts5 = jiyi.recallIndex("fts5").lexical();
            List<Named> named = List.of(
                    new Named("fts5", fts5, new Recall(authority, jiyi.recallIndex("fts5"), RecallConfig.DEFAULT, clock)),
                    new Named("lucene", lucene, new Recall(authority, new RecallIndex(lucene, lucene),
                            RecallConfig.DEFAULT, clock)));
            Eligibility eligible = Eligibility.current(Scope.DEFAULT, now);
            for (QueryKind kind : QueryKind.values()) {
                int unmeasured = kind == QueryKind.LONG ? Math.min(warmup, 10) : warmup;
                int count = kind == QueryKind.LONG ? Math.min(queries, longQueries) : queries;
                List<String> all = queries(kind, new ChatCorpus(common.seed, "query-" + kind), unmeasured + count,
                        new SplittableRandom(common.seed + kind.ordinal()));
                for (String q : all.subList(0, unmeasured)) {
                    for (Named n : named) {
                        candidates(authority, n.index(), q, eligible);
                        if (!noRecall) {
                            n.recall().recall(request(q));
                        }
                    }
                }
                List<String> measured = all.subList(unmeasured, all.size());
                int m = measured.size();
                long[][] cand = new long[named.size()][m];
                long[][] rec = new long[named.size()][m];
                long[] candCount = new long[named.size()];
                long[] items = new long[named.size()];
                for (int i = 0; i < m; i++) {
                    String q = measured.get(i);
                    // Alternate which index goes first, so neither always follows the other's cache warming.
                    for (int j = 0; j < named.size(); j++) {
                        int x = (i + j) % named.size();
                        Named n = named.get(x);
                        long t = System.nanoTime();
                        candCount[x] += candidates(authority, n.index(), q, eligible).size();
                        cand[x][i] = System.nanoTime() - t;
                        if (!noRecall) {
                            t = System.nanoTime();
                            RecallResult r = n.recall().recall(request(q));
                            rec[x][i] = System.nanoTime() - t;
                            items[x] += r.items().size();
                        }
                    }
                }
                double chars = measured.stream().mapToInt(String::length).average().orElse(0);
                for (int x = 0; x < named.size(); x++) {
                    timings.add(new Timing(named.get(x).name(), kind, m, chars, Latency.of(cand[x]),
                            candCount[x] / (double) m, noRecall ? null : Latency.of(rec[x]), items[x] / (double) m));
                }
            }
        }
        Deletions d = Arrays.stream(deleteSizes).anyMatch(s -> s == size) ? deletions(archive) : null;
        return new SizeResult(size, indexes, timings, d);
    }

    private record Named(String name, LexicalIndex index, Recall recall) {
    }

    private static List<Candidate> candidates(Authority authority, LexicalIndex index, String q, Eligibility eligible) {
        return authority.read(s -> s.memoryCandidates(index, q, eligible, CANDIDATES));
    }

    private static RecallRequest request(String q) {
        return new RecallRequest(Scope.DEFAULT, q, RecallMode.FAST, RECALL_LIMIT, null, false);
    }

    /** Catches up until the index has applied the whole change log. */
    public static void catchUp(LuceneIndex lucene, Authority authority) {
        catchUp(lucene, authority, "", true);
    }

    /**
     * Catches up until the index has applied the whole change log, reporting the entries applied on
     * standard error under {@code label} (unless {@code quiet}) when the first pass leaves some: a new
     * index of a large archive takes minutes.
     */
    public static void catchUp(LuceneIndex lucene, Authority authority, String label, boolean quiet) {
        LuceneStatus s = lucene.catchUp(authority);
        if (s.behind() == 0) {
            return;
        }
        try (Progress progress = Progress.onStderr(label, s.head(), quiet)) {
            progress.advance(s.applied());
            while (s.behind() > 0) {
                if (s.readOnly()) {
                    throw new IllegalStateException("another process holds the Lucene index's write lock");
                }
                long before = s.applied();
                s = lucene.catchUp(authority);
                progress.advance(Math.max(0, s.applied() - before));
            }
        }
    }

    /**
     * On a copy of the archive: deletes random events one at a time, timing the authority's delete
     * (its FTS5 rows included) and Lucene's catch-up (document deletion, merge of deleted documents,
     * commit) apart.
     */
    private Deletions deletions(CachedArchive archive) {
        try (ScratchHome scratch = ScratchHome.create("lucene-delete")) {
            archive.copyTo(scratch.dir());
            Path root = scratch.dir().resolve(luceneRoot(archive).getFileName().toString());
            try (Jiyi jiyi = Jiyi.open(scratch.home()); LuceneIndex lucene = LuceneIndex.open(root, options())) {
                Authority authority = jiyi.authority();
                catchUp(lucene, authority);
                long before = CachedArchive.treeBytes(root);
                List<String> victims = DeleteBenchmark.victims(authority, deletions, common.seed);
                long[] inAuthority = new long[deletions];
                long[] inLucene = new long[deletions];
                for (int i = 0; i < deletions; i++) {
                    String id = victims.get(i);
                    long t = System.nanoTime();
                    Deletion deletion = authority.deleteEvent(Scope.DEFAULT, id);
                    inAuthority[i] = System.nanoTime() - t;
                    if (deletion.memoryIds().isEmpty()) {
                        throw new IllegalStateException("deleting event " + id + " removed no memory");
                    }
                    t = System.nanoTime();
                    catchUp(lucene, authority);
                    inLucene[i] = System.nanoTime() - t;
                }
                return new Deletions(deletions, Latency.of(inAuthority), Latency.of(inLucene), before,
                        CachedArchive.treeBytes(root));
            }
        }
    }

    // ---------------------------------------------------------------- queries

    /** {@code n} queries of one kind, seeded. */
    static List<String> queries(QueryKind kind, ChatCorpus corpus, int n, SplittableRandom random) {
        List<String> out = new ArrayList<>(n);
        switch (kind) {
            case WINDOW -> out.addAll(SemanticHarness.queries(corpus, n, random));
            case COMMON -> {
                for (int i = 0; i < n; i++) {
                    out.add(COMMON.get(i % COMMON.size()));
                }
            }
            case FREQUENT -> {
                for (int i = 0; i < n; i++) {
                    out.add(FREQUENT.get(i % FREQUENT.size()));
                }
            }
            case LONG -> {
                for (int i = 0; i < n; i++) {
                    StringBuilder sb = new StringBuilder();
                    boolean cjk = false;
                    boolean latin = false;
                    while (sb.length() < LONG_MIN || !cjk || !latin) {
                        String text = corpus.nextEvent().text();
                        SemanticHarness.Language l = SemanticHarness.Language.of(text);
                        cjk |= l != SemanticHarness.Language.ENGLISH;
                        latin |= l != SemanticHarness.Language.CHINESE;
                        sb.append(sb.isEmpty() ? "" : " ").append(text);
                    }
                    out.add(sb.toString());
                }
            }
            default -> throw new IllegalStateException("unknown query kind " + kind);
        }
        return out;
    }

    // ---------------------------------------------------------------- the report

    private void print(SizeResult r) {
        Indexes x = r.indexes();
        out.printf(Locale.ROOT, "%,d memories (and as many events) in one scope%s%n", r.memories(),
                x.reused() ? " (cached archive: build figures from when it was built)" : "");
        out.printf(Locale.ROOT, "  archive load with FTS5 attached: events %.1f s, memories %.1f s%n",
                x.eventsNanos() / 1e9, x.memoriesNanos() / 1e9);
        out.printf(Locale.ROOT, "  FTS5 index build (rebuild on open): %.1f s; FTS5 tables %s of a %.1f MiB database%n",
                x.fts5RebuildNanos() / 1e9, x.fts5Bytes() < 0 ? "(no dbstat)"
                        : String.format(Locale.ROOT, "%.1f MiB (%.0f%%)", x.fts5Bytes() / 1048576.0,
                                100.0 * x.fts5Bytes() / x.databaseBytes()), x.databaseBytes() / 1048576.0);
        out.printf(Locale.ROOT, "  Lucene index build (rebuild from the authority): %.1f s; directory %.1f MiB%n",
                x.luceneBuildNanos() / 1e9, x.luceneBytes() / 1048576.0);
        out.printf(Locale.ROOT, "  %-8s %-6s %5s %6s | %-38s %6s | %-38s %5s%n", "query", "index", "n", "chars",
                "candidates via the seam (limit 50)", "found", "fast recall (limit 10)", "items");
        for (Timing t : r.timings()) {
            out.printf(Locale.ROOT, "  %-8s %-6s %5d %6.0f | %-38s %6.1f | %-38s %5.1f%n",
                    t.kind().name().toLowerCase(Locale.ROOT), t.index(), t.queries(), t.meanChars(), t.candidates(),
                    t.meanCandidates(), t.recall() == null ? "(--no-recall)" : t.recall(), t.meanItems());
        }
        Deletions d = r.deletions();
        if (d != null) {
            out.printf(Locale.ROOT, "  %d deletions of one event and its memory: authority (FTS5 included) %s; "
                            + "Lucene catch-up (delete, forceMergeDeletes, commit) %s; Lucene directory %.1f -> %.1f MiB%n",
                    d.count(), d.authority(), d.luceneCatchUp(), d.luceneBytesBefore() / 1048576.0,
                    d.luceneBytesAfter() / 1048576.0);
        }
    }

    /** Lucene's (and FTS5's) p99 at each size against the smallest, per kind: the aim is at most 3x. */
    private void printGrowth(List<SizeResult> results) {
        if (results.size() < 2) {
            return;
        }
        SizeResult first = results.getFirst();
        out.printf(Locale.ROOT, "p99 of the candidate search, growth from %,d memories:%n", first.memories());
        for (SizeResult r : results.subList(1, results.size())) {
            for (int i = 0; i < r.timings().size(); i++) {
                Timing t = r.timings().get(i);
                Timing base = first.timings().get(i);
                out.printf(Locale.ROOT, "  %,9d %-8s %-6s p99 %6.2f ms = %4.1fx%n", r.memories(),
                        t.kind().name().toLowerCase(Locale.ROOT), t.index(), t.candidates().p99Nanos() / 1e6,
                        t.candidates().p99Nanos() / (double) Math.max(1, base.candidates().p99Nanos()));
            }
        }
    }

    private void require(String option, int value, int min) {
        if (value < min) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    option + ": must be at least " + min + ", was " + value);
        }
    }
}
