package dev.jiyi.bench.quality;

import dev.jiyi.bench.report.Charts;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What {@code bench recall} reports: a Markdown table (on standard output and in {@code recall.md}),
 * the same figures as JSON for tools ({@code recall.json}), and, for a dataset run at two sizes or
 * more, PNG charts of R@5 and of p95 latency against the archive size, one line per index and mode
 * ({@code recall-DATASET.png}, {@code latency-DATASET.png}).
 */
final class Report {

    private final RecallQuality.Plan plan;
    private final List<RecallQuality.Row> rows;
    private final String loadAtStart;
    private final String loadAtEnd;
    private final Instant at = Instant.now();

    Report(RecallQuality.Plan plan, List<RecallQuality.Row> rows, String loadAtStart, String loadAtEnd) {
        this.plan = plan;
        this.rows = rows;
        this.loadAtStart = loadAtStart;
        this.loadAtEnd = loadAtEnd;
    }

    /** The whole report in Markdown: how it was run, the figures, and each dataset's categories. */
    String markdown() {
        Runtime rt = Runtime.getRuntime();
        StringBuilder sb = new StringBuilder();
        sb.append("# jiyi bench recall\n\n");
        sb.append(String.format(Locale.ROOT, "%s; Java %s, %d processors, max heap %d MiB; load average %s at start, %s"
                        + " at end; growth seed %d, corpus %s.%n%n", at, System.getProperty("java.version"),
                rt.availableProcessors(), rt.maxMemory() >> 20, loadAtStart, loadAtEnd, plan.seed(), plan.growth().code));
        sb.append(rows(rows));
        List<RecallQuality.Row> split = rows.stream().filter(r -> r.byCategory().size() > 1).toList();
        if (!split.isEmpty()) {
            sb.append("\nBy category (R@5 / R@10 / MRR / nDCG@10):\n\n");
            sb.append("| dataset | size | index | mode | category | questions | R@5 | R@10 | MRR | nDCG@10 |\n");
            sb.append("|---|---|---|---|---|---|---|---|---|---|\n");
            for (RecallQuality.Row r : split) {
                for (Map.Entry<String, double[]> e : r.byCategory().entrySet()) {
                    double[] v = e.getValue();
                    sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %d | %.3f | %.3f | %.3f | %.3f |%n",
                            r.dataset(), r.size(), r.index(), mode(r), e.getKey(), (int) v[0], v[1], v[2], v[3], v[4]));
                }
            }
        }
        return sb.toString();
    }

    /** The main table of some rows, with its header. */
    static String rows(List<RecallQuality.Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append("| dataset | size | memories | index | mode | questions | R@5 | R@10 | MRR | nDCG@10 | trigram R@5 "
                + "| off-topic | leaks | mean ms | p50 ms | p95 ms | p99 ms |\n");
        sb.append("|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RecallQuality.Row r : rows) {
            sb.append(String.format(Locale.ROOT,
                    "| %s | %s | %,d | %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %s | %.2f | %s | %.1f | %.1f | %.1f | %.1f |%n",
                    r.dataset(), r.size(), r.memories(), r.index(), mode(r), r.questions(), r.recall5(), r.recall10(),
                    r.mrr(), r.ndcg10(), Double.isNaN(r.baseRecall5()) ? "-" : String.format(Locale.ROOT, "%.3f",
                            r.baseRecall5()), r.offTopicAny(), r.leakQuestions() == 0 ? "-"
                            : String.format(Locale.ROOT, "%.2f", r.leaks()), r.millisPerQuery(), r.p50Millis(),
                    r.p95Millis(), r.p99Millis()));
        }
        return sb.toString();
    }

    private static String mode(RecallQuality.Row r) {
        return Double.isNaN(r.threshold()) ? r.mode() : r.mode() + String.format(Locale.ROOT, " (cos > %.2f)", r.threshold());
    }

    /** Writes {@code recall.md}, {@code recall.json} and the charts into {@code dir}. */
    void write(Path dir, PrintStream log) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("recall.md"), markdown(), StandardCharsets.UTF_8);
        JsonMapper json = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
        Files.writeString(dir.resolve("recall.json"), json.writeValueAsString(document()) + "\n", StandardCharsets.UTF_8);
        List<Path> charts = charts(dir);
        log.printf(Locale.ROOT, "report written to %s (recall.md, recall.json%s)%n", dir,
                charts.isEmpty() ? "" : ", " + charts.size() + " charts");
    }

    /** The JSON document: how the run was made and every row; NaN (a figure not measured) is null. */
    private Map<String, Object> document() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("at", at.toString());
        doc.put("java", System.getProperty("java.version"));
        doc.put("processors", Runtime.getRuntime().availableProcessors());
        doc.put("loadAverageAtStart", loadAtStart);
        doc.put("loadAverageAtEnd", loadAtEnd);
        doc.put("seed", plan.seed());
        doc.put("config", plan.config().toString());
        List<Map<String, Object>> out = new ArrayList<>();
        for (RecallQuality.Row r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("dataset", r.dataset());
            m.put("size", r.size());
            m.put("memories", r.memories());
            m.put("index", r.index());
            m.put("mode", r.mode());
            m.put("cosineThreshold", finite(r.threshold()));
            m.put("questions", r.questions());
            m.put("skipped", r.skipped());
            m.put("recall5", finite(r.recall5()));
            m.put("recall10", finite(r.recall10()));
            m.put("mrr", finite(r.mrr()));
            m.put("ndcg10", finite(r.ndcg10()));
            m.put("trigramRecall5", finite(r.baseRecall5()));
            m.put("trigramRecall10", finite(r.baseRecall10()));
            m.put("trigramMrr", finite(r.baseMrr()));
            m.put("offTopicAnswered", r.offTopicAny());
            m.put("offTopicItems", r.offTopicItems());
            m.put("leakQuestions", r.leakQuestions());
            m.put("leaks", r.leaks());
            m.put("meanMillis", finite(r.millisPerQuery()));
            m.put("p50Millis", finite(r.p50Millis()));
            m.put("p95Millis", finite(r.p95Millis()));
            m.put("p99Millis", finite(r.p99Millis()));
            Map<String, Object> categories = new LinkedHashMap<>();
            r.byCategory().forEach((k, v) -> categories.put(k, Map.of("questions", (int) v[0], "recall5", v[1],
                    "recall10", v[2], "mrr", v[3], "ndcg10", v[4])));
            m.put("categories", categories);
            out.add(m);
        }
        doc.put("rows", out);
        return doc;
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    /** For each dataset measured at two sizes or more: R@5 and p95 latency against size. */
    private List<Path> charts(Path dir) throws IOException {
        List<Path> written = new ArrayList<>();
        Set<String> datasets = new LinkedHashSet<>();
        rows.forEach(r -> datasets.add(r.dataset()));
        for (String dataset : datasets) {
            List<RecallQuality.Row> mine = rows.stream().filter(r -> r.dataset().equals(dataset)).toList();
            if (mine.stream().map(RecallQuality.Row::memories).distinct().count() < 2) {
                continue;
            }
            Path recall = dir.resolve("recall-" + dataset + ".png");
            Charts.line(recall, dataset + ": evidence recall@5 as the archive grows",
                    "archive size (memories, log scale)", "R@5 (share of gold evidence in the top 5)", false,
                    series(mine, RecallQuality.Row::recall5));
            Path latency = dir.resolve("latency-" + dataset + ".png");
            Charts.line(latency, dataset + ": p95 latency of one recall as the archive grows",
                    "archive size (memories, log scale)", "p95 latency (ms, log scale)", true,
                    series(mine, RecallQuality.Row::p95Millis));
            written.add(recall);
            written.add(latency);
        }
        return written;
    }

    /** One series per index and mode (and threshold), x the archive's memories. */
    private static List<Charts.Series> series(List<RecallQuality.Row> rows,
                                              java.util.function.ToDoubleFunction<RecallQuality.Row> y) {
        Map<String, List<RecallQuality.Row>> lines = new LinkedHashMap<>();
        for (RecallQuality.Row r : rows) {
            lines.computeIfAbsent(r.index() + " " + mode(r), k -> new ArrayList<>()).add(r);
        }
        List<Charts.Series> out = new ArrayList<>();
        lines.forEach((name, points) -> {
            List<RecallQuality.Row> sorted = points.stream()
                    .sorted(java.util.Comparator.comparingInt(RecallQuality.Row::memories)).toList();
            out.add(new Charts.Series(name, sorted.stream().mapToDouble(RecallQuality.Row::memories).toArray(),
                    sorted.stream().mapToDouble(y).toArray()));
        });
        return out;
    }
}
