package dev.jiyi.bench.quality;

import dev.jiyi.bench.CachedArchive;
import dev.jiyi.bench.ChatCorpus;
import dev.jiyi.engine.Progress;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Embedders;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;
import dev.jiyi.ranking.RecalledItem;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The recall benchmark, {@code ./jiyi bench recall}: loads each scenario (jiyi's own, LoCoMo,
 * MADial-Bench; {@link Datasets}, {@link OwnScenario}) into a jiyi home exactly as a host would
 * (events, then hand-derived memories, then corrections and deletions), grows it with seeded
 * distractors to each of {@code --sizes} ({@link Growth}), and runs every question through recall on
 * each of {@code --index} and {@code --mode}. It reports evidence R@5, R@10, MRR and nDCG@10 (beside
 * the trigram FTS5 baseline on the scenario alone), the share of off-topic probes answered, the leak
 * rate of deleted, corrected and expired text, and each recall's latency (p50, p95, p99 after a
 * warm-up pass) as Markdown on standard output and, under {@code --out}, as Markdown, JSON and charts
 * ({@link Report}). {@code --check FILE} compares the figures with expected ones and exits 1 on a
 * regression ({@link Expected}); {@code --write-expected FILE} writes this run's.
 *
 * <p>Archives are cached under {@code --archives} (default {@code jiyi-bench-archives/recall} in the
 * temporary directory; {@code none} builds each in a temporary home), keyed by the scenario's content,
 * the size and the seed: a rerun does not rebuild them.
 *
 * <p>Fast mode (the default) needs no model. For {@code --mode semantic} or {@code deep} (and for
 * {@code --calibrate}) every memory of each archive is first embedded with the local model
 * ({@link Embedders#bundled}, BGE small zh and en v1.5) and stored in the vector cache as
 * {@code jiyi reindex --vectors} would (kept in a cached archive); recall then embeds each query with
 * the same model. {@code --mode} and {@code --cosine-threshold} take comma-separated lists: every mode
 * runs at every threshold (fast mode once: it ignores the threshold). {@code --calibrate} prints, per
 * dataset, how similar queries are to their gold memories, to the other memories of the persona, and
 * how similar off-topic questions are to any memory ({@code --calibrate --mode none} prints only that).
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.jiyi.bench.quality.RecallQuality
 *     [--data DIR] [--datasets jiyi,locomo,madial-zh,...] [--sizes base,10k,100k,1m] [--seed N] [--growth zipf|chat]
 *     [--index fts5,lucene,lucene-smartcn] [--mode fast,semantic,deep] [--cosine-threshold 0.3,0.5]
 *     [--archives DIR|none] [--out DIR] [--check FILE] [--write-expected FILE] [--quiet]
 *     [--semantic-limit N] [--calibrate]</pre>
 */
public final class RecallQuality {

    private RecallQuality() {
    }

    /**
     * One dataset's outcome on one archive size, index and mode.
     *
     * @param size the archive size asked for ({@code base}: the scenario alone, or a number of memories)
     * @param memories the memories the archive holds
     * @param threshold the cosine threshold (NaN in fast mode, which compares no vectors)
     * @param questions the questions with gold evidence, which the recall figures average over
     * @param baseRecall5 the trigram FTS5 baseline on the scenario alone (NaN on grown archives)
     * @param millisPerQuery mean wall time of one recall (query embedding excluded: queries are embedded
     *                       once beforehand)
     * @param p50Millis nearest-rank percentiles of one recall's wall time, after a warm-up pass
     * @param offTopicAny R6: the share of recalls of the off-topic probes ({@link Calibration#OFF_TOPIC},
     *                    each against each scope the questions search) that return anything
     * @param offTopicItems the mean number of results such a recall returns (at most 10)
     * @param leakQuestions questions with forbidden texts (deleted, corrected, no longer valid)
     * @param leaks the share of those whose top 10 shows a forbidden text: 0 unless something is broken
     */
    public record Row(String dataset, String size, int memories, String index, String mode, double threshold,
                      int questions, int skipped, double recall5, double recall10, double mrr, double ndcg10,
                      double baseRecall5, double baseRecall10, double baseMrr, Map<String, double[]> byCategory,
                      double millisPerQuery, double p50Millis, double p95Millis, double p99Millis, double offTopicAny,
                      double offTopicItems, int leakQuestions, double leaks) {

        /** This row's key in an expected-figures file: {@code dataset.index.mode.size}. */
        public String key() {
            String m = Double.isNaN(threshold) || mode.equals("fast") ? mode
                    : mode + "@" + String.format(Locale.ROOT, "%.2f", threshold);
            return dataset + "." + index + "." + m + "." + size;
        }
    }

    /**
     * What one run measures.
     *
     * @param sizes archive sizes in memories; 0 is the scenario alone ({@code base})
     * @param indexes {@code fts5}, {@code lucene} (jiyi's analysis, the same tokens as FTS5) or
     *                {@code lucene-smartcn} (Lucene's own Chinese analysis)
     * @param thresholds the cosine thresholds semantic and deep modes run at (each one)
     * @param archives where grown archives are cached between runs; null builds each in a temporary
     *                 home and deletes it afterwards
     * @param calibrate whether to print each dataset's cosine calibration table (to standard error;
     *                  only for an archive built in this run)
     * @param quiet no progress on standard error
     * @param growth where grown archives' distractor text comes from
     * @param trace what to print question by question beside the figures ({@code --trace})
     */
    public record Plan(Path data, List<String> datasets, List<Integer> sizes, List<String> indexes,
                       List<RecallMode> modes, List<Double> thresholds, RecallConfig config, long seed, Path archives,
                       boolean calibrate, boolean quiet, Growth.Corpus growth, Trace trace) {

        /** A plan that traces nothing. */
        public Plan(Path data, List<String> datasets, List<Integer> sizes, List<String> indexes, List<RecallMode> modes,
                    List<Double> thresholds, RecallConfig config, long seed, Path archives, boolean calibrate,
                    boolean quiet, Growth.Corpus growth) {
            this(data, datasets, sizes, indexes, modes, thresholds, config, seed, archives, calibrate, quiet, growth,
                    Trace.NONE);
        }

        public Plan {
            java.util.Objects.requireNonNull(trace, "trace");
            for (String index : indexes) {
                if (!INDEXES.contains(index)) {
                    throw new IllegalArgumentException("--index: must be one of " + String.join(", ", INDEXES));
                }
            }
            for (int size : sizes) {
                if (size < 0) {
                    throw new IllegalArgumentException("--sizes: must be base or positive numbers of memories");
                }
            }
        }

        /** Fast mode on the scenarios alone, in temporary homes (what the smoke tests run). */
        public static Plan fast(Path data, List<String> datasets, RecallConfig config, String index) {
            return new Plan(data, datasets, List.of(0), List.of(index), List.of(RecallMode.FAST),
                    List.of(config.cosineThreshold()), config, ChatCorpus.DEFAULT_SEED, null, false, true,
                    Growth.Corpus.ZIPF);
        }
    }

    /** The indexes a run can compare. */
    public static final List<String> INDEXES = List.of("fts5", "lucene", "lucene-smartcn", "opensearch");

    /** The scenarios {@code --datasets} can name. */
    public static final List<String> DATASETS = List.of("jiyi", "locomo", "locomo-speaker", "locomo-events", "madial-zh", "madial-en",
            "madial-zh-history", "madial-en-history", PersonalEvents.NAME, MultiSession.NAME, SmallHome.NAME);

    /** Recalls run once, unmeasured, before the measured pass of each index and mode. */
    static final int WARMUP = 50;

    /**
     * Whether a dialogue (MADial) is asked as a dialogue, turn by turn ({@code recall --dialogue}), or
     * as its text in one piece ({@code --query text}).
     */
    static boolean DIALOGUE = true;

    /** The command line; returns the exit code: 0, 1 when {@code --check} finds a regression, 2 on bad arguments. */
    public static int run(String[] args, java.io.PrintStream out, java.io.PrintStream err) throws Exception {
        Path data = Path.of("..", "shared", "datasets");
        List<String> names = List.of("jiyi", "locomo", "madial-zh", "madial-en", "madial-zh-history", "madial-en-history",
                PersonalEvents.NAME, MultiSession.NAME, SmallHome.NAME);
        RecallConfig config = RecallConfig.DEFAULT;
        List<RecallMode> modes = List.of(RecallMode.FAST);
        List<Double> thresholds = null;
        List<Integer> sizes = List.of(0);
        List<String> indexes = List.of("fts5");
        boolean calibrate = false;
        boolean quiet = false;
        long seed = ChatCorpus.DEFAULT_SEED;
        Growth.Corpus growth = Growth.Corpus.ZIPF;
        Path archives = CachedArchive.DEFAULT_ROOT.resolve("recall");
        Path outDir = Path.of("target", "bench-recall");
        Path check = null;
        Path writeExpected = null;
        Path export = null;
        Trace trace = Trace.NONE;
        Plan plan;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--data" -> data = Path.of(args[++i]);
                    case "--datasets" -> names = List.of(args[++i].split(","));
                    case "--sizes" -> sizes = sizes(args[++i]);
                    case "--index" -> indexes = List.of(args[++i].split(","));
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--growth" -> growth = Growth.Corpus.parse(args[++i]);
                    case "--archives" -> archives = args[++i].equals("none") ? null : Path.of(args[i]);
                    case "--out" -> outDir = Path.of(args[++i]);
                    case "--check" -> check = Path.of(args[++i]);
                    case "--write-expected" -> writeExpected = Path.of(args[++i]);
                    case "--export" -> export = Path.of(args[++i]);
                    case "--quiet" -> quiet = true;
                    case "--weights" -> {
                        double[] w = java.util.Arrays.stream(args[++i].split(",")).mapToDouble(Double::parseDouble).toArray();
                        config = config.toBuilder().weights(dev.jiyi.ranking.Weights.of(w)).build();
                    }
                    case "--candidates" -> {
                        String[] c = args[++i].split(",");
                        config = config.toBuilder().candidateLimit(Integer.parseInt(c[0]))
                                .eventCandidateLimit(Integer.parseInt(c[1])).build();
                    }
                    case "--event-evidence" -> config = config.toBuilder().eventEvidence(Double.parseDouble(args[++i])).build();
                    case "--precision" -> {
                        double[] p = java.util.Arrays.stream(args[++i].split(",")).mapToDouble(Double::parseDouble).toArray();
                        config = config.toBuilder().precision(RecallConfig.Precision.of(p)).build();
                    }
                    case "--mode" -> modes = args[++i].equals("none") ? List.of() : java.util.Arrays.stream(args[i].split(","))
                            .map(m -> RecallMode.parse("--mode", m)).toList();
                    case "--cosine-threshold" -> thresholds = java.util.Arrays.stream(args[++i].split(","))
                            .map(t -> Double.parseDouble(t.strip())).toList();
                    case "--semantic-limit" -> config = config.toBuilder().semanticLimit(Integer.parseInt(args[++i])).build();
                    case "--calibrate" -> calibrate = true;
                    case "--trace" -> trace = Trace.parse(args[++i], err);
                    case "--query" -> DIALOGUE = switch (args[++i]) {
                        case "dialogue" -> true;
                        case "text" -> false;
                        default -> throw new IllegalArgumentException("--query: must be dialogue or text");
                    };
                    default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; see docs/benchmarks.md");
                }
            }
            for (String name : names) {
                if (!DATASETS.contains(name)) {
                    throw new IllegalArgumentException("--datasets: each must be one of " + String.join(", ", DATASETS));
                }
            }
            plan = new Plan(data, names, sizes, indexes, modes, thresholds == null ? List.of(config.cosineThreshold())
                    : thresholds, config, seed, calibrate ? null : archives, calibrate, quiet, growth, trace);
        } catch (NumberFormatException e) {
            err.println("bench recall: --seed, --weights, --candidates, --event-evidence, --precision, --cosine-threshold"
                    + " and --semantic-limit take numbers");
            return 2;
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            err.println("bench recall: " + (e instanceof ArrayIndexOutOfBoundsException ? "an option lacks its value"
                    : e.getMessage()));
            return 2;
        }
        if (export != null) {
            for (String name : plan.datasets()) {
                Export.write(scenario(plan.data(), name), export);
            }
            err.println("scenarios written to " + export);
            return 0;
        }
        String loadAtStart = dev.jiyi.bench.IngestHarness.loadAverage();
        List<Row> rows = run(plan, err);
        Report report = new Report(plan, rows, loadAtStart, dev.jiyi.bench.IngestHarness.loadAverage());
        out.print(report.markdown());
        report.write(outDir, err);
        if (writeExpected != null) {
            Expected.write(rows, writeExpected);
            err.println("expected figures written to " + writeExpected);
        }
        if (check != null) {
            Expected.Outcome outcome = Expected.read(check).check(rows);
            out.print(outcome.table());
            return outcome.regressed() ? 1 : 0;
        }
        return 0;
    }

    /** {@code base,1k,10k,100k,1m}: 0 for base, else memories (k = thousand, m = million). */
    static List<Integer> sizes(String list) {
        List<Integer> out = new ArrayList<>();
        for (String raw : list.split(",")) {
            String s = raw.strip().toLowerCase(Locale.ROOT);
            if (s.equals("base")) {
                out.add(0);
                continue;
            }
            long factor = s.endsWith("k") ? 1_000 : s.endsWith("m") ? 1_000_000 : 1;
            String digits = factor == 1 ? s : s.substring(0, s.length() - 1);
            long n;
            try {
                n = Long.parseLong(digits) * factor;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--sizes: each must be base or a number of memories such as 10k or 1m");
            }
            if (n < 1 || n > 100_000_000) {
                throw new IllegalArgumentException("--sizes: each must be base or between 1 and 100m memories");
            }
            out.add((int) n);
        }
        return out;
    }

    /** Fast mode with this configuration (what the smoke test checks). */
    public static List<Row> run(Path data, List<String> names, RecallConfig config) throws Exception {
        return run(data, names, config, "fts5");
    }

    /** Fast mode with this configuration on the named index, each scenario alone. */
    public static List<Row> run(Path data, List<String> names, RecallConfig config, String index) throws Exception {
        return run(Plan.fast(data, names, config, index), System.err);
    }

    /** Runs the plan; prints each dataset's rows to {@code log} as they come. */
    public static List<Row> run(Plan plan, java.io.PrintStream log) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String name : plan.datasets()) {
            Scenario s = scenario(plan.data(), name);
            Metrics base = new Metrics();
            try (TrigramBaseline baseline = new TrigramBaseline(s)) {
                for (Scenario.Question q : s.questions()) {
                    if (!q.gold().isEmpty()) {
                        base.add(baseline.search(q, 10), q.gold());
                    }
                }
            }
            for (int size : plan.sizes()) {
                if (size != 0 && size < s.memories().size()) {
                    log.printf(Locale.ROOT, "%s: size %,d is below the scenario's own %,d memories; skipped%n", name, size,
                            s.memories().size());
                    continue;
                }
                List<Row> result = evaluate(s, size, plan, size == 0 ? base : null, log);
                rows.addAll(result);
            }
        }
        return rows;
    }

    static Scenario scenario(Path data, String name) throws IOException {
        return switch (name) {
            case "jiyi" -> OwnScenario.build();
            case "locomo", "locomo-speaker", "locomo-events" -> Datasets.locomo(data.resolve("locomo").resolve("locomo10.json"),
                    Datasets.Locomo.of(name));
            case "madial-zh" -> Datasets.madial(data.resolve("madial-bench"), "zh", true);
            case "madial-en" -> Datasets.madial(data.resolve("madial-bench"), "en", true);
            case "madial-zh-history" -> Datasets.madial(data.resolve("madial-bench"), "zh", false);
            case "madial-en-history" -> Datasets.madial(data.resolve("madial-bench"), "en", false);
            case PersonalEvents.NAME -> PersonalEvents.build();
            case MultiSession.NAME -> MultiSession.build();
            case SmallHome.NAME -> SmallHome.build();
            default -> throw new IllegalArgumentException("unknown dataset " + name);
        };
    }

    static List<Row> evaluate(Scenario s, int size, Plan plan, Metrics base, java.io.PrintStream log)
            throws IOException {
        List<Row> rows = new ArrayList<>();
        try (Archives.Prepared prepared = Archives.prepare(s, size, plan, log);
             Jiyi jiyi = Jiyi.open(prepared.home(), Archives.clusterOnly(System.getenv()))) {
            Embedders embedders = null;
            if (plan.calibrate() || plan.modes().stream().anyMatch(m -> m != RecallMode.FAST)) {
                embedders = embedders(jiyi, s, prepared, plan, log);
            }
            for (String name : plan.indexes()) {
                try (Archives.Indexed index = Archives.Indexed.open(jiyi, prepared.home(), name, s.name(), plan.quiet())) {
                    for (RecallMode mode : plan.modes()) {
                        List<Double> thresholds = mode == RecallMode.FAST ? List.of(Double.NaN) : plan.thresholds();
                        for (double threshold : thresholds) {
                            RecallConfig config = mode == RecallMode.FAST ? plan.config()
                                    : plan.config().toBuilder().cosineThreshold(threshold).build();
                            Embedders models = embedders;
                            Recall recall = new Recall(jiyi.authority(), index.index(), config,
                                    Clock.fixed(s.now(), ZoneOffset.UTC), models == null ? null : () -> models);
                            Row row = evaluate(s, size, prepared.size(), prepared.aliases(), name, recall, mode, threshold,
                                    base, plan.quiet(), plan.trace());
                            log.print(Report.rows(List.of(row)));
                            rows.add(row);
                        }
                    }
                }
            }
        }
        return rows;
    }

    /**
     * The bundled models with a vector for every memory (embedded now unless the cached archive has
     * them), each behind a query cache; prints each model's calibration table when asked and the
     * archive was built now.
     */
    private static Embedders embedders(Jiyi jiyi, Scenario s, Archives.Prepared prepared, Plan plan,
                                       java.io.PrintStream log) {
        // The models jiyi uses when no embedding endpoint is configured (embed.version 1).
        Embedders models = Embedders.bundled("1");
        Embeddings.Archive archive;
        try (Progress progress = Progress.onStderr(s.name() + ": embedding", prepared.size(), plan.quiet())) {
            archive = Embeddings.embed(jiyi.authority(), Growth.scopes(s), models, progress);
        }
        log.printf(Locale.ROOT, "%s: embedded %d memories (%d stored, %d skipped) in %.1f s%n", s.name(),
                archive.size(), archive.stored(), archive.skipped(), archive.seconds());
        List<Embeddings.Caching> cached = new ArrayList<>();
        List<String> texts = s.questions().stream().map(Scenario.Question::query).distinct().toList();
        for (Embedder model : models.all()) {
            Embeddings.Caching queries = new Embeddings.Caching(model);
            cached.add(queries);
            if (!jiyi.authority().read(r -> r.hasVectors(model.fingerprint()))) {
                continue;
            }
            queries.embed("warm-up"); // loads the model, so its load time is not counted below
            long start = System.nanoTime();
            queries.embed(texts);
            double seconds = (System.nanoTime() - start) / 1e9;
            log.printf(Locale.ROOT, "%s: %s embedded %d queries (mean %.0f characters) in %.1f s, %.1f ms each%n",
                    s.name(), model.fingerprint(), texts.size(),
                    texts.stream().mapToInt(String::length).average().orElse(0), seconds,
                    seconds * 1000 / Math.max(1, texts.size()));
            if (plan.calibrate() && prepared.memories() != null) {
                log.println(model.fingerprint());
                log.println(Calibration.of(s, prepared.memories(), archive.vectors().getOrDefault(model, Map.of()),
                        queries).table());
            }
        }
        return Embedders.byLanguage(cached.getFirst(), cached.getLast());
    }

    private static Row evaluate(Scenario s, int size, int memories, Map<String, String> aliases, String index,
                                Recall recall, RecallMode mode, double threshold, Metrics base, boolean quiet,
                                Trace trace) {
        Metrics ours = new Metrics();
        Map<String, Metrics> byCategory = new LinkedHashMap<>();
        Map<String, Integer> warnings = new TreeMap<>();
        List<Scenario.Question> questions = s.questions();
        List<dev.jiyi.authority.Scope> scopes = Growth.scopes(s);
        String label = String.format(Locale.ROOT, "%s %s %s %s", s.name(), size == 0 ? "base" : Integer.toString(size),
                index, mode.name().toLowerCase(Locale.ROOT));
        long[] nanos = new long[questions.size()];
        int leakQuestions = 0;
        int leaked = 0;
        int probes = 0;
        int any = 0;
        int items = 0;
        try (Progress progress = Progress.onStderr(label, Math.min(WARMUP, questions.size()) + questions.size()
                + (long) scopes.size() * Calibration.OFF_TOPIC.size(), quiet)) {
            for (Scenario.Question q : questions.subList(0, Math.min(WARMUP, questions.size()))) {
                recall.recall(request(q, mode, 10));
                progress.advance(1);
            }
            for (int i = 0; i < questions.size(); i++) {
                Scenario.Question q = questions.get(i);
                long t = System.nanoTime();
                RecallResult result = recall.recall(request(q, mode, 10));
                nanos[i] = System.nanoTime() - t;
                progress.advance(1);
                result.warnings().forEach(w -> warnings.merge(w.replaceAll("\\d+", "N"), 1, Integer::sum));
                List<String> ranked = Trace.sources(result, aliases);
                trace.printMiss(q, ranked, result, depth -> recall.recall(request(q, mode, depth)), aliases);
                if (!q.gold().isEmpty()) {
                    ours.add(ranked, q.gold());
                    byCategory.computeIfAbsent(q.category(), k -> new Metrics()).add(ranked, q.gold());
                }
                if (!q.forbidden().isEmpty()) {
                    leakQuestions++;
                    List<RecalledItem> top = result.items().subList(0, Math.min(10, result.items().size()));
                    // A leak is the scenario's own deleted or corrected text: a distractor that happens
                    // to hold the same words (the realistic corpus draws 红楼梦 too) is not one.
                    if (top.stream().filter(it -> !it.sourceEventId().startsWith(Growth.PREFIX))
                            .anyMatch(it -> q.forbidden().stream().anyMatch(f -> it.text().contains(f)))) {
                        leaked++;
                    }
                }
            }
            // R6: questions with no evidence anywhere in the archive should find nothing.
            for (dev.jiyi.authority.Scope scope : scopes) {
                for (String probe : Calibration.OFF_TOPIC) {
                    RecallResult answered = recall.recall(new RecallRequest(scope, probe, mode, 10, null, false));
                    progress.advance(1);
                    int n = answered.items().size();
                    trace.printOffTopic(scope, probe, answered, aliases);
                    probes++;
                    any += n > 0 ? 1 : 0;
                    items += n;
                }
            }
        }
        warnings.forEach((w, n) -> System.err.printf(Locale.ROOT, "%s %s: %d warnings: %s%n", s.name(),
                mode.name().toLowerCase(Locale.ROOT), n, w));
        long[] sorted = nanos.clone();
        java.util.Arrays.sort(sorted);
        double mean = java.util.Arrays.stream(nanos).average().orElse(0) / 1e6;
        Map<String, double[]> categories = new LinkedHashMap<>();
        byCategory.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> categories.put(e.getKey(),
                new double[] {e.getValue().questions(), e.getValue().recall5(), e.getValue().recall10(),
                        e.getValue().mrr(), e.getValue().ndcg10()}));
        return new Row(s.name(), size == 0 ? "base" : Integer.toString(size), memories, index,
                mode.name().toLowerCase(Locale.ROOT), threshold, ours.questions(), s.skipped(), ours.recall5(),
                ours.recall10(), ours.mrr(), ours.ndcg10(), base == null ? Double.NaN : base.recall5(),
                base == null ? Double.NaN : base.recall10(), base == null ? Double.NaN : base.mrr(), categories, mean,
                percentile(sorted, 50), percentile(sorted, 95), percentile(sorted, 99),
                probes == 0 ? 0 : (double) any / probes, probes == 0 ? 0 : (double) items / probes, leakQuestions,
                leakQuestions == 0 ? 0 : (double) leaked / leakQuestions);
    }

    private static double percentile(long[] sorted, int p) {
        return sorted.length == 0 ? Double.NaN : dev.jiyi.bench.IngestHarness.percentile(sorted, p) / 1e6;
    }

    private static RecallRequest request(Scenario.Question q, RecallMode mode, int limit) {
        return DIALOGUE && !q.turns().isEmpty()
                ? RecallRequest.dialogue(q.scope(), q.turns(), mode, limit, null, false)
                : new RecallRequest(q.scope(), q.query(), mode, limit, null, false);
    }
}
