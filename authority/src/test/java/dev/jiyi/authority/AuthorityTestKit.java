package dev.jiyi.authority;

import dev.jiyi.authority.index.TransactionalIndex;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Shared fixtures of the authority behaviour tests: scopes, times, event and memory builders, raw SQL. */
public final class AuthorityTestKit {

    public static final Scope ALICE_WORK = new Scope("alice", "work");
    public static final Scope ALICE_HOME = new Scope("alice", "home");
    public static final Scope BOB_WORK = new Scope("bob", "work");
    public static final Scope CJK_SCOPE = new Scope("小明", "项目-甲");

    public static final String SESSION = "s1";

    private AuthorityTestKit() {
    }

    public static Authority open(Path dir) {
        return Authority.open(dir.resolve("jiyi.db"), List.of());
    }

    public static Authority open(Path dir, TransactionalIndex index) {
        return Authority.open(dir.resolve("jiyi.db"), List.of(index));
    }

    public static Path dbFile(Path dir) {
        return dir.resolve("jiyi.db");
    }

    public static Instant t(String iso) {
        return Times.parse("time", iso);
    }

    public static EventSubmission event(String id, Scope scope, Role role, String text, Instant occurredAt) {
        return new EventSubmission(id, scope, role, text, "test", Category.CONVERSATION, SESSION, occurredAt);
    }

    public static EventSubmission event(String id, Scope scope, Role role, String text) {
        return event(id, scope, role, text, t("2024-05-01T10:00:00+08:00"));
    }

    public static EventSubmission reference(String id, Scope scope, String text) {
        return new EventSubmission(id, scope, Role.USER, text, "test", Category.REFERENCE, SESSION,
                t("2024-05-01T10:00:00+08:00"));
    }

    public static Event submit(Authority a, EventSubmission s) {
        SubmitResult r = a.submitEvent(s);
        return r.event();
    }

    /** A user-stated fact whose quote is the whole event text. */
    public static MemoryDraft.Builder userFact(Event source, String text) {
        return MemoryDraft.builder(source.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT).text(text)
                .quote(source.text());
    }

    /** A timeline member: user-stated fact with subject and fact key, valid from {@code validAt}. */
    public static MemoryDraft timelineFact(Event source, String subject, String key, Instant validAt) {
        return MemoryDraft.builder(source.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text(subject + " " + key + " @ " + validAt).quote(source.text())
                .subject(subject).factKey(key).validAt(validAt).build();
    }

    /**
     * Asserts that {@code call} is rejected as invalid input naming {@code field}, and that none of
     * {@code badValues} appears in the message (O7).
     */
    public static void assertInvalid(ThrowingCallable call, String field, String... badValues) {
        assertThatThrownBy(call).isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).as("field named by the error").isEqualTo(field);
            assertThat(e.getMessage()).as("message names the field").contains(field);
            for (String bad : badValues) {
                assertThat(e.getMessage()).as("message must not echo the input value").doesNotContain(bad);
            }
        });
    }

    /** A raw connection to the same file, outside the authority (foreign keys off unless asked). */
    public static Connection raw(Path file) throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
    }

    public static long count(Path file, String sql) throws SQLException {
        try (Connection c = raw(file); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public static String string(Path file, String sql) throws SQLException {
        try (Connection c = raw(file); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    public static List<String> strings(Path file, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = raw(file); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /**
     * A derived index that writes what it is told into a table of the same database, inside the
     * authority's transaction, so the log shows exactly what committed.
     */
    public static final class RecordingIndex implements TransactionalIndex {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        volatile String failOnEventText;

        @Override
        public void eventAdded(Sql tx, Event event) throws SQLException {
            calls.add("event:" + event.id());
            if (failOnEventText != null && event.text().contains(failOnEventText)) {
                throw new SQLException("index refused the event");
            }
            log(tx.connection(), "event", event.id(), event.text());
        }

        @Override
        public void eventRemoved(Sql tx, Event event) throws SQLException {
            log(tx.connection(), "event-removed", Long.toString(event.sequence()), null);
        }

        @Override
        public void memoryAdded(Sql tx, Memory memory) throws SQLException {
            calls.add("memory:" + memory.id());
            log(tx.connection(), "memory", memory.id(), memory.text() + "|" + String.join("|", memory.cueKeys()));
        }

        @Override
        public void memoryRemoved(Sql tx, Memory memory) throws SQLException {
            long rowId = memory.rowId();
            log(tx.connection(), "memory-removed", Long.toString(rowId), null);
        }

        private static void log(Connection tx, String what, String id, String text) throws SQLException {
            try (Statement s = tx.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS test_index_log (n INTEGER PRIMARY KEY, what TEXT, id TEXT, text TEXT)");
            }
            try (var ps = tx.prepareStatement("INSERT INTO test_index_log (what, id, text) VALUES (?, ?, ?)")) {
                ps.setString(1, what);
                ps.setString(2, id);
                ps.setString(3, text);
                ps.executeUpdate();
            }
        }

        /** What committed into the index log, in order, as {@code what:id}. */
        static List<String> committed(Path file) throws SQLException {
            try (Connection c = raw(file); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM sqlite_master WHERE name = 'test_index_log'")) {
                    rs.next();
                    if (rs.getInt(1) == 0) {
                        return List.of();
                    }
                }
                List<String> out = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT what, id FROM test_index_log ORDER BY n")) {
                    while (rs.next()) {
                        out.add(rs.getString(1) + ":" + rs.getString(2));
                    }
                }
                return out;
            }
        }
    }

    /** The checkpoint's invalidation time as stored, or null. */
    public static String invalidatedAt(Path file, long checkpointId) throws SQLException {
        return string(file, "SELECT invalidated_at FROM checkpoints WHERE id = " + checkpointId);
    }

    /**
     * Every row of every ordinary table (authoritative tables, change log, sequences, test index
     * logs), sorted per table: comparing two dumps proves that nothing changed.
     */
    public static Map<String, List<String>> dump(Path file) throws SQLException {
        Map<String, List<String>> out = new TreeMap<>();
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' "
                    + "AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String table : tables) {
                List<String> rows = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT * FROM \"" + table + "\"")) {
                    ResultSetMetaData md = rs.getMetaData();
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder();
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            Object v = rs.getObject(i);
                            row.append(v instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(v)).append('|');
                        }
                        rows.add(row.toString());
                    }
                }
                rows.sort(Comparator.naturalOrder());
                out.put(table, rows);
            }
        }
        assertThat(out).containsKeys("events", "memories", "relations", "checkpoints", "embeddings", "change_log");
        return out;
    }

    /**
     * Takes back what migrations after {@code version} added to a file made today, so that setting
     * its user_version to {@code version} makes the file as that version left it (for the tests of
     * one migration). Add to it with each new migration that a lower user_version would repeat.
     */
    public static void undoMigrationsAfter(Statement s, int version) throws SQLException {
        if (version < 12) {
            s.execute("ALTER TABLE capture_cursors DROP COLUMN occurred_at");
            s.execute("ALTER TABLE capture_cursors DROP COLUMN ids_at");
        }
        if (version < 11) {
            for (String column : List.of("events_built", "events_target", "memories_built", "memories_target")) {
                s.execute("ALTER TABLE index_state DROP COLUMN " + column);
            }
        }
    }
}
