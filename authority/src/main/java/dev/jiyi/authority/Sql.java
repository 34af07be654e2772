package dev.jiyi.authority;

import dev.jiyi.authority.index.Eligibility;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The authority's connection with its prepared statements kept for reuse: a statement is compiled
 * once per connection and SQL text, not once per call (a profile of batch ingestion put a third of
 * its SQLite time in statement preparation). The authority's concept classes read and write through
 * it, and so does an index that lives in the same database (FTS5), inside the authority's
 * transactions.
 *
 * <p>A statement from {@link #prepare} is shared: never close it, bind every parameter before each
 * execution, and read its result set to the end (or close it) before the same SQL is executed again.
 * Variable-length lists are bound as one JSON array ({@code IN (SELECT value FROM json_each(?))},
 * see {@link #jsonArray}) so that their SQL text, and so their statement, does not depend on the
 * list's length. Used by one thread at a time, as the authority is.
 */
public final class Sql {

    private final Connection connection;
    private final Map<String, PreparedStatement> statements = new HashMap<>();
    private Statement plain;

    public Sql(Connection connection) {
        this.connection = connection;
    }

    /** The statement for this SQL on this connection, compiled on first use. */
    public PreparedStatement prepare(String sql) throws SQLException {
        PreparedStatement ps = statements.get(sql);
        if (ps == null || ps.isClosed()) { // closed by a careless caller: compiled again
            ps = connection.prepareStatement(sql);
            statements.put(sql, ps);
        }
        return ps;
    }

    /** Runs SQL without parameters or results (transaction control, PRAGMAs, FTS5 commands). */
    public void execute(String sql) throws SQLException {
        if (plain == null) {
            plain = connection.createStatement();
        }
        plain.execute(sql);
    }

    /** Makes a value of the current row of a result set. */
    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    /** Runs {@code ps} and maps every row, fully read before any other statement runs. */
    public static <T> List<T> list(PreparedStatement ps, RowMapper<T> mapper) throws SQLException {
        List<T> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(mapper.map(rs));
            }
        }
        return out;
    }

    /** Runs {@code ps} and maps its first row, if there is one. */
    public static <T> java.util.Optional<T> first(PreparedStatement ps, RowMapper<T> mapper) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? java.util.Optional.of(mapper.map(rs)) : java.util.Optional.empty();
        }
    }

    /**
     * Runs {@code ps}, an INSERT into a table whose INTEGER PRIMARY KEY is its rowid, and returns the
     * new row's key. Not {@code INSERT ... RETURNING}: SQLite gathers RETURNING rows in an ephemeral
     * table per execution, and at a million rows that made an event's insert about 30 % slower
     * (batch ingestion 5,200 to 7,200 events/s against 8,600 to 9,400 without it).
     */
    public long insert(PreparedStatement ps) throws SQLException {
        ps.executeUpdate();
        try (ResultSet rs = prepare("SELECT last_insert_rowid()").executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Runs {@code ps} (a query, or a write with RETURNING) and returns its first column as text, every
     * row, fully read before any other statement runs.
     */
    public static List<String> strings(PreparedStatement ps) throws SQLException {
        return list(ps, rs -> rs.getString(1));
    }

    /**
     * The SQL condition for the memories an {@link Eligibility} admits, on the memories table under
     * {@code alias}: scope, not revoked, and valid at the time unless history is included. Its
     * columns are all in the covering index {@code memories_scope_seq}, so a check never reads a
     * memory row. Bind its parameters with {@link #bindEligible}.
     */
    public static String eligible(String alias, Eligibility filter) {
        String m = alias + ".";
        return m + "persona_id = ? AND " + m + "project_id = ? AND " + m + "revoked_at IS NULL"
                + (filter.includeHistory() ? "" : " AND " + validAt(alias));
    }

    /**
     * T3 on the memories table under {@code alias}: valid at a time, bound twice
     * ({@code valid_at <= at < invalid_at}, an open {@code invalid_at} being NULL).
     */
    static String validAt(String alias) {
        String m = alias + ".";
        return m + "valid_at <= ? AND (" + m + "invalid_at IS NULL OR " + m + "invalid_at > ?)";
    }

    /** Binds {@link #eligible}'s parameters from index {@code first}; returns the next free index. */
    public static int bindEligible(PreparedStatement ps, int first, Eligibility filter) throws SQLException {
        ps.setString(first, filter.scope().personaId());
        ps.setString(first + 1, filter.scope().projectId());
        if (filter.includeHistory()) {
            return first + 2;
        }
        ps.setString(first + 2, Times.format(filter.at()));
        ps.setString(first + 3, Times.format(filter.at()));
        return first + 4;
    }

    /** Numbers as a JSON array, to bind to {@code json_each(?)}. */
    public static String jsonArray(Collection<Long> values) {
        StringBuilder sb = new StringBuilder(values.size() * 8 + 2).append('[');
        for (Long v : values) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append(v.longValue());
        }
        return sb.append(']').toString();
    }

    /** The connection itself, for what a shared statement cannot do (a one-off scan in a rebuild). */
    public Connection connection() {
        return connection;
    }

    /** Closes the kept statements (the connection stays open). */
    public void closeStatements() {
        for (PreparedStatement ps : statements.values()) {
            try {
                ps.close();
            } catch (SQLException ignored) {
                // closing a compiled statement only frees it; the connection is closed next anyway
            }
        }
        statements.clear();
        if (plain != null) {
            try {
                plain.close();
            } catch (SQLException ignored) {
                // as above
            }
            plain = null;
        }
    }
}
