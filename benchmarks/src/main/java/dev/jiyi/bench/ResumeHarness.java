package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.pack.ContextPack;
import dev.jiyi.pack.Pack;
import dev.jiyi.pack.PackRequest;
import dev.jiyi.ranking.RecallMode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * {@code session_resume} in process: {@code ./jiyi bench resume}. For each of {@code --sizes} it
 * copies the cached chat archive of that many memories ({@link CachedArchive}) to a scratch home, adds
 * what a real session has on top (a session of {@value #SESSION_TURNS} recent turns, 25 agreements and
 * growth records, an expressed emotion, a checkpoint), and times whole packs, p50, p95 and maximum:
 * recalled by a query on FTS5 and on Lucene, counted in UTF-8 bytes and in o200k tokens, and recalled
 * by the checkpoint and the latest user turn (no query). The cases are interleaved pack by pack so
 * that all see the same machine.
 */
@Command(name = "resume-harness", mixinStandardHelpOptions = true,
        description = "Measures the context pack (session_resume) on archives of growing size.")
public final class ResumeHarness implements Callable<Integer> {

    static final int SESSION_TURNS = 40;
    static final String SESSION = "resume-bench";

    @Option(names = "--sizes", paramLabel = "N,N", split = ",", defaultValue = "10000,100000",
            description = "Archive sizes in memories (default: ${DEFAULT-VALUE}).")
    int[] sizes;

    @Option(names = "--packs", paramLabel = "N", defaultValue = "200",
            description = "Measured packs per case and size (default: ${DEFAULT-VALUE}).")
    int packs;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "50",
            description = "Unmeasured packs per case before the measured ones (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--budget", paramLabel = "N", defaultValue = "4000",
            description = "Budget of each pack (default: ${DEFAULT-VALUE}).")
    int budget;

    @Mixin
    ArchiveOptions common = new ArchiveOptions();

    private final PrintStream out;

    public ResumeHarness(PrintStream out) {
        this.out = out;
    }

    public static CommandLine command(PrintStream out) {
        return new CommandLine(new ResumeHarness(out)).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** One way of packing: the index recall searches, the model that counts, and whether a query is given. */
    public record Case(String name, String index, String model, boolean query) {
    }

    static final List<Case> CASES = List.of(
            new Case("fts5, query, bytes", "fts5", null, true),
            new Case("lucene, query, bytes", "lucene", null, true),
            new Case("fts5, query, o200k", "fts5", "gpt-4o", true),
            new Case("fts5, no query", "fts5", null, false),
            new Case("lucene, no query", "lucene", null, false));

    /** One case at one size: latency percentiles and what the packs held on average. */
    public record Timing(String name, int packs, double p50Ms, double p95Ms, double maxMs, double meanTokens,
                         double meanComponents, double meanRecalled) {
    }

    public record SizeResult(int memories, List<Timing> timings) {
    }

    public record Report(long seed, int budget, String java, int processors, String loadAtStart, String loadAtEnd,
                         List<SizeResult> sizes) {
    }

    @Override
    public Integer call() throws IOException {
        if (packs < 1 || warmup < 0 || budget < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--packs and --budget must be at least 1, --warmup at least 0");
        }
        ChineseTokens.warmUp();
        String loadAtStart = IngestHarness.loadAverage();
        out.printf(Locale.ROOT, "jiyi resume harness: seed %d, budget %d, Java %s, %d processors%n", common.seed, budget,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        out.println("load average at start: " + loadAtStart);
        List<SizeResult> results = new ArrayList<>();
        for (int size : sizes) {
            SizeResult r = run(size);
            results.add(r);
            out.printf(Locale.ROOT, "%n%,d memories (+%d session turns, 26 agreement/growth/emotion memories)%n", size,
                    SESSION_TURNS);
            out.println("| case | packs | p50 ms | p95 ms | max ms | mean count | components | recalled |");
            out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
            for (Timing t : r.timings()) {
                out.printf(Locale.ROOT, "| %s | %d | %.2f | %.2f | %.2f | %.0f | %.1f | %.1f |%n", t.name(), t.packs(),
                        t.p50Ms(), t.p95Ms(), t.maxMs(), t.meanTokens(), t.meanComponents(), t.meanRecalled());
            }
        }
        String loadAtEnd = IngestHarness.loadAverage();
        out.println("load average at end: " + loadAtEnd);
        if (common.json != null) {
            Report report = new Report(common.seed, budget, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors(), loadAtStart, loadAtEnd, results);
            common.writeJson(report, out);
        }
        return 0;
    }

    SizeResult run(int size) {
        CachedArchive archive = common.archive(size, null, out);
        try (ScratchHome scratch = ScratchHome.create("resume")) {
            archive.copyTo(scratch.dir());
            try (Jiyi jiyi = Jiyi.open(scratch.home())) {
                addSession(jiyi.authority(), common.seed);
                Clock clock = Clock.systemUTC();
                List<ContextPack> packers = new ArrayList<>();
                for (Case c : CASES) {
                    packers.add(new ContextPack(jiyi.authority(),
                            jiyi.recall(jiyi.recallIndex(c.index()), jiyi.recallConfig(), clock), clock));
                }
                List<String> queries = SemanticHarness.queries(new ChatCorpus(common.seed, "resume-query"), warmup + packs,
                        new SplittableRandom(common.seed));
                long[][] nanos = new long[CASES.size()][packs];
                double[] tokens = new double[CASES.size()];
                double[] components = new double[CASES.size()];
                double[] recalled = new double[CASES.size()];
                for (int i = 0; i < warmup + packs; i++) {
                    for (int j = 0; j < CASES.size(); j++) {
                        int x = (i + j) % CASES.size();
                        Case c = CASES.get(x);
                        PackRequest request = new PackRequest(Scope.DEFAULT, budget, c.model(),
                                c.query() ? queries.get(i) : null, SESSION, RecallMode.FAST);
                        long t = System.nanoTime();
                        Pack p = packers.get(x).pack(request);
                        long elapsed = System.nanoTime() - t;
                        if (i >= warmup) {
                            nanos[x][i - warmup] = elapsed;
                            tokens[x] += p.tokens();
                            components[x] += p.included().size();
                            recalled[x] += p.included().getOrDefault("recalled_memories", 0);
                        }
                    }
                }
                List<Timing> timings = new ArrayList<>();
                for (int x = 0; x < CASES.size(); x++) {
                    long[] sorted = nanos[x].clone();
                    Arrays.sort(sorted);
                    timings.add(new Timing(CASES.get(x).name(), packs, IngestHarness.percentile(sorted, 50) / 1e6,
                            IngestHarness.percentile(sorted, 95) / 1e6, sorted[sorted.length - 1] / 1e6,
                            tokens[x] / packs, components[x] / packs, recalled[x] / packs));
                }
                return new SizeResult(size, timings);
            }
        }
    }

    /** A live session on top of the archive: recent turns, agreements and growth, an emotion, a checkpoint. */
    static void addSession(Authority authority, long seed) {
        ChatCorpus corpus = new ChatCorpus(seed, "resume-session");
        List<EventSubmission> source = new ArrayList<>();
        for (int i = 0; i < SESSION_TURNS; i++) {
            source.add(corpus.nextEvent());
        }
        addSession(authority, seed, Scope.DEFAULT, source);
    }

    /**
     * {@link #addSession(Authority, long)} in {@code scope}, its turns the IDs, roles and texts of the
     * first {@value #SESSION_TURNS} of {@code source}, a minute apart in the last hour.
     */
    static void addSession(Authority authority, long seed, Scope scope, List<EventSubmission> source) {
        Instant start = Instant.now().minusSeconds(3_600);
        List<EventSubmission> turns = new ArrayList<>();
        for (int i = 0; i < SESSION_TURNS; i++) {
            EventSubmission e = source.get(i);
            turns.add(new EventSubmission(e.id(), scope, e.role(), e.text(), "bench", null, SESSION,
                    start.plusSeconds(60L * i)));
        }
        DeletionHarness.require(authority.submitEvents(turns));
        SplittableRandom random = new SplittableRandom(seed);
        List<Derivation> drafts = new ArrayList<>();
        for (int i = 0; i < 26; i++) {
            EventSubmission e = turns.get(i);
            boolean assistant = e.role() == Role.ASSISTANT;
            MemoryDraft.Builder b = MemoryDraft.builder(e.id()).text(e.text()).quote(SemanticHarness.window(e.text(), random))
                    .basis(assistant ? Basis.ASSISTANT_EXPRESSION : Basis.USER_STATEMENT);
            if (i == 25 && assistant) {
                b.kind(Kind.EMOTION).emotion(new Emotion("content", 0.6, 0.3));
            } else {
                b.kind(i % 3 == 0 ? Kind.GROWTH : Kind.AGREEMENT);
            }
            drafts.add(new Derivation(scope, b.build()));
        }
        DeletionHarness.require(authority.addMemories(drafts));
        long covered = authority.recentEvents(scope, SESSION, java.util.EnumSet.allOf(dev.jiyi.authority.Category.class),
                Instant.now(), 1).getFirst().sequence();
        authority.saveCheckpoint(scope, new CheckpointDraft(SESSION, "整理下周的项目计划 plan next week's project",
                List.of("列出截止日期"), List.of("确认会议时间 confirm the meeting", "提醒团队"), List.of("不超过三页"),
                "问用户周五是否有空", covered));
    }
}
