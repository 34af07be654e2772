package dev.jiyi.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The bounds {@link Guard} checks: parsed from a bounds file (one per line, {@code #} comments; the
 * format is in the built-in {@code guard-bounds.txt}), each read from the measured times (mean, p50,
 * p99) and HNSW recalls and judged OK or FAIL with its margin or its difference.
 */
final class GuardBounds {

    /** Neighbours compared for HNSW's recall. */
    static final int K = 10;

    private GuardBounds() {
    }

    /** One JMH benchmark method, by the short name bounds use: {@code fastRecall.lucene}, {@code semantic.hnsw}. */
    enum Family {
        FAST_RECALL("fastRecall", FastRecallBenchmark.class, "kind", Set.of("fts5", "lucene"),
                Set.of("KNOWN_ITEM", "TOPICAL", "LONG", "DIALOGUE")),
        UNIFORM_RECALL("uniformRecall", UniformRecallBenchmark.class, "kind", Set.of("fts5", "lucene"),
                Set.of("WINDOW", "COMMON", "FREQUENT", "LONG")),
        SEMANTIC("semantic", SemanticRecallBenchmark.class, "mode", Set.of("exact", "hnsw"), Set.of("SEMANTIC", "DEEP")),
        RESUME("resume", ResumeBenchmark.class, "basis", Set.of("fts5", "lucene"), Set.of("QUERY", "LATEST")),
        DELETE("delete", DeleteBenchmark.class, null, Set.of("authority", "withLucene"), Set.of()),
        INGEST("ingest", IngestBenchmark.class, null, Set.of("submitBatch"), Set.of());

        final String prefix;
        final Class<?> type;
        /** The parameter a bound's variant sets (besides {@code size}); null for a family without variants. */
        final String variantParam;
        final Set<String> methods;
        /** The values that parameter takes. */
        final Set<String> variants;

        Family(String prefix, Class<?> type, String variantParam, Set<String> methods, Set<String> variants) {
            this.prefix = prefix;
            this.type = type;
            this.variantParam = variantParam;
            this.methods = methods;
            this.variants = variants;
        }

        static Family of(String benchmark) {
            int dot = benchmark.indexOf('.');
            for (Family f : values()) {
                if (dot > 0 && f.prefix.equals(benchmark.substring(0, dot)) && f.methods.contains(benchmark.substring(dot + 1))) {
                    return f;
                }
            }
            return null;
        }
    }

    /**
     * One measured benchmark: a method at a variant (query kind, recall mode or resume basis, upper
     * case; empty for a family without variants) and an archive size.
     */
    record Key(String benchmark, String variant, int size) {

        @Override
        public String toString() {
            return benchmark + " " + shown(variant) + size;
        }
    }

    /** A variant as bounds print it: lower case, then a space; nothing for a family without variants. */
    private static String shown(String variant) {
        return variant.isEmpty() ? "" : variant.toLowerCase(Locale.ROOT) + " ";
    }

    /** A checked bound: its source line, and a figure no greater (or, {@code atLeast}, no less) than {@code bound}. */
    sealed interface Bound {

        int line();

        double bound();

        boolean atLeast();

        /** The measured benchmarks the bound reads. */
        List<Key> keys();

        /** The figure from what was measured. */
        double figure(Figures measured);

        String describe();

        /** {@code growth BENCHMARK VARIANT FROM TO <= X}: mean at TO over mean at FROM. */
        record Growth(int line, String benchmark, String variant, int from, int to, double bound) implements Bound {

            public boolean atLeast() {
                return false;
            }

            public List<Key> keys() {
                return List.of(new Key(benchmark, variant, from), new Key(benchmark, variant, to));
            }

            public double figure(Figures measured) {
                return measured.mean().get(keys().get(1)) / measured.mean().get(keys().get(0));
            }

            public String describe() {
                return String.format(Locale.ROOT, "growth %s %s%,d -> %,d", benchmark, shown(variant), from, to);
            }
        }

        /** {@code ratio A / B VARIANT SIZE <= X}: A's mean over B's, same variant and size. */
        record Ratio(int line, String benchmark, String against, String variant, int size, double bound)
                implements Bound {

            public boolean atLeast() {
                return false;
            }

            public List<Key> keys() {
                return List.of(new Key(benchmark, variant, size), new Key(against, variant, size));
            }

            public double figure(Figures measured) {
                return measured.mean().get(keys().get(0)) / measured.mean().get(keys().get(1));
            }

            public String describe() {
                return String.format(Locale.ROOT, "ratio %s / %s %sat %,d", benchmark, against, shown(variant), size);
            }
        }

        /**
         * {@code mean BENCHMARK VARIANT SIZE <= MS}, {@code p50 ...} or {@code p99 ...}: one
         * benchmark's mean, median or 99th percentile time per call, in milliseconds: a bound of the
         * machine it was set on (2 cores).
         */
        record Time(int line, Statistic statistic, String benchmark, String variant, int size, double bound)
                implements Bound {

            public boolean atLeast() {
                return false;
            }

            public List<Key> keys() {
                return List.of(new Key(benchmark, variant, size));
            }

            public double figure(Figures measured) {
                return measured.of(statistic).get(keys().get(0));
            }

            public String describe() {
                return String.format(Locale.ROOT, "%s ms %s %sat %,d", statistic.code, benchmark, shown(variant), size);
            }
        }

        /**
         * {@code rate BENCHMARK VARIANT SIZE >= N}: items per second, the items one call handles (its
         * {@code events} parameter: {@code ingest.submitBatch} imports that many events a call) over
         * the call's mean time; a bound of the machine, as times are.
         */
        record Rate(int line, String benchmark, String variant, int size, double bound) implements Bound {

            public boolean atLeast() {
                return true;
            }

            public List<Key> keys() {
                return List.of(new Key(benchmark, variant, size));
            }

            public double figure(Figures measured) {
                Key k = keys().get(0);
                Double items = measured.items().get(k);
                if (items == null) {
                    throw new IllegalStateException("no items per call were measured for " + k);
                }
                return items / (measured.mean().get(k) / 1000);
            }

            public String describe() {
                return String.format(Locale.ROOT, "per s %s %sat %,d", benchmark, shown(variant), size);
            }
        }

        /** {@code hnsw SIZE >= X}: HNSW's mean recall@10 against the exact scan. */
        record Hnsw(int line, int size, double bound) implements Bound {

            public boolean atLeast() {
                return true;
            }

            public List<Key> keys() {
                return List.of();
            }

            public double figure(Figures measured) {
                return measured.hnswRecall().get(size);
            }

            public String describe() {
                return String.format(Locale.ROOT, "hnsw recall@%d / exact at %,d", K, size);
            }
        }
    }

    /** A time bound's statistic. */
    enum Statistic {
        MEAN("mean"), P50("p50"), P99("p99");

        final String code;

        Statistic(String code) {
            this.code = code;
        }
    }

    /**
     * What a guard run measured: each benchmark's mean, median and 99th percentile ms per call, HNSW's
     * recall by size, and the items a call handles where a benchmark says ({@code events}).
     */
    record Figures(Map<Key, Double> mean, Map<Key, Double> p50, Map<Key, Double> p99, Map<Integer, Double> hnswRecall,
            Map<Key, Double> items) {

        Figures(Map<Key, Double> mean, Map<Key, Double> p50, Map<Key, Double> p99, Map<Integer, Double> hnswRecall) {
            this(mean, p50, p99, hnswRecall, Map.of());
        }

        Map<Key, Double> of(Statistic statistic) {
            return switch (statistic) {
                case MEAN -> mean;
                case P50 -> p50;
                case P99 -> p99;
            };
        }
    }

    /** A bounds file that cannot be read as bounds: names the line and the rule, never echoes the text. */
    static final class BoundsException extends RuntimeException {
        BoundsException(int line, String rule) {
            super("bounds line " + line + ": " + rule);
        }
    }

    /** Parses bounds: one per line, {@code #} starts a comment, blank lines are skipped. */
    static List<Bound> parse(List<String> lines) {
        List<Bound> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            int n = i + 1;
            String text = lines.get(i);
            int hash = text.indexOf('#');
            String[] f = (hash >= 0 ? text.substring(0, hash) : text).trim().split("\\s+");
            if (f.length == 1 && f[0].isEmpty()) {
                continue;
            }
            // A family without variants (delete) reads as the others do with an empty variant.
            String v = "VARIANT ";
            if (f.length > 1 && Set.of("growth", "ratio", "mean", "p50", "p99", "rate").contains(f[0])
                    && Family.of(benchmark(f[1], n)).variantParam == null) {
                f = withoutVariant(f);
                v = "";
            }
            out.add(switch (f[0]) {
                case "growth" -> {
                    expect(f, n, 7, "growth BENCHMARK " + v + "FROM TO <= X");
                    yield new Bound.Growth(n, benchmark(f[1], n), variant(f[1], f[2], n), size(f[3], n), size(f[4], n),
                            bound(f, n, "<="));
                }
                case "ratio" -> {
                    expect(f, n, 8, "ratio BENCHMARK / BENCHMARK " + v + "SIZE <= X");
                    if (!f[2].equals("/")) {
                        throw new BoundsException(n, "ratio needs '/' between its two benchmarks");
                    }
                    String a = benchmark(f[1], n);
                    String b = benchmark(f[3], n);
                    if (Family.of(a) != Family.of(b)) {
                        throw new BoundsException(n, "ratio compares two methods of one benchmark family");
                    }
                    yield new Bound.Ratio(n, a, b, variant(a, f[4], n), size(f[5], n), bound(f, n, "<="));
                }
                case "mean", "p50", "p99" -> {
                    expect(f, n, 6, f[0] + " BENCHMARK " + v + "SIZE <= MS");
                    yield new Bound.Time(n, Statistic.valueOf(f[0].toUpperCase(Locale.ROOT)), benchmark(f[1], n),
                            variant(f[1], f[2], n), size(f[3], n), bound(f, n, "<="));
                }
                case "rate" -> {
                    if (f.length > 1 && Family.of(benchmark(f[1], n)) != Family.INGEST) {
                        throw new BoundsException(n, "a rate bound reads ingest.submitBatch, whose calls say how many events they import");
                    }
                    expect(f, n, 6, "rate BENCHMARK " + v + "SIZE >= PER_S");
                    yield new Bound.Rate(n, f[1], variant(f[1], f[2], n), size(f[3], n), bound(f, n, ">="));
                }
                case "hnsw" -> {
                    expect(f, n, 4, "hnsw SIZE >= X");
                    yield new Bound.Hnsw(n, size(f[1], n), bound(f, n, ">="));
                }
                default -> throw new BoundsException(n, "must start with growth, ratio, mean, p50, p99, rate or hnsw");
            });
        }
        if (out.isEmpty()) {
            throw new BoundsException(lines.size(), "the file holds no bound");
        }
        return out;
    }

    /**
     * A line of a family without variants ({@code delete}) as the other families' lines read: an
     * empty variant after the benchmark (and after the second one of a ratio).
     */
    private static String[] withoutVariant(String[] f) {
        List<String> fields = new ArrayList<>(List.of(f));
        fields.add(f[0].equals("ratio") && fields.size() > 4 ? 4 : 2, "");
        return fields.toArray(String[]::new);
    }

    private static void expect(String[] f, int line, int fields, String form) {
        if (f.length != fields) {
            throw new BoundsException(line, "must read '" + form + "'");
        }
    }

    private static String benchmark(String name, int line) {
        if (Family.of(name) == null) {
            throw new BoundsException(line, "unknown benchmark: must be fastRecall.fts5, fastRecall.lucene, uniformRecall.fts5,"
                    + " uniformRecall.lucene, semantic.exact, semantic.hnsw, resume.fts5, resume.lucene,"
                    + " delete.authority, delete.withLucene or ingest.submitBatch");
        }
        return name;
    }

    /** The variant upper-cased, if the benchmark's family has it (a query kind, a recall mode, a resume basis). */
    private static String variant(String benchmark, String v, int line) {
        Family family = Family.of(benchmark);
        if (family != null && family.variantParam == null && v.isEmpty()) {
            return v;
        }
        String upper = v.toUpperCase(Locale.ROOT);
        if (family == null || !family.variants.contains(upper)) {
            throw new BoundsException(line, "unknown variant: fastRecall takes known_item, topical, long or dialogue;"
                    + " uniformRecall window, common, frequent or long; semantic semantic or deep; resume query or latest");
        }
        return upper;
    }

    private static int size(String s, int line) {
        try {
            int size = Integer.parseInt(s);
            if (size >= 2) {
                return size;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BoundsException(line, "an archive size must be a whole number of at least 2");
    }

    private static double bound(String[] f, int line, String operator) {
        if (!f[f.length - 2].equals(operator)) {
            throw new BoundsException(line, "this bound's operator must be " + operator);
        }
        try {
            double x = Double.parseDouble(f[f.length - 1]);
            if (x > 0 && Double.isFinite(x)) {
                return x;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BoundsException(line, "the bound must be a positive number");
    }

    // ---------------------------------------------------------------- checking

    /** One bound's verdict. */
    record Verdict(Bound bound, double figure, boolean ok) {

        /** How far the figure is inside the bound (positive) or past it (negative). */
        double margin() {
            return bound.atLeast() ? figure - bound.bound() : bound.bound() - figure;
        }

        String line() {
            String op = bound.atLeast() ? ">=" : "<=";
            return String.format(Locale.ROOT, "%-4s %-66s %8.3f  bound %s %.3f  %s %.3f", ok ? "OK" : "FAIL",
                    bound.describe(), figure, op, bound.bound(), ok ? "margin" : "worse by", Math.abs(margin()));
        }
    }

    /** Each bound's verdict on the figures measured. */
    static List<Verdict> check(List<Bound> bounds, Figures measured) {
        List<Verdict> out = new ArrayList<>();
        for (Bound b : bounds) {
            Map<Key, Double> read = b instanceof Bound.Time t ? measured.of(t.statistic()) : measured.mean();
            for (Key k : b.keys()) {
                if (!read.containsKey(k)) {
                    throw new IllegalStateException("no score was measured for " + k);
                }
            }
            double figure = b.figure(measured);
            boolean ok = b.atLeast() ? figure >= b.bound() : figure <= b.bound();
            out.add(new Verdict(b, figure, ok));
        }
        return out;
    }
}
