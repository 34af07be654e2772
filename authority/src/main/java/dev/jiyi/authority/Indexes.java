package dev.jiyi.authority;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The indexes attached to the authority's writes ({@link TransactionalIndex}) and their state in
 * {@code index_state}: every indexed row goes through here, and an index whose stored version is
 * not its own is rebuilt from the authoritative rows before anything writes to it.
 */
final class Indexes {

    private final Sql sql;
    private final List<TransactionalIndex> attached;

    Indexes(Sql sql, List<TransactionalIndex> attached) {
        this.sql = sql;
        this.attached = List.copyOf(attached);
    }

    List<TransactionalIndex> attached() {
        return attached;
    }

    /** Loads what the indexes need before a write that adds rows (outside any lock). */
    void prepare() {
        for (TransactionalIndex index : attached) {
            index.prepare();
        }
    }

    /** {@link #prepare}, and hands the indexes what the write will insert, to analyze ahead. */
    void prepare(List<EventSubmission> events, List<MemoryDraft> memories) {
        for (TransactionalIndex index : attached) {
            index.prepare();
            index.analyzeAhead(events, memories);
        }
    }

    void eventAdded(Event event) throws SQLException {
        each(index -> index.eventAdded(sql, event));
    }

    void eventRemoved(Event event) throws SQLException {
        each(index -> index.eventRemoved(sql, event));
    }

    void memoryAdded(Memory memory) throws SQLException {
        each(index -> index.memoryAdded(sql, memory));
    }

    void memoryRemoved(Memory memory) throws SQLException {
        each(index -> index.memoryRemoved(sql, memory));
    }

    void removalsDone(List<Event> events, List<Memory> memories) throws SQLException {
        each(index -> index.removalsDone(sql, events, memories));
    }

    @FunctionalInterface
    private interface Call {
        void on(TransactionalIndex index) throws SQLException;
    }

    private void each(Call call) throws SQLException {
        for (TransactionalIndex index : attached) {
            call.on(index);
        }
    }

    /** The attached, versioned indexes whose stored version is not their own (read outside a write). */
    List<TransactionalIndex> stale() throws SQLException {
        List<TransactionalIndex> out = new java.util.ArrayList<>();
        for (TransactionalIndex index : attached) {
            String version = index.version();
            if (version != null && !version.equals(storedVersion(index.name()))) {
                out.add(index);
            }
        }
        return out;
    }

    /**
     * Inside a write transaction that adds or removes indexed rows: makes every attached index current
     * before the write touches it, and marks stale every index kept in this file that is not
     * attached here (it would miss this write). An index is deleted from by its rows' tokens, so
     * writing to an index built by another version (a newer jiyi, another JDK's Unicode tables)
     * would leave entries behind; rebuilding first makes the tokens agree again.
     */
    void sync() throws SQLException {
        Map<String, String> stored = new HashMap<>();
        try (ResultSet rs = sql.prepare("SELECT name, version FROM index_state").executeQuery()) {
            while (rs.next()) {
                stored.put(rs.getString(1), rs.getString(2));
            }
        }
        for (TransactionalIndex index : attached) {
            String version = index.version();
            if (version != null && !version.equals(stored.remove(index.name()))) {
                rebuild(index);
            }
        }
        for (String unattached : stored.keySet()) {
            PreparedStatement delete = sql.prepare("DELETE FROM index_state WHERE name = ?");
            delete.setString(1, unattached);
            delete.executeUpdate();
        }
    }

    /** Rebuilds every attached, versioned index in the open transaction; what the last was fed. */
    Authority.Rebuilt rebuildAll(java.util.function.LongConsumer rowsFed) throws SQLException {
        Authority.Rebuilt fed = new Authority.Rebuilt(0, 0);
        for (TransactionalIndex index : attached) {
            if (index.version() != null) {
                fed = rebuild(index, rowsFed);
            }
        }
        return fed;
    }

    /** Marks an index stale: the next write (or open) that attaches it rebuilds it. */
    void markStale(String name) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE index_state SET version = 'stale' WHERE name = ?");
        ps.setString(1, name);
        ps.executeUpdate();
    }

    /**
     * Clears the index and feeds it every event and memory in insertion order, in the open
     * transaction; returns how many of each. The scans use statements of their own: the index's
     * writes run between their rows.
     */
    private Authority.Rebuilt rebuild(TransactionalIndex index) throws SQLException {
        return rebuild(index, rows -> { });
    }

    private Authority.Rebuilt rebuild(TransactionalIndex index, java.util.function.LongConsumer rowsFed)
            throws SQLException {
        long events = 0;
        long memories = 0;
        index.clear(sql);
        try (java.sql.Statement s = sql.connection().createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT " + Rows.EVENT_COLUMNS + " FROM events ORDER BY sequence")) {
                while (rs.next()) {
                    index.eventAdded(sql, Rows.event(rs));
                    events++;
                    rowsFed.accept(1);
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT " + Rows.MEMORY_COLUMNS + " FROM memories ORDER BY seq")) {
                while (rs.next()) {
                    index.memoryAdded(sql, Rows.memory(rs));
                    memories++;
                    rowsFed.accept(1);
                }
            }
        }
        PreparedStatement ps = sql.prepare("INSERT INTO index_state (name, version, built_at) VALUES (?, ?, ?) "
                + "ON CONFLICT (name) DO UPDATE SET version = excluded.version, built_at = excluded.built_at");
        ps.setString(1, index.name());
        ps.setString(2, index.version());
        ps.setString(3, Times.format(Times.now()));
        ps.executeUpdate();
        return new Authority.Rebuilt(events, memories);
    }

    private String storedVersion(String name) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT version FROM index_state WHERE name = ?");
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
