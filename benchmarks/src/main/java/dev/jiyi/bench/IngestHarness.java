package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Table;
import dev.jiyi.engine.Home;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.engine.BatchRunner;
import dev.jiyi.engine.Output;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Ingestion figures that JMH cannot give, because they include JVM start-up and the jieba
 * dictionary load: run with {@code java -cp benchmarks/target/benchmarks.jar dev.jiyi.bench.IngestHarness}
 * from the repository root. In order it prints
 * <ol>
 *   <li>the jieba dictionary load time in this JVM (the first thing it does);</li>
 *   <li>single-commit throughput: {@code --single} events, one {@code submitEvent} each, with
 *   per-commit latency percentiles;</li>
 *   <li>{@code event submit --batch FILE} with {@code --batch} events, in this JVM through
 *   {@link Jiyi#submitBatch} (warm JVM, dictionary loaded; what the command runs) and as a spawned {@code jiyi.jar} (wall
 *   time, start-up included);</li>
 *   <li>the cold-start wall time of a one-event {@code jiyi event submit}, spawned {@code --cold-runs}
 *   times against the home the spawned batch filled.</li>
 * </ol>
 * {@code --no-spawn} skips the spawned runs (the smoke test uses it).
 */
@Command(name = "ingest-harness", mixinStandardHelpOptions = true,
        description = "Measures jiyi ingestion: dictionary load, single commits, batch files, CLI cold start.")
public final class IngestHarness implements Callable<Integer> {

    @Option(names = "--single", paramLabel = "N", defaultValue = "2000",
            description = "Events committed one per transaction (default: ${DEFAULT-VALUE}).")
    int singleEvents;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "10000",
            description = "Events in the event submit --batch file (default: ${DEFAULT-VALUE}).")
    int batchEvents;

    @Option(names = "--chunk-size", paramLabel = "N", defaultValue = "500",
            description = "The CLI's --chunk-size for the batch runs (default: ${DEFAULT-VALUE}, the CLI's own).")
    int chunkSize;

    @Option(names = "--cold-runs", paramLabel = "N", defaultValue = "5",
            description = "Spawned one-event submissions for the cold-start figure (default: ${DEFAULT-VALUE}).")
    int coldRuns;

    @Option(names = "--jar", paramLabel = "FILE", defaultValue = "cli/target/jiyi.jar",
            description = "The application jar to spawn (default: ${DEFAULT-VALUE}).")
    Path jar;

    @Option(names = "--java", paramLabel = "FILE",
            description = "The java launcher for spawned runs (default: the one running this harness).")
    Path java;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "" + ChatCorpus.DEFAULT_SEED,
            description = "Corpus seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--no-spawn", description = "Skip the spawned-jar batch and the cold-start runs.")
    boolean noSpawn;

    private final PrintStream out;

    public IngestHarness(PrintStream out) {
        this.out = out;
    }

    /** Single-commit outcome: wall time of the loop and each commit's latency. */
    public record Commits(int events, long nanos, long p50Nanos, long p99Nanos, long maxNanos, long databaseBytes) {

        public double eventsPerSecond() {
            return events / (nanos / 1e9);
        }
    }

    /** One batch load: events stored, wall time, database size afterwards. */
    public record Load(int events, long nanos, long databaseBytes) {

        public double eventsPerSecond() {
            return events / (nanos / 1e9);
        }
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        long dictionaryMs = ChineseTokens.warmUp();
        Runtime rt = Runtime.getRuntime();
        out.printf(Locale.ROOT, "jiyi ingest harness: seed %d, Java %s (%s), %d processors, max heap %d MiB%n",
                seed, System.getProperty("java.version"), System.getProperty("java.vm.name"),
                rt.availableProcessors(), rt.maxMemory() >> 20);
        out.printf(Locale.ROOT, "jieba dictionary load: %d ms%n", dictionaryMs);
        out.println("load average at start: " + loadAverage());

        try (ScratchHome scratch = ScratchHome.create("single")) {
            Commits c = singleCommits(scratch.home(), new ChatCorpus(seed, "single"), singleEvents);
            out.printf(Locale.ROOT, "single commit: %d events in %.2f s = %.0f events/s "
                            + "(per commit: p50 %.2f ms, p99 %.2f ms, max %.2f ms); database %s%n",
                    c.events(), c.nanos() / 1e9, c.eventsPerSecond(), c.p50Nanos() / 1e6, c.p99Nanos() / 1e6,
                    c.maxNanos() / 1e6, bytes(c.databaseBytes(), c.events()));
        }

        try (ScratchHome input = ScratchHome.create("input")) {
            Path file = writeBatchFile(input.dir().resolve("events.jsonl"), new ChatCorpus(seed, "batch"), batchEvents);
            out.printf(Locale.ROOT, "batch file: %d events, %d bytes%n", batchEvents, Files.size(file));

            try (ScratchHome home = ScratchHome.create("batch-in-process")) {
                Load l = batchInProcess(home.home(), file, chunkSize);
                out.printf(Locale.ROOT, "event submit --batch, in this JVM (the engine): %d events in %.2f s "
                        + "= %.0f events/s; database %s%n", l.events(), l.nanos() / 1e9, l.eventsPerSecond(),
                        bytes(l.databaseBytes(), l.events()));
            }

            long tokenizeNanos = tokenize(new ChatCorpus(seed, "batch").nextEvents(batchEvents));
            out.printf(Locale.ROOT, "tokenization alone (ChineseTokens.indexText, second pass over the batch texts): "
                    + "%d texts in %.2f s = %.0f texts/s%n", batchEvents, tokenizeNanos / 1e9,
                    batchEvents / (tokenizeNanos / 1e9));

            if (noSpawn) {
                out.println("spawned runs: skipped (--no-spawn)");
                out.println("load average at end: " + loadAverage());
                return 0;
            }
            List<String> launcher = launcher();
            out.printf(Locale.ROOT, "spawned: %s (jar %d bytes)%n", String.join(" ", launcher), Files.size(jar));
            try (ScratchHome home = ScratchHome.create("batch-spawned")) {
                Load l = batchSpawned(launcher, home.home(), file, chunkSize, input.dir());
                out.printf(Locale.ROOT, "event submit --batch, spawned jar: %d events in %.2f s wall "
                        + "= %.0f events/s; database %s%n", l.events(), l.nanos() / 1e9, l.eventsPerSecond(),
                        bytes(l.databaseBytes(), l.events()));

                long[] runs = coldStarts(launcher, home.home(), new ChatCorpus(seed, "cold"), coldRuns, input.dir());
                out.printf(Locale.ROOT, "cold start, jiyi event submit (one new event each, home holding %d events): "
                        + "median %.0f ms; runs %s ms%n", l.events(), median(runs) / 1e6, millis(runs));
            }
        }
        out.println("load average at end: " + loadAverage());
        return 0;
    }

    /** Commits {@code n} events one transaction each, timing every commit. */
    public static Commits singleCommits(Home home, ChatCorpus corpus, int n) {
        require("single", n);
        List<EventSubmission> events = corpus.nextEvents(n);
        long[] each = new long[n];
        long start;
        long total;
        try (Jiyi jiyi = Jiyi.open(home)) {
            start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long t = System.nanoTime();
                jiyi.authority().submitEvent(events.get(i));
                each[i] = System.nanoTime() - t;
            }
            total = System.nanoTime() - start;
        }
        requireEvents(home, n);
        Arrays.sort(each);
        return new Commits(n, total, percentile(each, 50), percentile(each, 99), each[n - 1], databaseBytes(home));
    }

    /**
     * Tokenizes every text twice, the way the FTS5 index does on each insert, and returns the
     * wall time of the second pass: the share of ingestion that is analysis, not SQLite.
     */
    public static long tokenize(List<EventSubmission> events) {
        long nanos = 0;
        long chars = 0;
        for (int pass = 0; pass < 2; pass++) {
            long start = System.nanoTime();
            for (EventSubmission e : events) {
                chars += ChineseTokens.indexText(e.text()).length();
            }
            nanos = System.nanoTime() - start;
        }
        if (chars == 0) {
            throw new IllegalStateException("tokenization produced no text");
        }
        return nanos;
    }

    /** Writes {@code n} events in the {@code event submit --batch} line format. */
    public static Path writeBatchFile(Path file, ChatCorpus corpus, int n) throws IOException {
        require("batch", n);
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < n; i++) {
                w.write(ChatCorpus.jsonLine(corpus.nextEvent()));
                w.write('\n');
            }
        }
        return file;
    }

    /**
     * {@code event submit --batch FILE} in this JVM, through the engine the command runs on
     * ({@link Jiyi#submitBatch}); output is discarded.
     */
    public static Load batchInProcess(Home home, Path file, int chunkSize) {
        int lines = lineCount(file);
        PrintWriter discard = new PrintWriter(Writer.nullWriter());
        long start = System.nanoTime();
        try (Jiyi jiyi = Jiyi.open(home, environment())) {
            BatchRunner.Outcome<SubmitResult> outcome = jiyi.submitBatch(file, InputStream.nullInputStream(),
                    new Scope(Scope.DEFAULT_ID, Scope.DEFAULT_ID), false, chunkSize, new Output(discard, discard, false, true));
            if (outcome.error() != null) {
                throw new IllegalStateException("event submit --batch stopped at line " + outcome.failedLine());
            }
        }
        long nanos = System.nanoTime() - start;
        requireEvents(home, lines);
        return new Load(lines, nanos, databaseBytes(home));
    }

    /** The same command as a new process; wall time from spawn to exit. */
    public static Load batchSpawned(List<String> launcher, Home home, Path file, int chunkSize, Path logDir)
            throws IOException, InterruptedException {
        int lines = lineCount(file);
        long nanos = spawn(launcher, logDir, "--home", home.dir().toString(), "event", "submit", "--batch",
                file.toString(), "--chunk-size", Integer.toString(chunkSize));
        requireEvents(home, lines);
        return new Load(lines, nanos, databaseBytes(home));
    }

    /** Wall time of {@code runs} spawned one-event submissions, each a new event, in run order. */
    public static long[] coldStarts(List<String> launcher, Home home, ChatCorpus corpus, int runs, Path logDir)
            throws IOException, InterruptedException {
        require("cold-runs", runs);
        long before = countEvents(home);
        long[] nanos = new long[runs];
        for (int i = 0; i < runs; i++) {
            EventSubmission e = corpus.nextEvent();
            nanos[i] = spawn(launcher, logDir, "--home", home.dir().toString(), "event", "submit",
                    "--id", e.id(), "--role", e.role().code(), "--text", e.text());
        }
        requireEvents(home, before + runs);
        return nanos;
    }

    /** {@code java --enable-native-access=ALL-UNNAMED -jar JAR}, with this JVM's java unless given. */
    List<String> launcher() {
        String javaBin = java != null ? java.toString()
                : ProcessHandle.current().info().command().orElse("java");
        if (!Files.isRegularFile(jar)) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--jar: " + jar + " does not exist (build it with mvn -B package -DskipTests)");
        }
        return List.of(javaBin, "--enable-native-access=ALL-UNNAMED", "-jar", jar.toAbsolutePath().toString());
    }

    private static long spawn(List<String> launcher, Path logDir, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(args));
        Path stderr = logDir.resolve("spawn-stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(stderr.toFile());
        pb.environment().remove("JIYI_HOME");
        long start = System.nanoTime();
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("spawned jiyi did not finish within 10 minutes");
        }
        long nanos = System.nanoTime() - start;
        if (p.exitValue() != 0) {
            throw new IllegalStateException("spawned jiyi exited " + p.exitValue() + "; stderr:\n"
                    + Files.readString(stderr, StandardCharsets.UTF_8));
        }
        return nanos;
    }

    /**
     * The 1, 5 and 15 minute load averages from {@code /proc/loadavg}, so that a reader can tell
     * whether other work shared the machine; "unknown" where there is no such file.
     */
    public static String loadAverage() {
        Path proc = Path.of("/proc/loadavg");
        try {
            if (!Files.isReadable(proc)) {
                return "unknown";
            }
            String[] fields = Files.readString(proc, StandardCharsets.US_ASCII).strip().split("\\s+");
            return fields.length >= 3 ? fields[0] + " " + fields[1] + " " + fields[2] : "unknown";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + proc, e);
        }
    }

    private static Map<String, String> environment() {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.remove("JIYI_HOME");
        return env;
    }

    /**
     * Events in the home's database, read by an engine of its own, as another process would (the home
     * was written by this build, so opening it migrates and rebuilds nothing).
     */
    static long countEvents(Home home) {
        try (Jiyi jiyi = Jiyi.open(home)) {
            return jiyi.authority().tableCounts().of(Table.EVENTS);
        }
    }

    private static void requireEvents(Home home, long expected) {
        long actual = countEvents(home);
        if (actual != expected) {
            throw new IllegalStateException("expected " + expected + " events in the database, found " + actual);
        }
    }

    private static long databaseBytes(Home home) {
        try {
            Path db = home.database();
            Path wal = db.resolveSibling(db.getFileName() + "-wal");
            return Files.size(db) + (Files.exists(wal) ? Files.size(wal) : 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the database size", e);
        }
    }

    private static int lineCount(Path file) {
        try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
            return Math.toIntExact(lines.filter(l -> !l.isBlank()).count());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static void require(String option, int n) {
        if (n < 1) {
            throw new IllegalArgumentException(option + ": must be at least 1, was " + n);
        }
    }

    /** Nearest-rank percentile of sorted values. */
    public static long percentile(long[] sorted, int p) {
        return percentile(sorted, (double) p);
    }

    /** {@link #percentile(long[], int)} for a percentile between whole ones (99.9). */
    public static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    }

    private static String millis(long[] nanos) {
        List<String> ms = new ArrayList<>(nanos.length);
        for (long n : nanos) {
            ms.add(String.format(Locale.ROOT, "%.0f", n / 1e6));
        }
        return "[" + String.join(", ", ms) + "]";
    }

    private static String bytes(long bytes, int events) {
        return String.format(Locale.ROOT, "%d bytes (%.2f MiB, %.0f bytes/event)", bytes, bytes / 1048576.0,
                (double) bytes / events);
    }
}
