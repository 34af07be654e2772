package dev.jiyi.fts5;

import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.Sql;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What FTS5 makes a search count and read again for every common word, kept in memory from one
 * read to the next. FTS5 keeps no count of the rows holding a term (its vocabulary counts one by
 * walking the term's doclists) and a search reads a term's rows whole, and at 1,000,000 rows those
 * counts and reads were most of an FTS5 recall. The words that cost them are the common ones, which
 * one question shares with the next; a rare word is cheap to count and read again. So, for each
 * table, this keeps the count of every scoped term (a piece behind its scope's key) holding at least
 * {@link #MIN_COUNTED} rows, at most {@link #MAX_TERMS} of them, and the postings (each row, the
 * term's occurrences in it, the row's length) of those holding at least {@link #MIN_ROWS}, at most
 * {@link #MAX_ROWS} rows (16 bytes each); the least recently used go first. It keeps the blocks of
 * row lengths a read took from {@link Fts5Lengths} too, at most {@link #MAX_BLOCKS} a table: a
 * search of common words at 1,000,000 rows reads most of them, 2 MB a table, at every read.
 *
 * <p>Why a kept entry is exact at a later read. A row of an FTS5 table is written once with the
 * tokens of its text and never rewritten (a correction or a new version is a new row), and removed at
 * most once; row IDs come from AUTOINCREMENT keys, so a row inserted after a read has an ID above
 * every row that read saw. A table's entries are kept against an <em>epoch</em>: its file, the
 * database's schema version (a rebuild recreates the tables), FTS5's row count (its averages record)
 * and last row ID ({@code *_docsize}). A read at the same last row and count uses them as they are.
 * A read at a later last row first checks that FTS5's rows above the kept last make up the whole
 * change in the count (else a row was removed); then it analyses those rows' texts again from the
 * authority, as the index analysed them, grows the kept count of each term they hold by the rows
 * holding it, drops the term's kept postings, and moves the epoch on. Anything else (a removal, a
 * lower last row, more than {@link #MAX_NEW_ROWS} new rows or {@link #MAX_NEW_CHARS} characters in
 * them, another schema) starts the table's entries afresh. While the index is being built, or is
 * not this version's, nothing is kept.
 * Saturations are not kept: every write moves the table's average length, so they are computed at
 * each read ({@link ScopedBm25}). A block of lengths is exact at a later read for every row it holds
 * that the read sees: an entry is 0 ("not known": the row's length is read from {@code *_docsize})
 * or the row's length, and a length changes only when its row is removed, which starts the entries
 * afresh; the blocks new rows went into are dropped when the epoch moves on (their entries would
 * read as 0, which is never wrong, only slower). Past {@link #MAX_BLOCKS} blocks (4,194,304 rows) a
 * search that reads more blocks than that churns them instead of finding them.
 */
final class KeptTerms {

    /** Terms holding fewer rows than this are counted at every search. */
    static final int MIN_COUNTED = 64;

    /** Terms holding fewer rows than this are read at every search. */
    static final int MIN_ROWS = 1_000;

    /** The postings rows kept per table (about 16 bytes each). */
    static final long MAX_ROWS = 1_000_000;

    /** The counts kept per table. */
    static final int MAX_TERMS = 50_000;

    /** The blocks of row lengths kept per table ({@link Fts5Lengths#BLOCK} rows, 8 KB, each). */
    static final int MAX_BLOCKS = 1_024;

    /** New rows since the kept epoch beyond which a table's entries start afresh rather than be brought up to date. */
    static final int MAX_NEW_ROWS = 256;

    /**
     * Characters of new rows beyond which a table's entries start afresh: analysing them again would
     * cost more than counting afresh (an event may hold 200,000 characters).
     */
    static final int MAX_NEW_CHARS = 100_000;

    /** One term's rows in ascending order, its occurrences in each, and each row's length in tokens. */
    record Postings(long[] rows, int[] tf, int[] length) {
        Postings {
            if (tf.length != rows.length || length.length != rows.length) {
                throw new IllegalArgumentException("postings: rows, tf and length must be of one length");
            }
        }
    }

    /** What a table was at a read: its file and schema version, FTS5's row count and last row ID. */
    record Epoch(String file, long schema, long rows, long last) {
    }

    /** One table's entries, exact at its epoch's last row and count. */
    private static final class TableTerms {
        private final Epoch epoch;
        private long last;
        private long rows;
        private long keptRows;
        private final Map<String, Long> counts = new LinkedHashMap<>(64, 0.75f, true);
        private final Map<String, Postings> postings = new LinkedHashMap<>(64, 0.75f, true);
        private final Map<Long, byte[]> lengths = new LinkedHashMap<>(64, 0.75f, true);

        TableTerms(Epoch epoch) {
            this.epoch = epoch;
            this.last = epoch.last;
            this.rows = epoch.rows;
        }

        /** {@code added} new rows hold the term: its count grows by them, its postings go. */
        void added(String stored, int added) {
            Long count = counts.get(stored);
            if (count != null) {
                counts.put(stored, count + added);
            }
            Postings gone = postings.remove(stored);
            if (gone != null) {
                keptRows -= gone.rows.length;
            }
        }
    }

    private final int minCounted;
    private final int minRows;
    private final long maxRows;
    /** By table and file: one index may search more than one home. */
    private final Map<String, TableTerms> tables = new HashMap<>();

    KeptTerms() {
        this(MIN_COUNTED, MIN_ROWS, MAX_ROWS);
    }

    /**
     * Keeps the counts of terms of at least {@code minCounted} rows and the postings of terms of at
     * least {@code minRows}, at most {@code maxRows} postings rows per table.
     */
    KeptTerms(int minCounted, int minRows, long maxRows) {
        this.minCounted = minCounted;
        this.minRows = minRows;
        this.maxRows = maxRows;
    }

    /**
     * The kept terms of {@code rowsTable} (the authority's {@code events} or {@code memories}) at this
     * read, brought up to it first ({@link KeptTerms}).
     */
    View view(Snapshot snapshot, String rowsTable, String indexVersion) throws SQLException {
        Sql sql = snapshot.sql();
        String table = rowsTable + "_fts";
        if (!complete(sql, indexVersion)) {
            return new View(null, 0);
        }
        Epoch now = new Epoch(file(sql), schema(sql), ScopedBm25.varint(ScopedBm25.averages(sql, table)),
                Fts5Lengths.lastRow(sql, table));
        String key = table + '\u0000' + now.file;
        TableTerms kept;
        long from;
        long fromRows;
        synchronized (this) {
            kept = tables.get(key);
            if (kept == null || kept.epoch.schema != now.schema || now.last < kept.last
                    || now.last == kept.last && now.rows != kept.rows) {
                return fresh(key, now);
            }
            if (now.last == kept.last) {
                return new View(kept, now.last);
            }
            from = kept.last;
            fromRows = kept.rows;
            if (fromRows + MAX_NEW_ROWS < now.rows) {
                return fresh(key, now);
            }
        }
        // The new rows are read and analysed outside the lock; their terms are applied only if no
        // other read moved the entries meanwhile. A removal shows before any analysis: the new rows
        // do not make up the change in the count.
        Set<Long> added = newRows(sql, table, from);
        Map<String, Integer> held = added == null || fromRows + added.size() != now.rows ? null
                : newTerms(snapshot, rowsTable, from, added);
        synchronized (this) {
            if (tables.get(key) != kept || kept.last != from) {
                return kept.last == now.last && kept.rows == now.rows && tables.get(key) == kept ? new View(kept, now.last) : new View(null, 0);
            }
            if (held == null) {
                return fresh(key, now);
            }
            held.forEach(kept::added);
            long firstNew = (from + 1) / Fts5Lengths.BLOCK; // the block of the first row above the kept last
            kept.lengths.keySet().removeIf(block -> block >= firstNew);
            kept.last = now.last;
            kept.rows = now.rows;
            return new View(kept, now.last);
        }
    }

    /** Forgets every entry (the tables were replaced). */
    synchronized void clear() {
        tables.clear();
    }

    /** The postings rows kept in all. */
    synchronized long rows() {
        long n = 0;
        for (TableTerms t : tables.values()) {
            n += t.keptRows;
        }
        return n;
    }

    /** A table's entries, emptied, against this read's epoch. */
    private View fresh(String key, Epoch now) {
        TableTerms kept = new TableTerms(now);
        tables.put(key, kept);
        return new View(kept, now.last);
    }

    /**
     * The stored terms of FTS5's new {@code rows} (their IDs, all above {@code last}), each with the
     * number of those rows holding it, analysed again from the authority's texts as the index analysed
     * them. Null (start afresh) if the authority has more than {@link #MAX_NEW_ROWS} rows above
     * {@code last}, not every one of FTS5's (an index out of step), or more than
     * {@link #MAX_NEW_CHARS} characters in them.
     */
    private static Map<String, Integer> newTerms(Snapshot snapshot, String rowsTable, long last, Set<Long> rows) {
        List<Indexed> after = rowsTable.equals("events")
                ? snapshot.eventsAfter(last, MAX_NEW_ROWS + 1).stream().map(e -> new Indexed(e.sequence(), e.scope(), e.text())).toList()
                : snapshot.memoriesAfter(last, MAX_NEW_ROWS + 1).stream().map(m -> new Indexed(m.rowId(), m.scope(), m.searchText())).toList();
        if (after.size() > MAX_NEW_ROWS) {
            return null;
        }
        List<Indexed> fts5 = after.stream().filter(row -> rows.contains(row.id)).toList();
        long chars = fts5.stream().mapToLong(row -> row.text.length()).sum();
        if (fts5.size() != rows.size() || chars > MAX_NEW_CHARS) {
            return null;
        }
        Map<String, Integer> held = new HashMap<>();
        for (Indexed row : fts5) {
            Fts5Terms.indexedTerms(row.scope, row.text).forEach(t -> held.merge(t, 1, Integer::sum));
        }
        return held;
    }

    /** An authority row as the index indexed it: its FTS5 row ID, scope and text. */
    private record Indexed(long id, Scope scope, String text) {
    }

    /** A read's access to one table's kept terms (none while the index is built or of another version). */
    final class View {
        private final TableTerms kept;
        private final long last;

        private View(TableTerms kept, long last) {
            this.kept = kept;
            this.last = last;
        }

        /** The kept count of rows holding the stored term, or -1. */
        long count(String stored) {
            if (kept == null) {
                return -1;
            }
            synchronized (KeptTerms.this) {
                Long n = current() ? kept.counts.get(stored) : null;
                return n == null ? -1 : n;
            }
        }

        /** The kept postings of the stored term, or null. */
        Postings postings(String stored) {
            if (kept == null) {
                return null;
            }
            synchronized (KeptTerms.this) {
                return current() ? kept.postings.get(stored) : null;
            }
        }

        /** The kept block {@code block} of row lengths ({@link Fts5Lengths}), or null. */
        byte[] lengths(long block) {
            if (kept == null) {
                return null;
            }
            synchronized (KeptTerms.this) {
                return current() ? kept.lengths.get(block) : null;
            }
        }

        /** Keeps a block of row lengths as this read read it. */
        void keepLengths(long block, byte[] sizes) {
            if (kept == null) {
                return;
            }
            synchronized (KeptTerms.this) {
                if (current()) {
                    kept.lengths.put(block, sizes);
                    trim(kept.lengths, MAX_BLOCKS);
                }
            }
        }

        /** Keeps a term's count, as this read counted it, if the term is common enough. */
        void keepCount(String stored, long count) {
            if (count < minCounted || kept == null) {
                return;
            }
            synchronized (KeptTerms.this) {
                if (current()) {
                    kept.counts.put(stored, count);
                    trim(kept.counts, MAX_TERMS);
                }
            }
        }

        /** Keeps a term's postings (and so its count), as this read read them, if the term is common enough. */
        void keepPostings(String stored, Postings postings) {
            long n = postings.rows.length;
            keepCount(stored, n);
            if (n < minRows || n > maxRows || kept == null) {
                return;
            }
            synchronized (KeptTerms.this) {
                if (current()) {
                    Postings old = kept.postings.put(stored, postings);
                    kept.keptRows += n - (old == null ? 0 : old.rows.length);
                    var eldest = kept.postings.entrySet().iterator();
                    while (kept.keptRows > maxRows && eldest.hasNext()) {
                        kept.keptRows -= eldest.next().getValue().rows.length;
                        eldest.remove();
                    }
                }
            }
        }

        /**
         * Whether the entries stand at this read's last row: another read may have moved them on (a
         * later last row: what they hold may include rows this read does not see), or started them
         * afresh.
         */
        private boolean current() {
            return kept.last == last;
        }
    }

    /** Gives up the least recently used entries of an access-ordered {@code map} beyond {@code max}. */
    private static void trim(Map<?, ?> map, int max) {
        var eldest = map.entrySet().iterator();
        while (map.size() > max && eldest.hasNext()) {
            eldest.next();
            eldest.remove();
        }
    }

    /** Whether the index is complete and of this version ({@code index_state}), not being built. */
    private static boolean complete(Sql sql, String indexVersion) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT version FROM index_state WHERE name = 'fts5'").executeQuery()) {
            return rs.next() && indexVersion.equals(rs.getString(1));
        }
    }

    /** The database's file: entries of one home never serve another. */
    private static String file(Sql sql) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT file FROM pragma_database_list WHERE name = 'main'").executeQuery()) {
            return rs.next() ? String.valueOf(rs.getString(1)) : "";
        }
    }

    /** The database's schema version, which every CREATE and DROP changes. */
    private static long schema(Sql sql) throws SQLException {
        try (ResultSet rs = sql.prepare("PRAGMA schema_version").executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /** FTS5's row IDs above {@code last} ({@code *_docsize}), or null if there are more than {@link #MAX_NEW_ROWS}. */
    private static Set<Long> newRows(Sql sql, String table, long last) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT id FROM " + table + "_docsize WHERE id > ? ORDER BY id LIMIT ?");
        ps.setLong(1, last);
        ps.setInt(2, MAX_NEW_ROWS + 1);
        Set<Long> rows = new HashSet<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(rs.getLong(1));
            }
        }
        return rows.size() > MAX_NEW_ROWS ? null : rows;
    }
}
