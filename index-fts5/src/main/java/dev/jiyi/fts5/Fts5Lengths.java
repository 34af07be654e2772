package dev.jiyi.fts5;

import dev.jiyi.authority.Sql;

import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Each FTS5 row's length in tokens, packed {@value #BLOCK} rows to a blob in {@code fts5_lengths}, so
 * that a search can score the rows holding a term itself ({@link ScopedBm25}) without FTS5's rank.
 *
 * <p>FTS5's BM25 needs a row's length, which it reads from its {@code *_docsize} table with one
 * b-tree lookup per row ranked: on a 1,000,000-turn archive about two thirds of a term's search,
 * which ranks every row of the scope holding it. The lengths here are read a block at a time (a
 * search of a common term reads a few hundred blocks, not tens of thousands of rows), and the term
 * frequencies come from FTS5's own index ({@code fts5vocab} instances), so a row costs about a third
 * of what FTS5's rank costs, with the same score.
 *
 * <p>An entry is either exact or 0, which means "not known here": the row's length is then read
 * from {@code *_docsize}, so a length is never wrong, only sometimes slower. Exact because every
 * entry is read from {@code *_docsize} itself just before the commit of a transaction that inserted
 * or removed its row ({@link #beforeCommit}), never carried over: a row's length does not change
 * while it exists (rows are inserted and deleted, never rewritten), a removed row's entry goes back
 * to 0, and an ID that a rolled-back transaction had used and the next one reuses gets its new row's
 * length. A transaction that touched more than {@link #WHOLE} rows of a table (a rebuild in one
 * transaction) refills the table's entries from {@code *_docsize} in one ordered pass instead.
 *
 * <p>A home indexed before this table existed gets it at its first write, empty, with a mark per
 * FTS5 table ({@code tbl} {@code <table>#next}: the next block to fill, and the table's last row
 * then); each write that touches the FTS5 tables, that first one included, fills {@link #STEP} more
 * blocks of each from {@code *_docsize} (so that no single write pays for the archive's size), and
 * the mark goes after that last row. Until then, searches rank with FTS5's rank, as before. A
 * rebuild replaces the table with the FTS5 tables ({@link Fts5Index#clear}).
 *
 * <p>A transaction that rolls back leaves what it touched to the next one on its thread (there is
 * no hook for a rollback); that is harmless for rows, whose lengths are read again, but after a
 * rolled-back transaction of more than {@link #WHOLE} rows of a table (a failed rebuild in one
 * transaction) the next write refills that table whole.
 */
final class Fts5Lengths {

    /** Rows a blob holds: 2 bytes each, 8 KB a blob. */
    static final int BLOCK = 4096;

    /** Blocks of each table a write fills in a home from before the table (8,192 rows of each). */
    static final int STEP = 2;

    /** Rows of a table one transaction touches beyond which it refills the table's entries whole. */
    static final int WHOLE = 50_000;

    /** What an entry holds for a row of 65,535 tokens or more: read that one from {@code *_docsize}. */
    private static final int LONG = 0xFFFF;

    static final String TABLE = "CREATE TABLE IF NOT EXISTS fts5_lengths (tbl TEXT NOT NULL, block INTEGER NOT NULL, "
            + "sizes BLOB NOT NULL, PRIMARY KEY (tbl, block)) WITHOUT ROWID";

    /** The FTS5 tables whose rows are counted, in the order of {@link Touched}'s sets. */
    private static final List<String> TABLES = List.of("events_fts", "memories_fts");

    /** The rows of one table a transaction inserted or removed, or that it touched more than {@link #WHOLE}. */
    private static final class Touched {
        final TreeSet<Long> rows = new TreeSet<>();
        boolean whole;

        void add(long rowId) {
            if (!whole) {
                rows.add(rowId);
                if (rows.size() > WHOLE) {
                    whole = true;
                    rows.clear();
                }
            }
        }

        boolean any() {
            return whole || !rows.isEmpty();
        }
    }

    /**
     * What the transaction on this thread touched so far, per table. A transaction that rolled back
     * leaves its rows to the next, which reads their lengths again (see the class comment).
     */
    private final ThreadLocal<List<Touched>> touched = ThreadLocal.withInitial(() -> List.of(new Touched(), new Touched()));

    /** Row {@code rowId} of {@code events_fts} ({@code memories_fts}: {@code memory}) was inserted or removed. */
    void touched(boolean memory, long rowId) {
        touched.get().get(memory ? 1 : 0).add(rowId);
    }

    /**
     * Writes the lengths of the rows the transaction touched, just before it commits, and a step of
     * the filling of a home from before the table (creating the table there first).
     */
    void beforeCommit(Sql tx) throws SQLException {
        List<Touched> rows = touched.get();
        try {
            if (!rows.get(0).any() && !rows.get(1).any()) {
                return;
            }
            if (!exists(tx)) {
                tx.execute(TABLE);
                for (String table : TABLES) {
                    mark(tx, table, 0, lastRow(tx, table));
                }
            }
            for (int i = 0; i < TABLES.size(); i++) {
                String table = TABLES.get(i);
                if (rows.get(i).whole) {
                    refill(tx, table);
                    continue;
                }
                if (!rows.get(i).rows.isEmpty()) {
                    write(tx, table, rows.get(i).rows);
                }
                fillStep(tx, table);
            }
        } finally {
            touched.remove();
        }
    }

    /**
     * The mark of a table whose entries are being filled: the next block to fill, and the last row
     * to fill, the table's last row when the filling began (every row inserted since has its entry
     * written by its own transaction, so the filling ends however fast the table grows).
     */
    private record Mark(long next, long last) {
    }

    /** The table's mark, or null when its entries are all filled. */
    private static Mark mark(Sql sql, String table) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT block, sizes FROM fts5_lengths WHERE tbl = ?");
        ps.setString(1, table + "#next");
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return null;
            }
            byte[] last = rs.getBytes(2);
            return new Mark(rs.getLong(1), last != null && last.length == Long.BYTES
                    ? ByteBuffer.wrap(last).getLong() : Long.MAX_VALUE);
        }
    }

    /** Sets the table's mark, or removes it ({@code next} -1: filled). */
    private static void mark(Sql tx, String table, long next, long last) throws SQLException {
        PreparedStatement ps = tx.prepare("DELETE FROM fts5_lengths WHERE tbl = ?");
        ps.setString(1, table + "#next");
        ps.executeUpdate();
        if (next >= 0) {
            store(tx, table + "#next", next, ByteBuffer.allocate(Long.BYTES).putLong(last).array());
        }
    }

    /** An FTS5 table's last row ID ({@code *_docsize} has a row per FTS5 row); 0 for an empty table. */
    static long lastRow(Sql tx, String table) throws SQLException {
        try (ResultSet rs = tx.prepare("SELECT max(id) FROM " + table + "_docsize").executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0; // 0 for an empty table (max is NULL)
        }
    }

    /** Fills {@link #STEP} more blocks of a table being filled, and removes the mark after its last row. */
    private static void fillStep(Sql tx, String table) throws SQLException {
        Mark mark = mark(tx, table);
        if (mark == null) {
            return;
        }
        long end = (mark.next() + STEP) * BLOCK;
        fill(tx, table, mark.next() * BLOCK, end);
        mark(tx, table, end > mark.last() ? -1 : mark.next() + STEP, mark.last());
    }

    /** Every entry of {@code table} anew from {@code *_docsize}, in one ordered pass; no mark is left. */
    private static void refill(Sql tx, String table) throws SQLException {
        PreparedStatement ps = tx.prepare("DELETE FROM fts5_lengths WHERE tbl = ?");
        ps.setString(1, table);
        ps.executeUpdate();
        fill(tx, table, 0, Long.MAX_VALUE);
        mark(tx, table, -1, 0);
    }

    /** Whether the table is in the database (one lookup in the schema). */
    static boolean exists(Sql sql) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fts5_lengths'")
                .executeQuery()) {
            return rs.next();
        }
    }

    /** Sets the entries of {@code ids} to their rows' lengths now (0 for a row that is not there). */
    private static void write(Sql tx, String table, TreeSet<Long> ids) throws SQLException {
        Map<Long, Integer> lengths = new HashMap<>();
        PreparedStatement ps = tx.prepare("SELECT id, sz FROM " + table + "_docsize WHERE id IN (SELECT value FROM json_each(?))");
        ps.setString(1, Sql.jsonArray(ids));
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                lengths.put(rs.getLong(1), length(rs.getBytes(2)));
            }
        }
        Map<Long, byte[]> blocks = new TreeMap<>();
        for (long id : ids) {
            byte[] block = blocks.get(id / BLOCK);
            if (block == null) {
                block = read(tx, table, id / BLOCK);
                blocks.put(id / BLOCK, block);
            }
            put(block, (int) (id % BLOCK), lengths.getOrDefault(id, 0));
        }
        for (Map.Entry<Long, byte[]> e : blocks.entrySet()) {
            store(tx, table, e.getKey(), e.getValue());
        }
    }

    /** The entries of the rows with IDs in [{@code from}, {@code to}), read from {@code *_docsize} in row order. */
    private static void fill(Sql tx, String table, long from, long to) throws SQLException {
        long current = -1;
        byte[] block = null;
        PreparedStatement ps = tx.prepare("SELECT id, sz FROM " + table + "_docsize WHERE id >= ? AND id < ? ORDER BY id");
        ps.setLong(1, from);
        ps.setLong(2, to);
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long id = rs.getLong(1);
                if (id / BLOCK != current) {
                    if (block != null) {
                        store(tx, table, current, block);
                    }
                    current = id / BLOCK;
                    block = new byte[2 * BLOCK];
                }
                put(block, (int) (id % BLOCK), length(rs.getBytes(2)));
            }
        }
        if (block != null) {
            store(tx, table, current, block);
        }
    }

    private static byte[] read(Sql tx, String table, long block) throws SQLException {
        PreparedStatement ps = tx.prepare("SELECT sizes FROM fts5_lengths WHERE tbl = ? AND block = ?");
        ps.setString(1, table);
        ps.setLong(2, block);
        try (ResultSet rs = ps.executeQuery()) {
            byte[] sizes = rs.next() ? rs.getBytes(1) : null;
            return sizes != null && sizes.length == 2 * BLOCK ? sizes : new byte[2 * BLOCK];
        }
    }

    private static void store(Sql tx, String table, long block, byte[] sizes) throws SQLException {
        PreparedStatement ps = tx.prepare("INSERT OR REPLACE INTO fts5_lengths (tbl, block, sizes) VALUES (?, ?, ?)");
        ps.setString(1, table);
        ps.setLong(2, block);
        ps.setBytes(3, sizes);
        ps.executeUpdate();
    }

    private static void put(byte[] block, int slot, int length) {
        int v = Math.min(length, LONG);
        block[2 * slot] = (byte) v;
        block[2 * slot + 1] = (byte) (v >>> 8);
    }

    /** A row's length in tokens from its {@code *_docsize} record: the sum of its columns' varints. */
    static int length(byte[] sz) {
        return (int) Math.min(sum(sz), Integer.MAX_VALUE);
    }

    /** The sum of the SQLite varints {@code record} holds. */
    static long sum(byte[] record) {
        return sum(record, Integer.MAX_VALUE);
    }

    /**
     * The sum of the first {@code count} SQLite varints of {@code record} (big-endian, seven bits a
     * byte, the ninth whole): the one decoder of FTS5's records here ({@code *_docsize}, the
     * averages record, the structure record).
     */
    static long sum(byte[] record, int count) {
        return sum(record, 0, count);
    }

    /** The sum of {@code count} SQLite varints of {@code record} from byte {@code from} on ({@link #sum(byte[], int)}). */
    static long sum(byte[] record, int from, int count) {
        long total = 0;
        int i = from;
        for (int read = 0; read < count && record != null && i < record.length; read++) {
            long v = 0;
            for (int n = 0; i < record.length; n++) {
                int b = record[i++] & 0xFF;
                if (n == 8) {
                    v = (v << 8) | b;
                    break;
                }
                v = (v << 7) | (b & 0x7F);
                if ((b & 0x80) == 0) {
                    break;
                }
            }
            total += v;
        }
        return total;
    }

    /**
     * The lengths one read sees: blocks read once each (those {@code kept} holds from earlier reads
     * taken from it, those read here given to it; null: none kept), and rows the table does not know
     * (0, or too long for an entry) read from {@code *_docsize}. Null when the table is not in the
     * database or {@code table}'s entries are still being filled (searches then rank with FTS5's rank).
     */
    static Reader reader(Sql sql, String table, KeptTerms.View kept) throws SQLException {
        return exists(sql) && mark(sql, table) == null ? new Reader(sql, table, kept) : null;
    }

    static final class Reader {

        private final Sql sql;
        private final String table;
        private final KeptTerms.View kept;
        private final Map<Long, byte[]> blocks = new HashMap<>();

        private Reader(Sql sql, String table, KeptTerms.View kept) {
            this.sql = sql;
            this.table = table;
            this.kept = kept;
        }

        /** The lengths of the first {@code n} of {@code rows} (ascending), in their order. */
        int[] of(long[] rows, int n) throws SQLException {
            int[] out = new int[n];
            readBlocks(rows, n);
            List<Integer> unknown = new ArrayList<>();
            long current = -1;
            byte[] block = null;
            for (int i = 0; i < n; i++) {
                if (rows[i] / BLOCK != current) {
                    current = rows[i] / BLOCK;
                    block = blocks.get(current);
                }
                int slot = (int) (rows[i] % BLOCK);
                int v = (block[2 * slot] & 0xFF) | (block[2 * slot + 1] & 0xFF) << 8;
                out[i] = v;
                if (v == 0 || v == LONG) {
                    unknown.add(i);
                }
            }
            if (!unknown.isEmpty()) {
                PreparedStatement ps = sql.prepare("SELECT sz FROM " + table + "_docsize WHERE id = ?");
                for (int i : unknown) {
                    ps.setLong(1, rows[i]);
                    try (ResultSet rs = ps.executeQuery()) {
                        out[i] = rs.next() ? length(rs.getBytes(1)) : 0;
                    }
                }
            }
            return out;
        }

        /** Reads the blocks of {@code rows} (ascending) not read yet: those blocks only, in one statement. */
        private void readBlocks(long[] rows, int n) throws SQLException {
            Map<Long, byte[]> wanted = new HashMap<>();
            long current = -1;
            for (int i = 0; i < n; i++) {
                if (rows[i] / BLOCK != current) {
                    current = rows[i] / BLOCK;
                    if (!blocks.containsKey(current)) {
                        byte[] block = kept == null ? null : kept.lengths(current);
                        if (block != null) {
                            blocks.put(current, block);
                        } else {
                            wanted.put(current, EMPTY);
                        }
                    }
                }
            }
            if (wanted.isEmpty()) {
                return;
            }
            PreparedStatement ps = sql.prepare("SELECT block, sizes FROM fts5_lengths WHERE tbl = ? "
                    + "AND block IN (SELECT value FROM json_each(?))");
            ps.setString(1, table);
            ps.setString(2, Sql.jsonArray(wanted.keySet()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    byte[] sizes = rs.getBytes(2);
                    if (sizes != null && sizes.length == 2 * BLOCK) {
                        wanted.put(rs.getLong(1), sizes);
                        if (kept != null) {
                            kept.keepLengths(rs.getLong(1), sizes);
                        }
                    }
                }
            }
            blocks.putAll(wanted);
        }
    }

    /** A block no row of which is known. */
    private static final byte[] EMPTY = new byte[2 * BLOCK];
}
