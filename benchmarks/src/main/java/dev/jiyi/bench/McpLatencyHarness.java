package dev.jiyi.bench;

import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.lucene.LuceneBackend;
import dev.jiyi.lucene.LuceneIndex;
import dev.jiyi.lucene.LuceneStatus;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The MCP server's latency as a host sees it: {@code java -jar cli/target/jiyi.jar --home H mcp}
 * spawned on a copy of a chat archive of N memories ({@link CachedArchive}, with its Lucene index
 * built once), driven by the MCP Java SDK's client over stdio. For each size and index it starts a
 * fresh server, with that index as its {@code recall.index} (so that {@code --warm lexical} opens
 * it, as for a host that chose it), and times, on the client's clock (JSON-RPC over the pipes
 * included):
 * <ol>
 *   <li>spawn to initialized (JVM start, engine open, MCP handshake);</li>
 *   <li>the first {@code memory_recall} and the first {@code session_resume} (what the first call
 *   pays: dictionary, index opening and catch-up, class loading, JIT-cold code);</li>
 *   <li>after {@code --warmup} unmeasured calls of each, {@code --calls} of each, interleaved, as
 *   p50, p95 and maximum.</li>
 * </ol>
 * Queries are windows of the archive's corpus (Chinese, English and mixed); recall is fast mode,
 * limit 10; the pack has a budget of 4,000 and recalls by the same query. The result is a Markdown
 * table. Run it with {@code ./jiyi bench mcp [--sizes 10000,100000]} from the repository root (it
 * spawns {@code cli/target/jiyi.jar}: build that first with {@code mvn -B package -DskipTests}).
 */
@Command(name = "mcp-latency-harness", mixinStandardHelpOptions = true,
        description = "Measures jiyi mcp's first-call and steady-state latency for memory_recall and session_resume.")
public final class McpLatencyHarness implements Callable<Integer> {

    @Option(names = "--sizes", paramLabel = "N,N", split = ",", defaultValue = "10000",
            description = "Archive sizes in memories (default: ${DEFAULT-VALUE}; 10000,100000 for the issue's figures).")
    int[] sizes;

    @Option(names = "--indexes", paramLabel = "fts5,lucene", split = ",", defaultValue = "fts5,lucene",
            description = "Indexes to measure, a fresh server each (default: ${DEFAULT-VALUE}).")
    List<String> indexes;

    @Option(names = "--calls", paramLabel = "N", defaultValue = "200",
            description = "Measured calls of each tool per server (default: ${DEFAULT-VALUE}).")
    int calls;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "20",
            description = "Unmeasured calls of each tool after the first ones (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--model", paramLabel = "M", defaultValue = "gpt-4o",
            description = "session_resume's model, which picks the token counter (default: ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--server-warm", paramLabel = "none|lexical|all", defaultValue = "lexical",
            description = "The server's --warm (default: ${DEFAULT-VALUE}, as a host runs it; none measures a "
                    + "first call that loads everything itself).")
    String serverWarm;

    @Option(names = "--jar", paramLabel = "FILE", defaultValue = "cli/target/jiyi.jar",
            description = "The application jar to spawn (default: ${DEFAULT-VALUE}).")
    Path jar;

    @Option(names = "--java", paramLabel = "FILE",
            description = "The java launcher for the server (default: the one running this harness).")
    Path java;

    @Mixin
    ArchiveOptions common = new ArchiveOptions();

    private final PrintStream out;

    public McpLatencyHarness(PrintStream out) {
        this.out = out;
    }

    public static CommandLine command(PrintStream out) {
        return new CommandLine(new McpLatencyHarness(out));
    }

    /**
     * One server on one archive and index.
     *
     * @param initializedNanos spawn to the end of the MCP handshake
     * @param ping a {@code ping} round trip: what the protocol and the pipes cost with no work behind them
 * @param meanResults memories and raw events per recall, on average
     * @param meanTokens tokens of the packed context, on average
     */
    public record Run(int memories, String index, long initializedNanos, long firstRecallNanos, long firstResumeNanos,
                      int calls, Latency recall, Latency resume, Latency ping, double meanResults, double meanTokens,
                      int stderrLines) {
    }

    public record Report(long seed, String java, int processors, String loadAtStart, String loadAtEnd,
                         String serverWarm, String model, List<Run> runs) {
    }

    @Override
    public Integer call() throws IOException {
        if (calls < 1 || warmup < 0) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--calls must be at least 1, --warmup at least 0");
        }
        for (String index : indexes) {
            if (!index.equals("fts5") && !index.equals("lucene")) {
                throw new CommandLine.ParameterException(new CommandLine(this), "--indexes: each must be fts5 or lucene");
            }
        }
        List<String> launcher = launcher();
        String loadAtStart = IngestHarness.loadAverage();
        out.printf(Locale.ROOT, "jiyi mcp latency harness: seed %d, Java %s, %d processors; server: %s --home H mcp "
                        + "--warm %s%n", common.seed, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), String.join(" ", launcher), serverWarm);
        out.println("load average at start: " + loadAtStart);
        List<Run> runs = new ArrayList<>();
        for (int size : sizes) {
            CachedArchive archive = common.archive(size, null, out);
            prepareLucene(archive);
            try (ScratchHome scratch = ScratchHome.create("mcp-latency")) {
                archive.copyTo(scratch.dir());
                for (String index : indexes) {
                    Run run = measure(launcher, scratch.dir(), size, index);
                    runs.add(run);
                    out.printf(Locale.ROOT, "  %,d memories, %s: initialized %.0f ms, first recall %.1f ms, first "
                                    + "resume %.1f ms, recall p50 %.2f ms, resume p50 %.2f ms%n", size, index,
                            ms(run.initializedNanos()), ms(run.firstRecallNanos()), ms(run.firstResumeNanos()),
                            ms(run.recall().p50Nanos()), ms(run.resume().p50Nanos()));
                }
            }
        }
        String loadAtEnd = IngestHarness.loadAverage();
        printTable(runs);
        out.println("load average at end: " + loadAtEnd);
        if (common.json != null) {
            common.writeJson(new Report(common.seed, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors(), loadAtStart, loadAtEnd, serverWarm, model, runs), out);
        }
        return 0;
    }

    /**
     * Builds the archive's Lucene index once, in the cache (recorded as {@link LuceneRecallHarness}
     * records it), so that a server's first call measures opening and catching up, not building.
     */
    private void prepareLucene(CachedArchive archive) {
        Path root = archive.dir().resolve("lucene");
        if (LuceneIndex.exists(root) && archive.figure("luceneBuildNanos.jiyi") >= 0) {
            return;
        }
        out.println("  building the archive's Lucene index (once; kept with the archive) ...");
        long t = System.nanoTime();
        try (Jiyi jiyi = Jiyi.open(archive.home())) {
            LuceneIndex lucene = jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index();
            lucene.rebuild(jiyi.authority());
            for (LuceneStatus s = lucene.catchUp(jiyi.authority()); s.behind() > 0 && !s.readOnly();
                 s = lucene.catchUp(jiyi.authority())) {
                // applies the rest of the change log
            }
        }
        archive.record("luceneBuildNanos.jiyi", System.nanoTime() - t);
    }

    private Run measure(List<String> launcher, Path home, int size, String index) {
        List<String> stderr = new CopyOnWriteArrayList<>();
        List<String> args = new ArrayList<>(launcher.subList(1, launcher.size()));
        args.addAll(List.of("--home", home.toString(), "mcp", "--warm", serverWarm));
        ServerParameters params = ServerParameters.builder(launcher.getFirst()).args(args).build();
        StdioClientTransport transport = new StdioClientTransport(params, McpJsonDefaults.getMapper()) {
            @Override
            protected ProcessBuilder getProcessBuilder() {
                ProcessBuilder pb = new ProcessBuilder();
                pb.environment().keySet().removeIf(k -> k.startsWith("JIYI_")); // no developer settings
                pb.environment().put("JIYI_RECALL_INDEX", index); // as a host that chose this index runs it
                return pb;
            }
        };
        transport.setStdErrorHandler(stderr::add);
        List<String> queries = SemanticHarness.queries(new ChatCorpus(common.seed, "mcp-query-" + size),
                2 + 2 * (warmup + calls), new SplittableRandom(common.seed + size));
        long start = System.nanoTime();
        McpSyncClient client = McpClient.sync(transport)
                .requestTimeout(Duration.ofMinutes(10))
                .initializationTimeout(Duration.ofMinutes(2))
                .build();
        try {
            client.initialize();
            long initialized = System.nanoTime() - start;
            int q = 0;
            long t = System.nanoTime();
            call(client, "memory_recall", recall(queries.get(q++), index), stderr);
            long firstRecall = System.nanoTime() - t;
            t = System.nanoTime();
            call(client, "session_resume", resume(queries.get(q++), index), stderr);
            long firstResume = System.nanoTime() - t;
            for (int i = 0; i < warmup; i++) {
                call(client, "memory_recall", recall(queries.get(q++), index), stderr);
                call(client, "session_resume", resume(queries.get(q++), index), stderr);
            }
            long[] recalls = new long[calls];
            long[] resumes = new long[calls];
            long results = 0;
            long tokens = 0;
            for (int i = 0; i < calls; i++) {
                t = System.nanoTime();
                Map<?, ?> r = call(client, "memory_recall", recall(queries.get(q++), index), stderr);
                recalls[i] = System.nanoTime() - t;
                results += ((List<?>) r.get("results")).size();
                t = System.nanoTime();
                Map<?, ?> p = call(client, "session_resume", resume(queries.get(q++), index), stderr);
                resumes[i] = System.nanoTime() - t;
                tokens += ((Number) p.get("tokens")).longValue();
            }
            long[] pings = new long[calls];
            for (int i = 0; i < calls; i++) {
                t = System.nanoTime();
                client.ping();
                pings[i] = System.nanoTime() - t;
            }
            return new Run(size, index, initialized, firstRecall, firstResume, calls, Latency.of(recalls),
                    Latency.of(resumes), Latency.of(pings), results / (double) calls, tokens / (double) calls,
                    stderr.size());
        } finally {
            client.closeGracefully();
        }
    }

    private static Map<String, Object> recall(String query, String index) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("query", query);
        m.put("index", index);
        m.put("mode", "fast");
        m.put("limit", 10);
        return m;
    }

    private Map<String, Object> resume(String query, String index) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("query", query);
        m.put("index", index);
        m.put("budget", 4000);
        m.put("model", model);
        return m;
    }

    /** One call that must succeed; its structured content. */
    private static Map<?, ?> call(McpSyncClient client, String tool, Map<String, Object> args, List<String> stderr) {
        CallToolResult r = client.callTool(new McpSchema.CallToolRequest(tool, args));
        if (Boolean.TRUE.equals(r.isError())) {
            throw new IllegalStateException(tool + " failed: " + r.content() + "; server stderr: " + stderr);
        }
        return (Map<?, ?>) r.structuredContent();
    }

    /**
     * {@code java -jar JAR} with the flags a host should give a stdio server: the JVM's own messages go
     * to stderr, never to stdout, where they would corrupt the protocol.
     */
    private List<String> launcher() {
        String javaBin = java != null ? java.toString() : ProcessHandle.current().info().command().orElse("java");
        if (!Files.isRegularFile(jar)) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--jar: " + jar + " does not exist (build it with mvn -B -pl cli -am package -DskipTests)");
        }
        return List.of(javaBin, "--enable-native-access=ALL-UNNAMED", "-XX:+DisplayVMOutputToStderr",
                "-Xlog:disable", "-Xlog:all=warning:stderr", "-jar", jar.toAbsolutePath().toString());
    }

    private void printTable(List<Run> runs) {
        out.println();
        out.println("| memories | index | spawn to initialized | first recall | first resume | recall p50 | recall p95 "
                + "| resume p50 | resume p95 | ping p50 | calls | results/recall | tokens/pack |");
        out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Run r : runs) {
            out.printf(Locale.ROOT, "| %,d | %s | %.0f ms | %.1f ms | %.1f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms "
                            + "| %.2f ms | %d | %.1f | %.0f |%n", r.memories(), r.index(), ms(r.initializedNanos()),
                    ms(r.firstRecallNanos()), ms(r.firstResumeNanos()), ms(r.recall().p50Nanos()),
                    ms(r.recall().p95Nanos()), ms(r.resume().p50Nanos()), ms(r.resume().p95Nanos()),
                    ms(r.ping().p50Nanos()), r.calls(), r.meanResults(), r.meanTokens());
        }
        out.println();
        out.printf(Locale.ROOT, "Times on the client's clock, JSON-RPC over stdio included (ping: the round trip "
                + "alone); fast recall, limit 10; packs of budget 4,000 for %s; the server started with --warm %s.%n",
                model, serverWarm);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
