package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * R11: the scope's own BM25 ({@link ScopedBm25}) is FTS5's BM25 taken apart term by term and put
 * together again with the scope's statistics; where the scope is alone in its table, the two must
 * agree exactly, or the per-term parts are not what FTS5 computes.
 */
class ScopedBm25Test {

    @TempDir
    Path dir;

    private Authority authority;
    private final Scope scope = Scope.DEFAULT;
    private int next;

    @BeforeEach
    void open() {
        authority = Authority.open(dir.resolve("jiyi.db"), List.of(new Fts5Index()));
    }

    @AfterEach
    void close() {
        authority.close();
    }

    private void say(String text) {
        authority.submitEvent(new EventSubmission("e" + (++next), scope, Role.USER, text, null, null, null,
                Instant.parse("2024-05-01T02:00:00Z").plusSeconds(next)));
    }

    @Test
    @DisplayName("R11 where the scope is alone, its own BM25 equals FTS5's: same rows, same order, same scores (Chinese, English, mixed, phrases, a term in most rows)")
    void equalsFts5WhereAlone() throws SQLException {
        Random random = new Random(11);
        String[] words = {"咖啡", "coffee", "上海", "Shanghai", "猫", "cat", "e-mail", "北京大学", "guitar", "吉他",
                "morning", "早上", "walk", "散步", "budget", "预算"};
        for (int i = 0; i < 80; i++) {
            StringBuilder text = new StringBuilder("常见 common");
            int n = 1 + random.nextInt(8);
            for (int w = 0; w < n; w++) {
                text.append(' ').append(words[random.nextInt(words.length)]);
            }
            say(text.toString());
        }
        for (String query : List.of("咖啡 coffee", "common 常见 cat", "send the e-mail from 北京大学",
                "我早上喜欢散步 and a guitar", "上海的预算 budget Shanghai morning")) {
            List<String> terms = ChineseTokens.queryTerms(query);
            for (boolean alone : new boolean[] {true, false}) { // searched with the scope filter or without
                List<Candidate> own = ranked(scope, terms, alone);
                assertEqual(own, fts5(terms), query);
            }
        }
    }

    private static void assertEqual(List<Candidate> own, List<Candidate> fts5, String query) {
        assertThat(own).as("rows of %s", query).hasSameSizeAs(fts5);
        for (int i = 0; i < own.size(); i++) {
            assertThat(own.get(i).rowId()).as("row %d of %s", i, query).isEqualTo(fts5.get(i).rowId());
            assertThat(own.get(i).score()).as("score %d of %s", i, query)
                    .isCloseTo(fts5.get(i).score(), within(1e-9 * fts5.get(i).score()));
        }
    }

    /** FTS5's own OR'ed search of the terms in the scope, ranked by its BM25 (negated). */
    private List<Candidate> fts5(List<String> terms) {
        return authority.read(s -> {
            try {
                PreparedStatement ps = s.sql().prepare("SELECT rowid, rank FROM events_fts WHERE events_fts MATCH ? "
                        + "ORDER BY rank, rowid DESC");
                ps.setString(1, Fts5Terms.match(Fts5Terms.literal(scope, terms)));
                List<Candidate> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Candidate(rs.getLong(1), -rs.getDouble(2)));
                    }
                }
                return out;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    @DisplayName("R11 S1 a word is a different FTS5 term in each scope (Chinese, English, mixed): its document frequency is the scope's, and another scope's rows are not read")
    void termsAreScoped() throws SQLException {
        Scope other = new Scope("bob", "work");
        for (int i = 0; i < 6; i++) {
            say("我喜欢咖啡 coffee 第" + i + "天");
        }
        for (int i = 0; i < 9; i++) {
            authority.submitEvent(new EventSubmission("o" + i, other, Role.USER, "咖啡 coffee and tea " + i, null, null, null,
                    Instant.parse("2024-05-02T02:00:00Z").plusSeconds(i)));
        }
        for (String said : List.of("咖啡", "coffee")) {
            String word = ChineseTokens.queryTerms(said).getFirst(); // as the analysis stores it (English is stemmed)
            assertThat(documents(Fts5Terms.key(scope) + word)).as("%s in the first scope", word).isEqualTo(6);
            assertThat(documents(Fts5Terms.key(other) + word)).as("%s in the second scope", word).isEqualTo(9);
            assertThat(documents(word)).as("%s without a scope's key", word).isZero();
        }
        List<String> terms = ChineseTokens.queryTerms("咖啡 coffee tea");
        List<Candidate> mine = ranked(scope, terms, false);
        assertThat(mine).hasSize(6).allMatch(c -> c.rowId() <= 6, "one of the first scope's rows");

        // Each scope's rows, kept with the rows themselves, also through a deletion.
        assertThat(scopeRows(scope)).isEqualTo(6);
        assertThat(scopeRows(other)).isEqualTo(9);
        authority.deleteEvent(other, "o3");
        assertThat(scopeRows(other)).isEqualTo(8);
        assertThat(scopeRows(new Scope("nobody", "none"))).isZero();
    }

    private long scopeRows(Scope s) {
        return authority.read(snap -> {
            try {
                return new ScopedBm25(snap.sql(), "events", s, false, null).scopeRows();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    @DisplayName("R11 where other scopes share the table, a scope's rows score its own BM25: its rows and its rows holding each term, the table's average length (zh, en, mixed)")
    void scoresTheScopesOwnBm25InASharedTable() throws SQLException {
        Scope other = new Scope("bob", "work");
        List<String> mine = List.of("kiwi 猕猴桃", "kiwi mango 芒果", "mango mango plum", "plum 李子 tea", "猕猴桃 kiwi kiwi");
        List<String> theirs = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            theirs.add(i % 3 == 0 ? "kiwi 猕猴桃 juice" : "kiwi juice " + i); // common there, so rare in the table would mislead
        }
        for (String text : mine) {
            say(text);
        }
        for (int i = 0; i < theirs.size(); i++) {
            authority.submitEvent(new EventSubmission("o" + i, other, Role.USER, theirs.get(i), null, null, null,
                    Instant.parse("2024-05-02T02:00:00Z").plusSeconds(i)));
        }
        List<String> terms = ChineseTokens.queryTerms("kiwi 猕猴桃 plum");
        // BM25 by hand, as FTS5 computes it (k1 1.2, b 0.75; a row's length counts its scope token),
        // with the scope's row count and the scope's rows holding each term.
        List<List<String>> myTokens = new ArrayList<>();
        long tokens = 0;
        for (String text : mine) {
            myTokens.add(pieces(text));
            tokens += pieces(text).size() + 1;
        }
        for (String text : theirs) {
            tokens += pieces(text).size() + 1;
        }
        double avgdl = (double) tokens / (mine.size() + theirs.size());
        java.util.Map<Long, Double> expected = new java.util.HashMap<>();
        for (String term : terms) {
            long holding = myTokens.stream().filter(t -> t.contains(term)).count();
            double idf = ScopedBm25.idf(mine.size(), holding);
            for (int row = 0; row < mine.size(); row++) {
                long tf = myTokens.get(row).stream().filter(term::equals).count();
                if (tf > 0) {
                    double dl = myTokens.get(row).size() + 1;
                    expected.merge(row + 1L, idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl)), Double::sum);
                }
            }
        }
        List<Candidate> own = ranked(scope, terms, false);
        assertThat(own).extracting(Candidate::rowId).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Candidate c : own) {
            assertThat(c.score()).as("row %d", c.rowId()).isCloseTo(expected.get(c.rowId()), within(1e-9 * expected.get(c.rowId())));
        }
    }

    /** The pieces FTS5 stores for a text, without the scope's key: what BM25 counts in a row. */
    private static List<String> pieces(String text) {
        List<String> out = new ArrayList<>();
        for (String term : Fts5Terms.contentTerms(text)) {
            out.addAll(ChineseTokens.storedPieces(term));
        }
        return out;
    }

    /** Every row of the scope's events holding any of the terms, by the scope's own BM25, best first. */
    private List<Candidate> ranked(Scope s, List<String> terms, boolean alone) {
        return authority.read(snap -> {
            try {
                return new ScopedBm25(snap.sql(), "events", s, alone, null).ranked(terms).best(Integer.MAX_VALUE, 1);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The rows of events_fts holding a stored term, from its vocabulary. */
    private long documents(String term) {
        return authority.read(s -> {
            try {
                s.sql().execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.test_vocab USING fts5vocab(main, events_fts, row)");
                PreparedStatement ps = s.sql().prepare("SELECT doc FROM temp.test_vocab WHERE term = ?");
                ps.setString(1, term);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0L;
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    @DisplayName("SQLite varints: one byte, several, the ninth byte whole")
    void varints() {
        assertThat(ScopedBm25.varint(new byte[] {0x05})).isEqualTo(5);
        assertThat(ScopedBm25.varint(new byte[] {(byte) 0x81, 0x00})).isEqualTo(128);
        assertThat(ScopedBm25.varint(new byte[] {(byte) 0x82, (byte) 0x80, 0x01})).isEqualTo(2 * 16384 + 1);
        byte[] nine = new byte[9];
        java.util.Arrays.fill(nine, (byte) 0xFF);
        assertThat(ScopedBm25.varint(nine)).isEqualTo(-1L);
    }
}
