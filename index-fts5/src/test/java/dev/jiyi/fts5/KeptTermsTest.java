package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.index.Candidate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Common terms' counts and postings kept across reads ({@link KeptTerms}) give exactly what a fresh
 * count and read of FTS5's index give at every later read (R11): after new rows that hold a term or
 * not, in the scope or another, after a deletion (D1: a deleted row never comes back from them),
 * after a rebuild, after a burst of writes, and at a read older than the kept epoch.
 */
class KeptTermsTest {

    @TempDir
    Path dir;

    private static final Scope ALICE = new Scope("alice", "diary");
    private static final Scope BOB = new Scope("bob", "work");
    private static final Instant T = Instant.parse("2024-05-01T02:00:00Z");
    private static final String[] WORDS = {"咖啡", "Coffee", "上海", "Shanghai", "猫", "cat", "guitar", "吉他", "morning", "早上",
        "北京", "Beijing", "茶", "tea", "雨", "rain", "跑步", "running", "书", "book"};
    /** Terms of at least this many rows are kept in these tests (Alice has about 1,600 rows). */
    private static final int MIN = 100;
    /** Queries whose terms hold over {@link #MIN} of Alice's rows each (and under half), and a rare one. */
    private static final List<String> QUERIES = List.of("咖啡 coffee", "早上的猫 cat in the MORNING", "上海 guitar 吉他 雪豹");
    private static final String COFFEE = Fts5Index.termPrefix(ALICE) + "咖啡";

    private Authority authority;
    private int next;

    @BeforeEach
    void home() {
        authority = Authority.open(dir.resolve("jiyi.db"), List.of(new Fts5Index()));
        Random random = new Random(29);
        List<EventSubmission> batch = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            batch.add(event(i % 5 == 0 ? BOB : ALICE, text(random)));
        }
        batch.add(event(ALICE, "看到一只雪豹 a snow leopard"));
        assertThat(authority.submitEvents(batch).failedAt()).isEqualTo(-1);
    }

    @AfterEach
    void close() {
        authority.close();
    }

    /** A turn of a few of the words, in Chinese, English or both. */
    private static String text(Random random) {
        StringBuilder text = new StringBuilder("今天 today");
        for (int w = 1 + random.nextInt(6); w > 0; w--) {
            text.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
        }
        return text.toString();
    }

    private EventSubmission event(Scope scope, String text) {
        String id = "e" + (++next);
        return new EventSubmission(id, scope, Role.USER, text, null, null, "s", T.plusSeconds(next));
    }

    @Test
    @DisplayName("R11 D1 kept counts and postings rank as a fresh read after new rows, rows of another scope, a deletion, a burst and a rebuild (Chinese, English, mixed)")
    void keptTermsStayExact() {
        KeptTerms kept = new KeptTerms(MIN, MIN, KeptTerms.MAX_ROWS);
        assertSameAsFresh(kept, "the first read");
        assertThat(kept.rows()).as("common terms' postings are kept").isGreaterThan(4L * MIN);

        authority.submitEvent(event(ALICE, "新的咖啡 new COFFEE"));
        long newRow = next;
        authority.submitEvent(event(ALICE, "没有那些词 none of those words"));
        authority.submitEvent(event(BOB, "咖啡 coffee 猫 cat"));
        assertSameAsFresh(kept, "new rows");
        assertThat(ranked(kept, "咖啡 coffee")).extracting(Candidate::rowId).as("the new row is found").contains(newRow);

        authority.submitEvent(event(ALICE, "咖啡 coffee 咖啡 coffee 早上 morning"));
        long row = next;
        assertSameAsFresh(kept, "before the deletion");
        authority.deleteEvent(ALICE, "e" + row);
        assertSameAsFresh(kept, "after a deletion");
        for (String query : QUERIES) {
            assertThat(ranked(kept, query)).extracting(Candidate::rowId).doesNotContain(row);
        }

        // An old row holding a kept term and the newest row, removed with no read between: the last
        // row goes down, and the old row must not come back from the kept postings.
        authority.submitEvent(event(ALICE, "最新的一句 the newest turn"));
        assertSameAsFresh(kept, "a new row");
        long old = ranked(kept, "咖啡 coffee").getLast().rowId();
        authority.deleteEvent(ALICE, "e" + old);
        authority.deleteEvent(ALICE, "e" + next);
        assertSameAsFresh(kept, "an old row and the newest removed");
        for (String query : QUERIES) {
            assertThat(ranked(kept, query)).extracting(Candidate::rowId).doesNotContain(old);
        }

        Random random = new Random(31);
        List<EventSubmission> burst = new ArrayList<>();
        for (int i = 0; i < KeptTerms.MAX_NEW_ROWS + 10; i++) {
            burst.add(event(ALICE, text(random)));
        }
        authority.submitEvents(burst);
        assertSameAsFresh(kept, "after a burst of writes");

        authority.rebuildIndexes(rows -> { });
        assertSameAsFresh(kept, "after a rebuild");
    }

    @Test
    @DisplayName("R11 a kept entry is read, kept across writes that do not touch its term, and dropped when its term's rows change")
    void keptEntriesAreReadAndChecked() {
        KeptTerms kept = new KeptTerms(MIN, MIN, KeptTerms.MAX_ROWS);
        ranked(kept, "咖啡");
        KeptTerms.Postings first = postings(kept);
        assertThat(first).as("the term's postings are kept").isNotNull();
        assertThat(first.rows().length).isGreaterThanOrEqualTo(MIN);

        // A doctored entry (every row holding the word five times) is what a search reads.
        int[] five = new int[first.tf().length];
        Arrays.fill(five, 5);
        authority.read(s -> {
            view(s, kept).keepPostings(COFFEE, new KeptTerms.Postings(first.rows(), five, first.length()));
            return null;
        });
        assertThat(ranked(kept, "咖啡").getFirst().score()).as("scores come from the kept entry")
                .isGreaterThan(ranked(null, "咖啡").getFirst().score() * 1.05);
        authority.read(s -> {
            view(s, kept).keepPostings(COFFEE, first);
            return null;
        });
        // A doctored count is what the query's ideal reads.
        authority.read(s -> {
            view(s, kept).keepCount(COFFEE, 5L * MIN);
            return null;
        });
        double[] ideals = authority.read(s -> new double[] {ideal(s, kept, "咖啡 coffee"), ideal(s, null, "咖啡 coffee")});
        assertThat(ideals[0]).as("the ideal comes from the kept count").isNotEqualTo(ideals[1]);
        kept.clear();
        ranked(kept, "咖啡");
        KeptTerms.Postings reread = postings(kept);
        assertThat(reread.rows()).isEqualTo(first.rows());
        KeptTerms.Postings kept1 = reread;

        authority.submitEvent(event(ALICE, "没有那个词 not that word"));
        authority.submitEvent(event(BOB, "咖啡 coffee"));
        assertThat(postings(kept)).as("writes that do not hold Alice's 咖啡 keep its entry").isSameAs(kept1);

        long before = authority.read(s -> view(s, kept).count(COFFEE));
        assertThat(before).as("the term's count is kept").isEqualTo(kept1.rows().length);
        authority.submitEvent(event(ALICE, "又一杯咖啡"));
        assertThat(postings(kept)).as("a new row holding the term drops the postings").isNull();
        long after = authority.read(s -> view(s, kept).count(COFFEE));
        assertThat(after).as("and the kept count grows by it").isEqualTo(before + 1);
        assertSameAsFresh(kept, "a new row");

        KeptTerms.Postings again = postings(kept);
        assertThat(again).as("read again and kept").isNotNull();
        authority.deleteEvent(ALICE, "e" + again.rows()[0]);
        assertThat(postings(kept)).as("a removed row drops the table's entries").isNull();
        assertSameAsFresh(kept, "a row removed");

        // One row holding the term removed and one added that does not hold it: the count is checked.
        KeptTerms.Postings third = postings(kept);
        assertThat(third).as("read again and kept").isNotNull();
        authority.deleteEvent(ALICE, "e" + third.rows()[0]);
        authority.submitEvent(event(ALICE, "别的话 something else"));
        assertThat(postings(kept)).as("a removal beside a new row drops the table's entries").isNull();
        assertSameAsFresh(kept, "a row removed and one added");

        assertThat(postings(kept)).isNotNull();
        authority.rebuildIndexes(rows -> { });
        assertThat(postings(kept)).as("a rebuild (the tables recreated) drops every entry").isNull();
    }

    @Test
    @DisplayName("R11 kept blocks of row lengths are what a read scores with, and the blocks new rows go into are dropped (Chinese, English, mixed)")
    void keptLengths() {
        KeptTerms kept = new KeptTerms(MIN, Integer.MAX_VALUE, KeptTerms.MAX_ROWS); // no postings: lengths read every time
        assertSameAsFresh(kept, "the first read");
        byte[] block = authority.read(s -> view(s, kept).lengths(0));
        assertThat(block).as("the block of Alice's rows is kept").isNotNull();

        // A doctored block (every row one token long) is what a search scores with.
        byte[] ones = new byte[block.length];
        for (int i = 0; i < ones.length; i += 2) {
            ones[i] = 1;
        }
        authority.read(s -> {
            view(s, kept).keepLengths(0, ones);
            return null;
        });
        for (String query : QUERIES) {
            assertThat(ranked(kept, query).getFirst().score()).as("%s scored with the kept lengths", query)
                    .isNotCloseTo(ranked(null, query).getFirst().score(), within(1e-6));
        }
        authority.read(s -> {
            view(s, kept).keepLengths(0, block);
            return null;
        });
        assertSameAsFresh(kept, "the block put back");

        authority.submitEvent(event(BOB, "没有那些词 none of those words"));
        byte[] dropped = authority.read(s -> view(s, kept).lengths(0));
        assertThat(dropped).as("the block a new row went into is dropped").isNull();
        authority.submitEvent(event(ALICE, "新的咖啡 new COFFEE 早上"));
        assertSameAsFresh(kept, "new rows");
        assertThat(ranked(kept, "咖啡 coffee")).extracting(Candidate::rowId).as("the new row is found").contains((long) next);
    }

    @Test
    @DisplayName("R11 a read older than the kept epoch uses only entries of its own epoch or before, keeps nothing, and ranks as a fresh read of its snapshot")
    void anOlderRead() {
        KeptTerms kept = new KeptTerms(MIN, MIN, KeptTerms.MAX_ROWS);
        assertSameAsFresh(kept, "the first read");
        try (Authority other = Authority.open(dir.resolve("jiyi.db"), List.of(new Fts5Index()))) {
            authority.read(old -> {
                List<List<Candidate>> fresh = new ArrayList<>();
                List<Double> ideals = new ArrayList<>();
                for (String query : QUERIES) {
                    fresh.add(ranked(old, null, query));
                    ideals.add(ideal(old, null, query));
                }
                // Another connection writes and a newer read moves the kept epoch past this one.
                other.submitEvent(new EventSubmission("later", ALICE, Role.USER, "咖啡 coffee 猫 cat 早上", null, null, "s",
                        T.plusSeconds(100_000)));
                other.read(newer -> ranked(newer, kept, "咖啡 coffee 猫 cat"));
                for (int i = 0; i < QUERIES.size(); i++) {
                    assertSame(ranked(old, kept, QUERIES.get(i)), fresh.get(i), "an older read");
                    assertThat(ideal(old, kept, QUERIES.get(i))).as("the ideal of an older read").isEqualTo(ideals.get(i));
                }
                return null;
            });
        }
        assertSameAsFresh(kept, "the next read");
    }

    @Test
    @DisplayName("R11 an index being built or of another version keeps nothing, and one kept set never serves another home")
    void buildsAndHomes() throws SQLException, java.io.IOException {
        KeptTerms kept = new KeptTerms(MIN, MIN, KeptTerms.MAX_ROWS);
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("jiyi.db"));
             var st = c.createStatement()) {
            st.execute("UPDATE index_state SET version = 'another' WHERE name = 'fts5'");
            assertSameAsFresh(kept, "an index of another version");
            assertThat(kept.rows()).as("nothing kept").isZero();
            assertThat(postings(kept)).isNull();
            st.execute("UPDATE index_state SET version = '" + Fts5Index.VERSION + "' WHERE name = 'fts5'");
        }
        assertSameAsFresh(kept, "this version's index");
        assertThat(kept.rows()).isPositive();

        Path copy = dir.resolve("copy");
        Files.createDirectories(copy);
        try (Authority second = Authority.open(copy.resolve("jiyi.db"), List.of(new Fts5Index()))) {
            List<EventSubmission> batch = new ArrayList<>();
            Random random = new Random(37);
            for (int i = 0; i < 2_001; i++) {
                batch.add(event(ALICE, text(random)));
            }
            second.submitEvents(batch);
            for (String query : QUERIES) {
                List<Candidate> own = second.read(s -> ranked(s, kept, query));
                List<Candidate> fresh = second.read(s -> ranked(s, null, query));
                assertSame(own, fresh, query + " in a second home");
            }
        }
        assertSameAsFresh(kept, "the first home again");
    }

    @Test
    @DisplayName("R11 kept counts and postings of memories rank as a fresh read after new memories (Chinese, English, mixed)")
    void memories() {
        Random random = new Random(41);
        for (int i = 0; i < 1_200; i++) {
            say(i % 5 == 0 ? BOB : ALICE, text(random));
        }
        KeptTerms kept = new KeptTerms(MIN, MIN, KeptTerms.MAX_ROWS);
        assertSameMemories(kept, "the first read");
        assertThat(kept.rows()).isPositive();
        say(ALICE, "新的咖啡 new Coffee 猫");
        say(BOB, "咖啡 coffee");
        say(ALICE, "没有那些词 none of those words");
        assertSameMemories(kept, "new memories");
    }

    /** A turn and its memory, in Alice's scope or Bob's. */
    private void say(Scope scope, String text) {
        authority.submitEvent(event(scope, text));
        authority.addMemory(scope, MemoryDraft.builder("e" + next).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                .text(text).quote(text).build());
    }

    private void assertSameMemories(KeptTerms kept, String what) {
        for (String query : QUERIES) {
            for (int round = 0; round < 2; round++) {
                List<Candidate> own = authority.read(s -> memories(s, kept, query));
                List<Candidate> fresh = authority.read(s -> memories(s, null, query));
                assertSame(own, fresh, "memories of " + query + ", " + what);
            }
        }
    }

    private static List<Candidate> memories(Snapshot s, KeptTerms kept, String query) {
        try {
            KeptTerms.View view = kept == null ? null : kept.view(s, "memories", Fts5Index.VERSION);
            return new ScopedBm25(s.sql(), "memories", ALICE, false, view).ranked(ChineseTokens.queryTerms(query))
                    .best(Integer.MAX_VALUE, 1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @DisplayName("R11 new rows of more characters than are worth analysing again start the kept entries afresh, and still rank as a fresh read")
    void longNewRows() {
        KeptTerms kept = new KeptTerms(MIN, MIN, KeptTerms.MAX_ROWS);
        assertSameAsFresh(kept, "the first read");
        String shanghai = Fts5Index.termPrefix(ALICE) + "上海";
        KeptTerms.Postings before = authority.read(s -> view(s, kept).postings(shanghai));
        assertThat(before).as("上海's postings are kept").isNotNull();
        authority.submitEvent(event(ALICE, "猫".repeat(30_000) + " cat"));
        KeptTerms.Postings after = authority.read(s -> view(s, kept).postings(shanghai));
        assertThat(after).as("a new row of 30,000 characters not holding 上海 keeps it").isSameAs(before);
        for (int i = 0; i < 4; i++) {
            authority.submitEvent(event(ALICE, "猫".repeat(30_000) + " cat"));
        }
        KeptTerms.Postings afresh = authority.read(s -> view(s, kept).postings(shanghai));
        assertThat(afresh).as("120,000 new characters start afresh").isNull();
        assertSameAsFresh(kept, "after long rows");
    }

    @Test
    @DisplayName("R11 kept postings stay within their bound, the least recently used given up first")
    void bounded() {
        KeptTerms kept = new KeptTerms(MIN, MIN, 3L * MIN);
        for (String query : QUERIES) {
            assertThat(ranked(kept, query)).isNotEmpty();
            assertThat(kept.rows()).isLessThanOrEqualTo(3L * MIN);
        }
        assertThat(kept.rows()).isPositive();
        assertSameAsFresh(kept, "a small bound");
    }

    private void assertSameAsFresh(KeptTerms kept, String what) {
        for (String query : QUERIES) {
            for (int round = 0; round < 2; round++) { // the second round reads the kept entries
                List<Candidate> own = ranked(kept, query);
                List<Candidate> fresh = ranked(null, query);
                assertSame(own, fresh, query + ", " + what);
                double[] ideals = authority.read(s -> new double[] {ideal(s, kept, query), ideal(s, null, query)});
                assertThat(ideals[0]).as("the ideal of %s, %s", query, what).isEqualTo(ideals[1]);
            }
        }
    }

    private static void assertSame(List<Candidate> own, List<Candidate> fresh, String what) {
        assertThat(own).as("rows of %s", what).isNotEmpty().hasSameSizeAs(fresh);
        for (int i = 0; i < own.size(); i++) {
            assertThat(own.get(i).rowId()).as("row %d of %s", i, what).isEqualTo(fresh.get(i).rowId());
            assertThat(own.get(i).score()).as("score %d of %s", i, what)
                    .isCloseTo(fresh.get(i).score(), within(1e-12 * fresh.get(i).score()));
        }
    }

    /** Alice's events ranked for the query by the scope's BM25, through {@code kept} (null: every term read). */
    private List<Candidate> ranked(KeptTerms kept, String query) {
        return authority.read(s -> ranked(s, kept, query));
    }

    private static List<Candidate> ranked(Snapshot s, KeptTerms kept, String query) {
        try {
            return scoped(s, kept).ranked(ChineseTokens.queryTerms(query)).best(Integer.MAX_VALUE, 1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static double ideal(Snapshot s, KeptTerms kept, String query) {
        try {
            return scoped(s, kept).ideal(ChineseTokens.queryTerms(query));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ScopedBm25 scoped(Snapshot s, KeptTerms kept) {
        return new ScopedBm25(s.sql(), "events", ALICE, false, kept == null ? null : view(s, kept));
    }

    /** The kept postings of Alice's 咖啡 at a new read, or null. */
    private KeptTerms.Postings postings(KeptTerms kept) {
        return authority.read(s -> view(s, kept).postings(COFFEE));
    }

    private static KeptTerms.View view(Snapshot s, KeptTerms kept) {
        try {
            return kept.view(s, "events", Fts5Index.VERSION);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
