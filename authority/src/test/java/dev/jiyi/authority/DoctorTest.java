package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.SESSION;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.raw;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;

class DoctorTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("O6 doctor on a fresh database: integrity ok, no broken keys, zero counts, nothing pending, healthy")
    void freshIsHealthy() {
        try (Authority a = open(dir)) {
            DoctorReport r = a.doctor();
            assertThat(r.integrity()).containsExactly("ok");
            assertThat(r.integrityOk()).isTrue();
            assertThat(r.foreignKeyViolations()).isEmpty();
            assertThat(r.pendingExtractions()).isZero();
            assertThat(r.schemaVersion()).isEqualTo(Database.SCHEMA_VERSION);
            assertThat(r.tableCounts().byName()).containsKeys("personas", "events", "memories", "relations", "checkpoints",
                    "embeddings", "capture_cursors");
            assertThat(r.tableCounts().byName().values()).allSatisfy(n -> assertThat(n).isZero());
            assertThat(r.healthy()).isTrue();
            assertThat(r.problems()).isEmpty();
        }
    }

    @Test
    @DisplayName("O6 doctor counts the rows of every authoritative table")
    void countsRows() {
        try (Authority a = open(dir)) {
            a.persona("alice", null);
            a.editPersona("alice", "温柔 gentle");
            a.editPersona("bob", "直接 direct");
            Event e1 = submit(a, event("e1", ALICE_WORK, Role.USER, "我喜欢爬山 I like hiking"));
            Event e2 = submit(a, event("e2", ALICE_WORK, Role.USER, "我喜欢游泳 I like swimming"));
            submit(a, event("e3", BOB_WORK, Role.ASSISTANT, "好的 OK"));
            Memory m1 = a.addMemory(ALICE_WORK, userFact(e1, "hiking").build());
            Memory m2 = a.addMemory(ALICE_WORK, userFact(e2, "swimming").build());
            a.relate(ALICE_WORK, m1.id(), m2.id());
            a.saveCheckpoint(ALICE_WORK, new CheckpointDraft(SESSION, "目标 goal", List.of(), List.of(), List.of(), null,
                    e2.sequence()));

            DoctorReport r = a.doctor();
            assertThat(r.tableCounts().byName()).containsEntry("personas", 4L).containsEntry("events", 3L)
                    .containsEntry("memories", 2L).containsEntry("relations", 1L).containsEntry("checkpoints", 1L)
                    .containsEntry("embeddings", 0L).containsEntry("capture_cursors", 0L);
            assertThat(r.healthy()).isTrue();
        }
    }

    @Test
    @DisplayName("O6 doctor reports a broken foreign key made through a raw connection and is not healthy")
    void reportsBrokenForeignKey() throws Exception {
        try (Authority a = open(dir)) {
            submit(a, event("e1", ALICE_WORK, Role.USER, "正常 normal"));
            try (Connection c = raw(dbFile(dir)); Statement s = c.createStatement()) {
                s.execute("PRAGMA foreign_keys = OFF");
                s.executeUpdate("INSERT INTO memories (id, persona_id, project_id, event_id, kind, basis, text, quote, "
                        + "confidence, valid_at, created_at) VALUES ('mem_ORPHAN', 'alice', 'work', 'vanished-event', "
                        + "'fact', 'inference', '孤儿 orphan', 'x', 1, '2024-01-01T00:00:00.000000Z', "
                        + "'2024-01-01T00:00:00.000000Z')");
            }
            DoctorReport r = a.doctor();
            assertThat(r.integrityOk()).isTrue();
            assertThat(r.foreignKeyViolations()).hasSize(1);
            assertThat(r.foreignKeyViolations().get(0)).contains("memories").contains("events");
            assertThat(r.healthy()).isFalse();
            assertThat(r.problems()).anySatisfy(p -> assertThat(p).containsIgnoringCase("foreign key"));
            // The report names tables and rows, never the stored text.
            assertThat(String.join("\n", r.problems())).doesNotContain("孤儿", "orphan");
        }
    }

    @Test
    @DisplayName("O6 doctor reports several broken references across tables")
    void reportsSeveralBrokenReferences() throws Exception {
        try (Authority a = open(dir)) {
            Event e = submit(a, event("e1", ALICE_WORK, Role.USER, "正常 normal"));
            Memory m = a.addMemory(ALICE_WORK, userFact(e, "m").build());
            try (Connection c = raw(dbFile(dir)); Statement s = c.createStatement()) {
                s.execute("PRAGMA foreign_keys = OFF");
                s.executeUpdate("INSERT INTO relations VALUES ('alice', 'work', '" + m.id()
                        + "', 'mem_GONE', 'related', '2024-01-01T00:00:00.000000Z')");
                s.executeUpdate("INSERT INTO checkpoints (persona_id, project_id, session_id, goal, done, pending, "
                        + "constraints, covered_seq, created_at) VALUES ('alice', 'work', 's1', 'g', '[]', '[]', '[]', "
                        + "424242, '2024-01-01T00:00:00.000000Z')");
            }
            DoctorReport r = a.doctor();
            assertThat(r.foreignKeyViolations()).hasSize(2);
            assertThat(String.join(" ", r.foreignKeyViolations())).contains("relations").contains("checkpoints");
            assertThat(r.healthy()).isFalse();
        }
    }

    @Test
    @DisplayName("O6 doctor reports a pending extraction with its sanitized reason and is not healthy")
    void reportsPendingExtraction() {
        try (Authority a = open(dir)) {
            submit(a, event("e1", ALICE_WORK, Role.USER, "待提取 to extract"));
            submit(a, event("e2", ALICE_WORK, Role.USER, "另一条 another"));
            assertThat(a.doctor().healthy()).isTrue();

            a.markExtractionPending("e1", "provider timeout after 30 s");
            Event pending = a.event(ALICE_WORK, "e1").orElseThrow();
            assertThat(pending.extraction()).isEqualTo(ExtractionState.PENDING);
            assertThat(pending.extractionError()).isEqualTo("provider timeout after 30 s");
            // The text is untouched by marking.
            assertThat(pending.text()).isEqualTo("待提取 to extract");

            DoctorReport r = a.doctor();
            assertThat(r.pendingExtractions()).isEqualTo(1);
            assertThat(r.integrityOk()).isTrue();
            assertThat(r.foreignKeyViolations()).isEmpty();
            assertThat(r.healthy()).isFalse();
            assertThat(r.problems()).hasSize(1);
            assertThat(r.problems().get(0)).contains("1").containsIgnoringCase("pending");

            a.markExtractionPending("e2", "rate limited");
            assertThat(a.doctor().pendingExtractions()).isEqualTo(2);
        }
    }
}
