package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.analysis.QueryCoverage;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.LexicalIndex;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * FTS5's BM25 with one scope's own statistics, for a table that holds rows of several scopes
 * (R11). FTS5 counts a term's IDF over its whole table, so in an archive of many personas a word
 * that one persona uses all the time (its own name, its cat's) is rare in the table and outweighs
 * the words that tell that persona's rows apart. A scope here is ranked as it would be in a file of
 * its own, except that row lengths are compared with the table's average (FTS5 keeps no per-scope
 * totals).
 *
 * <p>How: each query term is searched alone within the scope. FTS5 ranks every row holding it by
 * {@code idf(t) × s(t, row)}, its BM25 of one phrase (the scope column weighs 0), where {@code s}
 * is the term's saturation in the row, {@code tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))}.
 * Dividing by the table's IDF, computed as FTS5 does from its row count (its averages record) and
 * the term's rows, leaves {@code s}; the scope's IDF, from the scope's rows and the rows that
 * search returned, multiplies it. Summed over the terms, that is the row's BM25 over the scope.
 * It costs one search per distinct term. Each reads the scope's rows holding the term, and, since
 * FTS5's BM25 counts every phrase's rows in the table for its IDF, also all the table's rows holding
 * the term and all the scope's rows (the scope phrase, weight 0 but counted): so the per-term
 * search asks FTS5 for the term alone, whose rank is then exactly the table's IDF times the
 * saturation, and keeps the rows of the scope by the authority's primary key (a term's rows in the
 * table, all scopes, where a scope phrase would read every row of the scope once per term: 65 % of a
 * whole recall at a million rows, most of a large scope's cost). The results are kept
 * for the rest of the read ({@link Fts5Index} keeps one of these per snapshot, table and scope), so
 * the views of a dialogue and the evidence share them.
 */
final class ScopedBm25 {

    private final Sql sql;
    private final String table;
    private final String scopeToken;
    private final Scope scope;
    /** The authority's table the FTS5 table indexes, and its primary key (the FTS5 rowid). */
    private final String rowsTable;
    private final String rowKey;
    private final boolean alone;
    private final Map<String, Hits> hits = new HashMap<>();
    private final Map<String, Long> tableHolding = new HashMap<>();
    private final Map<String, Long> scopeHolding = new HashMap<>();
    private long tableRows = -1;
    private long scopeRows = -1;

    /**
     * @param alone whether the scope has every row of the table: then its statistics are the
     *              table's, and the per-term searches need no scope filter
     */
    ScopedBm25(Sql sql, String rowsTable, String rowKey, Scope scope, boolean alone) {
        this.sql = sql;
        this.table = rowsTable + "_fts";
        this.rowsTable = rowsTable;
        this.rowKey = rowKey;
        this.scope = scope;
        this.scopeToken = Fts5Terms.scopeToken(scope);
        this.alone = alone;
    }

    /**
     * Whether every row of the authority's {@code table} (so of its FTS5 table) is the scope's: the
     * first and the last scope in the table's scope index are both this one (two index seeks).
     */
    static boolean alone(Sql sql, String table, Scope scope) throws SQLException {
        for (String order : List.of("", " DESC")) {
            PreparedStatement ps = sql.prepare("SELECT persona_id, project_id FROM " + table
                    + " ORDER BY persona_id" + order + ", project_id" + order + " LIMIT 1");
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && !(rs.getString(1).equals(scope.personaId()) && rs.getString(2).equals(scope.projectId()))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether the scope has every row of the table (FTS5's own ranking is then the scope's). */
    boolean alone() {
        return alone;
    }

    /** The rows of the scope holding a term, and the term's saturation in each. */
    private record Hits(long[] rows, double[] saturation) {
    }

    /** The scope's rows in the table. */
    long scopeRows() throws SQLException {
        if (scopeRows < 0) {
            scopeRows = alone ? tableRows() : documents(scopeToken, "scope");
        }
        return scopeRows;
    }

    /**
     * Every row of the scope holding any of {@code terms}, with its BM25 over the scope, best first;
     * equal scores newest row first.
     */
    List<Candidate> ranked(List<String> terms) throws SQLException {
        Map<Long, Double> scores = new HashMap<>();
        for (String term : terms) {
            Hits h = hits(term);
            double idf = idf(scopeRows(), h.rows.length);
            for (int i = 0; i < h.rows.length; i++) {
                scores.merge(h.rows[i], idf * h.saturation[i], Double::sum);
            }
        }
        return bestFirst(scores);
    }

    /**
     * Every row of the scope holding at least {@code least} of {@code terms}, scored by how much of
     * the query it holds: the sum of the scope's IDF of each term it holds, however often and however
     * long the row (the part of BM25 that measures the query, not the row). Best first; equal sums
     * newest row first.
     */
    List<Candidate> held(List<String> terms, int least) throws SQLException {
        Map<Long, Double> sums = new HashMap<>();
        Map<Long, Integer> counts = new HashMap<>();
        for (String term : terms) {
            Hits h = hits(term);
            double idf = idf(scopeRows(), h.rows.length);
            for (long row : h.rows) {
                sums.merge(row, idf, Double::sum);
                counts.merge(row, 1, Integer::sum);
            }
        }
        if (least > 1) {
            sums.keySet().removeIf(row -> counts.get(row) < least);
        }
        return bestFirst(sums);
    }

    private static List<Candidate> bestFirst(Map<Long, Double> scores) {
        List<Candidate> out = new ArrayList<>(scores.size());
        for (Map.Entry<Long, Double> e : scores.entrySet()) {
            out.add(new Candidate(e.getKey(), Math.max(e.getValue(), Double.MIN_VALUE)));
        }
        out.sort(Comparator.comparingDouble(Candidate::score).reversed()
                .thenComparing(Comparator.comparingLong(Candidate::rowId).reversed()));
        return out;
    }

    /**
     * The query's ideal over the scope ({@link LexicalIndex#ideal}): each term's IDF over the scope
     * (what a row of average length holding it once scores), a term no row of the scope holds as if
     * one did. Where the scope is alone, the counts are the table's (its vocabulary; no search).
     */
    double ideal(List<String> terms) throws SQLException {
        Map<String, Double> held = new HashMap<>();
        Map<String, Double> absent = new HashMap<>();
        long rows = scopeRows();
        for (String term : terms) {
            long n = alone ? tableHolding(term) : scopeHolding(term);
            (n > 0 ? held : absent).put(term, idf(Math.max(rows, 1), Math.max(n, 1)));
        }
        return QueryCoverage.ideal(held, absent);
    }

    /** What a search of this table asks for ({@link QueryCoverage#searched}), by the table's rows holding each term. */
    List<String> searched(List<String> terms) {
        return QueryCoverage.searched(terms, term -> {
            try {
                return tableHolding(term);
            } catch (SQLException e) {
                throw new StorageException("counting the rows that hold a query term", e);
            }
        });
    }

    /** FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), 1e-6 where that is not positive. */
    static double idf(long rows, long holding) {
        double idf = Math.log((rows - holding + 0.5) / (holding + 0.5));
        return idf <= 0 ? 1e-6 : idf;
    }

    private Hits hits(String term) throws SQLException {
        Hits cached = hits.get(term);
        if (cached != null) {
            return cached;
        }
        double tableIdf = idf(tableRows(), tableHolding(term));
        PreparedStatement ps;
        if (alone) {
            ps = sql.prepare("SELECT rowid, rank FROM " + table + " WHERE " + table + " MATCH ?");
        } else {
            // The term alone (rank: the table's IDF times the saturation), the scope's rows kept by
            // primary key (the unary + keeps the planner off the scope's index: see Snapshot.turnContexts).
            ps = sql.prepare("SELECT f.rowid, f.rank FROM " + table + " f JOIN " + rowsTable + " r ON r." + rowKey
                    + " = f.rowid AND +r.persona_id = ? AND +r.project_id = ? WHERE " + table + " MATCH ?");
            ps.setString(1, scope.personaId());
            ps.setString(2, scope.projectId());
        }
        ps.setString(alone ? 1 : 3, "tokens : " + quoted(term));
        long[] rows = new long[16];
        double[] saturation = new double[16];
        int n = 0;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (n == rows.length) {
                    rows = java.util.Arrays.copyOf(rows, 2 * n);
                    saturation = java.util.Arrays.copyOf(saturation, 2 * n);
                }
                rows[n] = rs.getLong(1);
                saturation[n++] = -rs.getDouble(2) / tableIdf;
            }
        }
        Hits h = new Hits(java.util.Arrays.copyOf(rows, n), java.util.Arrays.copyOf(saturation, n));
        hits.put(term, h);
        return h;
    }

    /**
     * The scope's rows holding a term: those its search found, if it ran, else counted (FTS5 counts
     * a match without ranking it, so a term the search prunes costs its count only); once a read.
     */
    private long scopeHolding(String term) throws SQLException {
        Hits h = hits.get(term);
        if (h != null) {
            return h.rows.length;
        }
        Long cached = scopeHolding.get(term);
        if (cached == null) {
            PreparedStatement ps = sql.prepare("SELECT count(*) FROM " + table + " WHERE " + table + " MATCH ?");
            ps.setString(1, "scope : \"" + scopeToken + "\" AND tokens : " + quoted(term));
            try (ResultSet rs = ps.executeQuery()) {
                cached = rs.next() ? rs.getLong(1) : 0;
            }
            scopeHolding.put(term, cached);
        }
        return cached;
    }

    /**
     * The rows FTS5's BM25 counts for the table's IDF of a term: for a term of one piece its
     * vocabulary count, for one of several (a phrase) the rows the phrase matches; counted once a read.
     */
    private long tableHolding(String term) throws SQLException {
        Long cached = tableHolding.get(term);
        if (cached == null) {
            cached = countTableHolding(term);
            tableHolding.put(term, cached);
        }
        return cached;
    }

    private long countTableHolding(String term) throws SQLException {
        List<String> pieces = ChineseTokens.storedPieces(term);
        if (pieces.size() == 1) {
            return documents(pieces.get(0), "tokens");
        }
        PreparedStatement ps = sql.prepare("SELECT count(*) FROM " + table + " WHERE " + table + " MATCH ?");
        ps.setString(1, "tokens : " + quoted(term));
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /**
     * The rows holding one stored term in one column, from the table's vocabulary by column (text
     * cannot put a scope-like word into the count of the scope column, nor the reverse).
     */
    private long documents(String piece, String column) throws SQLException {
        String vocabulary = "temp." + table + "_columns";
        sql.execute("CREATE VIRTUAL TABLE IF NOT EXISTS " + vocabulary + " USING fts5vocab(main, " + table + ", col)");
        PreparedStatement ps = sql.prepare("SELECT doc FROM " + vocabulary + " WHERE term = ? AND col = ?");
        ps.setString(1, piece);
        ps.setString(2, column);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /**
     * The table's row count as FTS5's BM25 reads it: the first varint of its averages record (row 1
     * of {@code <table>_data}), the count of rows, followed by each column's token total.
     */
    private long tableRows() throws SQLException {
        if (tableRows < 0) {
            try (ResultSet rs = sql.prepare("SELECT block FROM " + table + "_data WHERE id = 1").executeQuery()) {
                tableRows = rs.next() ? varint(rs.getBytes(1)) : 0;
            }
        }
        return tableRows;
    }

    /** SQLite's varint at the start of {@code bytes}: big-endian, seven bits a byte, the ninth whole. */
    static long varint(byte[] bytes) {
        long v = 0;
        for (int i = 0; i < Math.min(9, bytes == null ? 0 : bytes.length); i++) {
            int b = bytes[i] & 0xFF;
            if (i == 8) {
                return (v << 8) | b;
            }
            v = (v << 7) | (b & 0x7F);
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        return v;
    }

    private static String quoted(String term) {
        return '"' + term.replace("\"", "\"\"") + '"';
    }
}
