package dev.jiyi.bench.quality;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Expected recall figures with tolerances ({@code bench recall --check FILE}): one property per
 * figure, keyed {@code dataset.index.mode.size.metric} ({@link RecallQuality.Row#key()}), for
 * example {@code locomo.fts5.fast.base.recall5=0.649}. Lexical recall is deterministic, so fast
 * mode is held to {@code tolerance.fast} (default {@link #FAST_TOLERANCE}: the figures are written
 * to three decimals); semantic and deep modes to {@code tolerance.vector} (default
 * {@link #VECTOR_TOLERANCE}), since HNSW's graph and the model's arithmetic may differ a little
 * between machines. A figure is a regression when it is worse than expected by more than its
 * tolerance: recall, MRR and nDCG lower, the off-topic or leak rate higher. Figures the file names
 * but the run did not measure are listed, not failed.
 */
final class Expected {

    static final double FAST_TOLERANCE = 0.0006;
    static final double VECTOR_TOLERANCE = 0.02;

    /** The figures checked, and whether a higher value is better. */
    enum Metric {
        RECALL5("recall5", true), RECALL10("recall10", true), MRR("mrr", true), NDCG10("ndcg10", true),
        OFF_TOPIC("offtopic", false), LEAKS("leaks", false);

        final String key;
        final boolean higherIsBetter;

        Metric(String key, boolean higherIsBetter) {
            this.key = key;
            this.higherIsBetter = higherIsBetter;
        }

        double of(RecallQuality.Row r) {
            return switch (this) {
                case RECALL5 -> r.recall5();
                case RECALL10 -> r.recall10();
                case MRR -> r.mrr();
                case NDCG10 -> r.ndcg10();
                case OFF_TOPIC -> r.offTopicAny();
                case LEAKS -> r.leaks();
            };
        }

        /** Whether a row has this figure: recall needs questions with gold, leaks questions that forbid. */
        boolean measured(RecallQuality.Row r) {
            return switch (this) {
                case LEAKS -> r.leakQuestions() > 0;
                case OFF_TOPIC -> true;
                default -> r.questions() > 0;
            };
        }
    }

    enum Status { OK, BETTER, WORSE }

    record Verdict(String key, double expected, double measured, double tolerance, Status status) {
    }

    /**
     * A check's outcome.
     *
     * @param notRun the file's figures this run did not measure
     */
    record Outcome(List<Verdict> verdicts, List<String> notRun) {

        boolean regressed() {
            return verdicts.stream().anyMatch(v -> v.status() == Status.WORSE);
        }

        /** A Markdown table: each figure OK, FAIL (worse than its tolerance) or better, with the difference. */
        String table() {
            StringBuilder sb = new StringBuilder("\n| check | figure | expected | measured | difference | tolerance |\n");
            sb.append("|---|---|---|---|---|---|\n");
            int failed = 0;
            for (Verdict v : verdicts) {
                String word = switch (v.status()) {
                    case OK -> "OK";
                    case BETTER -> "OK (better: update the file)";
                    case WORSE -> "FAIL";
                };
                failed += v.status() == Status.WORSE ? 1 : 0;
                sb.append(String.format(Locale.ROOT, "| %s | %s | %.3f | %.3f | %+.4f | %.4f |%n", word, v.key(),
                        v.expected(), v.measured(), v.measured() - v.expected(), v.tolerance()));
            }
            sb.append(String.format(Locale.ROOT, "%n%d figures checked, %d worse than expected%s%n", verdicts.size(), failed,
                    notRun.isEmpty() ? "" : ", " + notRun.size() + " in the file not measured by this run"));
            return sb.toString();
        }
    }

    private final Properties figures;

    private Expected(Properties figures) {
        this.figures = figures;
    }

    static Expected read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return of(p);
    }

    static Expected of(Properties p) {
        for (String key : p.stringPropertyNames()) {
            try {
                double v = Double.parseDouble(p.getProperty(key).strip());
                if (!Double.isFinite(v) || v < 0) {
                    throw new IllegalArgumentException("expected figures: " + key + " must be a finite number >= 0");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected figures: " + key + " must be a number");
            }
        }
        return new Expected(p);
    }

    Outcome check(List<RecallQuality.Row> rows) {
        Map<String, Double> measured = new TreeMap<>();
        Map<String, Boolean> fast = new TreeMap<>();
        Map<String, Metric> metrics = new TreeMap<>();
        for (RecallQuality.Row r : rows) {
            for (Metric m : Metric.values()) {
                if (m.measured(r)) {
                    String key = r.key() + "." + m.key;
                    measured.put(key, m.of(r));
                    fast.put(key, r.mode().equals("fast"));
                    metrics.put(key, m);
                }
            }
        }
        double fastTolerance = tolerance("tolerance.fast", FAST_TOLERANCE);
        double vectorTolerance = tolerance("tolerance.vector", VECTOR_TOLERANCE);
        List<Verdict> verdicts = new ArrayList<>();
        List<String> notRun = new ArrayList<>();
        for (String key : new java.util.TreeSet<>(figures.stringPropertyNames())) {
            if (key.startsWith("tolerance.")) {
                continue;
            }
            Double value = measured.get(key);
            if (value == null) {
                notRun.add(key);
                continue;
            }
            double expected = Double.parseDouble(figures.getProperty(key).strip());
            double tolerance = fast.get(key) ? fastTolerance : vectorTolerance;
            double better = metrics.get(key).higherIsBetter ? value - expected : expected - value;
            Status status = better < -tolerance ? Status.WORSE : better > tolerance ? Status.BETTER : Status.OK;
            verdicts.add(new Verdict(key, expected, value, tolerance, status));
        }
        return new Outcome(verdicts, notRun);
    }

    private double tolerance(String key, double fallback) {
        String v = figures.getProperty(key);
        return v == null ? fallback : Double.parseDouble(v.strip());
    }

    /** Writes this run's figures (three decimals) as an expected-figures file. */
    static void write(List<RecallQuality.Row> rows, Path file) throws IOException {
        Map<String, String> lines = new TreeMap<>();
        for (RecallQuality.Row r : rows) {
            for (Metric m : Metric.values()) {
                if (m.measured(r)) {
                    lines.put(r.key() + "." + m.key, String.format(Locale.ROOT, "%.3f", m.of(r)));
                }
            }
        }
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("# Expected figures of `./jiyi bench recall` (written by --write-expected; see docs/benchmarks.md).\n");
            w.write(String.format(Locale.ROOT, "tolerance.fast=%.4f%ntolerance.vector=%.4f%n", FAST_TOLERANCE, VECTOR_TOLERANCE));
            for (Map.Entry<String, String> e : lines.entrySet()) {
                w.write(e.getKey() + "=" + e.getValue() + "\n");
            }
        }
    }
}
