package dev.jiyi.opensearch;

import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * S1 across homes: many homes share one index of a cluster, and no query of one home ever sees
 * another's documents, even when their scopes have the same IDs and their texts collide.
 */
class ManyHomesTest {

    private static final String INDEX = "homes-" + HomeState.randomId();
    private static final Scope SAME = new Scope("小明", "default");
    private static final String[] SHARED = {"咖啡", "花园", "coffee", "garden", "龙井", "tea", "徒步", "hiking",
            "杭州", "Hangzhou", "猫", "cat"};

    @AfterAll
    static void dropIndex() {
        TestCluster.get().deleteIndex(INDEX);
    }

    @Test
    @DisplayName("S1 two homes on one index, same scope IDs and colliding texts: 0 cross-home results over 1,000 random queries")
    void noQuerySeesAnotherHome(@TempDir Path a, @TempDir Path b) {
        try (Homes first = new Homes(a, INDEX); Homes second = new Homes(b, INDEX)) {
            Random random = new Random(20261205);
            // The second home's first 150 rows hold words the first home never uses; its next 150
            // rows collide with the first home's 150. A leak is then visible by row number alone.
            for (int i = 0; i < 150; i++) {
                second.remember(SAME, "填充 filler 第" + i + "条 padding" + (i % 7));
            }
            for (int i = 0; i < 150; i++) {
                String text = sentence(random, i);
                first.remember(SAME, text);
                second.remember(SAME, text);
            }
            first.index().catchUp(first.authority);
            second.index().catchUp(second.authority);
            assertThat(first.index().home()).isNotEqualTo(second.index().home());

            int answered = 0;
            for (int q = 0; q < 1_000; q++) {
                String query = SHARED[random.nextInt(SHARED.length)] + " " + SHARED[random.nextInt(SHARED.length)]
                        + (random.nextBoolean() ? " filler" : "");
                List<Candidate> mine = first.memories(SAME, query, 20);
                answered += mine.isEmpty() ? 0 : 1;
                // The first home holds rows 1-150 only (an event row per memory: events 1-150 too).
                assertThat(mine).allSatisfy(c -> assertThat(c.rowId()).isBetween(1L, 150L));
                assertThat(first.events(SAME, query, 20)).allSatisfy(c -> assertThat(c.rowId()).isBetween(1L, 150L));
                // The second home's rows that hold shared words are 151-300; none of 1-150 holds one.
                for (Candidate c : second.memories(SAME, query.replace(" filler", ""), 20)) {
                    assertThat(c.rowId()).isBetween(151L, 300L);
                }
            }
            assertThat(answered).as("the queries find the first home's rows").isGreaterThan(900);
            // Words only the second home uses find nothing in the first, though the index holds them.
            assertThat(first.memories(SAME, "填充 filler padding3", 20)).isEmpty();
            assertThat(second.memories(SAME, "填充 filler padding3", 20)).isNotEmpty();
        }
    }

    @Test
    @DisplayName("S1 a home folder copied with its state file takes an ID of its own; the original rebuilds and both answer alone")
    void copiedHomeGetsItsOwnId(@TempDir Path a, @TempDir Path b) throws java.io.IOException {
        String firstId;
        try (Homes first = new Homes(a, INDEX)) {
            first.remember(SAME, "原来的家 original home 翡翠");
            first.index().catchUp(first.authority);
            firstId = first.index().home();
        }
        java.nio.file.Files.createDirectories(b.resolve("opensearch"));
        java.nio.file.Files.copy(a.resolve("jiyi.db"), b.resolve("jiyi.db"));
        java.nio.file.Files.copy(a.resolve("opensearch/state.properties"), b.resolve("opensearch/state.properties"));
        try (Homes copy = new Homes(b, INDEX)) {
            copy.remember(SAME, "复制的家 copied home 琥珀");
            assertThat(copy.memories(SAME, "琥珀 翡翠", 10)).hasSize(2);
            assertThat(copy.index().home()).isNotEqualTo(firstId);
            assertThat(copy.backend.takeNotices()).anySatisfy(n -> assertThat(n).contains("moved or copied"));
        }
        try (Homes first = new Homes(a, INDEX)) {
            assertThat(first.index().home()).isEqualTo(firstId);
            // Its documents went with the copy's first follow; it notices and rebuilds.
            assertThat(first.memories(SAME, "琥珀 翡翠", 10)).hasSize(1);
            assertThat(first.backend.takeNotices()).anySatisfy(n -> assertThat(n).contains("does not hold"));
        }
    }

    /** Two to four shared words and one of the row's own, Chinese and English mixed. */
    private static String sentence(Random random, int i) {
        StringBuilder b = new StringBuilder();
        int words = 2 + random.nextInt(3);
        for (int w = 0; w < words; w++) {
            b.append(SHARED[random.nextInt(SHARED.length)]).append(w % 2 == 0 ? "，" : " ");
        }
        return b.append("第").append(i).append("次 note").append(i).toString();
    }
}
