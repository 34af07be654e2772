package dev.jiyi.authority;

import dev.jiyi.authority.index.ChangeLog;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.raw;
import static dev.jiyi.authority.AuthorityTestKit.string;
import static dev.jiyi.authority.AuthorityTestKit.strings;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Migration 6 (O2, L2): the change log is rebuilt to accept vector entries and to carry the row
 * number of what changed. A file made by migrations 1 to 5 only keeps every entry as it was, gets
 * the row numbers of rows that still exist, and goes on numbering after its old maximum.
 */
class MigrationSixTest {

    @TempDir
    Path dir;

    private static final String[] MIGRATIONS_1_TO_5 = {"migrations/V1__base.sql", "migrations/V2__gists_cues_lookups.sql",
        "migrations/V3__capture_cursors.sql", "migrations/V4__fts5_secure_delete.sql", "migrations/V5__extractions.sql"};

    private static String at(int minute) {
        return String.format("2024-05-01T02:%02d:00.000000Z", minute);
    }

    private static final String KEEP1_TEXT = "住在广州 lives in Guangzhou";
    private static final String KEEP2_TEXT = "养了一只猫";

    /**
     * A database at user_version 5 built with the old SQL only. Events get sequences 1-3, memories
     * rows 11-14 (so an event's sequence is never mistaken for a memory's row); the event
     * {@code ev-gone}, its memory {@code mem_GONE}, its vector and its relation were deleted, and
     * their old entries stay in the log. Returns the log as it was, row by row.
     */
    private static List<String> createVersion5Database(Path file) throws SQLException {
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            schemaOfVersion5(s);
            s.executeUpdate("INSERT INTO personas VALUES ('alice', 1, '人设 persona', 'initialized', '" + at(0) + "')");
            String events = "INSERT INTO events (sequence, id, persona_id, project_id, role, source, category, session_id, "
                    + "text, occurred_at, ingested_at, extraction_state) VALUES ";
            s.executeUpdate(events + "(1, 'ev-keep', 'alice', 'work', 'user', 'cli', 'conversation', 's1', "
                    + "'我住在广州 I live in Guangzhou', '" + at(1) + "', '" + at(1) + "', 'pending')");
            s.executeUpdate(events + "(2, 'ev-gone', 'alice', 'work', 'user', 'cli', 'conversation', 's1', "
                    + "'删掉我 delete me', '" + at(2) + "', '" + at(2) + "', 'none')");
            s.executeUpdate(events + "(3, 'ev-other', '小明', '项目-甲', 'user', 'cli', 'conversation', 's1', "
                    + "'我养了一只猫', '" + at(3) + "', '" + at(3) + "', 'none')");
            String memories = "INSERT INTO memories (seq, id, persona_id, project_id, event_id, kind, basis, text, quote, "
                    + "confidence, subject, fact_key, valid_at, invalid_at, created_at, evidence_seq, lineage_id) VALUES ";
            s.executeUpdate(memories + "(11, 'mem_KEEP1', 'alice', 'work', 'ev-keep', 'fact', 'user_statement', '"
                    + KEEP1_TEXT + "', '我住在广州', 1, 'alice', 'city', '" + at(1) + "', NULL, '" + at(4) + "', 1, 'mem_KEEP1')");
            s.executeUpdate(memories + "(12, 'mem_GONE', 'alice', 'work', 'ev-gone', 'fact', 'user_statement', "
                    + "'to be deleted', '删掉我', 1, NULL, NULL, '" + at(2) + "', NULL, '" + at(5) + "', 2, 'mem_GONE')");
            s.executeUpdate(memories + "(13, 'mem_KEEP2', '小明', '项目-甲', 'ev-other', 'fact', 'user_statement', '"
                    + KEEP2_TEXT + "', '我养了一只猫', 1, NULL, NULL, '" + at(3) + "', NULL, '" + at(6) + "', 3, 'mem_KEEP2')");
            s.executeUpdate(memories + "(14, 'mem_KEEP3', 'alice', 'work', 'ev-keep', 'observation', 'inference', "
                    + "'southern China', 'Guangzhou', 0.5, NULL, NULL, '" + at(1) + "', NULL, '" + at(7) + "', 1, 'mem_KEEP3')");
            s.executeUpdate("INSERT INTO relations VALUES ('alice', 'work', 'mem_KEEP1', 'mem_GONE', 'related', '" + at(8) + "')");
            s.executeUpdate("INSERT INTO relations VALUES ('alice', 'work', 'mem_KEEP1', 'mem_KEEP3', 'related', '" + at(8) + "')");
            s.executeUpdate("INSERT INTO checkpoints (persona_id, project_id, session_id, goal, done, pending, constraints, "
                    + "next_action, covered_seq, created_at) VALUES ('alice', 'work', 's1', '目标', '[]', '[]', '[]', NULL, 1, '"
                    + at(9) + "')");
            String embeddings = "INSERT INTO embeddings (memory_seq, memory_id, fingerprint, dimensions, content_hash, "
                    + "created_at, vector) VALUES ";
            s.executeUpdate(embeddings + "(11, 'mem_KEEP1', 'fp', 2, '" + VectorCache.contentHash(KEEP1_TEXT) + "', '"
                    + at(10) + "', x'0000803f00000000')");
            s.executeUpdate(embeddings + "(12, 'mem_GONE', 'fp', 2, '" + VectorCache.contentHash("to be deleted") + "', '"
                    + at(10) + "', x'000000000000803f')");

            String log = "INSERT INTO change_log (entity, entity_id, op, persona_id, project_id, at) VALUES ";
            s.executeUpdate(log + "('persona', 'alice@1', 'insert', 'alice', NULL, '" + at(0) + "')"); // 1
            s.executeUpdate(log + "('event', 'ev-keep', 'insert', 'alice', 'work', '" + at(1) + "')"); // 2
            s.executeUpdate(log + "('event', 'ev-gone', 'insert', 'alice', 'work', '" + at(2) + "')"); // 3
            s.executeUpdate(log + "('event', 'ev-other', 'insert', '小明', '项目-甲', '" + at(3) + "')"); // 4
            s.executeUpdate(log + "('memory', 'mem_KEEP1', 'insert', 'alice', 'work', '" + at(4) + "')"); // 5
            s.executeUpdate(log + "('memory', 'mem_GONE', 'insert', 'alice', 'work', '" + at(5) + "')"); // 6
            s.executeUpdate(log + "('memory', 'mem_KEEP2', 'insert', '小明', '项目-甲', '" + at(6) + "')"); // 7
            s.executeUpdate(log + "('memory', 'mem_KEEP3', 'insert', 'alice', 'work', '" + at(7) + "')"); // 8
            s.executeUpdate(log + "('relation', 'mem_KEEP1->mem_GONE', 'insert', 'alice', 'work', '" + at(8) + "')"); // 9
            s.executeUpdate(log + "('relation', 'mem_KEEP1->mem_KEEP3', 'insert', 'alice', 'work', '" + at(8) + "')"); // 10
            s.executeUpdate(log + "('checkpoint', '1', 'insert', 'alice', 'work', '" + at(9) + "')"); // 11
            s.executeUpdate(log + "('event', 'ev-keep', 'update', 'alice', 'work', '" + at(11) + "')"); // 12
            // The deletion of ev-gone: its rows go, its entries stay.
            s.executeUpdate("DELETE FROM relations WHERE to_id = 'mem_GONE'");
            s.executeUpdate("DELETE FROM embeddings WHERE memory_id = 'mem_GONE'");
            s.executeUpdate("DELETE FROM memories WHERE id = 'mem_GONE'");
            s.executeUpdate("DELETE FROM events WHERE id = 'ev-gone'");
            s.executeUpdate(log + "('relation', 'mem_KEEP1->mem_GONE', 'delete', 'alice', 'work', '" + at(12) + "')"); // 13
            s.executeUpdate(log + "('memory', 'mem_GONE', 'delete', 'alice', 'work', '" + at(12) + "')"); // 14
            s.executeUpdate(log + "('event', 'ev-gone', 'delete', 'alice', 'work', '" + at(12) + "')"); // 15
            s.executeUpdate(log + "('memory', 'mem_KEEP1', 'update', 'alice', 'work', '" + at(13) + "')"); // 16
        }
        assertThat(strings(file, "PRAGMA user_version")).containsExactly("5");
        assertThat(strings(file, "SELECT name FROM pragma_table_info('change_log')")).doesNotContain("row_id");
        return logRows(file);
    }

    /** Migrations 1 to 5 only, and user_version 5: the schema of the release before migration 6. */
    private static void schemaOfVersion5(Statement s) throws SQLException {
        for (String resource : MIGRATIONS_1_TO_5) {
            for (String sql : Database.statements(resource)) {
                s.execute(sql);
            }
        }
        s.execute("PRAGMA user_version = 5");
    }

    /** The change log as stored, without row numbers: seq|entity|entity_id|op|persona_id|project_id|at. */
    private static List<String> logRows(Path file) throws SQLException {
        return strings(file, "SELECT seq || '|' || entity || '|' || entity_id || '|' || op || '|' || persona_id || '|' "
                + "|| coalesce(project_id, '<null>') || '|' || at FROM change_log ORDER BY seq");
    }

    /** seq -> stored row_id (null kept). */
    private static Map<Long, Long> storedRowIds(Path file) throws SQLException {
        Map<Long, Long> out = new LinkedHashMap<>();
        try (Connection c = raw(file); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT seq, row_id FROM change_log ORDER BY seq")) {
            while (rs.next()) {
                long seq = rs.getLong(1);
                long row = rs.getLong(2);
                out.put(seq, rs.wasNull() ? null : row); // wasNull right after the column it is about
            }
        }
        return out;
    }

    /** What migration 6 must fill in: the row of every event and memory entry whose row still exists. */
    private static Map<Long, Long> expectedRowIds() {
        Map<Long, Long> expected = new LinkedHashMap<>();
        Long[] rows = {null, 1L, null, 3L, 11L, null, 13L, 14L, null, null, null, 1L, null, null, null, 11L};
        for (int i = 0; i < rows.length; i++) {
            expected.put(i + 1L, rows[i]);
        }
        return expected;
    }

    @Test
    @DisplayName("O2 L2 a version 5 file migrates to 6 keeping every change-log entry, filling row numbers of rows that still exist")
    void migratesChangeLogKeepingEntries() throws Exception {
        Path file = dbFile(dir);
        List<String> before = createVersion5Database(file);
        assertThat(before).hasSize(16);
        long oldMax = count(file, "SELECT max(seq) FROM change_log");

        try (Authority a = open(dir)) {
            DoctorReport report = a.doctor();
            assertThat(report.schemaVersion()).isEqualTo(Database.SCHEMA_VERSION);
            assertThat(report.integrityOk()).isTrue();
            assertThat(report.foreignKeyViolations()).isEmpty();
        }
        assertThat(strings(file, "PRAGMA user_version")).containsExactly("" + Database.SCHEMA_VERSION);
        assertThat(logRows(file)).as("every entry keeps its seq, entity, id, op, scope and time").isEqualTo(before);
        assertThat(storedRowIds(file)).as("row_id by seq: filled for rows that exist, null for rows gone")
                .isEqualTo(expectedRowIds());
        assertThat(strings(file, "SELECT name FROM pragma_table_info('change_log') ORDER BY cid")).containsExactly(
                "seq", "entity", "entity_id", "row_id", "op", "persona_id", "project_id", "at");
        assertThat(strings(file, "SELECT name FROM sqlite_master WHERE tbl_name LIKE 'change_log%' ORDER BY name"))
                .as("the rebuilt table, its entity index, no leftover").containsExactly("change_log", "change_log_entity");
        assertThat(string(file, "SELECT seq FROM sqlite_sequence WHERE name = 'change_log'"))
                .as("AUTOINCREMENT high-water mark").isEqualTo(Long.toString(oldMax));
        // The other tables are untouched.
        assertThat(count(file, "SELECT count(*) FROM events")).isEqualTo(2);
        assertThat(count(file, "SELECT count(*) FROM memories")).isEqualTo(3);
        assertThat(count(file, "SELECT count(*) FROM embeddings")).isEqualTo(1);
    }

    @Test
    @DisplayName("L2 after migration 6 the authority reports the migrated entries with their row numbers, null for rows gone")
    void migratedEntriesReadThroughTheAuthority() throws Exception {
        Path file = dbFile(dir);
        createVersion5Database(file);
        try (Authority a = open(dir)) {
            List<ChangeLog.Entry> log = a.changesAfter(0, 100);
            assertThat(log).extracting(ChangeLog.Entry::seq).containsExactly(
                    1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L);
            assertThat(log.get(3)).isEqualTo(new ChangeLog.Entry(4, ChangeLog.Entity.EVENT, "ev-other", 3L,
                    ChangeLog.Op.INSERT, "小明", "项目-甲", java.time.Instant.parse("2024-05-01T02:03:00Z")));
            Map<Long, Long> reported = new LinkedHashMap<>();
            log.forEach(e -> reported.put(e.seq(), e.rowId()));
            assertThat(reported).isEqualTo(expectedRowIds());
        }
    }

    @Test
    @DisplayName("O2 L2 V3 D1 a migrated log goes on after its old maximum and accepts vector entries with the memory's row")
    void migratedLogAcceptsVectorEntries() throws Exception {
        Path file = dbFile(dir);
        createVersion5Database(file);
        long oldMax = count(file, "SELECT max(seq) FROM change_log");
        try (Authority a = open(dir)) {
            Memory cat = a.memory(CJK_SCOPE, "mem_KEEP2").orElseThrow();
            assertThat(cat.rowId()).isEqualTo(13);
            VectorCache.Stored stored = a.storeVectors("fp", List.of(
                    new VectorCache.NewVector("mem_KEEP2", VectorCache.contentHash(KEEP2_TEXT), new float[] {0.5f, 0.5f})));
            assertThat(stored).isEqualTo(new VectorCache.Stored(1, 0));
            List<ChangeLog.Entry> added = a.changesAfter(oldMax, 100);
            assertThat(added).hasSize(1);
            ChangeLog.Entry vector = added.getFirst();
            assertThat(vector.seq()).as("a new entry's seq is after the old maximum").isGreaterThan(oldMax);
            assertThat(vector.entity()).isEqualTo(ChangeLog.Entity.VECTOR);
            assertThat(vector.op()).isEqualTo(ChangeLog.Op.INSERT);
            assertThat(vector.entityId()).isEqualTo("mem_KEEP2");
            assertThat(vector.rowId()).isEqualTo(13L);
            assertThat(vector.personaId() + "/" + vector.projectId()).isEqualTo("小明/项目-甲");

            // D1 on a migrated row: the vector stored before the migration is logged as removed, with its row.
            Deletion d = a.deleteEvent(ALICE_WORK, "ev-keep");
            assertThat(d.memoryIds()).containsExactlyInAnyOrder("mem_KEEP1", "mem_KEEP3");
            assertThat(d.vectorsRemoved()).isEqualTo(1);
            List<String> deletes = a.changesAfter(vector.seq(), 100).stream()
                    .filter(e -> e.entity() != ChangeLog.Entity.RELATION && e.entity() != ChangeLog.Entity.CHECKPOINT)
                    .map(e -> e.entity() + ":" + e.op() + ":" + e.entityId() + "#" + e.rowId()).toList();
            assertThat(deletes).containsExactlyInAnyOrder("vector:delete:mem_KEEP1#11", "memory:delete:mem_KEEP1#11",
                    "memory:delete:mem_KEEP3#14", "event:delete:ev-keep#1");
            List<ChangeLog.Entry> all = a.changesAfter(0, 1000);
            for (int i = 1; i < all.size(); i++) {
                assertThat(all.get(i).seq()).isGreaterThan(all.get(i - 1).seq());
            }
        }
        // The rebuilt table still checks its codes.
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeUpdate("INSERT INTO change_log (entity, entity_id, op, persona_id, at) "
                    + "VALUES ('embedding', 'x', 'insert', 'alice', '" + at(20) + "')"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("CHECK constraint failed");
            assertThatThrownBy(() -> s.executeUpdate("INSERT INTO change_log (entity, entity_id, op, persona_id, at) "
                    + "VALUES ('vector', 'x', 'upsert', 'alice', '" + at(20) + "')"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("CHECK constraint failed");
        }
    }

    @Test
    @DisplayName("O2 L2 D1 an event ID submitted again after its deletion: the first row's entries get no row number, the new row's get it")
    void reusedEventIdKeepsItsRowsApart() throws Exception {
        Path file = dbFile(dir);
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            schemaOfVersion5(s);
            String events = "INSERT INTO events (sequence, id, persona_id, project_id, role, source, category, session_id, "
                    + "text, occurred_at, ingested_at, extraction_state) VALUES ";
            String log = "INSERT INTO change_log (entity, entity_id, op, persona_id, project_id, at) VALUES ";
            // e1 at sequence 5, deleted; submitted again at sequence 9 (event IDs are the host's).
            s.executeUpdate(log + "('event', 'e1', 'insert', 'alice', 'work', '" + at(1) + "')"); // 1
            s.executeUpdate(log + "('event', 'e1', 'update', 'alice', 'work', '" + at(2) + "')"); // 2
            s.executeUpdate(log + "('event', 'e1', 'delete', 'alice', 'work', '" + at(3) + "')"); // 3
            s.executeUpdate(events + "(9, 'e1', 'alice', 'work', 'user', 'cli', 'conversation', 's1', "
                    + "'又说了一遍 said again', '" + at(4) + "', '" + at(4) + "', 'none')");
            s.executeUpdate(log + "('event', 'e1', 'insert', 'alice', 'work', '" + at(4) + "')"); // 4
        }
        try (Authority a = open(dir)) {
            Map<Long, Long> reported = new LinkedHashMap<>();
            a.changesAfter(0, 100).forEach(e -> reported.put(e.seq(), e.rowId()));
            Map<Long, Long> expected = new LinkedHashMap<>();
            expected.put(1L, null);
            expected.put(2L, null);
            expected.put(3L, null);
            expected.put(4L, 9L);
            assertThat(reported).as("a follower never mistakes the deleted first row for the live one")
                    .isEqualTo(expected);
        }
    }

    @Test
    @DisplayName("O2 a database at a newer user_version is refused, naming both versions, and left byte-for-byte unchanged")
    void newerVersionRefused() throws Exception {
        Path file = dbFile(dir);
        try (Authority a = open(dir)) {
            submit(a, event("e1", ALICE_WORK, Role.USER, "来自未来的版本 from a future version"));
        }
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = " + (Database.SCHEMA_VERSION + 1));
        }
        byte[] before = Files.readAllBytes(file);
        List<String> logBefore = logRows(file);
        assertThatThrownBy(() -> open(dir)).isInstanceOf(RefusedException.class)
                .hasMessageContaining("version " + (Database.SCHEMA_VERSION + 1))
                .hasMessageContaining("(" + Database.SCHEMA_VERSION + ")").hasMessageContaining("not changed");
        assertThatThrownBy(() -> Database.open(file)).isInstanceOf(RefusedException.class)
                .hasMessageContaining("version " + (Database.SCHEMA_VERSION + 1));
        assertThat(Arrays.equals(before, Files.readAllBytes(file))).as("file bytes unchanged").isTrue();
        assertThat(strings(file, "PRAGMA user_version")).containsExactly("" + (Database.SCHEMA_VERSION + 1));
        assertThat(logRows(file)).isEqualTo(logBefore);
        List<String> leftovers = new ArrayList<>();
        try (var listing = Files.list(dir)) {
            listing.map(p -> p.getFileName().toString()).filter(n -> !n.equals("jiyi.db")).forEach(leftovers::add);
        }
        assertThat(leftovers).as("no journal or WAL left beside the refused file").isEmpty();
    }
}
