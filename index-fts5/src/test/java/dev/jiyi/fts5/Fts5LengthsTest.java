package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The rows' lengths kept beside the FTS5 tables ({@link Fts5Lengths}) are FTS5's own, whatever wrote
 * the rows, and the scope's BM25 computed with them ranks exactly as with FTS5's rank (R11), also
 * where an entry is not known and in a home indexed before the table existed.
 */
class Fts5LengthsTest {

    @TempDir
    Path dir;

    private static final Scope ALICE = new Scope("alice", "diary");
    private static final Scope BOB = new Scope("bob", "work");
    private static final Instant T = Instant.parse("2024-05-01T02:00:00Z");
    private static final String[] WORDS = {"咖啡", "coffee", "上海", "Shanghai", "猫", "cat", "e-mail", "北京大学",
        "guitar", "吉他", "morning", "早上", "walk", "散步", "budget", "预算", "猫猫猫", "coffee coffee"};
    private static final List<String> QUERIES = List.of("咖啡 coffee", "common 常见 cat", "send the e-mail from 北京大学",
            "我早上喜欢散步 and a guitar", "上海的预算 budget Shanghai morning 猫");

    private int next;

    /** A turn of a few of the words, in Chinese, English or both, longer or shorter. */
    private static String text(Random random) {
        StringBuilder text = new StringBuilder("常见 common");
        for (int w = 1 + random.nextInt(12); w > 0; w--) {
            text.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
        }
        return text.toString();
    }

    private void say(Authority a, Scope scope, String text) {
        String id = "e" + (++next);
        a.submitEvent(new EventSubmission(id, scope, Role.USER, text, null, null, "s", T.plusSeconds(next)));
        a.addMemory(scope, MemoryDraft.builder(id).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT).text(text).quote(text)
                .build());
    }

    @Test
    @DisplayName("R11 E1 D1 every kept length is FTS5's own: single writes, a batch with a rejected item, deletions, a rebuild (Chinese, English, mixed)")
    void keptLengthsAreFts5s() throws SQLException {
        Path db = dir.resolve("jiyi.db");
        Random random = new Random(7);
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            for (int i = 0; i < 150; i++) {
                say(a, i % 3 == 0 ? BOB : ALICE, text(random));
            }
            List<EventSubmission> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                batch.add(new EventSubmission("b" + i, ALICE, Role.USER, text(random), null, null, "s", T.plusSeconds(1000 + i)));
            }
            batch.set(200, new EventSubmission("e1", BOB, Role.USER, "另一段文字 another text", null, null, "s", T)); // rejected
            assertThat(a.submitEvents(batch).failedAt()).isEqualTo(200);
            for (int i = 2; i < 150; i += 7) {
                a.deleteEvent((i - 1) % 3 == 0 ? BOB : ALICE, "e" + i); // e{n} was said by turn n - 1
            }
            assertKeptAsFts5(db);
            a.rebuildIndexes(rows -> { });
            assertKeptAsFts5(db);
            say(a, ALICE, "重建以后 after the rebuild");
            assertKeptAsFts5(db);
        }
    }

    @Test
    @DisplayName("R11 a home indexed before the lengths were kept gets them at its first write, and ranks with them as with FTS5's rank")
    void aHomeFromBefore() throws SQLException {
        Path db = dir.resolve("jiyi.db");
        Random random = new Random(13);
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            for (int i = 0; i < 120; i++) {
                say(a, i % 4 == 0 ? BOB : ALICE, text(random));
            }
        }
        execute(db, "DROP TABLE fts5_lengths");
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            boolean kept = a.read(s -> exists(s.sql()));
            assertThat(kept).isFalse();
            say(a, BOB, "第一次写入 the first write");
            kept = a.read(s -> exists(s.sql()));
            assertThat(kept).as("the first write keeps the lengths").isTrue();
        }
        assertKeptAsFts5(db);
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            for (String query : QUERIES) {
                assertSameRanking(ranked(a, query, false), ranked(a, query, true), query + " with them");
            }
        }
    }

    @Test
    @DisplayName("R11 a length not kept (0) or too long to keep (70,000 Chinese characters) is read from FTS5, and the ranking equals FTS5's")
    void unknownAndLongRows() throws SQLException {
        Path db = dir.resolve("jiyi.db");
        Random random = new Random(17);
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            for (int i = 0; i < 60; i++) {
                say(a, ALICE, text(random));
            }
            a.submitEvent(new EventSubmission("long", ALICE, Role.USER, "猫".repeat(70_000) + " coffee", null, null, "s",
                    T.plusSeconds(10_000)));
            assertKeptAsFts5(db);
            for (String query : QUERIES) {
                assertSameRanking(ranked(a, query, false), ranked(a, query, true), query + " with a long row");
            }
            execute(db, "UPDATE fts5_lengths SET sizes = zeroblob(length(sizes)) WHERE tbl = 'events_fts'");
            for (String query : QUERIES) {
                assertSameRanking(ranked(a, query, false), ranked(a, query, true), query + " with no length known");
            }
        }
    }

    @Test
    @DisplayName("R11 E1 a large home from before fills its lengths in steps, a few blocks a write, ranking as FTS5 meanwhile")
    void fillsInSteps() throws SQLException {
        Path db = dir.resolve("jiyi.db");
        Random random = new Random(19);
        int rows = 3 * Fts5Lengths.BLOCK;
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            for (int from = 0; from < rows; from += 2_000) {
                List<EventSubmission> batch = new ArrayList<>();
                for (int i = from; i < Math.min(rows, from + 2_000); i++) {
                    batch.add(new EventSubmission("b" + i, ALICE, Role.USER, text(random), null, null, "s", T.plusSeconds(i)));
                }
                a.submitEvents(batch);
            }
        }
        execute(db, "DROP TABLE fts5_lengths");
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            a.submitEvent(new EventSubmission("first", ALICE, Role.USER, "升级以后第一次 the first write after the upgrade",
                    null, null, "s", T.plusSeconds(rows)));
            assertThat(next(db, "events_fts")).as("the block the second write fills first").isEqualTo(Fts5Lengths.STEP);
            boolean filled = a.read(s -> reader(s.sql()) != null);
            assertThat(filled).as("a table being filled is not read: searches rank with FTS5's rank").isFalse();
            a.submitEvent(new EventSubmission("second", ALICE, Role.USER, "第二次 the second write", null, null, "s",
                    T.plusSeconds(rows + 1)));
            assertThat(next(db, "events_fts")).as("filled: the mark is gone").isEqualTo(-1);
            filled = a.read(s -> reader(s.sql()) != null);
            assertThat(filled).isTrue();
        }
        assertKeptAsFts5(db);
    }

    @Test
    @DisplayName("R11 searches score with the kept lengths: a wrong kept length changes the scores")
    void keptLengthsAreRead() throws SQLException {
        Path db = dir.resolve("jiyi.db");
        Random random = new Random(23);
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            for (int i = 0; i < 60; i++) {
                say(a, ALICE, text(random));
            }
            byte[] ones = new byte[2 * Fts5Lengths.BLOCK];
            for (int i = 0; i < ones.length; i += 2) {
                ones[i] = 1;
            }
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                 java.sql.PreparedStatement ps = c.prepareStatement("UPDATE fts5_lengths SET sizes = ? WHERE tbl = 'events_fts'")) {
                ps.setBytes(1, ones);
                assertThat(ps.executeUpdate()).isPositive();
            }
            List<Candidate> own = ranked(a, "咖啡 coffee", false);
            List<Candidate> fts5 = ranked(a, "咖啡 coffee", true);
            assertThat(own).hasSameSizeAs(fts5);
            assertThat(own.getFirst().score()).as("a row of length 1 saturates higher").isGreaterThan(fts5.getFirst().score() * 1.01);
        }
    }

    private static long next(Path db, String table) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT block FROM fts5_lengths WHERE tbl = '" + table + "#next'")) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    private static Fts5Lengths.Reader reader(dev.jiyi.authority.Sql sql) {
        try {
            return Fts5Lengths.reader(sql, "events_fts", null);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every FTS5 row's kept length is its {@code *_docsize} length, and a row not in FTS5 has none kept. */
    private static void assertKeptAsFts5(Path db) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            for (String table : List.of("events_fts", "memories_fts")) {
                Map<Long, Integer> fts5 = new HashMap<>();
                try (ResultSet rs = s.executeQuery("SELECT id, sz FROM " + table + "_docsize")) {
                    while (rs.next()) {
                        fts5.put(rs.getLong(1), Fts5Lengths.length(rs.getBytes(2)));
                    }
                }
                if (table.equals("events_fts")) {
                    assertThat(fts5).as("%s's rows", table).isNotEmpty();
                }
                Map<Long, Integer> kept = new HashMap<>();
                try (ResultSet rs = s.executeQuery("SELECT block, sizes FROM fts5_lengths WHERE tbl = '" + table + "'")) {
                    while (rs.next()) {
                        byte[] sizes = rs.getBytes(2);
                        for (int slot = 0; slot < Fts5Lengths.BLOCK; slot++) {
                            int v = (sizes[2 * slot] & 0xFF) | (sizes[2 * slot + 1] & 0xFF) << 8;
                            if (v != 0) {
                                kept.put(rs.getLong(1) * Fts5Lengths.BLOCK + slot, v);
                            }
                        }
                    }
                }
                Map<Long, Integer> expected = new HashMap<>();
                fts5.forEach((row, length) -> expected.put(row, Math.min(length, 0xFFFF)));
                assertThat(kept).as("%s's kept lengths", table).isEqualTo(expected);
            }
        }
    }

    /**
     * The scope's BM25 ranking of the query's terms over its events ({@link ScopedBm25}); with
     * {@code rank}, every term ranked by FTS5 (its lengths read by FTS5's rank), as before the
     * lengths were kept.
     */
    private static List<Candidate> ranked(Authority a, String query, boolean rank) {
        List<String> terms = ChineseTokens.queryTerms(query);
        return a.read(s -> {
            try {
                if (rank) {
                    return ScopedBm25.rankedByFts5(s.sql(), "events", ALICE, terms).best(Integer.MAX_VALUE, 1);
                }
                return new ScopedBm25(s.sql(), "events", ALICE, false, null).ranked(terms).best(Integer.MAX_VALUE, 1);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void assertSameRanking(List<Candidate> own, List<Candidate> fts5, String what) {
        assertThat(own).as("rows of %s", what).isNotEmpty().hasSameSizeAs(fts5);
        for (int i = 0; i < own.size(); i++) {
            assertThat(own.get(i).rowId()).as("row %d of %s", i, what).isEqualTo(fts5.get(i).rowId());
            assertThat(own.get(i).score()).as("score %d of %s", i, what)
                    .isCloseTo(fts5.get(i).score(), within(1e-9 * fts5.get(i).score()));
        }
    }

    private static boolean exists(dev.jiyi.authority.Sql sql) {
        try {
            return Fts5Lengths.exists(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void execute(Path db, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
