package dev.jiyi.bench;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.VectorIndex;
import dev.jiyi.authority.index.VectorQuery;
import dev.jiyi.bench.GuardBounds.Bound;
import dev.jiyi.bench.GuardBounds.BoundsException;
import dev.jiyi.bench.GuardBounds.Family;
import dev.jiyi.bench.GuardBounds.Key;
import dev.jiyi.bench.GuardBounds.Verdict;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.lucene.LuceneBackend;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * {@code ./jiyi bench guard} (B1): a short JMH pass over the benchmarks a bounds file names, then
 * each bound checked and printed OK or FAIL with the figure, the bound and the difference; exit 0
 * when every bound holds, 1 when one does not, 2 on a bad option or bounds file, 3 when a benchmark
 * could not run.
 *
 * <p>Bounds are of two sorts. Times (a benchmark's mean, p50 or p99 at one archive size, in ms) are
 * the machine's. Ratios move both of their sides on a slower or busier machine: growth of one
 * benchmark's mean time from one archive size to another, one benchmark's mean against another's on
 * the same queries and archive, and HNSW's recall@10 against the exact scan (a quality ratio,
 * measured directly, deterministic for a seed). The file's format is in its own header
 * ({@code benchmarks/src/main/resources/dev/jiyi/bench/guard-bounds.txt}, the default).
 */
@Command(name = "guard", mixinStandardHelpOptions = true,
        description = "Runs a short JMH pass and checks the bounds of a bounds file (times and ratios): OK or FAIL per bound.")
public final class Guard implements Callable<Integer> {

    /** The default bounds, on the class path. */
    static final String DEFAULT_BOUNDS = "guard-bounds.txt";

    /** Queries HNSW's recall is averaged over. */
    static final int HNSW_QUERIES = 100;

    @Option(names = "--bounds", paramLabel = "FILE",
            description = "The bounds to check (default: the built-in guard-bounds.txt).")
    Path bounds;

    @Option(names = "--archives", paramLabel = "DIR",
            description = "Where built archives are kept and reused (default: jiyi-bench-archives under java.io.tmpdir).")
    Path archives;

    @Option(names = "--forks", paramLabel = "N", defaultValue = "1",
            description = "JMH forks per benchmark; 0 runs in this JVM (default: ${DEFAULT-VALUE}).")
    int forks;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "3",
            description = "Unmeasured iterations per benchmark first: the JIT needs them at small sizes, where calls"
                    + " are quick (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "3",
            description = "Measured iterations per benchmark (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--time", paramLabel = "MS", defaultValue = "1000",
            description = "Milliseconds per iteration, warm-up and measured (default: ${DEFAULT-VALUE}).")
    int millis;

    @Option(names = "--quiet", description = "Print only the bounds, not JMH's progress.")
    boolean quiet;

    private final PrintStream out;

    public Guard(PrintStream out) {
        this.out = out;
    }

    /** Exit code when the guard could not measure (a benchmark failed): not a bound that failed. */
    static final int BROKEN = 3;

    public static CommandLine command(PrintStream out) {
        CommandLine cli = new CommandLine(new Guard(out));
        cli.setErr(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            out.println("jiyi bench guard: could not measure (" + e.getClass().getSimpleName() + "): " + e.getMessage());
            return BROKEN;
        });
        return cli;
    }

    // ---------------------------------------------------------------- the run

    @Override
    public Integer call() throws IOException, RunnerException {
        if (forks < 0 || warmup < 0 || iterations < 1 || millis < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--forks and --warmup must be at least 0, --iterations and --time at least 1");
        }
        List<Bound> parsed;
        try {
            parsed = GuardBounds.parse(readBounds());
        } catch (BoundsException e) {
            out.println("jiyi bench guard: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            out.println("jiyi bench guard: --bounds: cannot read the file (" + e.getClass().getSimpleName() + ")");
            return 2;
        }
        if (archives != null) {
            System.setProperty(JmhArchives.ROOT_PROPERTY, archives.toAbsolutePath().toString());
        }
        out.printf(Locale.ROOT, "jiyi bench guard: %d bounds, Java %s, %d processors, load average at start %s%n",
                parsed.size(), System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                IngestHarness.loadAverage());
        Map<Key, Double> p50 = new LinkedHashMap<>();
        Map<Key, Double> p99 = new LinkedHashMap<>();
        Map<Key, Double> items = new LinkedHashMap<>();
        Map<Key, Double> scores = measure(parsed, p50, p99, items);
        Map<Integer, Double> hnswRecall = new HashMap<>();
        for (Bound b : parsed) {
            if (b instanceof Bound.Hnsw h && !hnswRecall.containsKey(h.size())) {
                hnswRecall.put(h.size(), hnswRecall(h.size()));
            }
        }
        out.println();
        if (!scores.isEmpty()) {
            out.println("ms per call, mean, p50 and p99:");
        }
        scores.forEach((k, v) -> out.printf(Locale.ROOT, "  %-44s %10.3f %10.3f %10.3f%n", k, v, p50.getOrDefault(k, Double.NaN),
                p99.getOrDefault(k, Double.NaN)));
        hnswRecall.forEach((size, r) -> out.printf(Locale.ROOT, "  hnsw recall@%d at %,d: %.3f%n", GuardBounds.K, size, r));
        List<Verdict> verdicts = GuardBounds.check(parsed, new GuardBounds.Figures(scores, p50, p99, hnswRecall, items));
        out.println();
        verdicts.forEach(v -> out.println(v.line()));
        long failed = verdicts.stream().filter(v -> !v.ok()).count();
        out.printf(Locale.ROOT, "%d of %d bounds hold; load average at end %s%n", verdicts.size() - failed,
                verdicts.size(), IngestHarness.loadAverage());
        return failed == 0 ? 0 : 1;
    }

    private List<String> readBounds() throws IOException {
        if (bounds != null) {
            return Files.readAllLines(bounds, StandardCharsets.UTF_8);
        }
        try (InputStream in = Guard.class.getResourceAsStream(DEFAULT_BOUNDS)) {
            if (in == null) {
                throw new IllegalStateException("the built-in " + DEFAULT_BOUNDS + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    /**
     * One JMH run per benchmark family the bounds read, over the sizes and variants they name; the
     * items a call handles go to {@code items} for a benchmark that has an {@code events} parameter.
     */
    private Map<Key, Double> measure(List<Bound> parsed, Map<Key, Double> p50, Map<Key, Double> p99,
            Map<Key, Double> items) throws RunnerException {
        Map<Family, Set<String>> methods = new LinkedHashMap<>();
        Map<Family, Set<Integer>> sizes = new HashMap<>();
        Map<Family, Set<String>> variants = new HashMap<>();
        for (Bound b : parsed) {
            for (Key k : b.keys()) {
                Family f = Family.of(k.benchmark());
                methods.computeIfAbsent(f, x -> new TreeSet<>()).add(k.benchmark().substring(f.prefix.length() + 1));
                sizes.computeIfAbsent(f, x -> new TreeSet<>()).add(k.size());
                variants.computeIfAbsent(f, x -> new TreeSet<>()).add(k.variant());
            }
        }
        Map<Key, Double> scores = new LinkedHashMap<>();
        for (Map.Entry<Family, Set<String>> e : methods.entrySet()) {
            Family f = e.getKey();
            ChainedOptionsBuilder options = new OptionsBuilder()
                    .include("^" + f.type.getName().replace(".", "\\.") + "\\.(" + String.join("|", e.getValue()) + ")$")
                    .param("size", sizes.get(f).stream().map(String::valueOf).toArray(String[]::new))
                    .forks(forks)
                    .warmupIterations(warmup).warmupTime(TimeValue.milliseconds(millis))
                    .measurementIterations(iterations).measurementTime(TimeValue.milliseconds(millis))
                    .shouldFailOnError(true)
                    .verbosity(quiet ? VerboseMode.SILENT : VerboseMode.NORMAL);
            if (f.variantParam != null) {
                options.param(f.variantParam, variants.get(f).toArray(String[]::new));
            }
            if (archives != null) {
                // JMH takes a fork's extra arguments from the options or from @Fork, never both: repeat @Fork's.
                List<String> args = new java.util.ArrayList<>(List.of(JmhArchives.FORK_ARGS));
                args.add("-D" + JmhArchives.ROOT_PROPERTY + "=" + archives.toAbsolutePath());
                options.jvmArgsAppend(args.toArray(String[]::new));
            }
            Collection<RunResult> results = new Runner(options.build()).run();
            for (RunResult r : results) {
                String method = r.getParams().getBenchmark().substring(f.type.getName().length() + 1);
                Key k = new Key(f.prefix + "." + method, f.variantParam == null ? "" : r.getParams().getParam(f.variantParam),
                        Integer.parseInt(r.getParams().getParam("size")));
                scores.put(k, r.getPrimaryResult().getScore());
                p50.put(k, r.getPrimaryResult().getStatistics().getPercentile(50));
                p99.put(k, r.getPrimaryResult().getStatistics().getPercentile(99));
                String events = r.getParams().getParam("events");
                if (events != null) {
                    items.put(k, Double.parseDouble(events));
                }
            }
        }
        return scores;
    }

    /**
     * HNSW's mean recall@{@value GuardBounds#K} against the exact scan of the vector cache, over
     * {@value #HNSW_QUERIES} seeded query vectors on the vector archive of {@code size}: the home's
     * Lucene index with jiyi's default settings.
     */
    static double hnswRecall(int size) {
        CachedArchive archive = JmhArchives.open(size, true);
        CachedArchive.VectorSource source = new CachedArchive.VectorSource(JmhArchives.VECTORS, ChatCorpus.DEFAULT_SEED + 1);
        try (Jiyi jiyi = Jiyi.open(archive.home())) {
            Authority authority = jiyi.authority();
            Eligibility eligible = Eligibility.current(Scope.DEFAULT, Instant.now());
            VectorIndex exact = new ExactVectorScan();
            double found = 0;
            for (int i = 0; i < HNSW_QUERIES; i++) {
                VectorQuery q = new VectorQuery(source.next(), JmhArchives.VECTORS.fingerprint(), eligible, GuardBounds.K,
                        -1.0, 0);
                List<Long> truth = authority.read(s -> s.nearest(exact, q)).nearest().stream().map(Candidate::rowId).toList();
                found += VectorRecallHarness.recall(truth, authority.read(s -> s.nearest(jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index(), q)).nearest());
            }
            return found / HNSW_QUERIES;
        }
    }
}
