package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.Neighbours;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.WORK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * L3: deep recall through HNSW finds what the exact scan finds. 3,000 random unit vectors of 64
 * dimensions stored through the authority (a fifth of them in another scope, so the filter is inside
 * the graph walk), 50 queries, recall@10 of {@link LuceneIndex#nearest} (newest 0) against
 * {@link ExactVectorScan}, for float and int8 vectors.
 */
class LuceneHnswRecallTest {

    private static final int VECTORS = 3_000;
    private static final int DIMS = 64;
    private static final int QUERIES = 40;
    private static final int K = 10;

    @TempDir
    Path home;

    @Test
    @DisplayName("L3 V1 deep recall@10 of HNSW against the exact scan is at least 0.95 on 3,000 random 64-dimension vectors, float and int8")
    void recallAgainstExactScan() {
        Random random = SeededRandom.create("LuceneHnswRecallTest.recallAgainstExactScan");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            List<Memory> memories = new ArrayList<>();
            List<float[]> vectors = new ArrayList<>();
            for (int from = 0; from < VECTORS; from += 1_000) {
                List<EventSubmission> events = new ArrayList<>();
                List<Derivation> drafts = new ArrayList<>();
                for (int i = from; i < from + 1_000; i++) {
                    Scope scope = i % 5 == 0 ? WORK : DIARY;
                    String text = "向量" + i;
                    events.add(new EventSubmission("ev-" + i, scope, Role.USER, text, "lucene-test",
                            Category.CONVERSATION, "s1", Archive.SAID));
                    drafts.add(new Derivation(scope, Archive.fact("ev-" + i, text).build()));
                }
                assertThat(a.submitEvents(events).error()).isNull();
                List<Memory> added = a.addMemories(drafts).committed();
                assertThat(added).hasSize(1_000);
                memories.addAll(added);
                for (int i = 0; i < added.size(); i++) {
                    vectors.add(Archive.randomUnit(random, DIMS));
                }
            }
            Archive.vectors(a, memories, vectors);
            System.out.printf("[hnsw] archive of %d vectors stored%n", VECTORS);
            List<float[]> queries = new ArrayList<>();
            List<Neighbours> truths = new ArrayList<>();
            Eligibility now = Eligibility.current(DIARY, NOW);
            ExactVectorScan exact = new ExactVectorScan();
            for (int q = 0; q < QUERIES; q++) {
                float[] query = q % 5 == 0 ? vectors.get(random.nextInt(VECTORS)) : Archive.randomUnit(random, DIMS);
                queries.add(query);
                truths.add(Archive.nearest(a, exact, query, now, K));
            }
            for (LuceneOptions.VectorFormat format : LuceneOptions.VectorFormat.values()) {
                try (LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene-" + format.code()),
                        LuceneOptions.defaults().withVectors(format))) {
                    recall(a, lucene, format, memories, vectors, queries, truths);
                }
            }
        }
    }

    private static void recall(Authority a, LuceneIndex lucene, LuceneOptions.VectorFormat format, List<Memory> memories,
                               List<float[]> vectors, List<float[]> queries, List<Neighbours> truths) {
        {
            Eligibility now = Eligibility.current(DIARY, NOW);
            long start = System.nanoTime();
            lucene.catchUp(a);
            assertThat(lucene.status().behind()).isZero();
            long built = (System.nanoTime() - start) / 1_000_000;

            int hits = 0;
            long searching = 0;
            for (int q = 0; q < QUERIES; q++) {
                float[] query = queries.get(q);
                Neighbours truth = truths.get(q);
                long t = System.nanoTime();
                Neighbours found = Archive.nearest(a, lucene, query, now, K);
                searching += System.nanoTime() - t;
                assertThat(found.nearest()).hasSize(K);
                assertThat(found.compared()).as("deep mode covers every eligible vector").isEqualTo(truth.compared());
                Set<Long> expected = new HashSet<>(Archive.rows(truth.nearest()));
                for (Candidate c : found.nearest()) {
                    if (expected.contains(c.rowId())) {
                        hits++;
                    }
                    Memory m = memories.get(index(memories, c.rowId()));
                    assertThat(m.scope()).as("the filter is inside the search").isEqualTo(DIARY);
                    assertThat(c.score()).as("rescored exactly").isCloseTo(
                            ExactVectorScan.dot(query, vectors.get(index(memories, c.rowId()))), within(1e-6));
                }
            }
            double recall = hits / (double) (QUERIES * K);
            System.out.printf("[hnsw] %s recall@%d %.4f, index %d ms, %d queries %d ms%n", format.code(), K, recall,
                    built, QUERIES, searching / 1_000_000);
            assertThat(recall).as("recall@%d of %s", K, format.code()).isGreaterThanOrEqualTo(0.95);
        }
    }

    private static int index(List<Memory> memories, long row) {
        for (int i = 0; i < memories.size(); i++) {
            if (memories.get(i).rowId() == row) {
                return i;
            }
        }
        throw new AssertionError("row " + row + " is not a memory of this test");
    }
}
