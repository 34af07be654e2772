package dev.jiyi.authority;

import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.TransactionalIndex;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Derived index rows are written inside the authority's write transaction: both land or neither. */
class IndexHookAtomicityTest {

    @TempDir
    Path dir;

    /** Records calls, and fails on demand, like an index whose write breaks. */
    static final class FlakyIndex implements TransactionalIndex {
        final List<String> calls = new ArrayList<>();
        boolean fail;

        @Override
        public void eventAdded(Sql tx, Event event) throws SQLException {
            calls.add("event:" + event.id());
            if (fail) {
                throw new SQLException("index write failed");
            }
        }

        @Override
        public void eventRemoved(Sql tx, Event event) {
            calls.add("event-removed:" + event.sequence());
        }

        @Override
        public void memoryAdded(Sql tx, Memory memory) throws SQLException {
            calls.add("memory:" + memory.id());
            if (fail) {
                throw new SQLException("index write failed");
            }
        }

        @Override
        public void memoryRemoved(Sql tx, Memory memory) {
            long rowId = memory.rowId();
            calls.add("memory-removed:" + rowId);
        }
    }

    private static EventSubmission event(String id, String text) {
        return new EventSubmission(id, Scope.DEFAULT, Role.USER, text, null, null, "s1", Instant.parse("2024-01-01T00:00:00Z"));
    }

    @Test
    @DisplayName("E5 an index failure rolls back the event, its change-log entry and its sequence is not acknowledged")
    void failingIndexRollsBackEvent() {
        FlakyIndex index = new FlakyIndex();
        try (Authority authority = Authority.open(dir.resolve("jiyi.db"), List.of(index))) {
            authority.submitEvent(event("ok-1", "第一条 first"));
            index.fail = true;
            assertThatThrownBy(() -> authority.submitEvent(event("bad-1", "第二条 second")))
                    .isInstanceOf(StorageException.class);
            assertThat(authority.event(Scope.DEFAULT, "bad-1")).isEmpty();
            assertThat(authority.changesAfter(0, 100)).extracting(ChangeLog.Entry::entityId)
                    .containsExactly("ok-1");
            index.fail = false;
            authority.submitEvent(event("ok-2", "第三条 third"));
            assertThat(authority.event(Scope.DEFAULT, "ok-2")).isPresent();
            assertThat(authority.doctor().healthy()).isTrue();
        }
    }

    @Test
    @DisplayName("X4 an index failure on a memory rolls back that memory and leaves the event")
    void failingIndexRollsBackMemory() {
        FlakyIndex index = new FlakyIndex();
        try (Authority authority = Authority.open(dir.resolve("jiyi.db"), List.of(index))) {
            authority.submitEvent(event("e1", "我喜欢喝绿茶 I like green tea"));
            index.fail = true;
            MemoryDraft draft = MemoryDraft.builder("e1").kind(Kind.PREFERENCE).basis(Basis.USER_STATEMENT)
                    .text("喜欢绿茶").quote("我喜欢喝绿茶").build();
            assertThatThrownBy(() -> authority.addMemory(Scope.DEFAULT, draft)).isInstanceOf(StorageException.class);
            assertThat(authority.doctor().tableCounts().byName()).containsEntry("memories", 0L).containsEntry("events", 1L);
        }
    }
}
