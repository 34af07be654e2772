package dev.jiyi.bench;

import dev.jiyi.bench.ZipfCorpus.QueryKind;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.lucene.LuceneBackend;
import dev.jiyi.lucene.LuceneIndex;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallRequest;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Where whole fast recall's tail comes from: {@code ./jiyi bench tail}. On a copy of the realistic
 * archive it runs recalls back to back for {@code --seconds}, first alone, then beside a writer that
 * ingests a turn and its memory each second through the same authority (as
 * {@link FastRecallBenchmark}'s background ingest, and a host's capture in an MCP server, do). Each
 * call is marked if a garbage collection ran during it and if it was the first after an ingest, and
 * the calls at or over the p99 are split by those marks; the writer's own write times are printed
 * beside them. Calls that are neither either waited for the writer's transaction (one process, one
 * connection) or did more work of their own: after each reopen, small new segments to search and
 * terms to look up again (a JFR profile in docs/benchmarks.md found mostly the second). A last phase
 * writes {@code --writes} turns back to back with no recall, so that a write's own time is measured
 * too, without waits for recalls. Between the two, a phase writes a turn before every recall, as a
 * conversation does (the host submits the user's turn, then asks for memories to answer it): every
 * recall then follows the log and reopens its view, the cost the once-a-second writer shows in one
 * call of fifty. On Lucene a second such phase has each recall's catch-up commit, as at a human
 * pace, where turns come ten seconds or more apart and the first search ten seconds after the last
 * commit commits; a third has the MCP server's keeper apply and commit each turn between the calls
 * ({@code Backend#keepUp}), timed apart from the recall.
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
        description = "Splits fast recall's slow calls by cause: a collection, the first recall after an ingest, or neither.")
public final class TailHarness implements Callable<Integer> {

    @Option(names = "--size", paramLabel = "N", defaultValue = "1000000",
            description = "Archive size in turns (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--index", paramLabel = "fts5|lucene", defaultValue = "lucene",
            description = "The index recall searches (default: ${DEFAULT-VALUE}).")
    String index;

    @Option(names = "--kind", paramLabel = "KIND", defaultValue = "KNOWN_ITEM",
            description = "The query kind: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    QueryKind kind;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "30",
            description = "Seconds of recalls in each phase (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "600",
            description = "Unmeasured recalls first (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--writes", paramLabel = "N", defaultValue = "2000",
            description = "Turns then written back to back with no recall, each write timed (default: ${DEFAULT-VALUE}; 0: none).")
    int writes;

    static final String CONVERSATION = "in conversation (a turn written before each recall)";
    static final String CONVERSATION_COMMITTED = "at a human pace (a turn before each recall, whose catch-up commits)";
    static final String CONVERSATION_KEPT_UP = "at a human pace, kept up between calls (a turn, the server's keep-up, "
            + "then the recall)";

    /** How a conversation phase brings Lucene up to each turn before its recall. */
    private enum Pace {
        /** The recall's own search applies the turn (and commits only every ten seconds). */
        BACK_TO_BACK,
        /** The recall's catch-up applies and commits it, as the first search ten seconds after a commit does. */
        COMMITTED,
        /** A server's keeper applies and commits it between the calls ({@code Backend#keepUp}), untimed with the recall. */
        KEPT_UP
    }

    private final PrintStream out;

    public TailHarness(PrintStream out) {
        this.out = out;
    }

    public static CommandLine command(PrintStream out) {
        return new CommandLine(new TailHarness(out)).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** One phase's calls: durations in nanoseconds, and the marks of each. */
    record Phase(String name, long[] nanos, boolean[] collected, boolean[] afterIngest, long[] eventWrites,
                 long[] memoryWrites, long[] keptUp) {

        Phase(String name, long[] nanos, boolean[] collected, boolean[] afterIngest, long[] eventWrites,
              long[] memoryWrites) {
            this(name, nanos, collected, afterIngest, eventWrites, memoryWrites, new long[0]);
        }

        long percentile(double p) {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            return IngestHarness.percentile(sorted, p);
        }

        /** The calls at or over the p99: all of them, during a collection, first after an ingest, neither. */
        int[] slow() {
            long p99 = percentile(99);
            int[] split = new int[4];
            for (int i = 0; i < nanos.length; i++) {
                if (nanos[i] >= p99) {
                    split[0]++;
                    split[collected[i] ? 1 : afterIngest[i] ? 2 : 3]++;
                }
            }
            return split;
        }
    }

    @Override
    public Integer call() {
        if (size < 2 || seconds < 1 || warmup < 0 || writes < 0 || !List.of("fts5", "lucene").contains(index)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--size must be at least 2, --seconds at "
                    + "least 1, --warmup and --writes at least 0, --index fts5 or lucene");
        }
        out.printf(Locale.ROOT, "jiyi tail harness: %,d turns, %s, %s queries, %d s a phase; load average %s%n", size,
                index, kind.name().toLowerCase(Locale.ROOT), seconds, IngestHarness.loadAverage());
        for (Phase p : run(size, index, kind, seconds, warmup, writes)) {
            print(p);
        }
        out.println("load average at end: " + IngestHarness.loadAverage());
        return 0;
    }

    /**
     * The phases on one copy of the archive: recalls alone, then beside a writer, then in
     * conversation (a turn written before each recall), on Lucene at a human pace too (the same, each
     * recall's catch-up committing), then {@code writes} turns written back to back with no recall
     * (what a write itself costs, with no wait for a recall).
     */
    static List<Phase> run(int size, String index, QueryKind kind, int seconds, int warmup, int writes) {
        CachedArchive archive = JmhArchives.openZipf(size);
        try (ScratchHome home = JmhArchives.copy(archive, "tail"); Jiyi jiyi = Jiyi.open(home.home())) {
            ZipfCorpus corpus = new ZipfCorpus(ChatCorpus.DEFAULT_SEED, size);
            Recall recall = jiyi.recall(index, RecallConfig.DEFAULT, Clock.systemUTC());
            List<RecallRequest> requests = FastRecallBenchmark.requests(corpus, kind, FastRecallBenchmark.QUERIES);
            for (int i = 0; i < warmup; i++) {
                recall.recall(requests.get(i % requests.size()));
            }
            List<Phase> phases = new ArrayList<>();
            phases.add(phase("alone", recall, requests, seconds, null));
            BackgroundIngest writer = new BackgroundIngest(jiyi.authority(), corpus, FastRecallBenchmark.INGEST_PERIOD);
            try (writer) {
                phases.add(phase("beside a writer", recall, requests, seconds, writer));
            }
            long next = corpus.size() + writer.submitted(); // the turns after the writer's
            phases.add(conversation(jiyi, corpus, recall, requests, seconds, next, Pace.BACK_TO_BACK));
            next += phases.getLast().eventWrites().length;
            if (index.equals("lucene")) {
                for (Pace pace : List.of(Pace.COMMITTED, Pace.KEPT_UP)) {
                    phases.add(conversation(jiyi, corpus, recall, requests, seconds, next, pace));
                    next += phases.getLast().eventWrites().length;
                }
            }
            if (writes > 0) {
                long first = next;
                long[][] times = new long[2][writes];
                for (int i = 0; i < writes; i++) {
                    long[] turn = BackgroundIngest.write(jiyi.authority(), corpus, first + i, "-alone");
                    times[0][i] = turn[0];
                    times[1][i] = turn[1];
                }
                Arrays.sort(times[0]);
                Arrays.sort(times[1]);
                phases.add(new Phase("writes alone", new long[0], new boolean[0], new boolean[0], times[0], times[1]));
            }
            return phases;
        }
    }

    private static Phase phase(String name, Recall recall, List<RecallRequest> requests, int seconds,
                               BackgroundIngest writer) {
        List<long[]> calls = new ArrayList<>();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long seen = writer == null ? 0 : writer.submitted();
        for (int i = 0; System.nanoTime() < end; i++) {
            long submitted = writer == null ? 0 : writer.submitted();
            long gcBefore = collections();
            long start = System.nanoTime();
            recall.recall(requests.get(i % requests.size()));
            long took = System.nanoTime() - start;
            calls.add(new long[] {took, collections() != gcBefore ? 1 : 0, submitted != seen ? 1 : 0});
            seen = submitted;
        }
        int n = calls.size();
        long[] nanos = new long[n];
        boolean[] collected = new boolean[n];
        boolean[] after = new boolean[n];
        for (int i = 0; i < n; i++) {
            nanos[i] = calls.get(i)[0];
            collected[i] = calls.get(i)[1] == 1;
            after[i] = calls.get(i)[2] == 1;
        }
        long[][] writes = writer == null ? new long[][] {new long[0], new long[0]} : writer.writeTimes();
        return new Phase(name, nanos, collected, after, writes[0], writes[1]);
    }

    /**
     * Recalls as a conversation makes them: turn {@code first}, {@code first + 1}, ... written (its
     * event, then its memory) before each recall, so that every recall follows a log that moved and
     * searches a view the turn changed. The recall is timed, the writes apart. At a human pace (a turn
     * every ten seconds or more, Lucene), the first search ten seconds or more after the last commit
     * commits, which is every recall: with {@link Pace#COMMITTED} the catch-up that commits
     * ({@link LuceneIndex#catchUp}) is timed with the recall; with {@link Pace#KEPT_UP} a server's
     * keeper has applied and committed the turn between the calls, timed apart ({@link Phase#keptUp}).
     */
    private static Phase conversation(Jiyi jiyi, ZipfCorpus corpus, Recall recall, List<RecallRequest> requests,
                                      int seconds, long first, Pace pace) {
        LuceneIndex lucene = pace == Pace.COMMITTED ? jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index() : null;
        List<long[]> calls = new ArrayList<>();
        List<long[]> writes = new ArrayList<>();
        List<Long> keeper = new ArrayList<>();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        for (int i = 0; System.nanoTime() < end; i++) {
            writes.add(BackgroundIngest.write(jiyi.authority(), corpus, first + i, "-" + pace.name().toLowerCase(Locale.ROOT)));
            if (pace == Pace.KEPT_UP) {
                long kept = System.nanoTime();
                jiyi.backend(IndexKind.LUCENE).keepUp(jiyi.authority(), false);
                jiyi.backend(IndexKind.LUCENE).keepUp(jiyi.authority(), true);
                keeper.add(System.nanoTime() - kept);
            }
            long gcBefore = collections();
            long start = System.nanoTime();
            if (lucene != null) {
                lucene.catchUp(jiyi.authority());
            }
            recall.recall(requests.get(i % requests.size()));
            calls.add(new long[] {System.nanoTime() - start, collections() != gcBefore ? 1 : 0});
        }
        int n = calls.size();
        long[] nanos = new long[n];
        boolean[] collected = new boolean[n];
        boolean[] after = new boolean[n];
        long[][] written = new long[2][n];
        for (int i = 0; i < n; i++) {
            nanos[i] = calls.get(i)[0];
            collected[i] = calls.get(i)[1] == 1;
            after[i] = true;
            written[0][i] = writes.get(i)[0];
            written[1][i] = writes.get(i)[1];
        }
        Arrays.sort(written[0]);
        Arrays.sort(written[1]);
        long[] keptUp = keeper.stream().mapToLong(Long::longValue).sorted().toArray();
        String name = switch (pace) {
            case BACK_TO_BACK -> CONVERSATION;
            case COMMITTED -> CONVERSATION_COMMITTED;
            case KEPT_UP -> CONVERSATION_KEPT_UP;
        };
        return new Phase(name, nanos, collected, after, written[0], written[1], keptUp);
    }

    private static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    private void print(Phase p) {
        if (p.nanos().length == 0) {
            out.printf(Locale.ROOT, "%n%s: %d turns, each an event and its memory in transactions of their own%n", p.name(),
                    p.eventWrites().length);
            printWrites(p, "");
            return;
        }
        int[] slow = p.slow();
        int collected = 0;
        int after = 0;
        for (int i = 0; i < p.nanos().length; i++) {
            collected += p.collected()[i] ? 1 : 0;
            after += p.afterIngest()[i] ? 1 : 0;
        }
        out.printf(Locale.ROOT, "%n%s: %d recalls, p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f max %.2f ms%n", p.name(),
                p.nanos().length, p.percentile(50) / 1e6, p.percentile(90) / 1e6, p.percentile(99) / 1e6,
                p.percentile(99.9) / 1e6, p.percentile(100) / 1e6);
        out.printf(Locale.ROOT, "  %d during a collection, %d first after an ingest; at or over the p99: %d, of them "
                + "%d during a collection, %d first after an ingest, %d neither%n", collected, after, slow[0], slow[1],
                slow[2], slow[3]);
        printWrites(p, p.name().equals("beside a writer") ? "writer's " : "");
        long[] kept = p.keptUp();
        if (kept.length > 0) {
            out.printf(Locale.ROOT, "  keep-up between the calls (apply, then commit): %d, p50 %.2f p90 %.2f p99 %.2f max %.2f ms%n",
                    kept.length, IngestHarness.percentile(kept, 50) / 1e6, IngestHarness.percentile(kept, 90) / 1e6,
                    IngestHarness.percentile(kept, 99) / 1e6, kept[kept.length - 1] / 1e6);
        }
    }

    private void printWrites(Phase p, String whose) {
        for (int w = 0; w < 2; w++) {
            long[] times = w == 0 ? p.eventWrites() : p.memoryWrites();
            if (times.length > 0) {
                out.printf(Locale.ROOT, "  %s%s writes: %d, p50 %.2f p90 %.2f p99 %.2f max %.2f ms%n",
                        whose, w == 0 ? "event" : "memory", times.length, IngestHarness.percentile(times, 50) / 1e6,
                        IngestHarness.percentile(times, 90) / 1e6, IngestHarness.percentile(times, 99) / 1e6,
                        times[times.length - 1] / 1e6);
            }
        }
    }
}
