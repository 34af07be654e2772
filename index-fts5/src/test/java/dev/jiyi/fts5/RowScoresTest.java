package dev.jiyi.fts5;

import dev.jiyi.authority.index.Candidate;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** R11 the per-row sums of {@link ScopedBm25} and their best rows, against sums in a map and a full sort. */
class RowScoresTest {

    @Test
    @DisplayName("R11 the best n rows by their summed scores, equal sums newest row first, only rows holding enough terms, as a full sort would give them")
    void bestAsAFullSortWouldGive() {
        Random random = new Random(29);
        for (int round = 0; round < 50; round++) {
            RowScores scores = new RowScores();
            Map<Long, Double> sums = new HashMap<>();
            Map<Long, Integer> counts = new HashMap<>();
            int terms = 1 + random.nextInt(6);
            for (int t = 0; t < terms; t++) {
                double idf = random.nextInt(4) * 0.5; // few distinct values, so that sums tie often, 0 included
                for (int i = 0; i < 200 + random.nextInt(2000); i++) {
                    long row = 1 + random.nextInt(3000);
                    scores.add(row, idf);
                    sums.merge(row, idf, Double::sum);
                    counts.merge(row, 1, Integer::sum);
                }
            }
            assertThat(scores.size()).isEqualTo(sums.size());
            int least = 1 + random.nextInt(3);
            List<Candidate> all = new ArrayList<>();
            sums.forEach((row, sum) -> {
                if (counts.get(row) >= least) {
                    all.add(new Candidate(row, Math.max(sum, Double.MIN_VALUE)));
                }
            });
            all.sort(Candidate.BEST_FIRST);
            for (int n : new int[] {0, 1, 10, 64, all.size(), Integer.MAX_VALUE}) {
                assertThat(scores.best(n, least)).as("best %d of round %d", n, round)
                        .isEqualTo(all.subList(0, Math.min(n, all.size())));
            }
        }
    }

    @Test
    @DisplayName("R6 the rows that could reach a floor, summed apart: every row whose sum reaches it is there with the very sum and count all rows give it, light terms' rows found by binary search or by walking them")
    void atLeastKeepsEveryRowThatReachesTheFloor() {
        Random random = new Random(6);
        for (int round = 0; round < 200; round++) {
            int terms = 1 + random.nextInt(8);
            long[][] rows = new long[terms][];
            double[] weight = new double[terms];
            RowScores all = new RowScores();
            for (int t = 0; t < terms; t++) {
                // Common light terms (thousands of rows) beside rare heavy ones (a handful): the binary-search path.
                int held = random.nextBoolean() ? 1 + random.nextInt(5) : 500 + random.nextInt(3000);
                java.util.TreeSet<Long> set = new java.util.TreeSet<>();
                while (set.size() < held) {
                    set.add(1 + (long) random.nextInt(5000));
                }
                rows[t] = set.stream().mapToLong(Long::longValue).toArray();
                weight[t] = held < 10 ? 1 + random.nextDouble() * 5 : 0.01 + random.nextDouble() * 0.3;
                for (long row : rows[t]) {
                    all.add(row, weight[t]);
                }
            }
            List<Candidate> every = all.best(Integer.MAX_VALUE, 1);
            double best = every.isEmpty() ? 0 : every.get(0).score();
            for (double least : new double[] {best * random.nextDouble(), best, Math.nextUp(best), 0.2, 1.0, 3.0}) {
                if (!(least > 0)) {
                    continue;
                }
                List<Candidate> reaching = every.stream().filter(c -> c.score() >= least).toList();
                List<Candidate> kept = RowScores.atLeast(rows, weight, least).best(Integer.MAX_VALUE, 1);
                assertThat(kept.stream().filter(c -> c.score() >= least).toList())
                        .as("round %d, rows reaching %s", round, least).isEqualTo(reaching);
                for (int n = 1; n <= 3; n++) {
                    assertThat(RowScores.atLeast(rows, weight, least).best(Integer.MAX_VALUE, n).stream()
                            .filter(c -> c.score() >= least).toList())
                            .as("round %d, rows of %d terms or more reaching %s", round, n, least)
                            .isEqualTo(all.best(Integer.MAX_VALUE, n).stream().filter(c -> c.score() >= least).toList());
                }
            }
        }
    }
}
