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
}
