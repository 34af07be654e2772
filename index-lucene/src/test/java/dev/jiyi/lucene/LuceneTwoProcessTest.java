package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.index.Eligibility;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.events;
import static dev.jiyi.lucene.Archive.memories;
import static dev.jiyi.lucene.Archive.remember;
import static dev.jiyi.lucene.Archive.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * L5: two processes on one home. A child JVM ({@link LuceneChild} {@code hold}) holds the index's
 * write lock; this process opens the same index and searches the holder's last commit.
 */
class LuceneTwoProcessTest {

    @TempDir
    Path home;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @DisplayName("L5 while another process holds the write lock: answers from its last commit, read only, says how far behind, never throws; sees its next commit; takes over when it exits")
    void readerBesideHolder() throws Exception {
        Eligibility now = Eligibility.current(DIARY, NOW);
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            Memory tea = remember(a, DIARY, "tea", "我每天早上喝乌龙茶 oolong tea every morning");
            Process holder = LuceneChild.start("hold", home);
            try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.UTF_8));
                 Writer in = new java.io.OutputStreamWriter(holder.getOutputStream(), StandardCharsets.UTF_8)) {
                String ready = LuceneChild.await(out, "ready ");
                assertThat(ready).as("the holder took the write lock").endsWith(" false");

                try (LuceneIndex reader = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                    assertThat(rows(memories(a, reader, "乌龙茶", now, 10))).containsExactly(tea.rowId());
                    assertThat(rows(memories(a, reader, "oolong", now, 10))).containsExactly(tea.rowId());
                    assertThat(reader.status().readOnly()).as("another process holds the lock").isTrue();
                    assertThat(reader.status().behind()).isZero();
                    assertThat(reader.status().warning()).isEmpty();

                    // New authority writes that the holder has not applied: the reader answers from the
                    // holder's last commit and reports the lag.
                    Memory hike = remember(a, DIARY, "hike", "周末去香山爬山 hiking at Fragrant Hills");
                    a.deleteMemory(DIARY, tea.id());
                    assertThat(rows(memories(a, reader, "爬山 hiking", now, 10))).as("not in the last commit").isEmpty();
                    assertThat(rows(memories(a, reader, "乌龙茶", now, 10)))
                            .as("the last commit still proposes it; recall's recheck against the authority drops it")
                            .containsExactly(tea.rowId());
                    LuceneStatus lagging = reader.status();
                    assertThat(lagging.readOnly()).isTrue();
                    assertThat(lagging.behind()).as("event, memory, then the deletion's entries").isGreaterThanOrEqualTo(3);
                    assertThat(lagging.warning()).hasValueSatisfying(w -> assertThat(w)
                            .contains(lagging.behind() + " change(s) behind").contains("another process holds"));
                    assertThat(reader.report(a).readOnly()).isTrue();

                    // The holder catches up and commits: the reader sees that commit at its next search.
                    in.write("catchup\n");
                    in.flush();
                    String caught = LuceneChild.await(out, "caught ");
                    long applied = Long.parseLong(caught.substring("caught ".length()));
                    assertThat(applied).isEqualTo(lagging.head());
                    assertThat(rows(memories(a, reader, "爬山 hiking", now, 10))).containsExactly(hike.rowId());
                    assertThat(rows(memories(a, reader, "乌龙茶 oolong", now, 10))).isEmpty();
                    assertThat(rows(events(a, reader, "乌龙茶 oolong", DIARY, 10))).isEmpty();
                    assertThat(reader.status().readOnly()).isTrue();
                    assertThat(reader.status().behind()).isZero();
                    assertThat(reader.status().warning()).isEmpty();

                    // The holder exits: within about a second the reader takes the lock and writes itself.
                    in.close();
                    assertThat(holder.waitFor(20, TimeUnit.SECONDS)).as("the holder exits at end of input").isTrue();
                    assertThat(holder.exitValue()).isZero();
                    Memory piano = remember(a, DIARY, "piano", "晚上练钢琴 piano practice at night");
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    long tookOverAfter = -1;
                    long start = System.nanoTime();
                    while (System.nanoTime() < deadline) {
                        List<Long> found = rows(memories(a, reader, "钢琴 piano", now, 10));
                        if (!reader.status().readOnly()) {
                            tookOverAfter = (System.nanoTime() - start) / 1_000_000;
                            assertThat(found).as("the new writer applied the log").containsExactly(piano.rowId());
                            break;
                        }
                        Thread.sleep(50);
                    }
                    assertThat(tookOverAfter).as("took over the write lock (ms)").isBetween(0L, 2_500L);
                    assertThat(reader.status().behind()).isZero();
                    assertThat(reader.takeNotices()).as("nothing was rebuilt").isEmpty();
                }
            } finally {
                holder.destroyForcibly();
                holder.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
