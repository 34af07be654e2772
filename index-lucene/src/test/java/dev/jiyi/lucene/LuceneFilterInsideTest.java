package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.index.Eligibility;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.WORK;
import static dev.jiyi.lucene.Archive.Y2020;
import static dev.jiyi.lucene.Archive.Y2021;
import static dev.jiyi.lucene.Archive.Y2030;
import static dev.jiyi.lucene.Archive.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * L4: filters are applied inside the search. 2,000 memories match the query strongly but are not
 * eligible (expired, future, revoked, or of another scope); three eligible ones match it weakly. A
 * top-k taken first and filtered after would return none of them.
 */
class LuceneFilterInsideTest {

    private static final String STRONG = "榴莲榴莲 durian durian 榴莲";
    private static final String WEAK = "今天在市场买了很多水果，有苹果、香蕉、葡萄和橙子，还顺便看了一眼榴莲 "
            + "bought apples, bananas, grapes, oranges and glanced at a durian";

    @TempDir
    Path home;

    @Test
    @DisplayName("L4 R8 T6 S1 2,000 better-matching ineligible memories (expired, future, revoked, other scope) never crowd 3 weak eligible ones out of a limit of 5, lexically or by vector; events likewise by scope")
    void filterInsideTheSearch() {
        Random random = SeededRandom.create("LuceneFilterInsideTest.filterInsideTheSearch");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            float[] query = Archive.randomUnit(random, 16);
            List<EventSubmission> events = new ArrayList<>();
            List<Derivation> drafts = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                // 1,000 expired, 500 future, 100 to revoke: all in DIARY; 400 in WORK, current.
                Scope scope = i < 1_600 ? DIARY : WORK;
                Instant validAt = i < 1_000 ? Y2020 : i < 1_500 ? Y2030 : null;
                Instant invalidAt = i < 1_000 ? Y2021 : null;
                events.add(new EventSubmission("ev-strong-" + i, scope, Role.USER, STRONG + " " + i, "lucene-test",
                        Category.CONVERSATION, "s1", Archive.SAID));
                drafts.add(new Derivation(scope, Archive.fact("ev-strong-" + i, STRONG).kind(Kind.EPISODE)
                        .validAt(validAt).invalidAt(invalidAt).build()));
            }
            for (int i = 0; i < 3; i++) {
                events.add(new EventSubmission("ev-weak-" + i, DIARY, Role.USER, WEAK + " " + i, "lucene-test",
                        Category.CONVERSATION, "s1", Archive.SAID));
                drafts.add(new Derivation(DIARY, Archive.fact("ev-weak-" + i, WEAK).build()));
            }
            assertThat(a.submitEvents(events).error()).isNull();
            List<Memory> memories = a.addMemories(drafts).committed();
            assertThat(memories).hasSize(2_003);
            List<Memory> eligible = memories.subList(2_000, 2_003);
            // Ineligible vectors close to the query, eligible ones far from it.
            List<float[]> vectors = new ArrayList<>();
            for (int i = 0; i < memories.size(); i++) {
                float[] v = i < 2_000 ? nudge(query, random, 0.05f) : nudge(negate(query), random, 0.5f);
                vectors.add(v);
            }
            Archive.vectors(a, memories, vectors);
            for (int i = 1_500; i < 1_600; i++) {
                a.correctMemory(DIARY, memories.get(i).id(), new CorrectionDraft("更正 corrected", null, null));
            }

            Eligibility now = Eligibility.current(DIARY, NOW);
            List<Long> expected = eligible.stream().map(Memory::rowId).toList();
            assertThat(rows(Archive.memories(a, lucene, "榴莲 durian", now, 5))).as("lexical, limit 5")
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(rows(Archive.memories(a, lucene, "榴莲 durian", now, 3))).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(rows(Archive.memories(a, lucene, "榴莲 durian", Eligibility.current(DIARY, Instant.parse("2020-06-01T00:00:00Z")), 5)))
                    .as("as of 2020: the expired ones, best first").hasSize(5)
                    .allSatisfy(row -> assertThat(row).isLessThan(memories.get(1_000).rowId()));
            assertThat(rows(Archive.nearest(a, lucene, query, now, 5).nearest())).as("vectors, k 5")
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(Archive.nearest(a, lucene, query, now, 5).compared()).isEqualTo(3);
            assertThat(Archive.events(a, lucene, "榴莲 durian", DIARY, 5)).as("events of DIARY, strong ones first")
                    .hasSize(5);
            Memory lonelyEvent = Archive.remember(a, new Scope("小明", "旅行"), "trip", WEAK);
            assertThat(rows(Archive.events(a, lucene, "榴莲 durian", lonelyEvent.scope(), 5)))
                    .as("the one event of a scope where 2,003 better ones are elsewhere").hasSize(1);
        }
    }

    private static float[] nudge(float[] v, Random random, float by) {
        float[] out = new float[v.length];
        double norm = 0;
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i] + (float) random.nextGaussian() * by;
            norm += out[i] * out[i];
        }
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (out[i] / Math.sqrt(norm));
        }
        return out;
    }

    private static float[] negate(float[] v) {
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = -v[i];
        }
        return out;
    }
}
