package dev.jiyi.bench.quality;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.cli.Home;
import dev.jiyi.cli.Jiyi;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.LocalEmbedder;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;
import dev.jiyi.ranking.RecalledItem;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The recall-quality check: loads LoCoMo and MADial-Bench (zh, en) into fresh jiyi homes exactly as
 * a host would (events, then hand-derived memories), runs every question through recall, and
 * prints evidence recall@5, recall@10 and MRR beside the trigram FTS5 baseline.
 *
 * <p>Fast mode (the default) needs no model. For {@code --mode semantic} or {@code deep} (and for
 * {@code --calibrate}) every memory of each loaded archive is first embedded with the local model
 * ({@link LocalEmbedder}, BGE small zh v1.5) and stored in the vector cache as
 * {@code jiyi reindex --vectors} would; recall then embeds each query with the same model.
 * {@code --mode} and {@code --cosine-threshold} take comma-separated lists: each archive is loaded
 * and embedded once and every mode runs at every threshold (fast mode once: it ignores the threshold).
 * {@code --calibrate} prints, per dataset, how similar queries are to their gold memories, to the
 * other memories of the persona, and how similar off-topic questions are to any memory
 * ({@code --calibrate --mode none} prints only that).
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.jiyi.bench.quality.RecallQuality
 *     [--data DIR] [--datasets locomo,madial-zh,madial-en] [--mode fast,semantic,deep]
 *     [--cosine-threshold 0.3,0.5] [--semantic-limit N] [--calibrate] [--index fts5|lucene]</pre>
 *
 * <p>{@code --index} chooses the index recall searches, as {@code jiyi recall --index} does: FTS5
 * with the exact vector scan (the default), or the derived Lucene index (BM25 and HNSW), built from
 * each fresh archive on its first search.
 */
public final class RecallQuality {

    private RecallQuality() {
    }

    /**
     * One dataset's outcome in one mode.
     *
     * @param threshold the cosine threshold (NaN in fast mode, which compares no vectors)
     * @param millisPerQuery mean wall time of one recall (query embedding excluded: queries are embedded
     *                       once beforehand), a rough figure; latency has its own harness
     * @param offTopicAny R6: the share of recalls of the off-topic probes ({@link Calibration#OFF_TOPIC},
     *                    each against each persona) that return anything
     * @param offTopicItems the mean number of results such a recall returns (at most 10)
     */
    public record Row(String dataset, String mode, double threshold, int questions, int skipped, double recall5,
                      double recall10, double mrr, double baseRecall5, double baseRecall10, double baseMrr,
                      Map<String, double[]> byCategory, double millisPerQuery, double offTopicAny, double offTopicItems) {
    }

    /**
     * Whether a dialogue (MADial) is asked as a dialogue, turn by turn ({@code recall --dialogue}), or
     * as its text in one piece ({@code --query text}).
     */
    static boolean DIALOGUE = true;

    public static void main(String[] args) throws Exception {
        Path data = Path.of("..", "shared", "datasets");
        List<String> names = List.of("locomo", "madial-zh", "madial-en", "madial-zh-history", "madial-en-history");
        RecallConfig config = RecallConfig.DEFAULT;
        List<RecallMode> modes = List.of(RecallMode.FAST);
        List<Double> thresholds = null;
        boolean calibrate = false;
        String index = "fts5";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--datasets" -> names = List.of(args[++i].split(","));
                case "--weights" -> {
                    double[] w = java.util.Arrays.stream(args[++i].split(",")).mapToDouble(Double::parseDouble).toArray();
                    config = config.withWeights(new dev.jiyi.ranking.Weights(w[0], w[1], w[2], w[3], w[4], w[5], w[6]));
                }
                case "--candidates" -> {
                    String[] c = args[++i].split(",");
                    config = config.withCandidateLimits(Integer.parseInt(c[0]), Integer.parseInt(c[1]));
                }
                case "--event-evidence" -> config = config.withEventEvidence(Double.parseDouble(args[++i]));
                case "--precision" -> {
                    double[] p = java.util.Arrays.stream(args[++i].split(",")).mapToDouble(Double::parseDouble).toArray();
                    config = config.withPrecision(new RecallConfig.Precision(p[0], p[1], p[2], p[3]));
                }
                case "--mode" -> modes = args[++i].equals("none") ? List.of() : java.util.Arrays.stream(args[i].split(","))
                        .map(m -> RecallMode.valueOf(m.strip().toUpperCase(Locale.ROOT))).toList();
                case "--cosine-threshold" -> thresholds = java.util.Arrays.stream(args[++i].split(","))
                        .map(t -> Double.parseDouble(t.strip())).toList();
                case "--semantic-limit" -> config = config.withSemanticLimit(Integer.parseInt(args[++i]));
                case "--calibrate" -> calibrate = true;
                case "--query" -> DIALOGUE = switch (args[++i]) {
                    case "dialogue" -> true;
                    case "text" -> false;
                    default -> throw new IllegalArgumentException("--query: must be dialogue or text");
                };
                case "--index" -> index = switch (args[++i]) {
                    case "fts5", "lucene" -> args[i];
                    default -> throw new IllegalArgumentException("--index: must be fts5 or lucene, was " + args[i]);
                };
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<Row> rows = run(data, names, config, modes, thresholds == null ? List.of(config.cosineThreshold()) : thresholds,
                calibrate, index);
        System.out.println("recall index: " + index);
        System.out.println(table(rows));
    }

    /** Fast mode with this configuration (what the smoke test checks). */
    public static List<Row> run(Path data, List<String> names, RecallConfig config) throws Exception {
        return run(data, names, config, "fts5");
    }

    /** Fast mode with this configuration on the named index ({@code fts5} or {@code lucene}). */
    public static List<Row> run(Path data, List<String> names, RecallConfig config, String index) throws Exception {
        return run(data, names, config, List.of(RecallMode.FAST), List.of(config.cosineThreshold()), false, index);
    }

    /**
     * @param modes      the modes to run on each dataset
     * @param thresholds the cosine thresholds semantic and deep modes run at (each one)
     * @param calibrate  whether to print each dataset's cosine calibration table (to standard error)
     * @param index      the index recall searches: {@code fts5} or {@code lucene}
     */
    public static List<Row> run(Path data, List<String> names, RecallConfig config, List<RecallMode> modes,
                                List<Double> thresholds, boolean calibrate, String index) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String name : names) {
            Scenario s = switch (name) {
                case "locomo" -> Datasets.locomo(data.resolve("locomo").resolve("locomo10.json"), false);
                case "locomo-speaker" -> Datasets.locomo(data.resolve("locomo").resolve("locomo10.json"), true);
                case "madial-zh" -> Datasets.madial(data.resolve("madial-bench"), "zh", true);
                case "madial-en" -> Datasets.madial(data.resolve("madial-bench"), "en", true);
                case "madial-zh-history" -> Datasets.madial(data.resolve("madial-bench"), "zh", false);
                case "madial-en-history" -> Datasets.madial(data.resolve("madial-bench"), "en", false);
                default -> throw new IllegalArgumentException("unknown dataset " + name);
            };
            List<Row> result = evaluate(s, config, modes, thresholds, calibrate, index);
            rows.addAll(result);
            System.err.println(table(result));
        }
        return rows;
    }

    static List<Row> evaluate(Scenario s, RecallConfig config, List<RecallMode> modes, List<Double> thresholds,
                              boolean calibrate, String index) throws IOException, SQLException {
        Path home = Files.createTempDirectory("jiyi-quality-");
        try (Jiyi jiyi = Jiyi.open(new Home(home)); TrigramBaseline baseline = new TrigramBaseline(s)) {
            List<Memory> memories = load(jiyi.authority(), s);
            Metrics base = new Metrics();
            for (Scenario.Question q : s.questions()) {
                base.add(baseline.search(q, 10), q.gold());
            }
            Embedder embedder = null;
            if (calibrate || modes.stream().anyMatch(m -> m != RecallMode.FAST)) {
                // The model jiyi uses when no embedding endpoint is configured (embed.version 1).
                LocalEmbedder model = new LocalEmbedder("1");
                Embeddings.Caching queries = new Embeddings.Caching(model);
                model.embed("warm-up"); // loads the model, so its load time is not counted below
                Embeddings.Archive archive = Embeddings.embed(jiyi.authority(),
                        memories.stream().map(Memory::scope).distinct().toList(), model);
                System.err.printf(Locale.ROOT, "%s: embedded %d memories (%d stored, %d skipped) in %.1f s, %.0f per second%n",
                        s.name(), archive.vectors().size(), archive.stored(), archive.skipped(), archive.seconds(),
                        archive.vectors().size() / archive.seconds());
                long start = System.nanoTime();
                List<String> texts = s.questions().stream().map(Scenario.Question::query).distinct().toList();
                queries.embed(texts);
                double seconds = (System.nanoTime() - start) / 1e9;
                System.err.printf(Locale.ROOT, "%s: embedded %d queries (mean %.0f characters) in %.1f s, %.1f ms each%n",
                        s.name(), texts.size(), texts.stream().mapToInt(String::length).average().orElse(0), seconds,
                        seconds * 1000 / Math.max(1, texts.size()));
                if (calibrate) {
                    System.err.println(Calibration.of(s, memories, archive.vectors(), queries).table());
                }
                embedder = queries;
            }
            List<Row> rows = new ArrayList<>();
            for (RecallMode mode : modes) {
                if (mode == RecallMode.FAST) {
                    Recall recall = new Recall(jiyi.authority(), jiyi.recallIndex(index), config, Clock.fixed(s.now(), ZoneOffset.UTC));
                    rows.add(evaluate(s, memories, recall, mode, Double.NaN, base));
                    continue;
                }
                for (double threshold : thresholds) {
                    Embedder model = embedder;
                    Recall recall = new Recall(jiyi.authority(), jiyi.recallIndex(index), withThreshold(config, threshold),
                            Clock.fixed(s.now(), ZoneOffset.UTC), () -> model);
                    rows.add(evaluate(s, memories, recall, mode, threshold, base));
                }
            }
            return rows;
        } finally {
            try (Stream<Path> walk = Files.walk(home)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static Row evaluate(Scenario s, List<Memory> memories, Recall recall, RecallMode mode, double threshold,
                                Metrics base) {
        Metrics ours = new Metrics();
        Map<String, Metrics> byCategory = new LinkedHashMap<>();
        Map<String, Integer> warnings = new TreeMap<>();
        long start = System.nanoTime();
        for (Scenario.Question q : s.questions()) {
            RecallResult result = recall.recall(DIALOGUE && !q.turns().isEmpty()
                    ? RecallRequest.dialogue(q.scope(), q.turns(), mode, 10, null, false)
                    : new RecallRequest(q.scope(), q.query(), mode, 10, null, false));
            result.warnings().forEach(w -> warnings.merge(w.replaceAll("\\d+", "N"), 1, Integer::sum));
            List<String> ranked = new ArrayList<>(new LinkedHashSet<>(
                    result.items().stream().map(RecalledItem::sourceEventId).toList()));
            ours.add(ranked, q.gold());
            byCategory.computeIfAbsent(q.category(), k -> new Metrics()).add(ranked, q.gold());
        }
        double millis = (System.nanoTime() - start) / 1e6 / Math.max(1, s.questions().size());
        warnings.forEach((w, n) -> System.err.printf(Locale.ROOT, "%s %s: %d warnings: %s%n", s.name(),
                mode.name().toLowerCase(Locale.ROOT), n, w));
        // R6: questions with no evidence anywhere in the archive should find nothing.
        int probes = 0;
        int any = 0;
        int items = 0;
        for (dev.jiyi.authority.Scope scope : memories.stream().map(Memory::scope).distinct().toList()) {
            for (String probe : Calibration.OFF_TOPIC) {
                RecallResult answered = recall.recall(new RecallRequest(scope, probe, mode, 10, null, false));
                int n = answered.items().size();
                if (n > 0 && Boolean.getBoolean("jiyi.offtopic")) {
                    RecalledItem top = answered.items().getFirst();
                    System.err.printf(Locale.ROOT, "off-topic %s | %s | %.3f %s | %s%n", scope.personaId(), probe, top.score(),
                            top.evidence().code(), top.signals().stream().filter(sg -> sg.value() > 0)
                                    .map(sg -> sg.name() + "=" + String.format(Locale.ROOT, "%.2f", sg.value())).toList()
                            + " " + top.text().substring(0, Math.min(60, top.text().length())));
                }
                probes++;
                any += n > 0 ? 1 : 0;
                items += n;
            }
        }
        Map<String, double[]> categories = new LinkedHashMap<>();
        byCategory.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> categories.put(e.getKey(),
                new double[] {e.getValue().questions(), e.getValue().recall5(), e.getValue().recall10(), e.getValue().mrr()}));
        return new Row(s.name(), mode.name().toLowerCase(Locale.ROOT), threshold, ours.questions(), s.skipped(),
                ours.recall5(), ours.recall10(), ours.mrr(), base.recall5(), base.recall10(), base.mrr(), categories,
                millis, (double) any / probes, (double) items / probes);
    }

    /** The configuration with another cosine threshold (RecallConfig has no wither for it). */
    static RecallConfig withThreshold(RecallConfig c, double threshold) {
        return c.withCosineThreshold(threshold);
    }

    /** Loads the scenario's events and memories; returns the memories as committed. */
    static List<Memory> load(Authority authority, Scenario s) {
        List<EventSubmission> events = new ArrayList<>();
        for (Scenario.EventSpec e : s.events()) {
            events.add(new EventSubmission(e.id(), e.scope(), e.role(), e.text(), "benchmark", null, e.session(),
                    e.occurredAt()));
        }
        for (int i = 0; i < events.size(); i += 1000) {
            BatchResult<SubmitResult> r = authority.submitEvents(events.subList(i, Math.min(events.size(), i + 1000)));
            if (r.failed()) {
                throw new IllegalStateException("loading events failed at " + (i + r.failedAt()), r.error());
            }
        }
        List<Derivation> derivations = new ArrayList<>();
        for (Scenario.MemorySpec m : s.memories()) {
            derivations.add(new Derivation(m.scope(), MemoryDraft.builder(m.eventId()).kind(m.kind()).basis(m.basis())
                    .text(cap(m.text())).quote(cap(m.quote())).build()));
        }
        List<Memory> memories = new ArrayList<>();
        for (int i = 0; i < derivations.size(); i += 1000) {
            BatchResult<Memory> r = authority.addMemories(derivations.subList(i, Math.min(derivations.size(), i + 1000)));
            if (r.failed()) {
                throw new IllegalStateException("loading memories failed at " + (i + r.failedAt()), r.error());
            }
            memories.addAll(r.committed());
        }
        return memories;
    }

    private static String cap(String s) {
        return s.length() > 2000 ? s.substring(0, 2000) : s;
    }

    public static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-18s %-8s %6s %9s %7s | %-22s | %-22s | %8s | %s%n", "dataset", "mode", "cos>",
                "questions", "skipped", "jiyi R@5  R@10   MRR", "trigram R@5 R@10  MRR", "ms/query",
                "off-topic: any, items"));
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT,
                    "%-18s %-8s %6s %9d %7d | %.3f  %.3f  %.3f  | %.3f  %.3f  %.3f  | %8.1f | %.2f  %.1f%n",
                    r.dataset(), r.mode(), Double.isNaN(r.threshold()) ? "-" : String.format(Locale.ROOT, "%.2f", r.threshold()),
                    r.questions(), r.skipped(), r.recall5(), r.recall10(), r.mrr(), r.baseRecall5(), r.baseRecall10(),
                    r.baseMrr(), r.millisPerQuery(), r.offTopicAny(), r.offTopicItems()));
            if (r.byCategory().size() > 1) {
                for (Map.Entry<String, double[]> e : r.byCategory().entrySet()) {
                    double[] v = e.getValue();
                    sb.append(String.format(Locale.ROOT, "  %-16s %5d  | %.3f  %.3f  %.3f%n", e.getKey(), (int) v[0], v[1],
                            v[2], v[3]));
                }
            }
        }
        return sb.toString();
    }
}
