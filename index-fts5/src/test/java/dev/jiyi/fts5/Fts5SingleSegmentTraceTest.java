package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.*;

import static org.assertj.core.api.Assertions.assertThat;

/** FTS5's 'optimize' is a no-op on an index of one segment; the key-trace purge must merge anyway. */
class Fts5SingleSegmentTraceTest {

    @TempDir
    Path dir;

    private final Scope scope = new Scope("alice", "diary");
    private static final Instant T = Instant.parse("2024-05-01T02:00:00Z");

    private static String word(int i) {
        StringBuilder sb = new StringBuilder("quokka");
        for (int k = 0; k < 4; k++) {
            sb.append((char) ('a' + (i % 20)));
            i /= 20;
        }
        return sb.toString();
    }

    private int segments(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(DISTINCT segid) FROM events_fts_idx")) {
            return rs.getInt(1);
        }
    }

    @Test
    @DisplayName("D1 after a rebuild (one segment) a deleted term that started a leaf leaves no key in *_fts_idx")
    void traceSurvivesAfterReindex() throws SQLException {
        Fts5Index index = new Fts5Index();
        Map<String, String> eventByTerm = new HashMap<>();
        Path db = dir.resolve("jiyi.db");
        try (Authority a = Authority.open(db, List.of(index))) {
            List<EventSubmission> batch = new ArrayList<>();
            for (int i = 0; i < 4000; i++) {
                String w = word(i);
                eventByTerm.put(Fts5Terms.key(scope) + w, "e" + i); // as FTS5 stores it, behind the scope's key
                batch.add(new EventSubmission("e" + i, scope, Role.USER, "diary " + w, null, null, "s", T));
            }
            assertThat(a.submitEvents(batch).error()).isNull();
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            }
            a.rebuildIndexes(rows -> { }); // jiyi reindex
            String[] found = findVictim(db, new TreeSet<>(eventByTerm.keySet()));
            assertThat(found).as("a leaf key that starts one private term and no other").isNotNull();
            String victim = found[0];
            String key = found[1];
            a.deleteEvent(scope, eventByTerm.get(victim));
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                 PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM events_fts_idx WHERE term = CAST(? AS BLOB)")) {
                ps.setBytes(1, ("0" + key).getBytes(StandardCharsets.UTF_8));
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.getInt(1)).as("events_fts_idx still holds key %s of the deleted %s (segments: %d)", key, victim, segments(c)).isZero();
                }
            }
        }
    }

    private String[] findVictim(Path db, TreeSet<String> words) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT term FROM events_fts_idx")) {
            while (rs.next()) {
                byte[] b = rs.getBytes(1);
                if (b != null && b.length > 4) {
                    String k = new String(b, 1, b.length - 1, StandardCharsets.UTF_8);
                    String first = words.ceiling(k);
                    String after = first == null ? null : words.higher(first);
                    if (first != null && first.startsWith(k) && (after == null || !after.startsWith(k))) {
                        return new String[]{first, k};
                    }
                }
            }
        }
        return null;
    }

    @Test
    @DisplayName("D1 two deletions in a row each leave no key trace, the second on the one segment the first merged")
    void secondOfTwoConsecutiveDeletionsLeavesTrace() throws SQLException {
        Fts5Index index = new Fts5Index();
        Map<String, String> eventByTerm = new HashMap<>();
        Path db = dir.resolve("jiyi.db");
        try (Authority a = Authority.open(db, List.of(index))) {
            List<EventSubmission> batch = new ArrayList<>();
            for (int i = 0; i < 4000; i++) {
                String w = word(i);
                eventByTerm.put(Fts5Terms.key(scope) + w, "e" + i); // as FTS5 stores it, behind the scope's key
                batch.add(new EventSubmission("e" + i, scope, Role.USER, "diary " + w, null, null, "s", T));
            }
            assertThat(a.submitEvents(batch).error()).isNull();
            TreeSet<String> words = new TreeSet<>(eventByTerm.keySet());
            String[] first = findVictim(db, words);
            a.deleteEvent(scope, eventByTerm.get(first[0]));
            words.remove(first[0]);
            String[] second = findVictim(db, words);
            assertThat(second).isNotNull();
            a.deleteEvent(scope, eventByTerm.get(second[0]));
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                 PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM events_fts_idx WHERE term = CAST(? AS BLOB)")) {
                ps.setBytes(1, ("0" + first[1]).getBytes(StandardCharsets.UTF_8));
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.getInt(1)).as("first deletion purged its key").isZero();
                }
                ps.setBytes(1, ("0" + second[1]).getBytes(StandardCharsets.UTF_8));
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.getInt(1)).as("events_fts_idx still holds key %s of the second deleted term %s (segments: %d)",
                            second[1], second[0], segments(c)).isZero();
                }
            }
        }
    }
}
