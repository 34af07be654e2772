package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.SESSION;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScopeTest {

    @TempDir
    Path dir;

    /** Every scope that is not {@code home}: other project, other persona, and a look-alike. */
    private static final List<Scope> OTHERS = List.of(ALICE_HOME, BOB_WORK, new Scope("Alice", "work"),
            new Scope("alice", "Work"), new Scope("work", "alice"));

    @Test
    @DisplayName("S1 an event in one persona/project is invisible from every other scope")
    void eventsArePartitioned() {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e1", ALICE_WORK, Role.USER, "我在北京工作 I work in Beijing"));
            assertThat(a.event(ALICE_WORK, "e1")).contains(e);
            assertThat(a.events(ALICE_WORK, 0, 100)).containsExactly(e);
            for (Scope other : OTHERS) {
                assertThat(a.event(other, "e1")).as("event seen from %s", other).isEmpty();
                assertThat(a.events(other, 0, 100)).as("events of %s", other).isEmpty();
            }
        }
    }

    @Test
    @DisplayName("S1 a memory in one persona/project is invisible from every other scope and cannot be derived across scopes")
    void memoriesArePartitioned() {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e1", ALICE_WORK, Role.USER, "我喜欢喝茶 I like tea"));
            Memory m = a.addMemory(ALICE_WORK, userFact(e, "Alice likes tea 爱喝茶").build());
            assertThat(a.memory(ALICE_WORK, m.id())).contains(m);
            for (Scope other : OTHERS) {
                assertThat(a.memory(other, m.id())).as("memory seen from %s", other).isEmpty();
                assertThatThrownBy(() -> a.readMemory(other, m.id(), 1, Authority.DEFAULT_PAGE_SIZE))
                        .as("memory read from %s", other).isInstanceOf(NotFoundException.class);
                // Deriving from an event of another scope is rejected and stores nothing.
                assertInvalid(() -> a.addMemory(other, userFact(e, "stolen 偷来的").build()), "event");
            }
            assertThat(a.doctor().tableCounts().byName().get("memories")).isEqualTo(1L);
        }
    }

    @Test
    @DisplayName("S1 a checkpoint in one persona/project is invisible from every other scope")
    void checkpointsArePartitioned() {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e1", ALICE_WORK, Role.USER, "开始任务 start the task"));
            Checkpoint cp = a.saveCheckpoint(ALICE_WORK, new CheckpointDraft(SESSION, "写报告 write the report",
                    List.of("outline"), List.of("draft"), List.of(), "继续 continue", e.sequence()));
            assertThat(a.latestCheckpoint(ALICE_WORK, null)).contains(cp);
            assertThat(a.latestCheckpoint(ALICE_WORK, SESSION)).contains(cp);
            for (Scope other : OTHERS) {
                assertThat(a.latestCheckpoint(other, null)).as("checkpoint seen from %s", other).isEmpty();
                assertThat(a.latestCheckpoint(other, SESSION)).as("checkpoint seen from %s", other).isEmpty();
            }
        }
    }

    @Test
    @DisplayName("S1 scopes whose IDs concatenate to the same text are still distinct partitions")
    void separatorCollisionsAreDistinct() {
        Scope left = new Scope("a/b", "c");
        Scope right = new Scope("a", "b/c");
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e-left", left, Role.USER, "左 left"));
            a.addMemory(left, userFact(e, "left fact").build());
            assertThat(a.events(right, 0, 10)).isEmpty();
            assertThat(a.event(right, "e-left")).isEmpty();
            assertThat(a.events(left, 0, 10)).hasSize(1);
        }
    }

    @Test
    @DisplayName("S1 the same event ID cannot live in two scopes: IDs are database-wide")
    void eventIdsAreGlobal() {
        try (Authority a = open(dir)) {
            submit(a, event("shared-id", ALICE_WORK, Role.USER, "same text 同样"));
            assertThatThrownBy(() -> a.submitEvent(event("shared-id", BOB_WORK, Role.USER, "same text 同样")))
                    .isInstanceOf(ConflictException.class);
            assertThat(a.events(BOB_WORK, 0, 10)).isEmpty();
        }
    }

    @Test
    @DisplayName("S7 a client can name any scope: scope IDs are partitions, not security boundaries")
    void anyClientCanNameAnyScope() {
        Event written;
        Memory memory;
        try (Authority writer = open(dir)) {
            written = submit(writer, event("private-1", CJK_SCOPE, Role.USER, "我的秘密计划 my secret plan"));
            memory = writer.addMemory(CJK_SCOPE, userFact(written, "a plan 计划").build());
        }
        // A second, unrelated client on the same file needs no credential: naming the scope is enough.
        try (Authority other = open(dir)) {
            assertThat(other.event(new Scope("小明", "项目-甲"), "private-1")).contains(written);
            assertThat(other.memory(new Scope("小明", "项目-甲"), memory.id())).contains(memory);
            // And it may write into that scope too.
            Event more = submit(other, event("private-2", new Scope("小明", "项目-甲"), Role.ASSISTANT, "好的 OK"));
            assertThat(more.scope()).isEqualTo(CJK_SCOPE);
        }
    }

    @Test
    @DisplayName("S7 scope IDs may be any non-blank text without whitespace: CJK, emoji, punctuation")
    void scopeIdsAcceptAnyText() {
        List<Scope> scopes = List.of(new Scope("😀", "🚀-1"), new Scope("user@example.com", "repo:main"),
                new Scope("默认", "默认"), Scope.DEFAULT, new Scope("a".repeat(Ids.MAX_ID_LENGTH), "b"));
        try (Authority a = open(dir)) {
            int i = 0;
            for (Scope s : scopes) {
                Event e = submit(a, event("scoped-" + i++, s, Role.USER, "text " + s.personaId()));
                assertThat(a.event(s, e.id())).contains(e);
            }
            assertThat(Scope.DEFAULT).isEqualTo(new Scope("default", "default"));
        }
    }

    @Test
    @DisplayName("S1 scope IDs are validated: blank, whitespace or over-long IDs are rejected naming persona or project")
    void scopeIdValidation() {
        assertInvalid(() -> new Scope("", "p"), "persona");
        assertInvalid(() -> new Scope(null, "p"), "persona");
        assertInvalid(() -> new Scope("has space 有空格", "p"), "persona", "has space 有空格");
        assertInvalid(() -> new Scope("p", "new\nline"), "project", "new\nline");
        assertInvalid(() -> new Scope("p", "全角　空格"), "project", "全角　空格");
        assertInvalid(() -> new Scope("p", null), "project");
        String longId = "长".repeat(Ids.MAX_ID_LENGTH + 1);
        assertInvalid(() -> new Scope(longId, "p"), "persona", longId);
    }
}
