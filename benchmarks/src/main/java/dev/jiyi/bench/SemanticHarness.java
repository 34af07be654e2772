package dev.jiyi.bench;

import dev.jiyi.bench.SemanticResults.Build;
import dev.jiyi.bench.SemanticResults.Embedding;
import dev.jiyi.bench.SemanticResults.ModeLatency;
import dev.jiyi.bench.SemanticResults.Report;
import dev.jiyi.bench.SemanticResults.Scan;
import dev.jiyi.bench.SemanticResults.SizeResult;
import dev.jiyi.bench.SemanticResults.Throughput;
import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Embedders;
import dev.jiyi.providers.LocalEmbedder;
import dev.jiyi.providers.LocalModel;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * What semantic recall costs on this machine: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.jiyi.bench.SemanticHarness}. It prints
 * <ol>
 *   <li>the local embedding model (BGE small zh v1.5, quantized, on ONNX Runtime): the first
 *   embedding in this JVM (model load included), throughput in calls of {@code --batches} texts per
 *   language, and the latency of embedding one query;</li>
 *   <li>for each of {@code --sizes}: an archive of that many memories (one per {@link ChatCorpus}
 *   event, loaded through the batch APIs) with a vector for each, its build time and database size,
 *   then {@code --queries} recalls in each of fast, semantic and deep mode, with the query's
 *   embedding timed apart from the rest, and the vector scan alone.</li>
 * </ol>
 * Vectors are either the model's ({@code real}) or seeded random unit vectors stored under the
 * model's fingerprint ({@code random}): the scan reads and compares the same number of 512-float
 * vectors either way, without the minutes that embedding 100,000 texts takes on two cores.
 *
 * <p>At about 600 lines this is the longest class of the build, and knowingly so: it is one
 * measurement procedure (build, warm up, time each mode, time the parts alone, report), read top to
 * bottom, whose result records are only meaningful to its own report; splitting it would scatter
 * one procedure over files. The issue that turns the harnesses into one suite will reshape it.
 */
@Command(name = "semantic-harness", mixinStandardHelpOptions = true,
        description = "Measures local embedding throughput and fast, semantic and deep recall latency.")
public final class SemanticHarness implements Callable<Integer> {

    /** The bundled Chinese model this harness measures (the corpus is Chinese chat). */
    private static final LocalEmbedder LOCAL = new LocalEmbedder(LocalModel.BGE_SMALL_ZH, "1");

    /** Where vectors come from: the local model, or seeded random unit vectors under its fingerprint. */
    public enum Vectors { REAL, RANDOM }

    /** The script of a text: CJK only, Latin letters only, or both. */
    public enum Language {
        CHINESE, ENGLISH, MIXED;

        static Language of(String text) {
            boolean cjk = false;
            boolean latin = false;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                cjk |= ChineseTokens.isCjk(c);
                latin |= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            }
            return cjk && latin ? MIXED : cjk ? CHINESE : ENGLISH;
        }
    }

    /** Up to this many memories, {@code --vectors} defaults to the model's own vectors. */
    public static final int REAL_VECTORS_UP_TO = 20_000;
    /** Results asked of each recall. */
    public static final int RECALL_LIMIT = 10;
    /** Queries run in every mode, unmeasured, before the measured ones at each size. */
    public static final int WARMUP_QUERIES = 5;
    /** A query is a window of this many characters (at most) of a corpus text. */
    static final int QUERY_MIN = 8;
    static final int QUERY_MAX = 40;

    private static final List<RecallMode> MODES = List.of(RecallMode.FAST, RecallMode.SEMANTIC, RecallMode.DEEP);

    @Option(names = "--sizes", paramLabel = "N,N", split = ",", defaultValue = "10000,100000",
            description = "Archive sizes in memories (default: ${DEFAULT-VALUE}).")
    int[] sizes;

    @Option(names = "--queries", paramLabel = "N", defaultValue = "50",
            description = "Measured recalls per mode and size (default: ${DEFAULT-VALUE}).")
    int queries;

    @Option(names = "--vectors", paramLabel = "real|random",
            description = "real: embed every memory; random: seeded random unit vectors under the local model's "
                    + "fingerprint (default: real up to " + REAL_VECTORS_UP_TO + " memories, random above).")
    Vectors vectors;

    @Option(names = "--embed-texts", paramLabel = "N", defaultValue = "512",
            description = "Corpus texts embedded per batch size for the throughput figure; 0 skips it "
                    + "(default: ${DEFAULT-VALUE}).")
    int embedTexts;

    @Option(names = "--batches", paramLabel = "N,N", split = ",", defaultValue = "32,64",
            description = "Texts per embed call for the throughput figure (default: ${DEFAULT-VALUE}).")
    int[] batches;

    @Option(names = "--chunk-size", paramLabel = "N", defaultValue = "2000",
            description = "Events, memories and vectors per batch call while building (default: ${DEFAULT-VALUE}).")
    int chunkSize;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "" + ChatCorpus.DEFAULT_SEED,
            description = "Corpus, query and random-vector seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures to FILE as JSON.")
    Path json;

    private final PrintStream out;

    public SemanticHarness(PrintStream out) {
        this.out = out;
    }

    /** The command line for this harness; {@code --vectors} takes {@code real} or {@code random}. */
    public static CommandLine command(PrintStream out) {
        return new CommandLine(new SemanticHarness(out)).setCaseInsensitiveEnumValuesAllowed(true);
    }

    @Override
    public Integer call() throws IOException {
        requireAtLeast("--queries", queries, 1);
        requireAtLeast("--chunk-size", chunkSize, 1);
        ChineseTokens.warmUp();
        Runtime rt = Runtime.getRuntime();
        String loadAtStart = IngestHarness.loadAverage();
        out.printf(Locale.ROOT, "jiyi semantic recall harness: seed %d, Java %s, %d processors, max heap %d MiB%n",
                seed, System.getProperty("java.version"), rt.availableProcessors(), rt.maxMemory() >> 20);
        out.println("load average at start: " + loadAtStart);

        TimedEmbedder embedder = new TimedEmbedder(LOCAL);
        List<String> all = queries(new ChatCorpus(seed, "query"), WARMUP_QUERIES + queries, new SplittableRandom(seed));
        List<String> warmup = all.subList(0, WARMUP_QUERIES);
        List<String> measured = all.subList(WARMUP_QUERIES, all.size());

        Embedding embedding = embedding(embedder, measured);
        embedding.print(out);

        List<SizeResult> results = new ArrayList<>();
        for (int size : sizes) {
            requireAtLeast("--sizes", size, 1);
            Vectors source = vectors != null ? vectors : size <= REAL_VECTORS_UP_TO ? Vectors.REAL : Vectors.RANDOM;
            try (ScratchHome scratch = ScratchHome.create("semantic-" + size)) {
                SizeResult r = run(scratch, size, source, embedder, warmup, measured);
                r.print(out);
                results.add(r);
            }
        }
        String loadAtEnd = IngestHarness.loadAverage();
        out.println("load average at end: " + loadAtEnd);
        if (json != null) {
            Report report = new Report(seed, System.getProperty("java.version"), rt.availableProcessors(),
                    rt.maxMemory(), loadAtStart, loadAtEnd, embedding, results);
            JsonMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
            Files.writeString(json, mapper.writeValueAsString(report) + "\n", StandardCharsets.UTF_8);
            out.println("figures written to " + json);
        }
        return 0;
    }

    // ---------------------------------------------------------------- the embedding model

    private Embedding embedding(TimedEmbedder embedder, List<String> queryTexts) {
        boolean loadedBefore = LOCAL.loaded();
        long t = System.nanoTime();
        embedder.embed("预热 warm-up");
        long first = System.nanoTime() - t;

        List<Throughput> throughput = new ArrayList<>();
        if (embedTexts > 0) {
            ChatCorpus corpus = new ChatCorpus(seed, "embed");
            int widest = Arrays.stream(batches).max().orElse(1);
            embedder.embed(texts(corpus, 2 * widest)); // warm-up: the JIT and ONNX Runtime's first runs
            Map<Language, List<String>> byLanguage = new EnumMap<>(Language.class);
            for (String text : texts(corpus, embedTexts)) {
                byLanguage.computeIfAbsent(Language.of(text), k -> new ArrayList<>()).add(text);
            }
            for (int batch : batches) {
                requireAtLeast("--batches", batch, 1);
                long allNanos = 0;
                long allChars = 0;
                for (Map.Entry<Language, List<String>> e : byLanguage.entrySet()) {
                    List<String> texts = e.getValue();
                    long nanos = embedInCalls(embedder, texts, batch);
                    long chars = texts.stream().mapToLong(String::length).sum();
                    throughput.add(throughput(batch, e.getKey(), texts.size(), chars, nanos));
                    allNanos += nanos;
                    allChars += chars;
                }
                throughput.add(throughput(batch, null, embedTexts, allChars, allNanos));
            }
        }

        long[] single = new long[queryTexts.size()];
        for (String q : queryTexts.subList(0, Math.min(WARMUP_QUERIES, queryTexts.size()))) {
            embedder.embed(q);
        }
        for (int i = 0; i < single.length; i++) {
            long s = System.nanoTime();
            embedder.embed(queryTexts.get(i));
            single[i] = System.nanoTime() - s;
        }
        double meanChars = queryTexts.stream().mapToInt(String::length).average().orElse(0);
        return new Embedding(embedder.fingerprint(), loadedBefore, first, throughput, single.length, meanChars,
                Latency.of(single));
    }

    private static long embedInCalls(Embedder embedder, List<String> texts, int batch) {
        long t = System.nanoTime();
        for (int from = 0; from < texts.size(); from += batch) {
            embedder.embed(texts.subList(from, Math.min(texts.size(), from + batch)));
        }
        return System.nanoTime() - t;
    }

    private static Throughput throughput(int batch, Language language, int texts, long chars, long nanos) {
        return new Throughput(batch, language, texts, texts == 0 ? 0 : (double) chars / texts, nanos,
                nanos == 0 ? 0 : texts / (nanos / 1e9));
    }

    private static List<String> texts(ChatCorpus corpus, int n) {
        return corpus.nextEvents(n).stream().map(EventSubmission::text).toList();
    }

    // ---------------------------------------------------------------- one archive size

    /** Builds an archive of {@code size} memories with vectors in {@code scratch}, then times recalls. */
    SizeResult run(ScratchHome scratch, int size, Vectors source, TimedEmbedder embedder, List<String> warmup,
                   List<String> measured) {
        out.printf(Locale.ROOT, "building %,d memories with %s vectors ...%n", size, SemanticResults.name(source));
        try (Jiyi jiyi = Jiyi.open(scratch.home())) {
            Authority authority = jiyi.authority();
            Build build = build(authority, new ChatCorpus(seed, "semantic" + size), size, source, embedder);
            RecallConfig config = RecallConfig.DEFAULT;
            Recall recall = new Recall(authority, jiyi.recallIndex("fts5"), config, Clock.systemUTC(), () -> Embedders.of(embedder));

            for (String q : warmup) {
                for (RecallMode mode : MODES) {
                    check(recall.recall(request(q, mode)), mode);
                }
                scan(authority, embedder.fingerprint(), embedder.lastVector(), 0, threshold(config, embedder));
            }

            int n = measured.size();
            Map<RecallMode, long[]> total = new EnumMap<>(RecallMode.class);
            Map<RecallMode, long[]> rest = new EnumMap<>(RecallMode.class);
            Map<RecallMode, Long> items = new EnumMap<>(RecallMode.class);
            long[] queryEmbedding = new long[2 * n];
            int embedded = 0;
            int[] scanLimits = {config.semanticLimit(), 0};
            long[][] scanNanos = new long[scanLimits.length][n];
            long[] above = new long[scanLimits.length];
            long[] coverage = new long[n];
            for (int i = 0; i < n; i++) {
                for (RecallMode mode : MODES) {
                    embedder.reset();
                    long t = System.nanoTime();
                    RecallResult result = recall.recall(request(measured.get(i), mode));
                    long nanos = System.nanoTime() - t;
                    check(result, mode);
                    total.computeIfAbsent(mode, k -> new long[n])[i] = nanos;
                    rest.computeIfAbsent(mode, k -> new long[n])[i] = nanos - embedder.lastNanos();
                    items.merge(mode, (long) result.items().size(), Long::sum);
                    if (mode != RecallMode.FAST) {
                        queryEmbedding[embedded++] = embedder.lastNanos();
                    }
                }
                for (int s = 0; s < scanLimits.length; s++) {
                    long t = System.nanoTime();
                    above[s] += scan(authority, embedder.fingerprint(), embedder.lastVector(), scanLimits[s],
                            threshold(config, embedder));
                    scanNanos[s][i] = System.nanoTime() - t;
                }
                long t = System.nanoTime();
                authority.vectorCoverage(Scope.DEFAULT, embedder.fingerprint(), Instant.now(), false);
                coverage[i] = System.nanoTime() - t;
            }
            List<ModeLatency> modes = new ArrayList<>();
            for (RecallMode mode : MODES) {
                modes.add(new ModeLatency(mode, Latency.of(total.get(mode)), Latency.of(rest.get(mode)),
                        items.get(mode) / (double) n));
            }
            List<Scan> scans = new ArrayList<>();
            for (int s = 0; s < scanLimits.length; s++) {
                scans.add(new Scan(scanLimits[s], Latency.of(scanNanos[s]), above[s] / (double) n));
            }
            return new SizeResult(size, source, build, scratch.databaseBytes(), Latency.of(queryEmbedding), modes, scans,
                    Latency.of(coverage));
        }
    }

    /**
     * Submits {@code size} corpus events and derives one memory from each, {@code --chunk-size} per
     * batch call, then stores a vector for every memory in pages of the same size.
     */
    private Build build(Authority authority, ChatCorpus corpus, int size, Vectors source, Embedder embedder) {
        SplittableRandom quotes = new SplittableRandom(seed);
        long events = 0;
        long memories = 0;
        for (int done = 0; done < size; done += chunkSize) {
            List<EventSubmission> chunk = corpus.nextEvents(Math.min(chunkSize, size - done));
            long t = System.nanoTime();
            DeletionHarness.require(authority.submitEvents(chunk));
            events += System.nanoTime() - t;
            List<Derivation> drafts = chunk.stream().map(e -> derivation(e, quotes)).toList();
            t = System.nanoTime();
            DeletionHarness.require(authority.addMemories(drafts));
            memories += System.nanoTime() - t;
        }

        String fingerprint = embedder.fingerprint();
        SplittableRandom random = new SplittableRandom(seed);
        long vectors = 0;
        long store = 0;
        long after = 0;
        for (List<VectorCache.Task> tasks = authority.memoriesWithoutVectors(Scope.DEFAULT, fingerprint, after, chunkSize);
             !tasks.isEmpty(); tasks = authority.memoriesWithoutVectors(Scope.DEFAULT, fingerprint, after, chunkSize)) {
            long t = System.nanoTime();
            List<float[]> computed = source == Vectors.REAL
                    ? embedder.embed(tasks.stream().map(VectorCache.Task::text).toList())
                    : randomUnitVectors(random, tasks.size(), LocalModel.BGE_SMALL_ZH.dimensions());
            vectors += System.nanoTime() - t;
            List<VectorCache.NewVector> page = new ArrayList<>(tasks.size());
            for (int i = 0; i < tasks.size(); i++) {
                page.add(new VectorCache.NewVector(tasks.get(i).memoryId(), tasks.get(i).contentHash(), computed.get(i)));
            }
            t = System.nanoTime();
            VectorCache.Stored stored = authority.storeVectors(fingerprint, page);
            store += System.nanoTime() - t;
            if (stored.stored() != tasks.size()) {
                throw new IllegalStateException("stored " + stored.stored() + " of " + tasks.size() + " vectors");
            }
            after = tasks.getLast().rowId();
        }
        VectorCache.Coverage coverage = authority.vectorCoverage(Scope.DEFAULT, fingerprint, Instant.now(), false);
        if (coverage.eligible() != size || !coverage.complete()) {
            throw new IllegalStateException("expected " + size + " memories with vectors, found " + coverage);
        }
        return new Build(events, memories, vectors, store);
    }

    /** A fact derived from {@code e}: its whole text, quoting a window of it, with the basis its role requires. */
    static Derivation derivation(EventSubmission e, SplittableRandom random) {
        Basis basis = e.role() == Role.USER ? Basis.USER_STATEMENT : Basis.ASSISTANT_EXPRESSION;
        return new Derivation(e.scope(), MemoryDraft.builder(e.id()).kind(Kind.FACT).basis(basis).text(e.text())
                .quote(window(e.text(), random)).build());
    }

    /** {@code n} seeded random vectors, uniform on the unit sphere (normalized Gaussians). */
    static List<float[]> randomUnitVectors(SplittableRandom random, int n, int dimensions) {
        List<float[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            float[] v = new float[dimensions];
            double sum = 0;
            for (int d = 0; d < dimensions; d++) {
                double x = random.nextGaussian();
                v[d] = (float) x;
                sum += x * x;
            }
            double norm = Math.sqrt(sum);
            for (int d = 0; d < dimensions; d++) {
                v[d] = (float) (v[d] / norm);
            }
            out.add(v);
        }
        return out;
    }

    // ---------------------------------------------------------------- queries

    /**
     * {@code n} queries: from each of {@code n} corpus texts, a window of {@link #QUERY_MIN} to
     * {@link #QUERY_MAX} characters, so Chinese, English and mixed queries come in the corpus's
     * proportions.
     */
    static List<String> queries(ChatCorpus corpus, int n, SplittableRandom random) {
        return texts(corpus, n).stream().map(text -> window(text, random)).toList();
    }

    /**
     * A window of {@code text} of {@link #QUERY_MIN} to {@link #QUERY_MAX} code points, stripped: an
     * exact substring, never blank (the whole text when the window would be).
     */
    static String window(String text, SplittableRandom random) {
        int points = text.codePointCount(0, text.length());
        int length = Math.min(points, QUERY_MIN + random.nextInt(QUERY_MAX - QUERY_MIN + 1));
        int from = text.offsetByCodePoints(0, random.nextInt(points - length + 1));
        String window = text.substring(from, text.offsetByCodePoints(from, length)).strip();
        return window.isEmpty() ? text : window;
    }

    private static RecallRequest request(String query, RecallMode mode) {
        return new RecallRequest(Scope.DEFAULT, query, mode, RECALL_LIMIT, null, false);
    }

    /**
     * Fails on any warning but semantic mode's note that it compared only the most recent vectors: a
     * missing vector or a failed embedding would make the timing meaningless.
     */
    private static void check(RecallResult result, RecallMode mode) {
        for (String warning : result.warnings()) {
            if (!(mode == RecallMode.SEMANTIC && warning.startsWith("mode semantic compared the "))) {
                throw new IllegalStateException("recall in mode " + mode + " warned: " + warning);
            }
        }
    }

    /** The threshold recall applies: the configured one, or the embedding model's own (R3). */
    private static double threshold(RecallConfig config, Embedder embedder) {
        return Double.isNaN(config.cosineThreshold()) ? embedder.cosineThreshold() : config.cosineThreshold();
    }

    /** Scans the vectors as recall does (newest first, {@code limit} 0 for all); returns how many pass the threshold. */
    private static long scan(Authority authority, String fingerprint, float[] query, int limit, double threshold) {
        long[] above = {0};
        authority.scanVectors(Scope.DEFAULT, fingerprint, Instant.now(), false, limit, (row, vector) -> {
            double dot = 0;
            for (int i = 0; i < query.length; i++) {
                dot += query[i] * vector[i];
            }
            if (dot > threshold) {
                above[0]++;
            }
        });
        return above[0];
    }

    // ---------------------------------------------------------------- the report

    private void requireAtLeast(String option, int value, int min) {
        if (value < min) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    option + ": must be at least " + min + ", was " + value);
        }
    }
}
