package dev.jiyi.fts5;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Migration 4 and the index rebuild: an archive whose FTS5 tables delete by tombstone (schema 3)
 * gets tables that delete in place, refilled from the stored text; a stale index version is
 * rebuilt exactly once; a current one is left alone.
 */
class Fts5RebuildTest {

    @TempDir
    Path dir;

    private final Scope scope = new Scope("小明", "日记");

    private Path db() {
        return dir.resolve("jiyi.db");
    }

    private Connection sql() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + db());
    }

    private long count(String query) throws SQLException {
        try (Connection c = sql(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private String text(String query) throws SQLException {
        try (Connection c = sql(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** A row as schemas 3 to 9 stored it in their one FTS5 column: the scope token, then the text's tokens. */
    private static String oneColumnRow(Scope scope, String text) {
        return Fts5Terms.scopeToken(scope) + " " + String.join(" ", Fts5Terms.contentTerms(text));
    }

    /** Fills an archive with events and memories (Chinese, English, mixed); returns the memories. */
    private List<Memory> fill(Authority a) {
        List<Memory> out = new ArrayList<>();
        String[] texts = {"我在杭州西湖边喝龙井茶", "I adopted a cat named Mochi", "周末 hiking 去香山看红叶 maple leaves",
                "我的秘密口令是 xylophonequartz"};
        for (int i = 0; i < texts.length; i++) {
            String id = "e" + i;
            a.submitEvent(new EventSubmission(id, scope, Role.USER, texts[i], null, null, "s", Instant.parse("2024-05-01T02:00:00Z")));
            out.add(a.addMemory(scope, MemoryDraft.builder(id).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                    .text("记录 note: " + texts[i]).quote(texts[i]).build()));
        }
        return out;
    }

    /** Turns the file back into what schema 3 made: tombstone FTS5 tables filled the old way, no index state. */
    private void downgradeToSchema3(Authority a) throws SQLException {
        List<String> eventRows = new ArrayList<>();
        List<Long> eventIds = new ArrayList<>();
        for (var e : a.events(scope, 0, 100)) {
            eventIds.add(e.sequence());
            eventRows.add(oneColumnRow(e.scope(), e.text()));
        }
        try (Connection c = sql(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE memories_fts");
            s.execute("DROP TABLE events_fts");
            s.execute("DROP TABLE index_state");
            s.execute("DROP TABLE extractions"); // migration 5
            s.execute("DROP INDEX memories_scope_seq");
            s.execute("DROP INDEX memories_fact_timeline");
            s.execute("ALTER TABLE memories DROP COLUMN evidence_seq");
            s.execute("ALTER TABLE memories DROP COLUMN lineage_id");
            s.execute("ALTER TABLE memories DROP COLUMN closed_by");
            s.execute("ALTER TABLE memories DROP COLUMN stated_invalid_at");
            s.execute("CREATE INDEX memories_fact_timeline ON memories (persona_id, project_id, subject, fact_key, valid_at) "
                    + "WHERE fact_key IS NOT NULL");
            s.execute("CREATE VIRTUAL TABLE memories_fts USING fts5(tokens, content = '', contentless_delete = 1, "
                    + "tokenize = 'unicode61 remove_diacritics 0')");
            s.execute("CREATE VIRTUAL TABLE events_fts USING fts5(tokens, content = '', contentless_delete = 1, "
                    + "tokenize = 'unicode61 remove_diacritics 0')");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO events_fts (rowid, tokens) VALUES (?, ?)")) {
                for (int i = 0; i < eventIds.size(); i++) {
                    ps.setLong(1, eventIds.get(i));
                    ps.setString(2, eventRows.get(i));
                    ps.executeUpdate();
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT seq, id FROM memories ORDER BY seq")) {
                List<long[]> rows = new ArrayList<>();
                List<String> ids = new ArrayList<>();
                while (rs.next()) {
                    rows.add(new long[]{rs.getLong(1)});
                    ids.add(rs.getString(2));
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO memories_fts (rowid, tokens) VALUES (?, ?)")) {
                    for (int i = 0; i < ids.size(); i++) {
                        ps.setLong(1, rows.get(i)[0]);
                        ps.setString(2, oneColumnRow(scope, a.memory(scope, ids.get(i)).orElseThrow().searchText()));
                        ps.executeUpdate();
                    }
                }
            }
            s.execute("ALTER TABLE capture_cursors DROP COLUMN occurred_at"); // migration 12
            s.execute("ALTER TABLE capture_cursors DROP COLUMN ids_at");
            s.execute("PRAGMA user_version = 3");
        }
    }

    private List<Candidate> find(Authority a, Fts5Index index, String query) {
        return a.read(snap -> snap.memoryCandidates(index, query, Eligibility.anyTime(scope), 10));
    }

    @Test
    @DisplayName("O2 D1 a schema-3 archive migrates to 4: FTS5 tables in secure-delete mode, refilled from the stored text, "
            + "and a deletion then leaves no term in the index pages")
    void schema3Migrates() throws SQLException {
        Fts5Index index = new Fts5Index();
        List<Memory> memories;
        try (Authority a = Authority.open(db(), List.of(index))) {
            memories = fill(a);
            downgradeToSchema3(a);
        }
        assertThat(text("SELECT sql FROM sqlite_master WHERE name = 'memories_fts'")).contains("contentless_delete");

        try (Authority a = Authority.open(db(), List.of(index))) {
            assertThat(a.doctor().schemaVersion()).isEqualTo(dev.jiyi.authority.Database.SCHEMA_VERSION);
            assertThat(text("SELECT sql FROM sqlite_master WHERE name = 'memories_fts'")).doesNotContain("contentless_delete");
            assertThat(text("SELECT version FROM index_state WHERE name = 'fts5'")).isEqualTo(Fts5Index.VERSION);
            assertThat(count("SELECT count(*) FROM memories m JOIN events e ON e.id = m.event_id "
                    + "WHERE m.evidence_seq = e.sequence AND m.lineage_id = m.id AND m.closed_by IS NULL"))
                    .as("evidence_seq and lineage_id backfilled").isEqualTo(memories.size());
            assertThat(count("SELECT count(*) FROM memories_fts")).isEqualTo(memories.size());
            assertThat(count("SELECT count(*) FROM events_fts")).isEqualTo(memories.size());
            assertThat(find(a, index, "龙井")).hasSize(1);
            assertThat(find(a, index, "cat mochi")).hasSize(1);
            assertThat(find(a, index, "红叶 maple")).hasSize(1);
            assertThat(count("SELECT count(*) FROM memories_fts_data WHERE instr(block, CAST('xylophonequartz' AS BLOB)) > 0"))
                    .isPositive();

            a.deleteEvent(scope, "e3");
            assertThat(find(a, index, "xylophonequartz")).isEmpty();
            assertThat(a.eventCandidates(index, scope, "xylophonequartz", 10)).isEmpty();
            for (String table : List.of("memories_fts_data", "events_fts_data")) {
                assertThat(count("SELECT count(*) FROM " + table + " WHERE instr(block, CAST('xylophonequartz' AS BLOB)) > 0"))
                        .as("%s still holds the deleted term", table).isZero();
            }
            assertThat(find(a, index, "龙井")).hasSize(1);
            try (Connection c = sql(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')");
                s.execute("INSERT INTO events_fts (events_fts) VALUES ('integrity-check')");
            }
            assertThat(a.doctor().healthy()).isTrue();
        }
    }

    @Test
    @DisplayName("O6 the FTS5 tables are the index's own: dropped by hand, they are created again from its definition "
            + "and rebuilt at the next open; doctor's row check is the index's (each scope's kept row count too), "
            + "and only an attached, current index is checked")
    void tablesAreTheIndexs() throws SQLException {
        Fts5Index index = new Fts5Index();
        try (Authority a = Authority.open(db(), List.of(index))) {
            fill(a);
        }
        try (Connection c = sql(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE memories_fts");
            s.execute("DROP TABLE events_fts");
        }
        try (Authority a = Authority.open(db(), List.of())) {
            assertThat(a.doctor().healthy()).as("no index attached: nothing of FTS5 is checked").isTrue();
        }
        try (Authority a = Authority.open(db(), List.of(index))) {
            assertThat(text("SELECT sql FROM sqlite_master WHERE name = 'events_fts'"))
                    .contains("tokens, scope", "content = ''", "tokenize = 'ascii'");
            assertThat(text("SELECT v FROM memories_fts_config WHERE k = 'rank'")).isEqualTo("bm25(1.0, 0.0)");
            assertThat(text("SELECT v FROM events_fts_config WHERE k = 'secure-delete'")).isEqualTo("1");
            assertThat(count("SELECT count(*) FROM events_fts")).isEqualTo(4);
            assertThat(find(a, index, "龙井")).hasSize(1);
            assertThat(a.doctor().healthy()).isTrue();
            try (Connection c = sql(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO memories_fts (memories_fts) VALUES ('delete-all')");
            }
            assertThat(a.doctor().problems()).contains(
                    "memories_fts holds 0 row(s) for 4 memories: the FTS5 index is out of step, run `jiyi reindex`");
            a.rebuildIndexes(n -> { });
            assertThat(a.doctor().healthy()).isTrue();
            // A scope's kept row count off while the table's total is right (the count moved to a scope with no rows).
            try (Connection c = sql(); Statement s = c.createStatement()) {
                s.execute("UPDATE fts5_scope_rows SET rows = rows - 1 WHERE tbl = 'events'");
                s.execute("INSERT INTO fts5_scope_rows (tbl, scope, rows) VALUES ('events', '"
                        + Fts5Terms.key(new Scope("nobody", "nowhere")) + "', 1)");
            }
            assertThat(a.doctor().problems()).containsExactly(
                    "fts5_scope_rows counts the events of 2 scope(s) wrong: the FTS5 index is out of step, run `jiyi reindex`");
            a.rebuildIndexes(n -> { });
            assertThat(a.doctor().healthy()).isTrue();
        }
    }

    @Test
    @DisplayName("O2 R11 a schema-9 archive migrates to 10: the scope token gets a column BM25 gives weight 0, "
            + "the tables are refilled from the stored text and still delete in place")
    void schema9Migrates() throws SQLException {
        Fts5Index index = new Fts5Index();
        try (Authority a = Authority.open(db(), List.of(index))) {
            fill(a);
        }
        // The file as schema 9 left it: one column, the scope token first among the text's tokens.
        try (Connection c = sql(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE memories_fts");
            s.execute("DROP TABLE events_fts");
            for (String table : List.of("memories_fts", "events_fts")) {
                s.execute("CREATE VIRTUAL TABLE " + table + " USING fts5(tokens, content = '', tokenize = 'ascii')");
                s.execute("INSERT INTO " + table + " (" + table + ", rank) VALUES ('secure-delete', 1)");
            }
            try (Authority a = Authority.open(db(), List.of())) {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO events_fts (rowid, tokens) VALUES (?, ?)")) {
                    for (var e : a.events(scope, 0, 100)) {
                        ps.setLong(1, e.sequence());
                        ps.setString(2, oneColumnRow(e.scope(), e.text()));
                        ps.executeUpdate();
                    }
                }
            }
            s.execute("UPDATE index_state SET version = 'fts5-secure-delete-1/analysis-1' WHERE name = 'fts5'");
            for (String column : List.of("events_built", "events_target", "memories_built", "memories_target")) {
                s.execute("ALTER TABLE index_state DROP COLUMN " + column); // migration 11 runs again
            }
            s.execute("ALTER TABLE capture_cursors DROP COLUMN occurred_at"); // and 12
            s.execute("ALTER TABLE capture_cursors DROP COLUMN ids_at");
            s.execute("PRAGMA user_version = 9");
        }

        try (Authority a = Authority.open(db(), List.of(index))) {
            assertThat(a.doctor().schemaVersion()).isEqualTo(dev.jiyi.authority.Database.SCHEMA_VERSION);
            for (String table : List.of("memories_fts", "events_fts")) {
                assertThat(text("SELECT sql FROM sqlite_master WHERE name = '" + table + "'")).contains("tokens, scope");
                assertThat(text("SELECT v FROM " + table + "_config WHERE k = 'rank'")).isEqualTo("bm25(1.0, 0.0)");
                assertThat(text("SELECT v FROM " + table + "_config WHERE k = 'secure-delete'")).isEqualTo("1");
            }
            assertThat(text("SELECT version FROM index_state WHERE name = 'fts5'")).isEqualTo(Fts5Index.VERSION);
            assertThat(count("SELECT count(*) FROM memories_fts")).isEqualTo(4);
            assertThat(count("SELECT count(*) FROM events_fts")).isEqualTo(4);
            assertThat(find(a, index, "龙井")).hasSize(1);
            assertThat(find(a, index, "cat mochi")).hasSize(1);
            assertThat(a.eventCandidates(index, scope, "红叶 maple", 10)).hasSize(1);

            a.deleteEvent(scope, "e3");
            assertThat(find(a, index, "xylophonequartz")).isEmpty();
            for (String table : List.of("memories_fts_data", "events_fts_data")) {
                assertThat(count("SELECT count(*) FROM " + table + " WHERE instr(block, CAST('xylophonequartz' AS BLOB)) > 0"))
                        .as("%s still holds the deleted term", table).isZero();
            }
            assertThat(a.doctor().healthy()).isTrue();
        }
    }

    @Test
    @DisplayName("O2 a stale index version is rebuilt once on open (same rows, no duplicates); a current one is left alone")
    void staleVersionRebuilt() throws SQLException {
        Fts5Index index = new Fts5Index();
        try (Authority a = Authority.open(db(), List.of(index))) {
            fill(a);
        }
        String builtAt = text("SELECT built_at FROM index_state WHERE name = 'fts5'");
        try (Authority a = Authority.open(db(), List.of(index))) {
            assertThat(text("SELECT built_at FROM index_state WHERE name = 'fts5'")).isEqualTo(builtAt);
        }
        try (Connection c = sql(); Statement s = c.createStatement()) {
            s.execute("UPDATE index_state SET version = 'fts5-older' WHERE name = 'fts5'");
        }
        try (Authority a = Authority.open(db(), List.of(index))) {
            assertThat(text("SELECT version FROM index_state WHERE name = 'fts5'")).isEqualTo(Fts5Index.VERSION);
            assertThat(text("SELECT built_at FROM index_state WHERE name = 'fts5'")).isNotEqualTo(builtAt);
            assertThat(count("SELECT count(*) FROM memories_fts")).isEqualTo(4);
            assertThat(count("SELECT count(*) FROM events_fts")).isEqualTo(4);
            assertThat(find(a, index, "龙井")).hasSize(1);
            // Deleting after a rebuild works with the rebuilt tokens.
            a.deleteMemory(scope, text("SELECT id FROM memories WHERE text LIKE '%Mochi%'"));
            assertThat(find(a, index, "cat mochi")).isEmpty();
            assertThat(count("SELECT count(*) FROM memories_fts")).isEqualTo(3);
        }
    }
}
