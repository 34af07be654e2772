package dev.jiyi.bench.quality;

import java.util.List;
import java.util.Set;

/**
 * Evidence recall@k as the datasets define it (per question, the fraction of its gold items among
 * the top k; averaged over questions), mean reciprocal rank of the first gold item in the top 10,
 * and nDCG@10 with binary relevance (each gold item found at rank i earns 1 / log2(i + 1), divided by
 * what the gold items would earn at the top).
 */
final class Metrics {

    private double recall5;
    private double recall10;
    private double mrr;
    private double ndcg10;
    private int questions;

    void add(List<String> ranked, Set<String> gold) {
        recall5 += fraction(ranked, gold, 5);
        recall10 += fraction(ranked, gold, 10);
        for (int i = 0; i < Math.min(10, ranked.size()); i++) {
            if (gold.contains(ranked.get(i))) {
                mrr += 1.0 / (i + 1);
                break;
            }
        }
        ndcg10 += ndcg(ranked, gold, 10);
        questions++;
    }

    static double fraction(List<String> ranked, Set<String> gold, int k) {
        int found = 0;
        for (String g : gold) {
            if (ranked.subList(0, Math.min(k, ranked.size())).contains(g)) {
                found++;
            }
        }
        return (double) found / gold.size();
    }

    static double ndcg(List<String> ranked, Set<String> gold, int k) {
        double dcg = 0;
        for (int i = 0; i < Math.min(k, ranked.size()); i++) {
            if (gold.contains(ranked.get(i))) {
                dcg += 1 / log2(i + 2);
            }
        }
        double ideal = 0;
        for (int i = 0; i < Math.min(k, gold.size()); i++) {
            ideal += 1 / log2(i + 2);
        }
        return ideal == 0 ? 0 : dcg / ideal;
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }

    double recall5() {
        return questions == 0 ? 0 : recall5 / questions;
    }

    double recall10() {
        return questions == 0 ? 0 : recall10 / questions;
    }

    double mrr() {
        return questions == 0 ? 0 : mrr / questions;
    }

    double ndcg10() {
        return questions == 0 ? 0 : ndcg10 / questions;
    }

    int questions() {
        return questions;
    }
}
