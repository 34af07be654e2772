package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Review findings on FTS5 deletion; they fail on af6cb85. */
class Fts5ResidueTest {

    @TempDir
    Path dir;

    private final Scope scope = new Scope("alice", "diary");
    private static final Instant T = Instant.parse("2024-05-01T02:00:00Z");

    private Connection sql() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("jiyi.db"));
    }

    private static String word(int i) {
        // letters only, so the analysis keeps it as one term
        StringBuilder sb = new StringBuilder("quokka");
        for (int k = 0; k < 4; k++) {
            sb.append((char) ('a' + (i % 20)));
            i /= 20;
        }
        return sb.toString();
    }

    /**
     * D1 acceptance "no FTS5 shadow table holds the deleted text": FTS5 secure-delete removes a row's
     * entries from the leaf pages, but not the page-boundary key that %_idx keeps for each leaf. On
     * an archive of a few thousand rows, a deleted distinctive term that happens to start a leaf page
     * stays in events_fts_idx. DeletionResidueTest's archive is too small to have more than one leaf.
     */
    @Test
    @DisplayName("D1 a deleted term that started a leaf page leaves no key behind in events_fts_idx on a multi-page index")
    void idxKeepsDeletedTerm() throws SQLException {
        Fts5Index index = new Fts5Index();
        Map<String, String> eventByTerm = new HashMap<>();
        try (Authority a = Authority.open(dir.resolve("jiyi.db"), List.of(index))) {
            List<EventSubmission> batch = new ArrayList<>();
            for (int i = 0; i < 4000; i++) {
                String w = word(i);
                List<String> terms = ChineseTokens.terms("diary " + w);
                assertThat(terms).contains(w);
                eventByTerm.put(Fts5Terms.key(scope) + w, "e" + i); // as FTS5 stores it, behind the scope's key
                batch.add(new EventSubmission("e" + i, scope, Role.USER, "diary " + w, null, null, "s", T));
            }
            assertThat(a.submitEvents(batch).error()).isNull();

            // A leaf-page key of events_fts_idx: the shortest prefix of the first term on that leaf,
            // which is the smallest term >= key. Pick one whose first term is an event's private word.
            String victim = null;
            String key = null;
            java.util.TreeSet<String> words = new java.util.TreeSet<>(eventByTerm.keySet());
            try (Connection c = sql(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT term FROM events_fts_idx")) {
                while (rs.next() && victim == null) {
                    byte[] b = rs.getBytes(1);
                    if (b != null && b.length > 4) {
                        String k = new String(b, 1, b.length - 1, StandardCharsets.UTF_8);
                        String first = words.ceiling(k);
                        // A key only the victim explains: no other event's word starts with it, so a
                        // key left behind would be a trace of the deleted word alone.
                        String next = first == null ? null : words.higher(first);
                        if (first != null && first.startsWith(k) && (next == null || !next.startsWith(k))) {
                            victim = first;
                            key = k;
                        }
                    }
                }
            }
            assertThat(victim).as("some leaf key starts one private term and no other").isNotNull();
            
            a.deleteEvent(scope, eventByTerm.get(victim));
            victim = victim.substring(Fts5Terms.key(scope).length()); // the word the event said
            assertThat(a.eventCandidates(index, scope, victim, 10)).isEmpty();

            List<String> left = new ArrayList<>();
            try (Connection c = sql(); PreparedStatement ps = c.prepareStatement(
                    "SELECT 'events_fts_idx' FROM events_fts_idx WHERE instr(term, CAST(? AS BLOB)) > 0 "
                            + "UNION ALL SELECT 'events_fts_data' FROM events_fts_data WHERE instr(block, CAST(? AS BLOB)) > 0")) {
                ps.setString(1, key);      // the page key: a prefix of the deleted term, key.length() of victim.length() chars
                ps.setString(2, victim);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        left.add(rs.getString(1) + " holds " + key + " (prefix of the deleted " + victim + ")");
                    }
                }
            }
            assertThat(left).as("shadow-table residue of the deleted event's term").isEmpty();
        }
    }

    /**
     * Docs: "SQLite zeroes what the deletion frees". FTS5 merges segments as rows arrive
     * ({@link Fts5Merges}), and each merge frees the old segment pages with secure_delete OFF, so the terms
     * of a row stay in free pages of the file after the row is deleted with secure_delete ON.
     */
    @Test
    @DisplayName("D1 after deleting an event its distinctive term is nowhere in the database files, though FTS5 merged segments meanwhile")
    void ftsMergesLeaveTermsInFreePages() throws Exception {
        String marker = "zanzibarquokkamarker";
        Fts5Index index = new Fts5Index();
        try (Authority a = Authority.open(dir.resolve("jiyi.db"), List.of(index))) {
            a.submitEvent(new EventSubmission("secret", scope, Role.USER, "我的口令 " + marker, null, null, "s", T));
            for (int i = 0; i < 300; i++) {
                a.submitEvent(new EventSubmission("bg" + i, scope, Role.USER, "背景 background note " + word(i), null, null, "s", T));
            }
            a.deleteEvent(scope, "secret");
            assertThat(a.eventCandidates(index, scope, marker, 10)).isEmpty();
        }
        List<String> found = FileBytes.databaseFilesContaining(dir, marker);
        List<String> inTables = new ArrayList<>();
        try (Connection c = sql(); Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String t : tables) {
                try (ResultSet rs = s.executeQuery("SELECT * FROM \"" + t + "\"")) {
                    while (rs.next()) {
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            byte[] b = rs.getBytes(i);
                            if (b != null && new String(b, StandardCharsets.ISO_8859_1).contains(marker)) {
                                inTables.add(t);
                            }
                        }
                    }
                }
            }
        }
                assertThat(found).as("bytes of the deleted term in the database files (live rows: %s)", inTables).isEmpty();
    }

    /**
     * A row written by an authority opened without the FTS5 index never reached it. That write marks
     * the index stale, and the next write with the index attached rebuilds it first, so a later
     * deletion deletes a row FTS5 has (deleting one it lacks would corrupt its BM25 totals).
     */
    @Test
    @DisplayName("D1 O2 rows written without the FTS5 index attached are indexed before the next indexed write; deleting one keeps BM25 sane")
    void rowsWrittenWithoutTheIndexAreIndexedFirst() throws SQLException {
        Fts5Index index = new Fts5Index();
        try (Authority a = Authority.open(dir.resolve("jiyi.db"), List.of(index))) {
            a.submitEvent(new EventSubmission("keep1", scope, Role.USER, "我喜欢龙井茶 green tea every morning", null, null, "s", T));
            a.submitEvent(new EventSubmission("keep2", scope, Role.USER, "tea tea tea, 龙井 and more tea", null, null, "s", T));
        }
        try (Authority noIndex = Authority.open(dir.resolve("jiyi.db"), List.of())) {
            noIndex.submitEvent(new EventSubmission("ghost", scope, Role.USER, "ghost note about tea", null, null, "s", T));
        }
        try (Connection c = sql(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM index_state")) {
            rs.next();
            assertThat(rs.getInt(1)).as("the write without the index marked it stale").isZero();
        }
        try (Authority a = Authority.open(dir.resolve("jiyi.db"), List.of(index))) {
            assertThat(a.eventCandidates(index, scope, "ghost", 10)).hasSize(1);
            a.deleteEvent(scope, "ghost");
            assertThat(a.eventCandidates(index, scope, "ghost", 10)).isEmpty();
            List<Candidate> tea = a.eventCandidates(index, scope, "tea", 10);
            assertThat(tea).hasSize(2);
            assertThat(tea).allSatisfy(c -> assertThat(c.score()).as("bm25 of a surviving row").isGreaterThan(1e-9));
        }
    }

    /**
     * FTS5 deletes a row by its tokens, recomputed from the stored text: they must be the tokens it
     * was inserted with. When another build (or another JDK's Unicode tables) built the index, the
     * stored version differs and the writer rebuilds the index inside its own transaction first.
     */
    @Test
    @DisplayName("D1 O2 an index built by another version is rebuilt inside the next write before that write deletes from it")
    void otherVersionRebuiltBeforeWriting() throws SQLException {
        Fts5Index index = new Fts5Index();
        try (Authority a = Authority.open(dir.resolve("jiyi.db"), List.of(index))) {
            a.submitEvent(new EventSubmission("keep", scope, Role.USER, "龙井 green tea", null, null, "s", T));
            a.submitEvent(new EventSubmission("gone", scope, Role.USER, "秘密 zebracipher note", null, null, "s", T));
            // Another process with another build rebuilt the index meanwhile (simulated: its own rows, its version).
            try (Connection c = sql(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO events_fts (events_fts) VALUES ('delete-all')");
                s.execute("INSERT INTO events_fts (rowid, scope, tokens) VALUES (1, '" + Fts5Terms.scopeToken(scope) + "', '"
                        + Fts5Terms.contentTokens(scope, "other build tokens") + "'), (2, '" + Fts5Terms.scopeToken(scope)
                        + "', '" + Fts5Terms.contentTokens(scope, "other zebra build") + "')");
                s.execute("UPDATE index_state SET version = 'fts5-other-build' WHERE name = 'fts5'");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM events_fts WHERE events_fts MATCH '"
                        + Fts5Terms.literalQuery(scope, "zebra build") + "'")) {
                    assertThat(rs.getInt(1)).as("precondition: the other build's rows are searchable").isEqualTo(2);
                }
            }
            a.deleteEvent(scope, "gone");
            assertThat(a.eventCandidates(index, scope, "zebracipher", 10)).isEmpty();
            assertThat(a.eventCandidates(index, scope, "zebra build", 10)).as("the other build's rows are gone").isEmpty();
            assertThat(a.eventCandidates(index, scope, "龙井", 10)).hasSize(1);
            try (Connection c = sql(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT version FROM index_state WHERE name = 'fts5'")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo(Fts5Index.VERSION);
                s.execute("INSERT INTO events_fts (events_fts, rank) VALUES ('integrity-check', 0)");
            }
        }
    }
}
