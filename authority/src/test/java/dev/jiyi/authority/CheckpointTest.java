package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.t;
import static org.assertj.core.api.Assertions.assertThat;

class CheckpointTest {

    @TempDir
    Path dir;

    private static Event eventIn(Authority a, String id, Scope scope, String session, String text) {
        return submit(a, new EventSubmission(id, scope, Role.USER, text, "test", Category.CONVERSATION, session,
                t("2024-05-01T10:00:00+08:00")));
    }

    private static CheckpointDraft draft(String session, long seq) {
        return new CheckpointDraft(session, "迁移数据库 migrate the database", List.of("备份 backup", "schema v2"),
                List.of("校验 verify \"rows\"", "switch over\nat night"), List.of("不要停机 no downtime"),
                "运行 `jiyi doctor` next", seq);
    }

    @Test
    @DisplayName("K1 a checkpoint stores goal, completed and pending steps, constraints, next action and covered sequence")
    void roundTrip() {
        Checkpoint saved;
        try (Authority a = open(dir)) {
            Event e = eventIn(a, "e1", ALICE_WORK, "会话-1", "开始迁移 start migrating");
            saved = a.saveCheckpoint(ALICE_WORK, draft("会话-1", e.sequence()));
            assertThat(saved.scope()).isEqualTo(ALICE_WORK);
            assertThat(saved.sessionId()).isEqualTo("会话-1");
            assertThat(saved.goal()).isEqualTo("迁移数据库 migrate the database");
            assertThat(saved.done()).containsExactly("备份 backup", "schema v2");
            assertThat(saved.pending()).containsExactly("校验 verify \"rows\"", "switch over\nat night");
            assertThat(saved.constraints()).containsExactly("不要停机 no downtime");
            assertThat(saved.nextAction()).isEqualTo("运行 `jiyi doctor` next");
            assertThat(saved.coveredSequence()).isEqualTo(e.sequence());
            assertThat(saved.invalidatedAt()).isNull();
            assertThat(a.latestCheckpoint(ALICE_WORK, "会话-1")).contains(saved);
        }
        try (Authority a = open(dir)) {
            assertThat(a.latestCheckpoint(ALICE_WORK, null)).contains(saved);
        }
    }

    @Test
    @DisplayName("K1 empty step lists and no next action are allowed")
    void minimalCheckpoint() {
        try (Authority a = open(dir)) {
            Event e = eventIn(a, "e1", ALICE_WORK, "s", "hi");
            Checkpoint cp = a.saveCheckpoint(ALICE_WORK, new CheckpointDraft("s", "目标 goal", null, List.of(), null,
                    null, e.sequence()));
            assertThat(cp.done()).isEmpty();
            assertThat(cp.pending()).isEmpty();
            assertThat(cp.constraints()).isEmpty();
            assertThat(cp.nextAction()).isNull();
            assertThat(a.latestCheckpoint(ALICE_WORK, "s")).contains(cp);
        }
    }

    @Test
    @DisplayName("K1 the covered sequence must belong to an event of the same scope AND session")
    void coverageMustMatchScopeAndSession() throws Exception {
        try (Authority a = open(dir)) {
            Event sameBoth = eventIn(a, "ok", ALICE_WORK, "s1", "同一会话 same session");
            Event otherSession = eventIn(a, "os", ALICE_WORK, "s2", "另一会话 other session");
            Event otherProject = eventIn(a, "op", ALICE_HOME, "s1", "另一项目 other project");
            Event otherPersona = eventIn(a, "ou", BOB_WORK, "s1", "另一人设 other persona");

            assertInvalid(() -> a.saveCheckpoint(ALICE_WORK, draft("s1", otherSession.sequence())), "covered_seq");
            assertInvalid(() -> a.saveCheckpoint(ALICE_WORK, draft("s1", otherProject.sequence())), "covered_seq");
            assertInvalid(() -> a.saveCheckpoint(ALICE_WORK, draft("s1", otherPersona.sequence())), "covered_seq");
            assertInvalid(() -> a.saveCheckpoint(ALICE_WORK, draft("s1", 999_999)), "covered_seq");
            // Same scope, but the checkpoint's session differs from the event's session.
            assertInvalid(() -> a.saveCheckpoint(ALICE_WORK, draft("s2", sameBoth.sequence())), "covered_seq");
            assertThat(a.latestCheckpoint(ALICE_WORK, null)).isEmpty();

            Checkpoint ok = a.saveCheckpoint(ALICE_WORK, draft("s1", sameBoth.sequence()));
            Checkpoint ok2 = a.saveCheckpoint(ALICE_WORK, draft("s2", otherSession.sequence()));
            assertThat(ok.coveredSequence()).isEqualTo(sameBoth.sequence());
            assertThat(ok2.coveredSequence()).isEqualTo(otherSession.sequence());
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM checkpoints")).isEqualTo(2);
    }

    @Test
    @DisplayName("K1 the latest checkpoint is the newest of the scope, per session when a session is named")
    void latestPerSession() {
        try (Authority a = open(dir)) {
            Event s1 = eventIn(a, "e1", ALICE_WORK, "s1", "one");
            Event s2 = eventIn(a, "e2", ALICE_WORK, "s2", "two");
            List<Checkpoint> saved = new ArrayList<>();
            saved.add(a.saveCheckpoint(ALICE_WORK, draft("s1", s1.sequence())));
            saved.add(a.saveCheckpoint(ALICE_WORK, draft("s2", s2.sequence())));
            saved.add(a.saveCheckpoint(ALICE_WORK, new CheckpointDraft("s1", "第二个目标 second goal", List.of(),
                    List.of(), List.of(), null, s1.sequence())));
            assertThat(a.latestCheckpoint(ALICE_WORK, "s1")).contains(saved.get(2));
            assertThat(a.latestCheckpoint(ALICE_WORK, "s2")).contains(saved.get(1));
            assertThat(a.latestCheckpoint(ALICE_WORK, null)).contains(saved.get(2));
            assertThat(a.latestCheckpoint(ALICE_WORK, "s3")).isEmpty();
        }
    }

    @Test
    @DisplayName("O7 checkpoint drafts reject bad input naming the field, never echoing the value")
    void badInput() throws Exception {
        String secret = "机密步骤-secret-step";
        assertInvalid(() -> new CheckpointDraft("bad session", "g", null, null, null, null, 1), "session", "bad session");
        assertInvalid(() -> new CheckpointDraft(null, "g", null, null, null, null, 1), "session");
        assertInvalid(() -> new CheckpointDraft("s", "  ", null, null, null, null, 1), "goal");
        assertInvalid(() -> new CheckpointDraft("s", null, null, null, null, null, 1), "goal");
        assertInvalid(() -> new CheckpointDraft("s", secret.repeat(400), null, null, null, null, 1), "goal", secret);
        assertInvalid(() -> new CheckpointDraft("s", "g", List.of("ok", " "), null, null, null, 1), "done[1]");
        assertInvalid(() -> new CheckpointDraft("s", "g", null, List.of(secret.repeat(400)), null, null, 1),
                "pending[0]", secret);
        List<String> many = new ArrayList<>();
        for (int i = 0; i <= Limits.MAX_CHECKPOINT_ITEMS; i++) {
            many.add("约束 " + i);
        }
        assertInvalid(() -> new CheckpointDraft("s", "g", null, null, many, null, 1), "constraints");
        assertInvalid(() -> new CheckpointDraft("s", "g", null, null, null, "  ", 1), "next");
        assertInvalid(() -> new CheckpointDraft("s", "g", null, null, null, secret + "\u0000", 1), "next", secret);
        assertInvalid(() -> new CheckpointDraft("s", "g", null, null, null, null, 0), "covered_seq");
        assertInvalid(() -> new CheckpointDraft("s", "g", null, null, null, null, -5), "covered_seq");
        try (Authority a = open(dir)) {
            assertInvalid(() -> a.latestCheckpoint(ALICE_WORK, "bad session 坏"), "session", "bad session 坏");
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM checkpoints")).isZero();
    }
}
