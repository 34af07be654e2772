package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.analysis.QueryCoverage;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.index.LexicalIndex;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * FTS5's BM25 with one scope's own statistics, for a table that holds rows of several scopes
 * (R11). FTS5 counts a term's IDF over its whole table, so in an archive of many personas a word
 * that one persona uses all the time (its own name, its cat's) would be rare in the table and
 * outweigh the words that tell that persona's rows apart. A scope here is ranked as it would be in
 * a file of its own, except that row lengths are compared with the table's average (FTS5 keeps no
 * per-scope totals).
 *
 * <p>How: every term is stored behind its scope's key ({@link Fts5Terms#tokens}), so FTS5's
 * document frequency of a scoped term is the scope's, and a search of it reads the scope's rows
 * only. What FTS5 does not have is the scope's row count: its IDF divides by the table's. So each
 * query term is searched alone, for every row holding it and the term's saturation in the row,
 * {@code s = tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))}; the scope's IDF, from the scope's rows
 * and the rows found, multiplies it. Summed over the terms, that is the row's BM25 over the scope.
 * A term stored as one token is read from FTS5's index with its occurrences per row, and {@code s}
 * computed here as FTS5 computes it, with the rows' lengths from {@link Fts5Lengths}; a phrase (a
 * term of several pieces) is ranked by FTS5, {@code idf(t) × s(t, row)} (the scope column weighs 0),
 * and divided by FTS5's IDF, computed as FTS5 does from the table's row count (its averages record)
 * and the rows the search returned. It costs one search per distinct term, each reading the scope's
 * rows that hold it. The results are kept for the rest of the read
 * ({@link Fts5Index} keeps one of these per snapshot, table and scope), so the views of a dialogue
 * and the evidence share them; the counts and postings of common terms are kept across reads too
 * ({@link KeptTerms}).
 */
final class ScopedBm25 {

    private final Sql sql;
    private final String table;
    private final String key;
    private final String rowsTable;
    private final Scope scope;
    private final boolean alone;
    private final Map<String, Hits> hits = new HashMap<>();
    private final Map<String, Long> holding = new HashMap<>();
    private long tableRows = -1;
    private double averageLength = -1;
    private Fts5Lengths.Reader lengths;
    private boolean lengthsRead;
    private long scopeRows = -1;
    private final KeptTerms.View kept;

    /**
     * @param rowsTable the authority's table the FTS5 table indexes ({@code <rowsTable>_fts})
     * @param alone     whether the scope has every row of the table: then its statistics are the
     *                  table's, and FTS5's own ranking is the scope's
     * @param kept      the table's common terms' counts and postings, and its blocks of row lengths,
     *                  kept across reads, at this read ({@link KeptTerms#view}), or null to count and
     *                  read everything
     */
    ScopedBm25(Sql sql, String rowsTable, Scope scope, boolean alone, KeptTerms.View kept) {
        this.sql = sql;
        this.kept = kept;
        this.rowsTable = rowsTable;
        this.scope = scope;
        this.table = rowsTable + "_fts";
        this.key = Fts5Terms.key(scope);
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

    /** The rows of the scope holding a term, in row order, and the term's saturation in each. */
    private record Hits(long[] rows, double[] saturation) {
    }

    /** The scope's rows in the table (kept by {@link ScopeRows}). */
    long scopeRows() throws SQLException {
        if (scopeRows < 0) {
            if (alone) {
                scopeRows = tableRows();
            } else {
                scopeRows = ScopeRows.of(sql, rowsTable, scope);
            }
        }
        return scopeRows;
    }

    /**
     * Every row of the scope holding any of {@code terms}, with its BM25 over the scope (the best
     * taken with {@link RowScores#best}: equal scores newest row first).
     */
    RowScores ranked(List<String> terms) throws SQLException {
        RowScores scores = new RowScores();
        for (String term : terms) {
            Hits h = hits(term);
            double idf = idf(scopeRows(), h.rows.length);
            for (int i = 0; i < h.rows.length; i++) {
                scores.add(h.rows[i], idf * h.saturation[i]);
            }
        }
        return scores;
    }

    /**
     * {@link #ranked}'s sums of {@code rows} only: each of them adds its terms in the same order, so
     * its sum is the same double, and no other row is summed.
     */
    RowScores ranked(List<String> terms, Collection<Long> rows) throws SQLException {
        long[] wanted = rows.stream().mapToLong(Long::longValue).sorted().distinct().toArray();
        RowScores scores = new RowScores();
        for (String term : terms) {
            Hits h = hits(term);
            double idf = idf(scopeRows(), h.rows.length);
            int from = 0;
            for (long row : wanted) {
                // A term's rows are in row order (FTS5's doclists are): each wanted row is looked up
                // past the last one found, so this reads a few entries per row, not every posting.
                int at = Arrays.binarySearch(h.rows, from, h.rows.length, row);
                if (at >= 0) {
                    scores.add(row, idf * h.saturation[at]);
                    from = at + 1;
                } else {
                    from = -at - 1;
                }
            }
        }
        return scores;
    }

    /**
     * {@link #ranked} with every term ranked by FTS5 (each row's length read by FTS5's rank), as
     * before {@link Fts5Lengths}: what the kept lengths must reproduce.
     */
    static RowScores rankedByFts5(Sql sql, String rowsTable, Scope scope, List<String> terms) throws SQLException {
        ScopedBm25 own = new ScopedBm25(sql, rowsTable, scope, false, null);
        own.lengthsRead = true; // with no lengths: every term through FTS5's rank
        return own.ranked(terms);
    }

    /**
     * Every row of the scope holding any of {@code terms}, scored by how much of the query it holds:
     * the sum of the evidence weight of each term it holds ({@link QueryCoverage#evidenceWeight}: the
     * scope's IDF times the term's specificity in the language), however often and however long the
     * row (the part of BM25 that measures the query, not the row).
     */
    RowScores held(List<String> terms) throws SQLException {
        RowScores sums = new RowScores();
        for (String term : terms) {
            Hits h = hits(term);
            double weight = QueryCoverage.evidenceWeight(term, idf(scopeRows(), h.rows.length), one(), scopeRows());
            for (long row : h.rows) {
                sums.add(row, weight);
            }
        }
        return sums;
    }

    /**
     * {@link #held(List)} for the rows that could sum to {@code least} or more, each with exactly the
     * sum it has there; the others are left out ({@link RowScores#atLeast}).
     */
    RowScores held(List<String> terms, double least) throws SQLException {
        if (!(least > 0)) {
            return held(terms);
        }
        long[][] rows = new long[terms.size()][];
        double[] weight = new double[terms.size()];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = hits(terms.get(i)).rows;
            weight[i] = QueryCoverage.evidenceWeight(terms.get(i), idf(scopeRows(), rows[i].length), one(), scopeRows());
        }
        return RowScores.atLeast(rows, weight, least);
    }

    /** The IDF of a term one row of the scope holds: what a term no row holds counts as. */
    private double one() throws SQLException {
        return idf(Math.max(scopeRows(), 1), 1);
    }

    /**
     * The query's ideal over the scope ({@link LexicalIndex#ideal}): each term's IDF over the scope
     * (what a row of average length holding it once scores), a term no row of the scope holds as if
     * one did.
     */
    double ideal(List<String> terms) throws SQLException {
        return ideal(terms, false);
    }

    /** The ideal the evidence rule divides by ({@link QueryCoverage#evidenceIdeal}). */
    double evidenceIdeal(List<String> terms) throws SQLException {
        return ideal(terms, true);
    }

    private double ideal(List<String> terms, boolean evidence) throws SQLException {
        Map<String, Double> held = new HashMap<>();
        Map<String, Double> absent = new HashMap<>();
        long rows = scopeRows();
        for (String term : terms) {
            long n = holding(term);
            (n > 0 ? held : absent).put(term, idf(Math.max(rows, 1), Math.max(n, 1)));
        }
        return evidence ? QueryCoverage.evidenceIdeal(held, absent.keySet(), one(), rows) : QueryCoverage.ideal(held, absent);
    }

    /**
     * What a search of this table asks for ({@link QueryCoverage#searched}), by the scope's rows
     * holding each term (the counts the query's ideal reads too, so they are counted once a read).
     */
    List<String> searched(List<String> terms) {
        return QueryCoverage.searched(terms, term -> {
            try {
                return holding(term);
            } catch (SQLException e) {
                throw new StorageException("counting the rows that hold a query term", e);
            }
        });
    }

    /**
     * FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), 1e-6 where that is not positive (nor a number: a
     * scope's count behind its rows, however it came about, must not turn every score into NaN).
     */
    static double idf(long rows, long holding) {
        double idf = Math.log((rows - holding + 0.5) / (holding + 0.5));
        return idf > 0 ? idf : 1e-6;
    }

    private Hits hits(String term) throws SQLException {
        Hits cached = hits.get(term);
        if (cached == null) {
            List<String> pieces = ChineseTokens.storedPieces(term);
            cached = pieces.size() == 1 && lengths() != null ? saturated(postings(key + pieces.get(0))) : fromRank(term);
            hits.put(term, cached);
        }
        return cached;
    }

    /** A stored term's postings: those kept from an earlier read if they still hold ({@link KeptTerms}), else read. */
    private KeptTerms.Postings postings(String stored) throws SQLException {
        KeptTerms.Postings p = kept == null ? null : kept.postings(stored);
        if (p == null) {
            p = counted(stored);
            if (kept != null) {
                kept.keepPostings(stored, p);
            }
        }
        return p;
    }

    /** Each row's saturation of the term, as FTS5's BM25 gives it, with the table's current average length. */
    private Hits saturated(KeptTerms.Postings p) throws SQLException {
        double average = averageLength();
        int n = p.rows().length;
        double[] saturation = new double[n];
        for (int i = 0; i < n; i++) {
            double freq = p.tf()[i];
            saturation[i] = (freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * p.length()[i] / average));
        }
        return new Hits(p.rows(), saturation);
    }

    /**
     * A phrase's rows with FTS5's rank: {@code idf(t) × s(t, row)} for each, divided by FTS5's IDF
     * (the table's rows, and the rows holding the phrase, which are the scope's and exactly the rows
     * this search returned).
     */
    private Hits fromRank(String term) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT rowid, rank FROM " + table + " WHERE " + table + " MATCH ? ORDER BY rowid");
        ps.setString(1, "tokens : " + Fts5Terms.quoted(key, term));
        long[] rows = new long[16];
        double[] rank = new double[16];
        int n = 0;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (n == rows.length) {
                    rows = Arrays.copyOf(rows, 2 * n);
                    rank = Arrays.copyOf(rank, 2 * n);
                }
                rows[n] = rs.getLong(1);
                rank[n++] = -rs.getDouble(2);
            }
        }
        double tableIdf = idf(tableRows(), n);
        double[] saturation = new double[n];
        for (int i = 0; i < n; i++) {
            saturation[i] = rank[i] / tableIdf;
        }
        return new Hits(Arrays.copyOf(rows, n), saturation);
    }

    /**
     * One stored term's rows, each with the term's occurrences in it and its length, for the
     * saturation FTS5's BM25 gives it, computed here as FTS5 computes it ({@link #saturated};
     * {@code fts5_aux.c}: k1 1.2, b 0.75, the row's length over all columns against the table's
     * average): the occurrences from FTS5's index ({@code fts5vocab} instances, in row order: a row's
     * count is its term frequency), the lengths from {@link Fts5Lengths}. No rank is computed, so no
     * row's length is looked up one by one.
     */
    private KeptTerms.Postings counted(String stored) throws SQLException {
        String instances = "temp." + table + "_instances";
        sql.execute("CREATE VIRTUAL TABLE IF NOT EXISTS " + instances + " USING fts5vocab(main, " + table + ", instance)");
        // No column filter: a scoped term is only ever in the tokens column (a scope token starts with
        // Fts5Terms.SCOPE_PREFIX, which no scope's key does), the one column bm25(1.0, 0.0) weighs.
        PreparedStatement ps = sql.prepare("SELECT json_group_array(doc) FROM " + instances + " WHERE term = ?");
        ps.setString(1, stored);
        String docs;
        try (ResultSet rs = ps.executeQuery()) {
            docs = rs.next() ? rs.getString(1) : null;
        }
        long[] rows = new long[16];
        int[] tf = new int[16];
        int n = 0;
        int at = 1;
        int end = docs == null ? 0 : docs.length() - 1; // inside [ ]
        while (at < end) {
            long row = 0;
            char c;
            while (at < end && (c = docs.charAt(at)) >= '0' && c <= '9') {
                row = 10 * row + (c - '0');
                at++;
            }
            at++; // the comma
            if (n > 0 && rows[n - 1] == row) {
                tf[n - 1]++;
                continue;
            }
            if (n == rows.length) {
                rows = Arrays.copyOf(rows, 2 * n);
                tf = Arrays.copyOf(tf, 2 * n);
            }
            rows[n] = row;
            tf[n++] = 1;
        }
        int[] length = lengths().of(rows, n);
        return new KeptTerms.Postings(Arrays.copyOf(rows, n), Arrays.copyOf(tf, n), Arrays.copyOf(length, n));
    }

    /** FTS5's BM25 parameters ({@code fts5_aux.c}). */
    private static final double K1 = 1.2;
    private static final double B = 0.75;

    private Fts5Lengths.Reader lengths() throws SQLException {
        if (!lengthsRead) {
            lengths = Fts5Lengths.reader(sql, table, kept);
            lengthsRead = true;
        }
        return lengths;
    }

    /**
     * The rows a search of {@code terms} visits ({@link dev.jiyi.authority.index.SearchCounts}): the
     * scope's rows holding each, summed, since FTS5 reads and ranks every one of them.
     */
    long visited(List<String> terms) throws SQLException {
        long rows = 0;
        for (String term : terms) {
            rows += holding(term);
        }
        return rows;
    }

    /**
     * The scope's rows holding a term: those its search found, if it ran, else counted (a piece's
     * count from the vocabulary, a phrase's matches counted without ranking them), once a read.
     */
    private long holding(String term) throws SQLException {
        Hits h = hits.get(term);
        if (h != null) {
            return h.rows.length;
        }
        Long cached = holding.get(term);
        if (cached == null) {
            List<String> pieces = ChineseTokens.storedPieces(term);
            if (pieces.size() == 1) {
                String stored = key + pieces.get(0);
                cached = kept == null ? -1 : kept.count(stored);
                if (cached < 0) {
                    cached = documents(stored);
                    if (kept != null) {
                        kept.keepCount(stored, cached);
                    }
                }
            } else {
                PreparedStatement ps = sql.prepare("SELECT count(*) FROM " + table + " WHERE " + table + " MATCH ?");
                ps.setString(1, "tokens : " + Fts5Terms.quoted(key, term));
                try (ResultSet rs = ps.executeQuery()) {
                    cached = rs.next() ? rs.getLong(1) : 0;
                }
            }
            holding.put(term, cached);
        }
        return cached;
    }

    /** The rows holding one stored term in the text column, from the table's vocabulary by column. */
    private long documents(String term) throws SQLException {
        String vocabulary = "temp." + table + "_columns";
        sql.execute("CREATE VIRTUAL TABLE IF NOT EXISTS " + vocabulary + " USING fts5vocab(main, " + table + ", col)");
        PreparedStatement ps = sql.prepare("SELECT doc FROM " + vocabulary + " WHERE term = ? AND col = 'tokens'");
        ps.setString(1, term);
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
            readAverages();
        }
        return tableRows;
    }

    /** A row's average length in tokens, all columns, as FTS5's BM25 computes it: the tokens over the rows. */
    private double averageLength() throws SQLException {
        if (averageLength < 0) {
            readAverages();
        }
        return averageLength;
    }

    private void readAverages() throws SQLException {
        byte[] record = averages(sql, table);
        tableRows = varint(record);
        long tokens = Fts5Lengths.sum(record) - tableRows; // every varint of the record, less the first
        averageLength = tableRows > 0 ? (double) tokens / (double) tableRows : 0;
    }

    /**
     * An FTS5 table's averages record (row 1 of {@code <table>_data}): the count of rows, then each
     * column's token total, as varints; null for a table that never had a row.
     */
    static byte[] averages(Sql sql, String table) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT block FROM " + table + "_data WHERE id = 1").executeQuery()) {
            return rs.next() ? rs.getBytes(1) : null;
        }
    }

    /** SQLite's varint at the start of {@code bytes} ({@link Fts5Lengths#sum}). */
    static long varint(byte[] bytes) {
        return Fts5Lengths.sum(bytes, 1);
    }

}
