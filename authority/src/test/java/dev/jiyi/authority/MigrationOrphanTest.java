package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** Migration 4 on a schema-3 file whose memory lost its event: it migrates, and doctor reports the broken key. */
class MigrationOrphanTest {

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
            assertThat(report.schemaVersion()).isEqualTo(4);
            assertThat(report.healthy()).isFalse();
            assertThat(report.foreignKeyViolations()).singleElement().asString().contains("memories");
        }
    }
}
