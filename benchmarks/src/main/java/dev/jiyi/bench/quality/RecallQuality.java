package dev.jiyi.bench.quality;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.cli.Home;
import dev.jiyi.cli.Jiyi;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
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
import java.util.stream.Stream;

/**
 * The recall-quality check: loads LoCoMo and MADial-Bench (zh, en) into fresh jiyi homes exactly as
 * a host would (events, then hand-derived memories), runs every question through fast recall, and
 * prints evidence recall@5, recall@10 and MRR beside the trigram FTS5 baseline.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.jiyi.bench.quality.RecallQuality [--data DIR] [--datasets locomo,madial-zh,madial-en]</pre>
 */
public final class RecallQuality {

    private RecallQuality() {
    }

    /** One dataset's outcome. */
    public record Row(String dataset, int questions, int skipped, double recall5, double recall10, double mrr,
                      double baseRecall5, double baseRecall10, double baseMrr, Map<String, double[]> byCategory) {
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of("..", "shared", "datasets");
        List<String> names = List.of("locomo", "madial-zh", "madial-en", "madial-zh-history", "madial-en-history");
        RecallConfig config = RecallConfig.DEFAULT;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--datasets" -> names = List.of(args[++i].split(","));
                case "--weights" -> {
                    double[] w = java.util.Arrays.stream(args[++i].split(",")).mapToDouble(Double::parseDouble).toArray();
                    config = config.withWeights(new dev.jiyi.ranking.Weights(w[0], w[1], w[2], w[3], w[4], w[5]));
                }
                case "--candidates" -> {
                    String[] c = args[++i].split(",");
                    config = config.withCandidateLimits(Integer.parseInt(c[0]), Integer.parseInt(c[1]));
                }
                case "--evidence" -> {
                    String[] e = args[++i].split(",");
                    config = config.withEvidence(Double.parseDouble(e[0]), Double.parseDouble(e[1]));
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<Row> rows = run(data, names, config);
        System.out.println(table(rows));
    }

    public static List<Row> run(Path data, List<String> names, RecallConfig config) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String name : names) {
            Scenario s = switch (name) {
                case "locomo" -> Datasets.locomo(data.resolve("locomo").resolve("locomo10.json"));
                case "madial-zh" -> Datasets.madial(data.resolve("madial-bench"), "zh", true);
                case "madial-en" -> Datasets.madial(data.resolve("madial-bench"), "en", true);
                case "madial-zh-history" -> Datasets.madial(data.resolve("madial-bench"), "zh", false);
                case "madial-en-history" -> Datasets.madial(data.resolve("madial-bench"), "en", false);
                default -> throw new IllegalArgumentException("unknown dataset " + name);
            };
            Row row = evaluate(s, config);
            rows.add(row);
            System.err.println(table(List.of(row)));
        }
        return rows;
    }

    static Row evaluate(Scenario s, RecallConfig config) throws IOException, SQLException {
        Path home = Files.createTempDirectory("jiyi-quality-");
        try (Jiyi jiyi = Jiyi.open(new Home(home)); TrigramBaseline baseline = new TrigramBaseline(s)) {
            load(jiyi.authority(), s);
            Recall recall = new Recall(jiyi.authority(), jiyiIndex(jiyi), config, Clock.fixed(s.now(), ZoneOffset.UTC));
            Metrics ours = new Metrics();
            Metrics base = new Metrics();
            Map<String, Metrics> byCategory = new LinkedHashMap<>();
            for (Scenario.Question q : s.questions()) {
                List<String> ranked = new ArrayList<>(new LinkedHashSet<>(recall.recall(
                        new RecallRequest(q.scope(), q.query(), RecallMode.FAST, 10, null, false))
                        .items().stream().map(RecalledItem::sourceEventId).toList()));
                ours.add(ranked, q.gold());
                byCategory.computeIfAbsent(q.category(), k -> new Metrics()).add(ranked, q.gold());
                base.add(baseline.search(q, 10), q.gold());
            }
            Map<String, double[]> categories = new LinkedHashMap<>();
            byCategory.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> categories.put(e.getKey(),
                    new double[] {e.getValue().questions(), e.getValue().recall5(), e.getValue().recall10(), e.getValue().mrr()}));
            return new Row(s.name(), ours.questions(), s.skipped(), ours.recall5(), ours.recall10(), ours.mrr(),
                    base.recall5(), base.recall10(), base.mrr(), categories);
        } finally {
            try (Stream<Path> walk = Files.walk(home)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static dev.jiyi.authority.CandidateIndex jiyiIndex(Jiyi jiyi) {
        return jiyi.candidateIndex("fts5");
    }

    static void load(Authority authority, Scenario s) {
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
        for (int i = 0; i < derivations.size(); i += 1000) {
            BatchResult<?> r = authority.addMemories(derivations.subList(i, Math.min(derivations.size(), i + 1000)));
            if (r.failed()) {
                throw new IllegalStateException("loading memories failed at " + (i + r.failedAt()), r.error());
            }
        }
    }

    private static String cap(String s) {
        return s.length() > 2000 ? s.substring(0, 2000) : s;
    }

    public static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-10s %9s %7s | %-22s | %-22s%n", "dataset", "questions", "skipped",
                "jiyi R@5  R@10   MRR", "trigram R@5 R@10  MRR"));
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, "%-10s %9d %7d | %.3f  %.3f  %.3f  | %.3f  %.3f  %.3f%n", r.dataset(),
                    r.questions(), r.skipped(), r.recall5(), r.recall10(), r.mrr(), r.baseRecall5(), r.baseRecall10(),
                    r.baseMrr()));
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
