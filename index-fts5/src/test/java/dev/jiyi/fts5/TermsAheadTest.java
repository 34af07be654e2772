package dev.jiyi.fts5;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.index.Candidate;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** Terms computed ahead of a batch, on other threads while the batch writes. */
class TermsAheadTest {

    /** Distinct texts, Chinese, English and mixed, each with a word of its own ({@code 编号N}/{@code tagN}). */
    private static List<String> texts(int n) {
        List<String> out = new ArrayList<>();
        String[] shapes = {"我在北京大学读书，第%d天，编号%s", "Meeting notes about the quarterly budget, item %d, tag%s",
                "周末去 Costco 买了 %d 瓶 olive oil，code%s"};
        for (int i = 0; i < n; i++) {
            out.add(String.format(shapes[i % shapes.length], i, Integer.toString(i, 36) + "q" + i));
        }
        return out;
    }

    @Test
    @DisplayName("R1 a batch's terms computed ahead in slices are each text's own terms, in Chinese, English and mixed text; kept until the next write, forgotten by clear")
    void slicesHoldEachTextsTerms() {
        TermsAhead ahead = new TermsAhead();
        List<String> texts = texts(TermsAhead.PARALLEL_FROM + 5 * TermsAhead.SLICE + 7); // a last slice not full
        ahead.analyze(texts);
        for (String text : texts) {
            assertThat(ahead.termsOf(text)).as(text).isEqualTo(Fts5Terms.contentTerms(text));
        }
        assertThat(ahead.termsOf(texts.getFirst())).as("kept for a retried batch").isEqualTo(Fts5Terms.contentTerms(texts.getFirst()));
        assertThat(ahead.termsOf("从未分析过的文本 never analyzed")).isNull();

        List<String> few = List.of("我养了一只橘猫", "The cat is orange.", "橘猫 named 小橘"); // below the batch size: computed on this thread
        ahead.analyze(few);
        assertThat(ahead.termsOf(few.get(1))).isEqualTo(Fts5Terms.contentTerms(few.get(1)));
        ahead.analyze(texts);
        assertThat(ahead.termsOf(few.get(2))).as("a new write forgets the last one's").isNull();
        ahead.clear();
        assertThat(ahead.termsOf(texts.get(5))).isNull();
    }

    @Test
    @DisplayName("R1 a text repeated in a batch has its terms, and a write never waits for a pool that does not run: the writer segments a slice nobody started")
    void repeatedTextsAndABlockedPool() throws Exception {
        TermsAhead ahead = new TermsAhead();
        List<String> texts = new ArrayList<>(texts(3 * TermsAhead.SLICE));
        texts.add(texts.get(1)); // in the first slice and in the last
        int workers = ForkJoinPool.getCommonPoolParallelism();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(workers);
        for (int i = 0; i < workers; i++) {
            ForkJoinPool.commonPool().execute(() -> {
                blocked.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        try {
            assertThat(blocked.await(10, TimeUnit.SECONDS)).as("every common-pool worker is held").isTrue();
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                ahead.analyze(texts);
                for (String text : texts) {
                    assertThat(ahead.termsOf(text)).as(text).isEqualTo(Fts5Terms.contentTerms(text));
                }
            });
        } finally {
            release.countDown();
        }
    }

    @Test
    @DisplayName("R1 terms computed ahead on one thread are that thread's: another thread's write does not take or empty them")
    void perThread() throws Exception {
        TermsAhead ahead = new TermsAhead();
        List<String> texts = texts(100);
        ahead.analyze(texts);
        AtomicReference<List<String>> seen = new AtomicReference<>(List.of("unset"));
        Thread other = Thread.ofPlatform().start(() -> {
            seen.set(ahead.termsOf(texts.get(0)));
            ahead.analyze(texts(70));
            ahead.clear();
        });
        other.join();
        assertThat(seen.get()).as("another thread's read").isNull();
        assertThat(ahead.termsOf(texts.get(0))).isEqualTo(Fts5Terms.contentTerms(texts.get(0)));
    }

    @Test
    @DisplayName("R1 E5 every event of a batch segmented ahead is found by its own word, and only that event (Chinese, English, mixed)")
    void batchRowsHoldTheirOwnTerms(@TempDir Path dir) {
        Fts5Index index = new Fts5Index();
        Scope scope = Scope.DEFAULT;
        List<String> texts = texts(300);
        List<EventSubmission> batch = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            batch.add(new EventSubmission("e" + i, scope, Role.USER, texts.get(i), null, null, null,
                    Instant.parse("2024-05-01T02:00:00Z").plusSeconds(i)));
        }
        try (Authority authority = Authority.open(dir.resolve("jiyi.db"), List.of(index))) {
            BatchResult<SubmitResult> result = authority.submitEvents(batch);
            assertThat(result.failed()).isFalse();
            for (int i : new int[] {0, 1, 2, 31, 32, 33, 63, 64, 65, 150, 298, 299}) {
                String own = Integer.toString(i, 36) + "q" + i;
                String query = switch (i % 3) {
                    case 0 -> own;
                    case 1 -> "tag" + own;
                    default -> "code" + own;
                };
                List<Long> found = authority.read(s -> index.events(s, query, scope, 10)).stream().map(Candidate::rowId).toList();
                assertThat(found).as(query).containsExactly(result.committed().get(i).event().sequence());
            }
        }
    }
}
