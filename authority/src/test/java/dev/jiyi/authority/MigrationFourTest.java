package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** Migration 4 on schema-3 files: a memory that lost its event, and fact timelines whose closers were never recorded. */
class MigrationFourTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("O2 O6 a schema-3 file with a memory whose event is missing migrates to 4, and doctor reports the broken foreign key")
    void orphanMemoryBlocksMigrationAndDoctor() throws Exception {
        Path file = dir.resolve("jiyi.db");
        String t0 = "2024-05-01T02:00:00.000000Z";
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            for (String m : java.util.List.of("migrations/V1__base.sql", "migrations/V2__gists_cues_lookups.sql",
                    "migrations/V3__capture_cursors.sql")) {
                for (String sql : Database.statements(m)) {
                    s.execute(sql);
                }
            }
            s.execute("PRAGMA user_version = 3");
            s.execute("PRAGMA foreign_keys = OFF");
            s.executeUpdate("INSERT INTO memories (id, persona_id, project_id, event_id, kind, basis, text, quote, "
                    + "confidence, valid_at, created_at) VALUES ('mem_ORPHAN', 'alice', 'work', 'missing-event', "
                    + "'fact', 'user_statement', 'orphan', 'orphan', 0.9, '" + t0 + "', '" + t0 + "')");
        }
        try (Authority a = Authority.open(file, java.util.List.of())) {
            DoctorReport report = a.doctor();
            assertThat(report.schemaVersion()).isEqualTo(Database.SCHEMA_VERSION);
            assertThat(report.healthy()).isFalse();
            assertThat(report.foreignKeyViolations()).singleElement().asString().contains("memories");
        }
    }

    @Test
    @DisplayName("O2 C2 migration 4 works out who closed the intervals of a schema-3 timeline, so a later correction undoes them right")
    void closedByBackfilled() throws Exception {
        Path file = dir.resolve("jiyi.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            for (String m : java.util.List.of("migrations/V1__base.sql", "migrations/V2__gists_cues_lookups.sql",
                    "migrations/V3__capture_cursors.sql")) {
                for (String sql : Database.statements(m)) {
                    s.execute(sql);
                }
            }
            s.execute("PRAGMA user_version = 3");
            String t = "'2024-05-01T02:00:00.000000Z'";
            s.executeUpdate("INSERT INTO events (id, persona_id, project_id, role, source, category, session_id, text, "
                    + "occurred_at, ingested_at) VALUES "
                    + "('e1', 'alice', 'work', 'user', 'test', 'conversation', 's', '我住在上海 Shanghai', '2020-01-01T00:00:00.000000Z', " + t + "), "
                    + "('e2', 'alice', 'work', 'user', 'test', 'conversation', 's', '我搬到北京 Beijing', '2022-01-01T00:00:00.000000Z', " + t + "), "
                    + "('e3', 'alice', 'work', 'user', 'test', 'conversation', 's', '2019到2021在Acme Acme job', '2019-01-01T00:00:00.000000Z', " + t + ")");
            s.executeUpdate("INSERT INTO memories (id, persona_id, project_id, event_id, kind, basis, text, quote, confidence, "
                    + "subject, fact_key, valid_at, invalid_at, created_at) VALUES "
                    + "('mem_A', 'alice', 'work', 'e1', 'fact', 'user_statement', '住上海', '上海', 1, 'me', 'city', "
                    + "'2020-01-01T00:00:00.000000Z', '2022-01-01T00:00:00.000000Z', " + t + "), "
                    + "('mem_B', 'alice', 'work', 'e2', 'fact', 'user_statement', '住北京', '北京', 1, 'me', 'city', "
                    + "'2022-01-01T00:00:00.000000Z', NULL, " + t + "), "
                    + "('mem_C', 'alice', 'work', 'e3', 'fact', 'user_statement', 'Acme', 'Acme', 1, 'me', 'job', "
                    + "'2019-01-01T00:00:00.000000Z', '2021-01-01T00:00:00.000000Z', " + t + ")");
        }
        Scope work = new Scope("alice", "work");
        try (Authority a = Authority.open(file, java.util.List.of())) {
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
                 java.sql.ResultSet rs = s.executeQuery("SELECT id, closed_by, stated_invalid_at FROM memories ORDER BY id")) {
                java.util.List<String> rows = new java.util.ArrayList<>();
                while (rs.next()) {
                    rows.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3));
                }
                assertThat(rows).containsExactly("mem_A|mem_B|null", "mem_B|null|null",
                        "mem_C|null|2021-01-01T00:00:00.000000Z");
            }
            a.correctMemory(work, "mem_B", new CorrectionDraft("其实2025年才搬到北京", null,
                    java.time.Instant.parse("2025-01-01T00:00:00Z")));
            assertThat(a.memory(work, "mem_A").orElseThrow().validity()).isEqualTo(new Validity(
                    java.time.Instant.parse("2020-01-01T00:00:00Z"), java.time.Instant.parse("2025-01-01T00:00:00Z")));
        }
    }
}
