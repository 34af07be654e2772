package dev.jiyi.fts5;

import dev.jiyi.authority.Sql;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * FTS5's merges, spread over the writes that owe them.
 *
 * <p>FTS5 writes each transaction's new rows as a segment of their own, and its default
 * {@code automerge} merges segments in bursts: after every 64 leaf pages written, 64 pages for each
 * level of the index. A home written one turn at a time writes a leaf page or two a turn, so about
 * one write in fifty paid for a burst. On a 1,000,000-turn archive a single event's write took
 * 0.5 ms at p50 and 37 ms at p99.
 *
 * <p>So each table's {@code automerge} is off (set by the first transaction that inserts into it),
 * and a transaction that inserted rows into a table ends, just before its commit, with FTS5's
 * {@code merge} command for a step of pages:
 * <ul>
 * <li>{@link #STEP} pages when one of its rows' IDs is a multiple of {@link #EVERY}: a home written a
 * row at a time merges 16 pages every fourth write, about what automerge spent on average (the
 * mean write is the same) in even steps;</li>
 * <li>plus a page for every two rows, so a batch merges in proportion to what it wrote;</li>
 * <li>at most {@link #MOST} pages while the table holds at most {@link #SEGMENTS} segments, so that
 * no commit of a healthy index pays for a whole level.</li>
 * </ul>
 * The cap must not let a batch's debt grow: a commit of 2,000 rows writes about 125 leaf pages to a
 * table of a 1,000,000-turn archive, which FTS5's automerge would follow with about 500 pages of
 * merging (the pages written times the index's levels). Capped at 256, an archive imported in such
 * batches ended with 25 and 56 segments in its two tables, 35 on one level, and every term a
 * search looks up is looked up in every segment. So when the cap would bind, the table's segments
 * are read from its structure record (one row), and a table holding more than {@link #SEGMENTS}
 * takes the page for every two rows up to {@link #MOST_BEHIND} instead: twice what the steady state
 * needs, so the levels that can merge (those of {@code usermerge} segments) catch up. Built that way,
 * the same archive holds 10 and 15. A single write merges its even step, over the bound too.
 * The trigger is the rows' IDs, which every process writing the file shares, not a count kept in
 * memory: a host that runs the CLI once per turn merges as a server does. With a positive budget,
 * {@code merge} works only on a level holding {@code usermerge} (4) segments or with a merge under
 * way. FTS5's {@code crisismerge} (a level of 16 segments merged whole) is left as the safety net it
 * was: a burst larger than automerge's, which the steps keep from being needed.
 *
 * <p>The setting lives in the file. A jiyi from before this class writing the same file would neither
 * automerge nor step, leaving its segments to crisis merges; {@code jiyi reindex} recreates the
 * tables with FTS5's defaults.
 */
final class Fts5Merges {

    /** The pages of one step. */
    static final int STEP = 16;

    /** A transaction steps when it inserts a row whose ID is a multiple of this. */
    static final int EVERY = 4;

    /** The most pages one commit merges in a table that holds at most {@link #SEGMENTS} segments. */
    static final int MOST = 256;

    /** The segments a table holds beyond which a commit merges what its rows owe past {@link #MOST}. */
    static final int SEGMENTS = 16;

    /**
     * The most pages one commit merges in a table of more than {@link #SEGMENTS} segments: a batch of
     * 8,192 rows' worth, about a second of merging at 1,000,000 rows, so that no commit (a build step,
     * or a write that inherits the rows of a rolled-back batch) merges a whole large level at once.
     */
    static final int MOST_BEHIND = 4_096;

    /** The row of {@code <table>_data} that holds the table's structure record (FTS5's {@code FTS5_STRUCTURE_ROWID}). */
    private static final int STRUCTURE = 10;

    /** The tables of {@link Fts5Index} whose inserts this counts, in the order of {@link Inserted}. */
    private static final List<String> TABLES = List.of("events_fts", "memories_fts");

    /** What a transaction inserted into one table: how many rows, and whether an ID was a multiple of {@link #EVERY}. */
    private static final class Inserted {
        int rows;
        boolean step;

        void add(long rowId) {
            rows++;
            step |= rowId % EVERY == 0;
        }
    }

    /**
     * What the transaction on this thread inserted so far (a write transaction runs on the thread that
     * called the authority). A transaction that rolled back leaves its rows to the next one, which
     * then merges a little more, never more than {@link #MOST} pages ({@link #MOST_BEHIND} in a
     * table of more than {@link #SEGMENTS} segments).
     */
    private final ThreadLocal<Inserted[]> inserted = ThreadLocal.withInitial(() -> new Inserted[] {new Inserted(), new Inserted()});

    /** Row {@code rowId} was inserted into {@code events_fts}. */
    void eventInserted(long rowId) {
        inserted.get()[0].add(rowId);
    }

    /** Row {@code rowId} was inserted into {@code memories_fts}. */
    void memoryInserted(long rowId) {
        inserted.get()[1].add(rowId);
    }

    /**
     * The pages a transaction merges in a table it inserted {@code rows} rows into, {@code step}
     * whether one of their IDs was a multiple of {@link #EVERY}, {@code segments} the segments the
     * table holds; 0 for none.
     */
    static int pages(int rows, boolean step, int segments) {
        int pages = (step ? STEP : 0) + rows / 2;
        if (pages < STEP && !step) {
            return 0;
        }
        return Math.min(segments > SEGMENTS ? MOST_BEHIND : MOST, pages);
    }

    /** Runs the steps the transaction's inserts owe: inside it, just before it commits. */
    void beforeCommit(Sql tx) throws SQLException {
        Inserted[] tables = inserted.get();
        try {
            for (int i = 0; i < tables.length; i++) {
                if (tables[i].rows > 0) {
                    String table = TABLES.get(i);
                    automergeOff(tx, table);
                    int pages = pages(tables[i].rows, tables[i].step, 0);
                    if (pages == MOST) { // the cap binds: is the table behind?
                        pages = pages(tables[i].rows, tables[i].step, segments(tx, table));
                    }
                    if (pages > 0) {
                        PreparedStatement ps = tx.prepare("INSERT INTO " + table + " (" + table + ", rank) VALUES ('merge', ?)");
                        ps.setInt(1, pages);
                        ps.executeUpdate();
                    }
                }
            }
        } finally {
            inserted.remove();
        }
    }

    /**
     * The segments of a table's index, from its structure record: a 4-byte cookie (and, in a
     * version 2 record, a 4-byte mark), then the count of levels and the count of segments, as
     * varints ({@code fts5_index.c}, {@code fts5StructureDecode}); 0 for a table never written.
     */
    static int segments(Sql tx, String table) throws SQLException {
        PreparedStatement ps = tx.prepare("SELECT block FROM " + table + "_data WHERE id = ?");
        ps.setInt(1, STRUCTURE);
        byte[] record;
        try (ResultSet rs = ps.executeQuery()) {
            record = rs.next() ? rs.getBytes(1) : null;
        }
        if (record == null || record.length < 6) {
            return 0;
        }
        boolean second = record.length >= 8 && record[4] == (byte) 0xFF && record[5] == 0 && record[6] == 0 && record[7] == 1;
        int from = second ? 8 : 4;
        return (int) (Fts5Lengths.sum(record, from, 2) - Fts5Lengths.sum(record, from, 1));
    }

    /**
     * Turns the table's automerge off unless it is (read each time, one page: the table may have been
     * replaced, by this process or another, since the last write).
     */
    private static void automergeOff(Sql tx, String table) throws SQLException {
        PreparedStatement ps = tx.prepare("SELECT v FROM " + table + "_config WHERE k = 'automerge'");
        try (ResultSet rs = ps.executeQuery()) {
            if (rs.next() && rs.getInt(1) == 0) {
                return;
            }
        }
        tx.execute("INSERT INTO " + table + " (" + table + ", rank) VALUES ('automerge', 0)");
    }
}
