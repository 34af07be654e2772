package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConnection;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.raw;
import static dev.jiyi.authority.AuthorityTestKit.strings;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

class SchemaTest {

    @TempDir
    Path dir;

    private static final List<String> ALL_TABLES = List.of("personas", "events", "memories", "relations",
            "checkpoints", "embeddings", "change_log", "memories_fts", "events_fts", "capture_cursors", "index_state", "extractions");

    // ------------------------------------------------------------------ O1

    private static String pragma(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA " + name)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Test
    @DisplayName("O1 D1 the opened connection runs with WAL, foreign keys on, a busy timeout and secure_delete (freed content zeroed)")
    void connectionPragmas() throws Exception {
        try (Connection c = Database.open(dbFile(dir))) {
            assertThat(pragma(c, "journal_mode")).isEqualToIgnoringCase("wal");
            assertThat(pragma(c, "foreign_keys")).isEqualTo("1");
            assertThat(Integer.parseInt(pragma(c, "busy_timeout"))).isPositive();
            assertThat(pragma(c, "secure_delete")).isEqualTo("1");
            // No query for a generated key after each INSERT: Sql.insert reads the row ID itself.
            assertThat(c.unwrap(SQLiteConnection.class).getConnectionConfig().isGetGeneratedKeys()).isFalse();
        }
        // WAL is a property of the file: a separate plain connection sees it too.
        try (Connection c = raw(dbFile(dir))) {
            assertThat(pragma(c, "journal_mode")).isEqualToIgnoringCase("wal");
        }
    }

    @Test
    @DisplayName("O1 foreign keys are enforced on the opened connection")
    void foreignKeysEnforced() throws Exception {
        try (Connection c = Database.open(dbFile(dir)); Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeUpdate("INSERT INTO memories (id, persona_id, project_id, event_id, kind, "
                    + "basis, text, quote, confidence, valid_at, created_at) VALUES ('mem_x', 'p', 'q', 'no-such-event', "
                    + "'fact', 'inference', 't', 'q', 1, '2024-01-01T00:00:00.000000Z', '2024-01-01T00:00:00.000000Z')"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("FOREIGN KEY");
        }
    }

    @Test
    @DisplayName("O1 a write waits for another connection's write lock instead of failing")
    void writerWaitsForLock() throws Exception {
        try (Authority a = open(dir)) {
            submit(a, event("first", ALICE_WORK, Role.USER, "第一条 first"));
            try (Connection other = raw(dbFile(dir)); Statement s = other.createStatement()) {
                s.execute("BEGIN IMMEDIATE");
                s.executeUpdate("UPDATE events SET source = source WHERE id = 'first'");
                CompletableFuture<Event> write = CompletableFuture.supplyAsync(
                        () -> submit(a, event("second", ALICE_WORK, Role.USER, "第二条 second")));
                Thread.sleep(800);
                assertThat(write).as("the writer waits while the lock is held").isNotDone();
                s.execute("COMMIT");
                Event second = write.get(20, TimeUnit.SECONDS);
                assertThat(second.id()).isEqualTo("second");
            }
            assertThat(a.events(ALICE_WORK, 0, 10)).extracting(Event::id).containsExactly("first", "second");
        }
    }

    @Test
    @DisplayName("O1 readers on another connection do not block writers (WAL)")
    void readersDoNotBlockWriters() throws Exception {
        try (Authority a = open(dir)) {
            submit(a, event("e0", ALICE_WORK, Role.USER, "零"));
            try (Connection reader = raw(dbFile(dir)); Statement s = reader.createStatement()) {
                s.execute("BEGIN");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM events")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isEqualTo(1);
                }
                Event e = CompletableFuture.supplyAsync(() -> submit(a, event("e1", ALICE_WORK, Role.USER, "一")))
                        .get(5, TimeUnit.SECONDS);
                assertThat(e.id()).isEqualTo("e1");
                // The reader keeps its snapshot.
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM events")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isEqualTo(1);
                }
                s.execute("COMMIT");
            }
        }
    }

    // ------------------------------------------------------------------ O2

    @Test
    @DisplayName("O2 a fresh file gets the current user_version and every table, including the FTS tables (in secure-delete mode, the scope in a column BM25 weighs 0), capture cursors, index state and extractions")
    void freshFile() throws Exception {
        try (Authority a = open(dir)) {
            assertThat(a.doctor().schemaVersion()).isEqualTo(12);
        }
        assertThat(Database.SCHEMA_VERSION).isEqualTo(12);
        try (Connection c = raw(dbFile(dir))) {
            assertThat(pragma(c, "user_version")).isEqualTo(String.valueOf(Database.SCHEMA_VERSION));
        }
        List<String> tables = strings(dbFile(dir), "SELECT name FROM sqlite_master WHERE type = 'table'");
        assertThat(tables).containsAll(ALL_TABLES);
        assertThat(strings(dbFile(dir), "SELECT sql FROM sqlite_master WHERE name IN ('memories_fts', 'events_fts')"))
                .allSatisfy(sql -> assertThat(sql).containsIgnoringCase("fts5").doesNotContain("contentless_delete"));
        // FTS5 secure-delete mode (migration 4): a deleted row's entries leave the index pages at once.
        assertThat(strings(dbFile(dir), "SELECT v FROM memories_fts_config WHERE k = 'secure-delete'")).containsExactly("1");
        assertThat(strings(dbFile(dir), "SELECT v FROM events_fts_config WHERE k = 'secure-delete'")).containsExactly("1");
        // Migration 10: the scope token in a column of its own, which the rank function does not score.
        assertThat(strings(dbFile(dir), "SELECT sql FROM sqlite_master WHERE name IN ('memories_fts', 'events_fts')"))
                .allSatisfy(sql -> assertThat(sql).contains("tokens, scope"));
        assertThat(strings(dbFile(dir), "SELECT v FROM memories_fts_config WHERE k = 'rank'")).containsExactly("bm25(1.0, 0.0)");
        assertThat(strings(dbFile(dir), "SELECT v FROM events_fts_config WHERE k = 'rank'")).containsExactly("bm25(1.0, 0.0)");
        assertThat(tables).as("migration 9").noneMatch(t -> t.startsWith("context_fts"));
        assertThat(strings(dbFile(dir), "SELECT name FROM pragma_table_info('memories')")).contains("gist", "cue_keys");
        assertThat(strings(dbFile(dir), "SELECT name FROM sqlite_master WHERE type = 'index'"))
                .contains("memories_fact_timeline", "events_scope_session", "memories_event");
    }

    @Test
    @DisplayName("O2 reopening a current database keeps every row: tables are never recreated")
    void reopenKeepsRows() throws Exception {
        Memory m;
        try (Authority a = open(dir)) {
            Event e = submit(a, event("keep", ALICE_WORK, Role.USER, "保留 keep me"));
            m = a.addMemory(ALICE_WORK, AuthorityTestKit.userFact(e, "kept").build());
            a.editPersona("alice", "人设 persona");
        }
        for (int i = 0; i < 3; i++) {
            try (Authority a = open(dir)) {
                assertThat(a.memory(ALICE_WORK, m.id())).contains(m);
                assertThat(a.personaHistory("alice")).hasSize(2);
                assertThat(a.doctor().schemaVersion()).isEqualTo(Database.SCHEMA_VERSION);
            }
        }
    }

    /** Runs one migration resource's SQL on a plain connection, independently of the authority. */
    private static void runMigration(Connection c, String resource) throws IOException, SQLException {
        String sql;
        try (InputStream in = Database.class.getResourceAsStream(resource)) {
            assertThat(in).as("resource %s", resource).isNotNull();
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder current = new StringBuilder();
        List<String> statements = new ArrayList<>();
        for (String line : sql.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("--") || trimmed.isEmpty()) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                statements.add(current.toString());
                current.setLength(0);
            }
        }
        try (Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static final String T0 = "2024-05-01T02:00:00.000000Z";

    /** A database made by V1 only, at user_version 1, with a row in every authoritative table. */
    private void createVersion1Database(Path file) throws Exception {
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            runMigration(c, "migrations/V1__base.sql");
            s.execute("PRAGMA user_version = 1");
            s.executeUpdate("INSERT INTO personas VALUES ('alice', 1, '旧人设 old persona', 'initialized', '" + T0 + "')");
            s.executeUpdate("INSERT INTO events (id, persona_id, project_id, role, source, category, session_id, text, "
                    + "occurred_at, ingested_at) VALUES ('old-1', 'alice', 'work', 'user', 'cli', 'conversation', 's1', "
                    + "'我住在广州 I live in Guangzhou', '" + T0 + "', '" + T0 + "')");
            s.executeUpdate("INSERT INTO memories (id, persona_id, project_id, event_id, kind, basis, text, quote, "
                    + "confidence, subject, fact_key, valid_at, created_at) VALUES ('mem_OLD1', 'alice', 'work', 'old-1', "
                    + "'fact', 'user_statement', 'lives in Guangzhou', '我住在广州', 0.9, 'alice', 'city', '" + T0 + "', '"
                    + T0 + "')");
            s.executeUpdate("INSERT INTO memories (id, persona_id, project_id, event_id, kind, basis, text, quote, "
                    + "confidence, valid_at, created_at) VALUES ('mem_OLD2', 'alice', 'work', 'old-1', "
                    + "'observation', 'inference', 'southern China', 'Guangzhou', 0.5, '" + T0 + "', '" + T0 + "')");
            s.executeUpdate("INSERT INTO relations VALUES ('alice', 'work', 'mem_OLD1', 'mem_OLD2', 'related', '" + T0 + "')");
            s.executeUpdate("INSERT INTO checkpoints (persona_id, project_id, session_id, goal, done, pending, "
                    + "constraints, next_action, covered_seq, created_at) VALUES ('alice', 'work', 's1', '旧目标', "
                    + "'[\"a\"]', '[]', '[]', NULL, 1, '" + T0 + "')");
        }
    }

    @Test
    @DisplayName("O2 a database at user_version 1 (V1 SQL only) migrates to the current version keeping every row")
    void migratesFromVersion1() throws Exception {
        Path file = dbFile(dir);
        createVersion1Database(file);
        try (Connection c = raw(file)) {
            assertThat(pragma(c, "user_version")).isEqualTo("1");
        }
        try (Authority a = open(dir)) {
            DoctorReport report = a.doctor();
            assertThat(report.schemaVersion()).isEqualTo(Database.SCHEMA_VERSION);
            assertThat(report.integrityOk()).isTrue();
            assertThat(report.foreignKeyViolations()).isEmpty();
            assertThat(report.tableCounts().byName()).containsEntry("personas", 1L).containsEntry("events", 1L)
                    .containsEntry("memories", 2L).containsEntry("relations", 1L).containsEntry("checkpoints", 1L)
                    .containsEntry("capture_cursors", 0L);

            Persona p = a.persona("alice", null);
            assertThat(p.version()).isEqualTo(1);
            assertThat(p.content()).isEqualTo("旧人设 old persona");
            Event e = a.event(ALICE_WORK, "old-1").orElseThrow();
            assertThat(e.text()).isEqualTo("我住在广州 I live in Guangzhou");
            assertThat(e.occurredAt()).isEqualTo(Instant.parse(T0));
            Memory m = a.memory(ALICE_WORK, "mem_OLD1").orElseThrow();
            assertThat(m.quote()).isEqualTo("我住在广州");
            assertThat(m.gist()).isNull();
            assertThat(m.cueKeys()).isEmpty();
            MemoryView v = a.readMemory(ALICE_WORK, "mem_OLD1", 1, 4000);
            assertThat(v.coDerived()).extracting(Memory::id).containsExactly("mem_OLD2");
            assertThat(v.relations()).hasSize(1);
            assertThat(a.latestCheckpoint(ALICE_WORK, "s1").orElseThrow().done()).containsExactly("a");

            // The migrated database accepts new writes, and old timeline members take part.
            Event newer = submit(a, event("new-1", ALICE_WORK, Role.USER, "我搬到深圳了 moved to Shenzhen",
                    AuthorityTestKit.t("2024-06-01T00:00:00Z")));
            Memory moved = a.addMemory(ALICE_WORK, AuthorityTestKit.timelineFact(newer, "alice", "city",
                    AuthorityTestKit.t("2024-06-01T00:00:00Z")));
            assertThat(a.memory(ALICE_WORK, "mem_OLD1").orElseThrow().validity().invalidAt())
                    .isEqualTo(moved.validity().validAt());
        }
        try (Connection c = raw(file)) {
            assertThat(pragma(c, "user_version")).isEqualTo(String.valueOf(Database.SCHEMA_VERSION));
        }
        assertThat(strings(file, "SELECT name FROM sqlite_master WHERE type = 'table'")).containsAll(ALL_TABLES);
    }

    @Test
    @DisplayName("O2 a database at user_version 2 migrates to 4, gaining capture cursors and index state and keeping rows")
    void migratesFromVersion2() throws Exception {
        Path file = dbFile(dir);
        createVersion1Database(file);
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            runMigration(c, "migrations/V2__gists_cues_lookups.sql");
            s.execute("PRAGMA user_version = 2");
            s.executeUpdate("UPDATE memories SET gist = '广州', cue_keys = '[\"photo:1\"]' WHERE id = 'mem_OLD1'");
        }
        assertThat(strings(file, "SELECT name FROM sqlite_master WHERE type = 'table'")).doesNotContain("capture_cursors");
        try (Authority a = open(dir)) {
            assertThat(a.doctor().schemaVersion()).isEqualTo(Database.SCHEMA_VERSION);
            Memory m = a.memory(ALICE_WORK, "mem_OLD1").orElseThrow();
            assertThat(m.gist()).isEqualTo("广州");
            assertThat(m.cueKeys()).containsExactly("photo:1");
        }
        assertThat(strings(file, "SELECT name FROM sqlite_master WHERE type = 'table'")).contains("capture_cursors");
    }

    @Test
    @DisplayName("O2 a failing migration leaves the file at its old version with no half-applied step")
    void failedMigrationIsAtomic() throws Exception {
        Path file = dbFile(dir);
        createVersion1Database(file);
        // A stray table that makes migration 3's CREATE TABLE fail after migration 2 would have run.
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE capture_cursors (x TEXT)");
        }
        assertThatThrownBy(() -> open(dir)).isInstanceOf(JiyiException.class);
        try (Connection c = raw(file)) {
            assertThat(pragma(c, "user_version")).isEqualTo("1");
        }
        assertThat(strings(file, "SELECT name FROM pragma_table_info('memories')")).doesNotContain("gist", "cue_keys");
        assertThat(AuthorityTestKit.count(file, "SELECT count(*) FROM memories")).isEqualTo(2);
    }

    @Test
    @DisplayName("O2 a jiyi database with a newer user_version (99) is refused and left byte-for-byte unchanged")
    void newerVersionRefused() throws Exception {
        Path file = dbFile(dir);
        try (Authority a = open(dir)) {
            submit(a, event("e", ALICE_WORK, Role.USER, "未来版本 future version"));
        }
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 99");
        }
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> open(dir)).isInstanceOf(RefusedException.class)
                .hasMessageContaining("99");
        assertThatThrownBy(() -> Database.open(file)).isInstanceOf(RefusedException.class);
        assertThat(changedOffsets(before, Files.readAllBytes(file))).as("offsets of changed bytes").isEmpty();
        try (Connection c = raw(file)) {
            assertThat(pragma(c, "user_version")).isEqualTo("99");
        }
        assertThat(AuthorityTestKit.count(file, "SELECT count(*) FROM events")).isEqualTo(1);
    }

    @Test
    @DisplayName("O2 a plain SQLite file (rollback journal) with a newer user_version is refused and left byte-for-byte unchanged")
    void newerVersionRollbackJournalRefused() throws Exception {
        Path file = dbFile(dir);
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE future_things (id INTEGER PRIMARY KEY, note TEXT)");
            s.execute("INSERT INTO future_things (note) VALUES ('来自未来 from the future')");
            s.execute("PRAGMA user_version = 99");
        }
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> open(dir)).isInstanceOf(RefusedException.class);
        assertThat(changedOffsets(before, Files.readAllBytes(file))).as("offsets of changed bytes after a refused open")
                .isEmpty();
        assertThat(strings(file, "SELECT name FROM sqlite_master WHERE type = 'table'")).containsExactly("future_things");
    }

    /** Byte offsets at which two file images differ (a length change is reported as offset -1). */
    private static List<String> changedOffsets(byte[] before, byte[] after) {
        List<String> out = new ArrayList<>();
        if (before.length != after.length) {
            out.add("length " + before.length + " -> " + after.length);
        }
        for (int i = 0; i < Math.min(before.length, after.length) && out.size() < 20; i++) {
            if (before[i] != after[i]) {
                out.add("offset " + i + ": " + (before[i] & 0xFF) + " -> " + (after[i] & 0xFF));
            }
        }
        return out;
    }

    @Test
    @DisplayName("O2 a file that is not a SQLite database is refused and not overwritten")
    void notADatabase() throws Exception {
        Path file = dbFile(dir);
        byte[] junk = "这不是数据库 this is not a database\n".repeat(200).getBytes(StandardCharsets.UTF_8);
        Files.write(file, junk);
        assertThatThrownBy(() -> open(dir)).isInstanceOf(JiyiException.class);
        assertThat(changedOffsets(junk, Files.readAllBytes(file))).isEmpty();
    }

    @Test
    @DisplayName("O2 opening a directory as the database fails with a jiyi error and creates nothing inside it")
    void directoryIsNotADatabase() throws Exception {
        Path folder = Files.createDirectory(dir.resolve("not-a-file"));
        assertThatThrownBy(() -> Authority.open(folder, List.of())).isInstanceOf(JiyiException.class);
        try (var listing = Files.list(folder)) {
            assertThat(listing).isEmpty();
        }
    }

    // ------------------------------------------------------------------ O7

    @Test
    @DisplayName("O7 the data directory is created 0700 and the database file 0600 where POSIX modes exist")
    void filePermissions() throws Exception {
        assumeThat(FileSystems.getDefault().supportedFileAttributeViews()).contains("posix");
        Path nested = dir.resolve("data-目录");
        try (Authority a = Authority.open(nested.resolve("jiyi.db"), List.of())) {
            a.persona("p", null);
        }
        assertThat(Files.getPosixFilePermissions(nested)).isEqualTo(Set.of(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
        assertThat(Files.getPosixFilePermissions(nested.resolve("jiyi.db"))).isEqualTo(Set.of(
                PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
    }
}
