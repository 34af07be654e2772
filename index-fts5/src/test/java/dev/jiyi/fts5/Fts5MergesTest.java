package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
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
 * FTS5's merges run in steps at the end of the transactions that owe them ({@link Fts5Merges}), not
 * in FTS5's automerge bursts: a home written one turn at a time keeps few segments, stays whole, and
 * finds every row.
 */
class Fts5MergesTest {

    @TempDir
    Path dir;

    private final Scope scope = new Scope("alice", "diary");
    private static final Instant T = Instant.parse("2024-05-01T02:00:00Z");

    /** A text of its own for turn {@code i}: Chinese, English or mixed, with a word no other turn has. */
    private static String text(int i) {
        String letters = "bcdfghjklmnpqrtvwxz"; // no vowel, no s or y: nothing a stemmer takes off
        String tag = "" + letters.charAt(i / 361 % 19) + letters.charAt(i / 19 % 19) + letters.charAt(i % 19);
        return switch (i % 3) {
            case 0 -> "今天和朋友去公园散步，聊到了旅行计划 zq" + tag;
            case 1 -> "We talked about the hiking trip and the weather zq" + tag;
            default -> "周末 hiking 去了西湖，天气很好 zq" + tag;
        };
    }

    @Test
    @DisplayName("E1 R1 a home written one turn at a time: automerge off, merges in steps keep few segments, every row found")
    void singleWrites() throws SQLException {
        Fts5Index index = new Fts5Index();
        Path db = dir.resolve("jiyi.db");
        int turns = 600;
        long[] memoryRows = new long[turns];
        try (Authority a = Authority.open(db, List.of(index))) {
            for (int i = 0; i < turns; i++) {
                a.submitEvent(new EventSubmission("e" + i, scope, Role.USER, text(i), null, null, "s", T.plusSeconds(i)));
                memoryRows[i] = a.addMemory(scope, MemoryDraft.builder("e" + i).kind(Kind.EPISODE)
                        .basis(Basis.USER_STATEMENT).text(text(i)).quote(text(i)).build()).rowId();
            }
            for (int i : new int[] {0, 1, 2, 299, 300, 301, turns - 1}) {
                String word = word(i);
                long sequence = a.events(scope, 0, turns).get(i).sequence();
                List<Candidate> events = a.read(s -> index.events(s, word, scope, 5));
                assertThat(events).as("events holding %s", word).extracting(Candidate::rowId).containsExactly(sequence);
                List<Candidate> memories = a.read(s -> index.memories(s, word,
                        Eligibility.current(scope, T.plusSeconds(turns)), 5));
                assertThat(memories).as("memories holding %s", word).extracting(Candidate::rowId).containsExactly(memoryRows[i]);
            }
        }
        assertFewSegments(db, List.of("events_fts", "memories_fts"), turns);
    }

    @Test
    @DisplayName("E1 R1 a home written by a new process each turn (a CLI run per turn) merges in steps too")
    void aProcessPerTurn() throws SQLException {
        Path db = dir.resolve("jiyi.db");
        int turns = 600;
        for (int i = 0; i < turns; i++) {
            try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
                a.submitEvent(new EventSubmission("e" + i, scope, Role.USER, text(i), null, null, "s", T.plusSeconds(i)));
            }
        }
        Fts5Index index = new Fts5Index();
        try (Authority a = Authority.open(db, List.of(index))) {
            for (int i : new int[] {0, 300, turns - 1}) {
                List<Candidate> events = a.read(s -> index.events(s, word(i), scope, 5));
                assertThat(events).as("events holding %s", word(i)).hasSize(1);
            }
        }
        assertFewSegments(db, List.of("events_fts"), turns);
    }

    /** The word only turn {@code i} holds. */
    private static String word(int i) {
        return text(i).substring(text(i).lastIndexOf(' ') + 1);
    }

    /** Automerge off, few segments (without the steps, crisis merges let 15 gather on a level), and FTS5's integrity check passes. */
    private static void assertFewSegments(Path db, List<String> tables, int turns) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            for (String table : tables) {
                try (ResultSet rs = s.executeQuery("SELECT v FROM " + table + "_config WHERE k = 'automerge'")) {
                    assertThat(rs.next()).as("%s has an automerge setting", table).isTrue();
                    assertThat(rs.getInt(1)).as("%s's automerge", table).isZero();
                }
                assertThat(segments(s, table)).as("%s's segments after %d single writes", table, turns).isLessThanOrEqualTo(10);
                s.execute("INSERT INTO " + table + " (" + table + ", rank) VALUES ('integrity-check', 0)");
            }
        }
    }

    @Test
    @DisplayName("E1 batches merge in proportion to their rows; a rejected item's rolled-back rows are not found")
    void batches() throws SQLException {
        Fts5Index index = new Fts5Index();
        Path db = dir.resolve("jiyi.db");
        try (Authority a = Authority.open(db, List.of(index))) {
            for (int b = 0; b < 8; b++) {
                List<EventSubmission> batch = new ArrayList<>();
                for (int i = 0; i < 250; i++) {
                    int n = b * 250 + i;
                    batch.add(new EventSubmission("e" + n, scope, Role.USER, text(n), null, null, "s", T.plusSeconds(n)));
                }
                if (b == 7) { // the same ID with another text: rejected; the items before it are applied, the rest not
                    batch.set(100, new EventSubmission("e0", scope, Role.USER, "另一段文字 another text", null, null, "s", T));
                }
                a.submitEvents(batch);
            }
            List<Candidate> rejected = a.read(s -> index.events(s, "另一段文字", scope, 5));
            assertThat(rejected).isEmpty();
            List<Candidate> found = a.read(s -> index.events(s, word(1849), scope, 5));
            assertThat(found).as("the last item before the rejected one").hasSize(1);
            List<Candidate> after = a.read(s -> index.events(s, word(1851), scope, 5));
            assertThat(after).as("an item after the rejected one").isEmpty();
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            // Each batch is a segment; without the steps all eight would stay (crisis merges wait for 16).
            assertThat(segments(s, "events_fts")).as("segments after eight batches").isLessThan(8);
            s.execute("INSERT INTO events_fts (events_fts, rank) VALUES ('integrity-check', 0)");
        }
    }

    @Test
    @DisplayName("E1 a step: 16 pages every fourth row ID, a page every two rows, at most 256 a commit (4,096 in a table of more than 16 segments)")
    void steps() {
        assertThat(Fts5Merges.pages(1, false, 3)).isZero();
        assertThat(Fts5Merges.pages(1, true, 3)).isEqualTo(16);
        assertThat(Fts5Merges.pages(20, false, 3)).as("under a step, no multiple of 4: none").isZero();
        assertThat(Fts5Merges.pages(40, false, 3)).isEqualTo(20);
        assertThat(Fts5Merges.pages(500, true, 3)).isEqualTo(256);
        assertThat(Fts5Merges.pages(1_000_000, false, 16)).isEqualTo(256);
        // Over the bound a batch merges all its rows owe, so an imported archive's segments cannot gather.
        assertThat(Fts5Merges.pages(2_000, false, 17)).isEqualTo(1_000);
        assertThat(Fts5Merges.pages(2_000, true, 56)).isEqualTo(1_016);
        assertThat(Fts5Merges.pages(20_000, true, 56)).as("a build step over the bound").isEqualTo(Fts5Merges.MOST_BEHIND);
        // A single write merges its even step, over the bound too: no burst for one turn.
        assertThat(Fts5Merges.pages(1, true, 56)).isEqualTo(16);
        assertThat(Fts5Merges.pages(1, false, 56)).isZero();
    }

    @Test
    @DisplayName("E1 the segments a commit reads from the structure record are FTS5's own, before and after merges")
    void segmentsFromTheStructureRecord() throws SQLException {
        Path db = homeOfOneEvent();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            Sql sql = new Sql(c);
            // Rows written outside the authority, automerge off (its first write): a segment a transaction.
            PreparedStatement insert = c.prepareStatement("INSERT INTO events_fts (rowid, tokens) VALUES (?, ?)");
            for (int i = 1; i <= 12; i++) { // Chinese, English and mixed rows
                insert.setLong(1, 1000 + i);
                insert.setString(2, ChineseTokens.indexText(text(i)));
                insert.executeUpdate();
            }
            int before = Fts5Merges.segments(sql, "events_fts");
            assertThat(before).as("a segment a transaction").isGreaterThan(10).isEqualTo(segments(s, "events_fts"));
            assertThat(Fts5Merges.segments(sql, "memories_fts")).as("a table never written").isZero();
            s.execute("INSERT INTO events_fts (events_fts) VALUES ('optimize')");
            assertThat(Fts5Merges.segments(sql, "events_fts")).isEqualTo(segments(s, "events_fts")).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("E1 a commit whose cap binds in a table of more than 16 segments merges past the cap: the segments a capped one leaves are gone")
    void behindPastTheCap() throws SQLException {
        Path db = homeOfOneEvent();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            // An index that fell behind: rows written outside the authority, automerge off, a crisis
            // merge only at 1,000 segments, so every transaction's segment stays.
            s.execute("INSERT INTO events_fts (events_fts, rank) VALUES ('crisismerge', 1000)");
            PreparedStatement insert = c.prepareStatement("INSERT INTO events_fts (rowid, tokens) VALUES (?, ?)");
            long id = 1_000;
            c.setAutoCommit(false);
            while (pagesHeld(s) <= Fts5Merges.MOST + 100 && id < 200_000) {
                for (int i = 0; i < 400; i++, id++) { // Chinese, English and mixed rows
                    insert.setLong(1, id);
                    insert.setString(2, ChineseTokens.indexText(text((int) id) + " " + text((int) id + 7) + " " + text((int) id + 11)));
                    insert.executeUpdate();
                }
                c.commit();
            }
            int before = segments(s, "events_fts");
            long held = pagesHeld(s);
            assertThat(before).as("a segment a transaction").isGreaterThan(Fts5Merges.SEGMENTS);
            assertThat(held).as("more pages than a capped commit merges").isGreaterThan(Fts5Merges.MOST + 100L);

            // The next commit's rows owe more pages than the cap: it merges them all.
            Fts5Merges merges = new Fts5Merges();
            for (int i = 0; i < 2 * held + 200; i++) {
                merges.eventInserted(4L * i + 1); // no multiple of 4: no step, the rows' own pages only
            }
            merges.beforeCommit(new Sql(c));
            c.commit();
            assertThat(segments(s, "events_fts")).as("segments after the commit (%d before)", before).isLessThanOrEqualTo(2);
            s.execute("INSERT INTO events_fts (events_fts, rank) VALUES ('integrity-check', 0)");
        }
    }

    /** A home whose one event the authority wrote: the FTS5 tables made, their automerge off. */
    private Path homeOfOneEvent() {
        Path db = dir.resolve("jiyi.db");
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            a.submitEvent(new EventSubmission("e0", scope, Role.USER, text(0), null, null, "s", T));
        }
        return db;
    }

    /** The pages an FTS5 table's index holds: its data rows, less the averages and the structure. */
    private static long pagesHeld(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT count(*) - 2 FROM events_fts_data")) {
            return rs.getLong(1);
        }
    }

    private static int segments(Statement s, String table) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT count(DISTINCT segid) FROM " + table + "_idx")) {
            return rs.getInt(1);
        }
    }
}
