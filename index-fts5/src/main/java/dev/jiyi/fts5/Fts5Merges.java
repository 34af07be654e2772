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
 * <li>at most {@link #MOST} pages, so no commit (a rebuild, an import) pays for a whole level.</li>
 * </ul>
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

    /** The most pages one commit merges in a table. */
    static final int MOST = 256;

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
     * then merges a little more, never more than {@link #MOST} pages.
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
     * whether one of their IDs was a multiple of {@link #EVERY}; 0 for none.
     */
    static int pages(int rows, boolean step) {
        int pages = (step ? STEP : 0) + rows / 2;
        return pages < STEP && !step ? 0 : Math.min(MOST, pages);
    }

    /** Runs the steps the transaction's inserts owe: inside it, just before it commits. */
    void beforeCommit(Sql tx) throws SQLException {
        Inserted[] tables = inserted.get();
        try {
            for (int i = 0; i < tables.length; i++) {
                if (tables[i].rows > 0) {
                    String table = TABLES.get(i);
                    automergeOff(tx, table);
                    int pages = pages(tables[i].rows, tables[i].step);
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
