package dev.jiyi.fts5;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.index.Eligibility;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The FTS5 rows are written inside the authority's transactions with the shared token stream. */
class Fts5IndexTest {

    @TempDir
    Path dir;

    private Authority authority;
    private final Fts5Index index = new Fts5Index();
    private final Scope scope = Scope.DEFAULT;
    private int next;

    @BeforeEach
    void open() {
        authority = Authority.open(dir.resolve("jiyi.db"), List.of(index));
    }

    @AfterEach
    void close() {
        authority.close();
    }

    private long event(Role role, String text) {
        return authority.submitEvent(new EventSubmission("e" + (++next), scope, role, text, null, null, null,
                Instant.parse("2024-05-01T02:00:00Z"))).event().sequence();
    }

    private Memory memory(String eventId, String text, String quote) {
        return authority.addMemory(scope, MemoryDraft.builder(eventId).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                .text(text).quote(quote).build());
    }

    private List<Long> match(String table, String query) throws SQLException {
        String expression = Fts5Terms.literalQuery(scope, query);
        List<Long> rows = new ArrayList<>();
        if (expression == null) {
            return rows;
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("jiyi.db"));
             PreparedStatement ps = c.prepareStatement("SELECT rowid FROM " + table + " WHERE " + table
                     + " MATCH ? ORDER BY rank, rowid")) {
            ps.setString(1, expression);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getLong(1));
                }
            }
        }
        return rows;
    }

    @Test
    @DisplayName("R1 a one-character query 书 finds 本书, and 北京 finds 我在北京大学读书, in raw events")
    void cjkUnigramsAndSubwordsInEvents() throws SQLException {
        long book = event(Role.USER, "我昨天买了一本书");
        long pku = event(Role.USER, "我在北京大学读书");
        long english = event(Role.USER, "I moved to Shanghai last spring");
        assertThat(match("events_fts", "书")).containsExactlyInAnyOrder(book, pku);
        assertThat(match("events_fts", "北京")).containsExactly(pku);
        assertThat(match("events_fts", "大学")).containsExactly(pku);
        assertThat(match("events_fts", "shanghai")).containsExactly(english);
        assertThat(match("events_fts", "SHANGHAI")).containsExactly(english);
    }

    @Test
    @DisplayName("R1 memories are indexed by text, quote, gist and cue keys, in Chinese and English")
    void memoriesIndexed() throws SQLException {
        event(Role.USER, "I prefer green tea, 尤其是西湖龙井");
        Memory tea = authority.addMemory(scope, MemoryDraft.builder("e1").kind(Kind.PREFERENCE)
                .basis(Basis.USER_STATEMENT).text("喜欢绿茶").quote("I prefer green tea").gist("tea preference")
                .cue("photo:IMG_0042").build());
        long row = Long.parseLong(query("SELECT seq FROM memories WHERE id = '" + tea.id() + "'"));
        assertThat(match("memories_fts", "绿茶")).containsExactly(row);
        assertThat(match("memories_fts", "green tea")).containsExactly(row);
        assertThat(match("memories_fts", "preference")).containsExactly(row);
        assertThat(match("memories_fts", "img_0042")).containsExactly(row);
        assertThat(match("memories_fts", "咖啡")).isEmpty();
    }

    @Test
    @DisplayName("R2 FTS5 syntax in a query is searched as literal text and never raises an error")
    void literalQueries() throws SQLException {
        event(Role.USER, "He said \"AND\" NEAR the door: 价格是 -5 ^ 2 (约) * 3");
        List<String> hostile = List.of("\"", "\"\"", "*", "AND", "OR", "NOT", "NEAR(", "NEAR(a b, 3)", "col:xyz",
                "tokens:价格", "-5", "^", "(", ")", "a AND (b OR", "\"unterminated", "书*", "{tokens}: x", "'", "\\",
                "价格 OR 1=1", "“中文引号”", "「括号」");
        for (String q : hostile) {
            match("events_fts", q);
        }
        assertThat(match("events_fts", "NEAR(")).hasSize(1);
        assertThat(match("events_fts", "tokens:价格")).hasSize(1);
        assertThat(match("events_fts", "\"door\"")).hasSize(1);
        assertThat(Fts5Terms.literalQuery(scope, "\"AND\" the a 的")).isNull();
        assertThat(Fts5Terms.literalQuery(scope, "，。！")).isNull();
    }

    @Test
    @DisplayName("R2 random hostile queries never raise an FTS5 syntax error")
    void randomLiteralQueries() throws SQLException {
        event(Role.USER, "我在北京大学读书 and I like books");
        Random random = SeededRandom.create("Fts5IndexTest.randomLiteralQueries");
        for (int i = 0; i < 300; i++) {
            match("events_fts", SeededRandom.mixedText(random, 30));
        }
    }

    @Test
    @DisplayName("S1 R6 scope tokens cannot be named by a query or planted in text")
    void scopeTokensAreReserved() throws SQLException {
        String token = Fts5Terms.scopeToken(scope);
        event(Role.USER, "completely unrelated cooking notes");
        assertThat(Fts5Terms.literalQuery(scope, token)).isNull();
        String k = Fts5Terms.key(scope);
        assertThat(Fts5Terms.contentTokens(scope, "hello " + token + " 世界"))
                .isEqualTo(k + "hello " + k + "世 " + k + "世界 " + k + "界");
        assertThat(authority.<List<dev.jiyi.authority.index.Candidate>>read(snap -> snap.memoryCandidates(index, token, Eligibility.anyTime(scope), 10))).isEmpty();
        assertThat(authority.eventCandidates(index, scope, token + " cooking", 10)).hasSize(1);
    }

    @Test
    @DisplayName("E5 the FTS5 row commits with its event: both or neither")
    void indexRowsAreTransactional() {
        event(Role.USER, "第一条");
        memory("e1", "第一条记忆", "第一条");
        assertThat(count("events")).isEqualTo(count("events_fts")).isEqualTo(1);
        assertThat(count("memories")).isEqualTo(count("memories_fts")).isEqualTo(1);
    }

    private long count(String table) {
        return Long.parseLong(query("SELECT count(*) FROM " + table));
    }

    private String query(String sql) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("jiyi.db"));
             ResultSet rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
