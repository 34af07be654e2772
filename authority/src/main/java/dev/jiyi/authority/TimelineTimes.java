package dev.jiyi.authority;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The keyed facts of each scope with their times, kept across snapshots while the archive's memories
 * stand still: what R9's facts of other times ({@link Snapshot#otherTimeFacts}) are chosen from at
 * any query time.
 *
 * <p>Listing a scope's keyed facts reads each fact's row for its times: about 5 ms for the 5,000
 * keyed facts of a scope with 2,500 timelines, and every recall asked for it anew. A kept list is
 * marked with the change log's head and the memories' last row. Every write that adds, changes,
 * revokes, closes or deletes a memory appends to the change log in its transaction (the Lucene
 * follower relies on the same), and the log's sequence only grows, also across processes writing
 * the same file; an archive import or a restore writes memories without log entries, but only into
 * an empty home, so the memories' last row moves. Reading both marks is one statement over the two
 * tables' largest keys. What depends on the query time is a filter over the kept list, with T3's
 * own comparison: times are compared as the stored strings, exactly as {@link Sql#validAt} compares
 * them in SQL.
 *
 * <p>Shared by every snapshot of one authority, so by every thread that reads it; a scope's entry is
 * replaced whole, never changed. At most {@link #SCOPES} scopes are kept, the least recently asked
 * dropped first.
 */
final class TimelineTimes {

    /** Scopes kept at most. */
    static final int SCOPES = 64;

    /** The state of the archive's memories a list was read in: the change log's head and the memories' last row. */
    record Mark(long log, long memory) {
    }

    /** A scope's keyed facts (not revoked), in row order, and the mark they were read at. */
    private record Facts(Mark mark, long[] rows, String[] validAt, String[] invalidAt) {
    }

    private final Map<Scope, Facts> byScope = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Scope, Facts> eldest) {
            return size() > SCOPES;
        }
    };

    /**
     * The rows of {@code scope}'s keyed facts that are not revoked and not valid at {@code at}, in
     * row order, read over the connection of a snapshot (inside its read transaction).
     */
    List<Long> otherTimes(Sql sql, Scope scope, Instant at) throws SQLException {
        String time = Times.format(Objects.requireNonNull(at, "at"));
        Mark mark = mark(sql);
        Facts facts;
        synchronized (this) {
            facts = byScope.get(scope);
        }
        if (facts == null || !facts.mark().equals(mark)) {
            facts = list(sql, scope, mark);
            synchronized (this) {
                byScope.put(scope, facts);
            }
        }
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < facts.rows().length; i++) {
            boolean valid = facts.validAt()[i].compareTo(time) <= 0
                    && (facts.invalidAt()[i] == null || facts.invalidAt()[i].compareTo(time) > 0);
            if (!valid) {
                out.add(facts.rows()[i]);
            }
        }
        return out;
    }

    static Mark mark(Sql sql) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT (SELECT coalesce(max(seq), 0) FROM change_log), "
                + "(SELECT coalesce(max(seq), 0) FROM memories)").executeQuery()) {
            rs.next();
            return new Mark(rs.getLong(1), rs.getLong(2));
        }
    }

    private static Facts list(Sql sql, Scope scope, Mark mark) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT m.seq, m.valid_at, m.invalid_at FROM memories m "
                + "INDEXED BY memories_fact_timeline WHERE m.persona_id = ? AND m.project_id = ? "
                + "AND m.fact_key IS NOT NULL AND m.subject IS NOT NULL AND m.revoked_at IS NULL ORDER BY m.seq");
        ps.setString(1, scope.personaId());
        ps.setString(2, scope.projectId());
        List<Long> rows = new ArrayList<>();
        List<String> from = new ArrayList<>();
        List<String> until = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(rs.getLong(1));
                from.add(rs.getString(2));
                until.add(rs.getString(3));
            }
        }
        return new Facts(mark, rows.stream().mapToLong(Long::longValue).toArray(), from.toArray(String[]::new),
                until.toArray(String[]::new));
    }
}
