package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Migration 7 (O2, F4): a file at version 6 gets the partial index of emotion memories, keeps every
 * row, and the latest-emotion read then walks that index instead of every memory of the scope.
 */
class MigrationSevenTest {

    @TempDir
    Path dir;

    private static final Scope SCOPE = Scope.DEFAULT;

    @Test
    @DisplayName("O2 F4 a version 6 file migrates to 7: rows kept, the emotion index added, the current emotion read through it")
    void versionSixGetsTheEmotionIndex() throws SQLException {
        Path file = dir.resolve("jiyi.db");
        Instant t0 = Instant.parse("2026-11-30T08:00:00Z");
        try (Authority a = Authority.open(file, List.of())) {
            for (int i = 0; i < 6; i++) {
                Role role = i % 2 == 0 ? Role.USER : Role.ASSISTANT;
                String text = role == Role.USER ? "今天项目上线了 the launch went well " + i : "太好了，我真为你高兴 so happy for you " + i;
                a.submitEvent(new EventSubmission("e" + i, SCOPE, role, text, "test", Category.CONVERSATION, "s1",
                        t0.plusSeconds(60L * i)));
                MemoryDraft.Builder m = MemoryDraft.builder("e" + i).kind(role == Role.USER ? Kind.EPISODE : Kind.EMOTION)
                        .text(role == Role.USER ? "项目上线 launch " + i : "为用户高兴 happy " + i)
                        .quote(role == Role.USER ? "今天项目上线了" : "我真为你高兴")
                        .basis(role == Role.USER ? Basis.USER_STATEMENT : Basis.ASSISTANT_EXPRESSION);
                if (role == Role.ASSISTANT) {
                    m.emotion(new Emotion("高兴 glad", 0.5 + i / 10.0, 0.4));
                }
                a.addMemory(SCOPE, m.build());
            }
        }
        // The same file as version 6 made it: no emotion index.
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("DROP INDEX memories_scope_emotion");
            AuthorityTestKit.undoMigrationsAfter(s, 6);
            s.execute("PRAGMA user_version = 6");
        }
        List<String> before = rows(file);

        try (Authority a = Authority.open(file, List.of())) {
            assertThat(a.doctor().schemaVersion()).isEqualTo(Database.SCHEMA_VERSION);
            Optional<RecallRow> latest = a.read(s -> s.latestEmotion(SCOPE, t0.plusSeconds(3_600)));
            assertThat(latest).isPresent();
            assertThat(latest.get().memory().eventId()).isEqualTo("e5");
            assertThat(latest.get().memory().emotion().label()).isEqualTo("高兴 glad");
        }
        assertThat(rows(file)).isEqualTo(before);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
             ResultSet plan = s.executeQuery("EXPLAIN QUERY PLAN SELECT m.seq FROM memories m JOIN events e ON e.id = m.event_id "
                     + "WHERE m.persona_id = 'default' AND m.project_id = 'default' AND m.emotion_label IS NOT NULL "
                     + "AND m.basis = 'assistant_expression' AND m.revoked_at IS NULL")) {
            StringBuilder sb = new StringBuilder();
            while (plan.next()) {
                sb.append(plan.getString("detail")).append('\n');
            }
            assertThat(sb.toString()).contains("memories_scope_emotion");
        }
    }

    private static List<String> rows(Path file) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            for (String table : List.of("events", "memories", "change_log", "personas")) {
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY 1, 2")) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder(table);
                        for (int i = 1; i <= n; i++) {
                            row.append('|').append(rs.getString(i));
                        }
                        out.add(row.toString());
                    }
                }
            }
        }
        return out;
    }
}
