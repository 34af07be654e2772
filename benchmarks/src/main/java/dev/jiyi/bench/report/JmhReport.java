package dev.jiyi.bench.report;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * Turns a JMH JSON result file ({@code -rf json -rff FILE}) of the archive benchmarks into what
 * docs/benchmarks.md shows: a Markdown table per benchmark class, one row per method and parameter
 * set other than {@code size}, a column per archive size (mean, p50 and p99 in the run's unit, for
 * sample-time runs) and the growth of the mean from the smallest size to the largest; and PNGs of the
 * means and, for sample-time runs, the p50 and p99 of single calls against archive size (log
 * scales), one line per row.
 *
 * <pre>./jiyi bench jmh-report RESULTS.json OUT_DIR</pre>
 */
public final class JmhReport {

    private JmhReport() {
    }

    /** One measured benchmark at one size: percentiles of single calls in sample-time mode, else NaN. */
    record Point(double mean, double error, double p50, double p99, String unit) {
    }

    /** {@code jiyi bench jmh-report RESULTS.json OUT_DIR}; returns the exit code. */
    public static int run(String[] args, PrintStream out) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: jiyi bench jmh-report RESULTS.json OUT_DIR");
            return 2;
        }
        write(Path.of(args[0]), Path.of(args[1]), out);
        return 0;
    }

    /** Writes the tables to {@code out} and {@code OUT_DIR/jmh-CLASS.md}, and the charts beside them. */
    public static void write(Path results, Path dir, PrintStream out) throws IOException {
        JsonNode root = JsonMapper.builder().build().readTree(Files.readString(results, StandardCharsets.UTF_8));
        // class -> row (method and other params) -> size -> point
        Map<String, Map<String, Map<Integer, Point>>> classes = new TreeMap<>();
        for (JsonNode run : root) {
            String benchmark = run.path("benchmark").asString();
            int dot = benchmark.lastIndexOf('.');
            String type = benchmark.substring(benchmark.lastIndexOf('.', dot - 1) + 1, dot);
            StringBuilder row = new StringBuilder(benchmark.substring(dot + 1));
            int size = 0;
            for (Map.Entry<String, JsonNode> p : run.path("params").properties()) {
                if (p.getKey().equals("size")) {
                    size = Integer.parseInt(p.getValue().asString());
                } else if (!p.getKey().equals("seed")) {
                    row.append(' ').append(p.getKey()).append('=').append(p.getValue().asString().toLowerCase(Locale.ROOT));
                }
            }
            JsonNode metric = run.path("primaryMetric");
            // Only sample time has percentiles of single calls; other modes' are of iteration scores.
            boolean sample = run.path("mode").asString().equals("sample");
            JsonNode percentiles = metric.path("scorePercentiles");
            classes.computeIfAbsent(type, k -> new TreeMap<>()).computeIfAbsent(row.toString(), k -> new TreeMap<>())
                    .put(size, new Point(metric.path("score").asDouble(), metric.path("scoreError").asDouble(Double.NaN),
                            sample ? percentiles.path("50.0").asDouble(Double.NaN) : Double.NaN,
                            sample ? percentiles.path("99.0").asDouble(Double.NaN) : Double.NaN,
                            metric.path("scoreUnit").asString()));
        }
        Files.createDirectories(dir);
        for (Map.Entry<String, Map<String, Map<Integer, Point>>> c : classes.entrySet()) {
            String table = table(c.getKey(), c.getValue());
            out.print(table);
            Files.writeString(dir.resolve("jmh-" + c.getKey() + ".md"), table, StandardCharsets.UTF_8);
            chart(dir.resolve("jmh-" + c.getKey() + ".png"), c.getKey(), c.getValue(), "mean", Point::mean);
            chart(dir.resolve("jmh-" + c.getKey() + "-p50.png"), c.getKey(), c.getValue(), "p50", Point::p50);
            chart(dir.resolve("jmh-" + c.getKey() + "-p99.png"), c.getKey(), c.getValue(), "p99", Point::p99);
        }
    }

    static String table(String type, Map<String, Map<Integer, Point>> rows) {
        TreeSet<Integer> sizes = new TreeSet<>();
        rows.values().forEach(r -> sizes.addAll(r.keySet()));
        Set<String> units = new TreeSet<>();
        rows.values().forEach(r -> r.values().forEach(p -> units.add(p.unit())));
        // One unit for the table when all rows share it; else each row names its own.
        String unit = units.size() == 1 ? units.iterator().next() : "(unit per row)";
        StringBuilder sb = new StringBuilder();
        boolean percentiles = rows.values().stream().flatMap(r -> r.values().stream()).noneMatch(p -> Double.isNaN(p.p50()));
        sb.append(String.format(Locale.ROOT, "%n%s, %s %s%n%n| benchmark |", type,
                percentiles ? "mean / p50 / p99" : "mean ± 99.9% error", unit));
        for (int s : sizes) {
            sb.append(String.format(Locale.ROOT, " %,d |", s));
        }
        sb.append(" growth of the mean |\n|---|");
        sb.append("---:|".repeat(sizes.size())).append("---:|\n");
        for (Map.Entry<String, Map<Integer, Point>> r : rows.entrySet()) {
            sb.append("| ").append(r.getKey())
                    .append(units.size() == 1 ? "" : " (" + r.getValue().values().iterator().next().unit() + ")").append(" |");
            for (int s : sizes) {
                Point p = r.getValue().get(s);
                sb.append(p == null ? " |" : " " + (percentiles
                        ? number(p.mean()) + " / " + number(p.p50()) + " / " + number(p.p99())
                        : number(p.mean()) + " ± " + number(p.error())) + " |");
            }
            Map<Integer, Point> points = r.getValue();
            double growth = points.size() < 2 ? Double.NaN
                    : points.get(((TreeMap<Integer, Point>) points).lastKey()).mean()
                    / points.get(((TreeMap<Integer, Point>) points).firstKey()).mean();
            sb.append(Double.isNaN(growth) ? " |" : String.format(Locale.ROOT, " %.1f× |", growth)).append('\n');
        }
        return sb.toString();
    }

    /** Three significant figures, plain. */
    static String number(double x) {
        if (x >= 100) {
            return String.format(Locale.ROOT, "%,.0f", x);
        }
        return x >= 10 ? String.format(Locale.ROOT, "%.1f", x) : String.format(Locale.ROOT, "%.2f", x);
    }

    /**
     * A chart of one figure of each row ({@code mean}, or {@code p50} or {@code p99} of single calls) against archive
     * size; none when no row has that figure at two sizes.
     */
    private static void chart(Path png, String type, Map<String, Map<Integer, Point>> rows, String figure,
                              ToDoubleFunction<Point> value) throws IOException {
        List<Charts.Series> series = new ArrayList<>();
        String unit = "";
        for (Map.Entry<String, Map<Integer, Point>> r : rows.entrySet()) {
            // Archive sizes on a log scale: an empty start (size 0) has no place on it.
            Map<Integer, Point> grown = ((TreeMap<Integer, Point>) r.getValue()).tailMap(1, true);
            String rowUnit = grown.isEmpty() ? "" : grown.values().iterator().next().unit();
            // Times only (ms/op), in one unit: a throughput row belongs in the table, not on a time axis.
            if (grown.size() < 2 || !rowUnit.endsWith("/op") || (!unit.isEmpty() && !unit.equals(rowUnit))
                    || grown.values().stream().anyMatch(p -> !(value.applyAsDouble(p) > 0))) {
                continue;
            }
            double[] x = grown.keySet().stream().mapToDouble(Integer::doubleValue).toArray();
            double[] y = grown.values().stream().mapToDouble(value).toArray();
            unit = grown.values().iterator().next().unit();
            series.add(new Charts.Series(r.getKey(), x, y));
        }
        if (!series.isEmpty()) {
            Charts.line(png, type + ": " + figure + " time against archive size (JMH)",
                    "archive size (memories, log scale)", figure + " time (" + unit + ", log scale)", true, series);
        }
    }
}
