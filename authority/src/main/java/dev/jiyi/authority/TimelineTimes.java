package dev.jiyi.authority;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The keyed facts of each scope with their times, kept across snapshots until the change log moves:
 * what R9's facts of other times ({@link Snapshot#otherTimeFacts}) are chosen from at any query time.
 *
 * <p>Listing a scope's keyed facts reads each fact's row for its times: about 5 ms for the 6,000
 * keyed facts of a scope with 3,000 timelines, and every recall asked for it anew. The list changes
 * only when a memory is written, and every write to a memory appends to the change log (Lucene
 * follows the same log), so a list read at log head {@code h} holds for any snapshot whose head is
 * still {@code h}; the log's sequence only grows, also across processes writing the same file. What
 * depends on the query time is a filter over the kept list, with T3's own comparison: times are
 * compared as the stored strings, exactly as {@link Sql#validAt} compares them in SQL.
 *
 * <p>Shared by every snapshot of one authority, so by every thread that reads it; a scope's entry is
 * replaced whole, never changed. At most {@link #SCOPES} scopes are kept, the least recently asked
 * dropped first.
 */
final class TimelineTimes {

    /** Scopes kept at most. */
    static final int SCOPES = 64;

    /** A scope's keyed facts (not revoked), in row order, and the log head they were read at. */
    private record Facts(long head, long[] rows, String[] validAt, String[] invalidAt) {
    }

    private final Map<Scope, Facts> byScope = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Scope, Facts> eldest) {
            return size() > SCOPES;
        }
    };

    /**
     * The rows of {@code scope}'s keyed facts that are not revoked and not valid at {@code at}, in
     * row order, over the connection of a snapshot whose change log ends at {@code head}.
     */
    List<Long> otherTimes(Sql sql, Scope scope, Instant at, long head) throws SQLException {
        Facts facts;
        synchronized (this) {
            facts = byScope.get(scope);
        }
        if (facts == null || facts.head() != head) {
            facts = list(sql, scope, head);
            synchronized (this) {
                Facts kept = byScope.get(scope);
                if (kept == null || kept.head() <= head) {
                    byScope.put(scope, facts);
                }
            }
        }
        String time = Times.format(at);
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

    private static Facts list(Sql sql, Scope scope, long head) throws SQLException {
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
        return new Facts(head, rows.stream().mapToLong(Long::longValue).toArray(), from.toArray(String[]::new),
                until.toArray(String[]::new));
    }
}
