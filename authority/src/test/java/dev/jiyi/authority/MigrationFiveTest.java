package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Migration 5 on a file that holds vectors in migration 1's embeddings table: they are copied to
 * the rowid table keyed by memory row, found by scans and coverage, and removed by deletion.
 */
class MigrationFiveTest {

    static final String T0 = "2024-05-01T02:00:00.000000Z";
    static final Scope S = new Scope("alice", "work");

    @TempDir
    Path dir;

    private static void run(Connection c, String resource) throws Exception {
        String sql;
        try (InputStream in = Database.class.getResourceAsStream(resource)) {
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder cur = new StringBuilder();
        try (Statement s = c.createStatement()) {
            for (String line : sql.split("\n")) {
                String t = line.strip();
                if (t.startsWith("--") || t.isEmpty()) {
                    continue;
                }
                cur.append(line).append('\n');
                if (t.endsWith(";")) {
                    s.execute(cur.toString());
                    cur.setLength(0);
                }
            }
        }
    }

    @Test
    @DisplayName("O2 V1 D1 vectors stored before migration 5 survive it, are scanned and covered, and go with their memory")
    void vectorsSurviveMigrationFiveAndDeletionRemovesThem() throws Exception {
        Path file = dir.resolve("jiyi.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            run(c, "migrations/V1__base.sql");
            s.execute("PRAGMA user_version = 1");
            s.executeUpdate("INSERT INTO events (id, persona_id, project_id, role, source, category, session_id, text, "
                    + "occurred_at, ingested_at) VALUES ('old-1', 'alice', 'work', 'user', 'cli', 'conversation', 's1', "
                    + "'我养了一只猫', '" + T0 + "', '" + T0 + "')");
            s.executeUpdate("INSERT INTO memories (id, persona_id, project_id, event_id, kind, basis, text, quote, "
                    + "confidence, valid_at, created_at) VALUES ('mem_OLD1', 'alice', 'work', 'old-1', 'fact', "
                    + "'user_statement', '用户养了一只猫', '我养了一只猫', 0.9, '" + T0 + "', '" + T0 + "')");
            s.executeUpdate("INSERT INTO embeddings VALUES ('mem_OLD1', 'fp', 2, x'0000803f00000000', "
                    + "'" + VectorCache.contentHash("用户养了一只猫") + "', '" + T0 + "')");
        }
        try (Authority a = Authority.open(file, List.of())) {
            DoctorReport r = a.doctor();
            assertThat(r.foreignKeyViolations()).isEmpty();
            assertThat(r.tableCounts().byName()).containsEntry("embeddings", 1L);
            List<float[]> seen = new ArrayList<>();
            long n = a.scanVectors(S, "fp", Instant.parse("2025-01-01T00:00:00Z"), false, 0, (row, v) -> seen.add(v));
            assertThat(n).isEqualTo(1);
            assertThat(seen.getFirst()).containsExactly(1.0f, 0.0f);
            assertThat(a.vectorCoverage(S, "fp", Instant.parse("2025-01-01T00:00:00Z"), false).complete()).isTrue();
            Deletion d = a.deleteEvent(S, "old-1");
            assertThat(d.vectorsRemoved()).isEqualTo(1);
            assertThat(a.doctor().tableCounts().byName()).containsEntry("embeddings", 0L);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master WHERE name LIKE 'embeddings%'")) {
            rs.next();
            assertThat(rs.getInt(1)).as("embeddings and its fingerprint index, no leftover embeddings_v5").isEqualTo(2);
        }
    }
}
