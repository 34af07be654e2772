package dev.jiyi.authority.index;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.AuthorityTestKit;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * L2, the contract of a {@link ChangeLogFollower.Target}: driven by the follower, it holds exactly the
 * events and memories the authority holds, after inserts and deletions, Chinese and English text,
 * in pages of any size; a page applied twice changes nothing; a rebuild reflects the head. A target
 * (the Lucene index's follower, a new backend's) passes it with a subclass that makes one and says
 * whether it holds a row.
 */
public abstract class ChangeLogFollowerContract {

    @TempDir
    protected Path dir;

    /** A fresh target kept under {@code dir}, built (empty or not) from {@code authority}. */
    protected abstract ChangeLogFollower.Target target(Path dir, Authority authority) throws IOException;

    /** Whether the target holds the event ({@code event}) or memory with this ID: what a search could return. */
    protected abstract boolean holds(ChangeLogFollower.Target target, boolean event, String id) throws IOException;

    /** Rebuilds the target whole from one snapshot of the authority (as a first use does). */
    protected static void rebuild(Authority authority, ChangeLogFollower.Target target, String reason) {
        authority.read(s -> {
            try {
                target.rebuild(s, reason);
                return null;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Lets go of the target's files. */
    protected void close(ChangeLogFollower.Target target) {
    }

    private record Made(List<Event> events, List<Memory> memories) {
    }

    private static Made fill(Authority a, String tag, int n) {
        List<Event> events = new ArrayList<>();
        List<Memory> memories = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Scope scope = i % 2 == 0 ? ALICE_WORK : CJK_SCOPE;
            Event e = submit(a, event(tag + "-e" + i, scope, Role.USER,
                    i % 3 == 0 ? "我喜欢龙井茶 " + i : i % 3 == 1 ? "release notes for build " + i : "下周 design review 第" + i + "次"));
            events.add(e);
            if (i % 2 == 1) {
                memories.add(a.addMemory(scope, userFact(e, "记住 fact " + tag + i).build()));
            }
        }
        return new Made(events, memories);
    }

    private static ChangeLogFollower.Outcome follow(Authority a, ChangeLogFollower.Target t, int page) {
        return a.read(s -> {
            try {
                return new ChangeLogFollower(page, Duration.ofDays(1)).follow(s, t);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Every row ever made: held by the target exactly when the authority still has it. */
    private void assertMirrors(Authority a, ChangeLogFollower.Target t, List<Made> made) throws IOException {
        for (Made m : made) {
            for (Event e : m.events()) {
                assertThat(holds(t, true, e.id())).as("event %s", e.id())
                        .isEqualTo(a.event(e.scope(), e.id()).isPresent());
            }
            for (Memory mem : m.memories()) {
                assertThat(holds(t, false, mem.id())).as("memory %s", mem.id())
                        .isEqualTo(a.memory(mem.scope(), mem.id()).isPresent());
            }
        }
    }

    @Test
    @DisplayName("L2 a target follows inserts and deletions, in small pages, and holds exactly what the authority holds")
    void followsInsertsAndDeletions() throws IOException {
        try (Authority a = AuthorityTestKit.open(dir.resolve("db"))) {
            ChangeLogFollower.Target t = target(dir.resolve("target"), a);
            try {
                List<Made> made = new ArrayList<>();
                made.add(fill(a, "a", 7));
                assertThat(follow(a, t, 2).behind()).isZero();
                assertMirrors(a, t, made);

                Made first = made.get(0);
                a.deleteEvent(first.events().get(1).scope(), first.events().get(1).id()); // with its memory
                a.deleteMemory(first.memories().get(1).scope(), first.memories().get(1).id());
                made.add(fill(a, "b", 4));
                ChangeLogFollower.Outcome o = follow(a, t, 3);
                assertThat(o.behind()).isZero();
                assertThat(t.position().seq()).isEqualTo(o.head());
                assertMirrors(a, t, made);
            } finally {
                close(t);
            }
        }
    }

    @Test
    @DisplayName("L2 a page applied twice (a process killed before its commit) changes nothing; a rebuild reflects the head")
    void replayAndRebuild() throws IOException {
        try (Authority a = AuthorityTestKit.open(dir.resolve("db"))) {
            ChangeLogFollower.Target t = target(dir.resolve("target"), a);
            try {
                List<Made> made = List.of(fill(a, "c", 5));
                follow(a, t, 100);
                ChangeLogFollower.Position at = t.position();
                a.read(s -> {
                    try {
                        List<ChangeLog.Entry> all = s.changesAfter(0, 1_000);
                        t.apply(s, all);
                        t.apply(s, all);
                        t.commit(at);
                        return null;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                assertMirrors(a, t, made);

                rebuild(a, t, "a contract test asked");
                assertThat(t.position()).isEqualTo(a.read(ChangeLogFollower::head));
                assertMirrors(a, t, made);
                assertThat(follow(a, t, 10).pages()).as("nothing left after a rebuild").isZero();
            } finally {
                close(t);
            }
        }
    }
}
