package dev.jiyi.authority.index;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.AuthorityTestKit;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Snapshot;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * L2: the follower protocol itself, over a target that records what it is asked to do: pages in log
 * order, one commit per call with the position reached, a budget that stops between pages, and a
 * rebuild when the log does not continue what the target holds.
 */
class ChangeLogFollowerProtocolTest {

    @TempDir
    Path dir;

    /** Records every call; holds the sequences it applied. */
    static final class Recording implements ChangeLogFollower.Target {
        ChangeLogFollower.Position position = ChangeLogFollower.Position.START;
        final List<Long> applied = new ArrayList<>();
        final List<Integer> pages = new ArrayList<>();
        final List<ChangeLogFollower.Position> commits = new ArrayList<>();
        final List<String> rebuilds = new ArrayList<>();

        @Override
        public ChangeLogFollower.Position position() {
            return position;
        }

        @Override
        public void apply(Snapshot snapshot, List<ChangeLog.Entry> page) {
            pages.add(page.size());
            page.forEach(e -> applied.add(e.seq()));
        }

        @Override
        public void commit(ChangeLogFollower.Position reached) {
            commits.add(reached);
            position = reached;
        }

        @Override
        public void rebuild(Snapshot snapshot, String reason) {
            rebuilds.add(reason);
            applied.clear();
            position = ChangeLogFollower.head(snapshot);
        }
    }

    private static ChangeLogFollower.Outcome follow(Authority a, ChangeLogFollower f, Recording t) {
        return a.read(s -> {
            try {
                return f.follow(s, t);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void fill(Authority a, int n) {
        for (int i = 0; i < n; i++) {
            submit(a, event("e-" + i + "-" + System.nanoTime(), i % 2 == 0 ? ALICE_WORK : CJK_SCOPE, Role.USER,
                    i % 2 == 0 ? "note " + i + " about the release" : "第" + i + "条：我喜欢龙井茶"));
        }
    }

    @Test
    @DisplayName("L2 pages in log order, one commit per call with the last entry's position; nothing new commits nothing")
    void pagesInOrderOneCommit() {
        try (Authority a = AuthorityTestKit.open(dir)) {
            fill(a, 7);
            Recording t = new Recording();
            ChangeLogFollower f = new ChangeLogFollower(3, Duration.ofDays(1));
            ChangeLogFollower.Outcome o = follow(a, f, t);
            long head = a.read(Snapshot::changeLogHead);
            assertThat(t.applied).isSorted().hasSize((int) head).doesNotHaveDuplicates();
            assertThat(t.pages).allMatch(p -> p <= 3);
            assertThat(t.commits).hasSize(1);
            assertThat(t.commits.get(0).seq()).isEqualTo(head);
            assertThat(t.commits.get(0).mark()).isEqualTo(a.read(s -> ChangeLogFollower.mark(s, head)));
            assertThat(o.behind()).isZero();
            assertThat(o.rebuilt()).isFalse();

            ChangeLogFollower.Outcome again = follow(a, f, t);
            assertThat(again.pages()).isZero();
            assertThat(t.commits).as("a current target is not committed again").hasSize(1);
        }
    }

    @Test
    @DisplayName("L2 a spent budget stops after the page in hand and commits it; the next call goes on from there")
    void budgetStopsBetweenPages() {
        try (Authority a = AuthorityTestKit.open(dir)) {
            fill(a, 6);
            Recording t = new Recording();
            ChangeLogFollower f = new ChangeLogFollower(2, Duration.ZERO);
            ChangeLogFollower.Outcome first = follow(a, f, t);
            assertThat(first.pages()).isEqualTo(1);
            assertThat(first.behind()).isPositive();
            assertThat(t.commits).hasSize(1);
            long head = first.head();
            while (t.position.seq() < head) {
                follow(a, f, t);
            }
            assertThat(t.applied).as("every entry once, in order").isSorted().hasSize((int) head).doesNotHaveDuplicates();
        }
    }

    @Test
    @DisplayName("L2 a log that does not continue the target (another entry at its sequence, or its sequence past the head) rebuilds it")
    void discontinuityRebuilds() {
        try (Authority a = AuthorityTestKit.open(dir)) {
            fill(a, 4);
            Recording t = new Recording();
            ChangeLogFollower f = new ChangeLogFollower(100, Duration.ofDays(1));
            follow(a, f, t);
            long head = t.position.seq();

            t.position = new ChangeLogFollower.Position(head, "event:e-x:insert:2020-01-01T00:00:00Z");
            ChangeLogFollower.Outcome replaced = follow(a, f, t);
            assertThat(replaced.rebuilt()).isTrue();
            assertThat(t.rebuilds).hasSize(1).allMatch(r -> r.contains("does not continue"));
            assertThat(t.position.seq()).isEqualTo(head);

            t.position = new ChangeLogFollower.Position(head + 10, "(none)");
            assertThat(follow(a, f, t).rebuilt()).as("a target ahead of the log").isTrue();

            Event more = submit(a, event("e-after", CJK_SCOPE, Role.USER, "后来又聊了乌龙茶 and oolong"));
            ChangeLogFollower.Outcome after = follow(a, f, t);
            assertThat(after.rebuilt()).isFalse();
            assertThat(t.applied).as("after a rebuild only what is new is applied").isNotEmpty()
                    .allMatch(seq -> seq > head);
            assertThat(more.id()).isEqualTo("e-after");
        }
    }
}
