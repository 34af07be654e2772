package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static dev.jiyi.lucene.Archive.ALL;
import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.WORK;
import static dev.jiyi.lucene.Archive.events;
import static dev.jiyi.lucene.Archive.fill;
import static dev.jiyi.lucene.Archive.memories;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scope statistics a search reads (scoped terms' document frequencies, {@link Documents#text};
 * the scoped searchers and term states one index keeps for a view, {@link ViewTerms}) are the
 * statistics a freshly opened index counts, however the index changed meanwhile: new segments,
 * merges, deletions and their purge.
 */
class ScopedStatisticsTest {

    private static final List<String> QUERIES = List.of("咖啡 coffee", "北京大学的图书馆", "weekend hiking 爬山",
            "第3条 note", "下雨 rain 地铁");

    @TempDir
    Path home;

    @Test
    @DisplayName("R11 L2 kept scope statistics stay exact as the index grows, merges and purges: the scores a fresh index gives (Chinese, English, mixed)")
    void keptStatisticsStayExact() {
        Random random = new Random(29);
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex kept = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            compared = 0;
            for (int round = 0; round < 6; round++) {
                List<Memory> added = fill(a, round % 2 == 0 ? DIARY : WORK, "r" + round + "-", 150 + 40 * round, random);
                if (round >= 2) {
                    a.deleteEvent(added.get(0).scope(), added.get(0).eventId()); // a purge merge at the next catch-up
                }
                kept.catchUp(a);
                Path fresh = home.resolve("fresh-" + round);
                try (LuceneIndex cold = LuceneIndex.open(fresh, LuceneOptions.defaults())) {
                    cold.catchUp(a);
                    for (String q : QUERIES) {
                        for (var scope : List.of(DIARY, WORK)) {
                            Eligibility now = Eligibility.current(scope, NOW);
                            assertSame(memories(a, kept, q, now, ALL), memories(a, cold, q, now, ALL), q);
                            assertSame(events(a, kept, q, scope, ALL), events(a, cold, q, scope, ALL), q);
                            double warmHeld = a.read(s -> kept.coverage(s, q, now).held());
                            double coldHeld = a.read(s -> cold.coverage(s, q, now).held());
                            assertThat(warmHeld).as("evidence for %s", q).isCloseTo(coldHeld,
                                    org.assertj.core.data.Offset.offset(1e-9));
                        }
                    }
                }
            }
            assertThat(compared).as("rows compared").isGreaterThan(1_000);
        }
    }

    private static void assertSame(List<Candidate> kept, List<Candidate> fresh, String query) {
        assertThat(kept).as("rows for %s", query).extracting(Candidate::rowId)
                .containsExactlyElementsOf(fresh.stream().map(Candidate::rowId).toList());
        for (int i = 0; i < kept.size(); i++) {
            assertThat(kept.get(i).score()).as("score of row %d for %s", kept.get(i).rowId(), query)
                    .isCloseTo(fresh.get(i).score(), org.assertj.core.data.Offset.offset(1e-9));
        }
        compared += kept.size();
    }

    private static int compared;
}
