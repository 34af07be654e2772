package dev.jiyi.fts5;

import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * Each scope's rows in each FTS5 table, kept in {@code fts5_scope_rows} ({@link Fts5Index} owns the
 * table and writes it in the rows' own transactions): the row count a scope's BM25 divides by
 * ({@link ScopedBm25}), which FTS5 itself could give only by walking the scope token's postings.
 */
final class ScopeRows {

    private ScopeRows() {
    }

    /** Adds {@code change} to the scope's rows in {@code table}. */
    static void add(Sql tx, String table, Scope scope, int change) throws SQLException {
        PreparedStatement ps = tx.prepare("INSERT INTO fts5_scope_rows (tbl, scope, rows) VALUES (?, ?, ?) "
                + "ON CONFLICT (tbl, scope) DO UPDATE SET rows = rows + excluded.rows");
        ps.setString(1, table);
        ps.setString(2, Fts5Terms.key(scope));
        ps.setInt(3, change);
        ps.executeUpdate();
    }

    /** The scope's rows in {@code table}, as kept (0 for a scope never written). */
    static long of(Sql sql, String table, Scope scope) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT rows FROM fts5_scope_rows WHERE tbl = ? AND scope = ?");
        ps.setString(1, table);
        ps.setString(2, Fts5Terms.key(scope));
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /**
     * How many scopes' kept counts differ from the authority's rows of that scope in {@code table}
     * (a wrong count skews the scope's ranking, even where the table's total is right).
     */
    static int outOfStep(Sql tx, String table) throws SQLException {
        Map<String, Long> rows = new HashMap<>();
        try (ResultSet rs = tx.prepare("SELECT persona_id, project_id, count(*) FROM " + table
                + " GROUP BY persona_id, project_id").executeQuery()) {
            while (rs.next()) {
                rows.put(Fts5Terms.key(new Scope(rs.getString(1), rs.getString(2))), rs.getLong(3));
            }
        }
        PreparedStatement ps = tx.prepare("SELECT scope, rows FROM fts5_scope_rows WHERE tbl = ?");
        ps.setString(1, table);
        int wrong = 0;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Long held = rows.remove(rs.getString(1));
                if (held == null ? rs.getLong(2) != 0 : held != rs.getLong(2)) {
                    wrong++;
                }
            }
        }
        return wrong + rows.size(); // a scope with rows and no count at all
    }
}
