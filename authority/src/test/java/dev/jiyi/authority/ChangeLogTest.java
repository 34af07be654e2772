package dev.jiyi.authority;

import dev.jiyi.authority.index.ChangeLog;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.SESSION;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.t;
import static dev.jiyi.authority.AuthorityTestKit.timelineFact;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;

class ChangeLogTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("L2 the change log lists every committed write in order, with its entity, operation and scope")
    void everyWriteIsLogged() {
        try (Authority a = open(dir)) {
            a.persona("alice", null);
            Event e = submit(a, event("e1", ALICE_WORK, Role.USER, "我住在南京 I live in Nanjing", t("2020-01-01T00:00:00Z")));
            Memory first = a.addMemory(ALICE_WORK, timelineFact(e, "me", "city", t("2020-01-01T00:00:00Z")));
            Event e2 = submit(a, event("e2", ALICE_WORK, Role.USER, "搬到苏州 moved to Suzhou", t("2022-01-01T00:00:00Z")));
            Memory second = a.addMemory(ALICE_WORK, timelineFact(e2, "me", "city", t("2022-01-01T00:00:00Z")));
            a.relate(ALICE_WORK, first.id(), second.id());
            Checkpoint cp = a.saveCheckpoint(ALICE_WORK, new CheckpointDraft(SESSION, "目标", List.of(), List.of(),
                    List.of(), null, e2.sequence()));
            a.markExtractionPending("e1", "timeout");

            List<ChangeLog.Entry> log = a.changesAfter(0, 1000);
            assertThat(log).extracting(c -> c.entity() + ":" + c.op() + ":" + c.entityId()).containsExactlyInAnyOrder(
                    "persona:insert:alice@1", "event:insert:e1", "memory:insert:" + first.id(), "event:insert:e2",
                    "memory:update:" + first.id(), "memory:insert:" + second.id(),
                    "relation:insert:" + first.id() + "->" + second.id(), "checkpoint:insert:" + cp.id(),
                    "event:update:e1");
            // Writes appear in commit order; the closing of the first fact commits with the second fact.
            assertThat(log.get(0).entity()).isEqualTo(ChangeLog.Entity.PERSONA);
            assertThat(log.get(1).entityId()).isEqualTo("e1");
            assertThat(log.get(2).entityId()).isEqualTo(first.id());
            assertThat(log.get(3).entityId()).isEqualTo("e2");
            assertThat(log.subList(4, 6)).extracting(ChangeLog.Entry::op).containsExactlyInAnyOrder(ChangeLog.Op.INSERT, ChangeLog.Op.UPDATE);
            assertThat(log.get(6).entity()).isEqualTo(ChangeLog.Entity.RELATION);
            assertThat(log.get(7).entity()).isEqualTo(ChangeLog.Entity.CHECKPOINT);
            assertThat(log.get(8).entity()).isEqualTo(ChangeLog.Entity.EVENT);
            assertThat(log.get(0).projectId()).isNull();
            assertThat(log.subList(1, log.size())).allSatisfy(c -> {
                assertThat(c.personaId()).isEqualTo("alice");
                assertThat(c.projectId()).isEqualTo("work");
                assertThat(c.at()).isNotNull();
            });
            for (int i = 1; i < log.size(); i++) {
                assertThat(log.get(i).seq()).isGreaterThan(log.get(i - 1).seq());
            }
        }
    }

    @Test
    @DisplayName("L2 the change log pages by sequence and limit")
    void paging() {
        try (Authority a = open(dir)) {
            for (int i = 0; i < 12; i++) {
                submit(a, event("e" + i, i % 2 == 0 ? ALICE_WORK : BOB_WORK, Role.USER, "事件 " + i));
            }
            List<ChangeLog.Entry> all = a.changesAfter(0, 100);
            assertThat(all).hasSize(12);
            List<ChangeLog.Entry> paged = new ArrayList<>();
            long after = 0;
            while (true) {
                List<ChangeLog.Entry> page = a.changesAfter(after, 5);
                if (page.isEmpty()) {
                    break;
                }
                assertThat(page.size()).isLessThanOrEqualTo(5);
                paged.addAll(page);
                after = page.get(page.size() - 1).seq();
            }
            assertThat(paged).isEqualTo(all);
            assertThat(a.changesAfter(all.get(11).seq(), 5)).isEmpty();
            assertThat(a.changesAfter(0, 0)).isEmpty();
        }
    }

    @Test
    @DisplayName("L2 rejected and idempotent writes leave the change log unchanged")
    void rejectedWritesNotLogged() {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e1", ALICE_WORK, Role.USER, "原文 original"));
            Memory m = a.addMemory(ALICE_WORK, userFact(e, "m").build());
            Memory m2 = a.addMemory(ALICE_WORK, userFact(e, "m2").build());
            a.relate(ALICE_WORK, m.id(), m2.id());
            List<ChangeLog.Entry> before = a.changesAfter(0, 1000);

            submit(a, event("e1", ALICE_WORK, Role.USER, "原文 original"));
            a.relate(ALICE_WORK, m.id(), m2.id());
            try {
                a.submitEvent(event("e1", ALICE_WORK, Role.USER, "改了 changed"));
            } catch (ConflictException expected) {
                // fine
            }
            try {
                a.addMemory(ALICE_WORK, userFact(e, "x").quote("不在原文中").build());
            } catch (InvalidInputException expected) {
                // fine
            }
            try {
                a.relate(BOB_WORK, m.id(), m2.id());
            } catch (InvalidInputException expected) {
                // fine
            }
            assertThat(a.changesAfter(0, 1000)).isEqualTo(before);
        }
    }

    @Test
    @DisplayName("O7 the change log rejects a negative limit naming the field")
    void negativeLimit() {
        try (Authority a = open(dir)) {
            submit(a, event("e1", ALICE_WORK, Role.USER, "一"));
            assertInvalid(() -> a.changesAfter(0, -1), "limit");
        }
    }
}
