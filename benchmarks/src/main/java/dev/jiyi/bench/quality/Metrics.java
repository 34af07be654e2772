package dev.jiyi.bench.quality;

import java.util.List;
import java.util.Set;

/**
 * Evidence recall@k as the datasets define it (per question, the fraction of its gold items among
 * the top k; averaged over questions) and mean reciprocal rank of the first gold item in the top 10.
 */
final class Metrics {

    private double recall5;
    private double recall10;
    private double mrr;
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

    double recall5() {
        return questions == 0 ? 0 : recall5 / questions;
    }

    double recall10() {
        return questions == 0 ? 0 : recall10 / questions;
    }

    double mrr() {
        return questions == 0 ? 0 : mrr / questions;
    }

    int questions() {
        return questions;
    }
}
