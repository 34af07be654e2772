package dev.jiyi.bench.quality;

import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;
import dev.jiyi.providers.Embedder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the cosine threshold should sit for an embedding model: for every question, the cosine
 * similarity between the query's vector and (a) each of its gold memories, (b) every other memory
 * of the same persona; and, for a query that has no evidence in the archive at all (R6), the
 * similarity of a fixed set of off-topic questions to every memory of each persona.
 */
final class Calibration {

    /** The thresholds the table reports. */
    static final double[] THRESHOLDS = {0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8};

    /**
     * Questions no memory of either dataset answers (general knowledge, how-to, news; English and
     * Chinese): a recall of any of them should return nothing (R6).
     */
    static final List<String> OFF_TOPIC = List.of(
            "What is the capital of Australia?",
            "How do I reset the admin password of my wifi router?",
            "Explain the difference between TCP and UDP.",
            "What is the boiling point of water at 3000 meters altitude?",
            "How does a Kalman filter work?",
            "What were the main causes of the French Revolution?",
            "量子计算机的工作原理是什么？",
            "如何在Linux上查看磁盘使用情况？",
            "请解释一下光合作用的过程。",
            "Python 中列表和元组有什么区别？",
            "今天上证指数收盘是多少点？",
            "高铁票改签需要手续费吗？");

    private final String dataset;
    private final int questions;
    private final double[] gold;
    private final double[] other;
    private final double[] maxOther;
    private final double[] offTopicMax;
    private final boolean[] offTopicChinese;
    private final int[][] offTopicAbove;
    private final Metrics denseOnly;

    private Calibration(String dataset, int questions, double[] gold, double[] other, double[] maxOther,
                        double[] offTopicMax, boolean[] offTopicChinese, int[][] offTopicAbove, Metrics denseOnly) {
        this.dataset = dataset;
        this.denseOnly = denseOnly;
        this.questions = questions;
        this.gold = gold;
        this.other = other;
        this.maxOther = maxOther;
        this.offTopicMax = offTopicMax;
        this.offTopicChinese = offTopicChinese;
        this.offTopicAbove = offTopicAbove;
    }

    /**
     * @param memories the archive's memories (as loaded)
     * @param vectors  their vectors by memory ID
     * @param queries  embeds the questions (and the off-topic probes)
     */
    static Calibration of(Scenario s, List<Memory> memories, Map<String, float[]> vectors, Embedder queries) {
        Map<Scope, List<Memory>> byScope = new LinkedHashMap<>();
        for (Memory m : memories) {
            if (vectors.containsKey(m.id())) {
                byScope.computeIfAbsent(m.scope(), k -> new ArrayList<>()).add(m);
            }
        }
        List<float[]> qv = queries.embed(s.questions().stream().map(Scenario.Question::query).toList());
        Metrics denseOnly = new Metrics();
        List<Double> gold = new ArrayList<>();
        int otherCount = 0;
        for (Scenario.Question q : s.questions()) {
            otherCount += byScope.getOrDefault(q.scope(), List.of()).size();
        }
        double[] other = new double[otherCount];
        double[] maxOther = new double[s.questions().size()];
        int o = 0;
        for (int i = 0; i < s.questions().size(); i++) {
            Scenario.Question q = s.questions().get(i);
            double max = -1;
            Map<String, Double> best = new LinkedHashMap<>();
            for (Memory m : byScope.getOrDefault(q.scope(), List.of())) {
                double c = Embeddings.cosine(qv.get(i), vectors.get(m.id()));
                best.merge(m.eventId(), c, Math::max);
                if (q.gold().contains(m.eventId())) {
                    gold.add(c);
                } else {
                    other[o++] = c;
                    max = Math.max(max, c);
                }
            }
            maxOther[i] = max;
            denseOnly.add(best.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .limit(10).map(Map.Entry::getKey).toList(), q.gold());
        }
        List<float[]> pv = queries.embed(OFF_TOPIC);
        List<Double> offTopicMax = new ArrayList<>();
        boolean[] chinese = new boolean[byScope.size() * OFF_TOPIC.size()];
        int[][] above = new int[THRESHOLDS.length][];
        for (int t = 0; t < THRESHOLDS.length; t++) {
            above[t] = new int[byScope.size() * OFF_TOPIC.size()];
        }
        int pair = 0;
        for (List<Memory> persona : byScope.values()) {
            for (int k = 0; k < pv.size(); k++) {
                float[] p = pv.get(k);
                chinese[pair] = chinese(OFF_TOPIC.get(k));
                double max = -1;
                for (Memory m : persona) {
                    double c = Embeddings.cosine(p, vectors.get(m.id()));
                    max = Math.max(max, c);
                    for (int t = 0; t < THRESHOLDS.length; t++) {
                        if (c > THRESHOLDS[t]) {
                            above[t][pair]++;
                        }
                    }
                }
                offTopicMax.add(max);
                pair++;
            }
        }
        return new Calibration(s.name(), s.questions().size(), toArray(gold), Arrays.copyOf(other, o), maxOther,
                toArray(offTopicMax), chinese, above, denseOnly);
    }

    static boolean chinese(String text) {
        return dev.jiyi.providers.LocalModel.hasHan(text);
    }

    private double[] offTopic(boolean chineseProbes) {
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < offTopicMax.length; i++) {
            if (offTopicChinese[i] == chineseProbes) {
                out.add(offTopicMax[i]);
            }
        }
        double[] a = toArray(out);
        Arrays.sort(a);
        return a;
    }

    private static double[] toArray(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Nearest-rank percentile (p in 0..100) of a sample. */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double shareAbove(double[] values, double t) {
        if (values.length == 0) {
            return Double.NaN;
        }
        int n = 0;
        for (double v : values) {
            if (v > t) {
                n++;
            }
        }
        return (double) n / values.length;
    }

    private static long countAbove(double[] values, double t) {
        long n = 0;
        for (double v : values) {
            if (v > t) {
                n++;
            }
        }
        return n;
    }

    String table() {
        double[] g = gold.clone();
        double[] n = other.clone();
        double[] mx = maxOther.clone();
        double[] offEn = offTopic(false);
        double[] offZh = offTopic(true);
        Arrays.sort(g);
        Arrays.sort(n);
        Arrays.sort(mx);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "calibration %s: %d questions, %d gold pairs, %d non-gold pairs, "
                + "%d off-topic probe x persona pairs (%d English, %d Chinese)%n", dataset, questions, g.length, n.length,
                offTopicMax.length, offEn.length, offZh.length));
        sb.append(String.format(Locale.ROOT, "  %-36s %6s %6s %6s %6s %6s%n", "cosine", "p10", "p50", "p90", "p99", "max"));
        row(sb, "gold memory", g);
        row(sb, "non-gold memory, same persona", n);
        row(sb, "best non-gold per question", mx);
        row(sb, "best memory per English off-topic", offEn);
        row(sb, "best memory per Chinese off-topic", offZh);
        sb.append(String.format(Locale.ROOT, "  the model alone (each persona's memories by cosine to the whole query): "
                + "R@5 %.3f, R@10 %.3f, MRR %.3f%n", denseOnly.recall5(), denseOnly.recall10(), denseOnly.mrr()));
        sb.append(String.format(Locale.ROOT, "  %-9s %9s %16s %16s %16s %16s %16s%n", "threshold", "gold > t",
                "non-gold > t / q", "q with non-gold", "en off-topic", "zh off-topic", "off-topic > t"));
        sb.append(String.format(Locale.ROOT, "  %-9s %9s %16s %16s %16s %16s %16s%n", "", "(share)", "(mean)",
                "> t (share)", "any > t (share)", "any > t (share)", "/ probe (mean)"));
        for (int t = 0; t < THRESHOLDS.length; t++) {
            double th = THRESHOLDS[t];
            double offMean = Arrays.stream(offTopicAbove[t]).average().orElse(Double.NaN);
            sb.append(String.format(Locale.ROOT, "  %-9.2f %9.3f %16.2f %16.3f %16.3f %16.3f %16.2f%n", th,
                    shareAbove(g, th), (double) countAbove(n, th) / questions, shareAbove(mx, th), shareAbove(offEn, th),
                    shareAbove(offZh, th), offMean));
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, String label, double[] sorted) {
        sb.append(String.format(Locale.ROOT, "  %-36s %6.3f %6.3f %6.3f %6.3f %6.3f%n", label, percentile(sorted, 10),
                percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99),
                sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1]));
    }
}
