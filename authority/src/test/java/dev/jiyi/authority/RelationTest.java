package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;

class RelationTest {

    @TempDir
    Path dir;

    private Memory memory(Authority a, Scope scope, String eventId, String text) {
        Event e = submit(a, event(eventId, scope, Role.USER, text));
        return a.addMemory(scope, userFact(e, text).build());
    }

    private long relationCount() throws Exception {
        return count(dbFile(dir), "SELECT count(*) FROM relations");
    }

    @Test
    @DisplayName("M3 a related link joins two memories of the same scope")
    void relateSameScope() throws Exception {
        try (Authority a = open(dir)) {
            Memory tea = memory(a, ALICE_WORK, "e1", "喜欢绿茶 likes green tea");
            Memory hangzhou = memory(a, ALICE_WORK, "e2", "去过杭州 visited Hangzhou");
            Relation r = a.relate(ALICE_WORK, tea.id(), hangzhou.id());
            assertThat(r.fromId()).isEqualTo(tea.id());
            assertThat(r.toId()).isEqualTo(hangzhou.id());
            assertThat(r.type()).isEqualTo(RelationType.RELATED);
            assertThat(r.createdAt()).isNotNull();
            assertThat(a.readMemory(ALICE_WORK, tea.id(), 1, 4000).relations()).containsExactly(r);
        }
        assertThat(relationCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("M3 relating the same pair again is idempotent: same relation, one row, one change-log entry")
    void relateIdempotent() throws Exception {
        try (Authority a = open(dir)) {
            Memory m1 = memory(a, ALICE_WORK, "e1", "一 one");
            Memory m2 = memory(a, ALICE_WORK, "e2", "二 two");
            Relation first = a.relate(ALICE_WORK, m1.id(), m2.id());
            int changes = a.changesAfter(0, 1000).size();
            Relation second = a.relate(ALICE_WORK, m1.id(), m2.id());
            Relation third = a.relate(ALICE_WORK, m1.id(), m2.id());
            assertThat(second).isEqualTo(first);
            assertThat(third).isEqualTo(first);
            assertThat(a.changesAfter(0, 1000)).hasSize(changes);
            assertThat(a.readMemory(ALICE_WORK, m1.id(), 1, 4000).relations()).containsExactly(first);
        }
        assertThat(relationCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("M3 a cross-scope related link is rejected in either direction and stores nothing")
    void crossScopeRejected() throws Exception {
        try (Authority a = open(dir)) {
            Memory work = memory(a, ALICE_WORK, "e1", "工作记忆 work memory");
            Memory home = memory(a, ALICE_HOME, "e2", "家庭记忆 home memory");
            Memory bob = memory(a, BOB_WORK, "e3", "Bob 的记忆");
            assertThatInvalidRelate(a, ALICE_WORK, work, home);
            assertThatInvalidRelate(a, ALICE_WORK, work, bob);
            assertThatInvalidRelate(a, ALICE_HOME, work, home);
            assertThatInvalidRelate(a, ALICE_HOME, home, work);
            assertThatInvalidRelate(a, BOB_WORK, bob, work);
            // Naming a scope that owns neither memory is rejected too.
            Memory work2 = memory(a, ALICE_WORK, "e4", "另一个工作记忆");
            assertThatInvalidRelate(a, BOB_WORK, work, work2);
            assertThat(a.readMemory(ALICE_WORK, work.id(), 1, 4000).relations()).isEmpty();
        }
        assertThat(relationCount()).isZero();
    }

    private static void assertThatInvalidRelate(Authority a, Scope scope, Memory from, Memory to) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.relate(scope, from.id(), to.id()))
                .isInstanceOf(InvalidInputException.class);
    }

    @Test
    @DisplayName("O7 relate rejects self-links, unknown memories and malformed IDs naming the field")
    void badInput() throws Exception {
        try (Authority a = open(dir)) {
            Memory m = memory(a, ALICE_WORK, "e1", "记忆 memory");
            assertInvalid(() -> a.relate(ALICE_WORK, m.id(), m.id()), "b");
            assertInvalid(() -> a.relate(ALICE_WORK, m.id(), "mem_GHOST"), "b");
            assertInvalid(() -> a.relate(ALICE_WORK, "mem_GHOST", m.id()), "a");
            assertInvalid(() -> a.relate(ALICE_WORK, "bad id 坏", m.id()), "a", "bad id 坏");
            assertInvalid(() -> a.relate(ALICE_WORK, m.id(), ""), "b");
            assertInvalid(() -> a.relate(ALICE_WORK, m.id(), null), "b");
        }
        assertThat(relationCount()).isZero();
    }
}
