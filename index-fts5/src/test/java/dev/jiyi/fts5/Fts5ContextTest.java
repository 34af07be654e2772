package dev.jiyi.fts5;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The context rows of the FTS5 index (migration 8) stay exactly what the turns around each turn say,
 * through arrivals and deletions in any order of times: every row is deleted with the tokens it was
 * written with (else FTS5's secure delete corrupts the table), and a rebuild gives the same rows.
 */
class Fts5ContextTest {

    @TempDir
    Path dir;

    private final Scope scope = new Scope("p", "q");

    private Path db() {
        return dir.resolve("jiyi.db");
    }

    /** Every (row, column, term) of context_fts but scope tokens, and whether FTS5's integrity check passes. */
    private String contents() throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.ci USING fts5vocab(main, context_fts, instance)");
            TreeSet<String> rows = new TreeSet<>();
            try (ResultSet rs = s.executeQuery("SELECT doc, col, term FROM temp.ci WHERE term NOT LIKE 'jiyiscope%'")) {
                while (rs.next()) {
                    rows.add(rs.getLong(1) + " " + rs.getString(2) + " " + rs.getString(3));
                }
            }
            s.execute("INSERT INTO context_fts (context_fts, rank) VALUES ('integrity-check', 0)");
            return String.join("\n", rows);
        }
    }

    private String rebuilt() throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement s = c.createStatement()) {
            s.execute("UPDATE index_state SET version = 'stale' WHERE name = 'fts5'");
        }
        try (Authority a = Authority.open(db(), List.of(new Fts5Index()))) {
            a.doctor();
        }
        return contents();
    }

    private void submit(Authority a, String id, String text, String session, Instant at) {
        a.submitEvent(new EventSubmission(id, scope, Role.USER, text, null, null, session, at));
    }

    @Test
    @DisplayName("D1 R4 a deletion that brings a turn an hour away into reach rewrites its context: the rows equal a rebuild, and later deletions leave nothing")
    void outOfOrderDeletion() throws Exception {
        Instant t = Instant.parse("2024-05-01T10:00:00Z");
        try (Authority a = Authority.open(db(), List.of(new Fts5Index()))) {
            submit(a, "a", "alphaword 阿尔法", "s", t);
            submit(a, "b", "bravoword 布拉沃", "s", t.plus(Duration.ofMinutes(10)));
            submit(a, "e", "echoword 回声", "s", Instant.parse("2020-01-01T00:00:00Z")); // a note backfilled years earlier
            submit(a, "x", "xrayword 射线", "s", t.plus(Duration.ofMinutes(30)));
            a.deleteEvent(scope, "e");
        }
        String incremental = contents();
        assertThat(incremental).contains("4 near bravoword", "4 far alphaword").doesNotContain("echoword");
        assertThat(rebuilt()).isEqualTo(incremental);
        try (Authority a = Authority.open(db(), List.of(new Fts5Index()))) {
            for (String id : List.of("x", "b", "a")) {
                a.deleteEvent(scope, id);
                contents(); // the integrity check passes after every deletion
            }
        }
        assertThat(contents()).isEmpty();
    }

    @Test
    @DisplayName("D1 R4 seeded: random turns in three sessions at random times, random deletions: after each step the context rows pass FTS5's check, and at the end equal a rebuild")
    void randomArrivalsAndDeletions() throws Exception {
        Random random = SeededRandom.create("Fts5ContextTest.randomArrivalsAndDeletions");
        Instant t = Instant.parse("2024-05-01T10:00:00Z");
        List<String> live = new ArrayList<>();
        try (Authority a = Authority.open(db(), List.of(new Fts5Index()))) {
            for (int i = 0; i < 60; i++) {
                if (!live.isEmpty() && random.nextInt(4) == 0) {
                    String id = live.remove(random.nextInt(live.size()));
                    a.deleteEvent(scope, id);
                } else {
                    String id = "t" + i;
                    // Mostly minutes apart, sometimes hours or years away: gaps and out-of-order times.
                    Instant at = switch (random.nextInt(6)) {
                        case 0 -> t.minus(Duration.ofDays(random.nextInt(2000)));
                        case 1 -> t.plus(Duration.ofHours(2 + random.nextInt(5)));
                        default -> t.plus(Duration.ofMinutes(random.nextInt(50)));
                    };
                    submit(a, id, "word" + i + " 词" + i + " " + SeededRandom.mixedText(random, 12), "s" + random.nextInt(3),
                            at);
                    live.add(id);
                }
                contents();
            }
        }
        String incremental = contents();
        assertThat(rebuilt()).isEqualTo(incremental);
    }
}
