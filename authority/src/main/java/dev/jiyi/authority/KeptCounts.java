package dev.jiyi.authority;

import dev.jiyi.authority.index.Eligibility;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts over a scope's eligible memories (V4's vector coverage, R5's newest vectors of each model),
 * kept across snapshots while nothing they count can have changed, so that semantic and deep recall
 * do not count every eligible memory of the scope again each time.
 *
 * <p>Counting a scope's eligible memories with a vector of a model probes the vector index once a
 * memory: about 16 ms a model at 10,000 memories, and it grows with the scope (a third of a semantic
 * recall at 10,000). A kept count is marked as {@link TimelineTimes} marks its lists (the change log's
 * head and the memories' last row: every write of a memory or a vector moves the first, also from
 * another process, and an import or a restore the second) and with the span of query times it holds
 * for: the scope's last validity boundary (a memory's {@code valid_at} or {@code invalid_at}) at or
 * before the query time and its first one after it. Between the two no memory of the scope becomes
 * valid or stops being valid, so the same memories are eligible (T3), and so the same counts hold.
 * Finding the span is one pass over the scope's covering index, made only when a count is made and
 * the scope's last span no longer holds; the scope's counts share it.
 * With {@code --include-history} eligibility does not depend on time, and a count holds at any time.
 *
 * <p>Shared by every snapshot of one authority; an entry is replaced whole, never changed. At most
 * {@link #ENTRIES} are kept, the least recently asked dropped first.
 */
final class KeptCounts {

    /** Counts kept at most (scopes × counts × with or without history), and spans (scopes). */
    static final int ENTRIES = 256;

    /** {@link Snapshot#vectorCoverage}'s count of a model's vectors. */
    record CoverageOf(String fingerprint) {
    }

    /** {@link Snapshot#newestVectors}'s count of these models' vectors among the newest {@code limit}. */
    record NewestOf(List<String> fingerprints, int limit) {
    }

    /** What was counted (a {@link CoverageOf} or a {@link NewestOf}), of which scope, with or without history. */
    private record Key(Record what, Scope scope, boolean history) {
    }

    /** A count over the authority's connection. */
    @FunctionalInterface
    interface Count<T> {
        T count() throws SQLException;
    }

    /**
     * Where counts hold: at the mark, for query times {@code from <= t < until} as stored strings
     * (null: no bound on that side; both null with history, which does not depend on time).
     */
    private record Span(TimelineTimes.Mark mark, String from, String until) {

        boolean holds(TimelineTimes.Mark now, String time) {
            return mark.equals(now) && (time == null
                    || (from == null || from.compareTo(time) <= 0) && (until == null || time.compareTo(until) < 0));
        }
    }

    private record Kept(Span span, Object value) {
    }

    private final Map<Key, Kept> kept = lru();
    /** Each scope's span last found, shared by its counts (finding it reads the scope's covering index). */
    private final Map<Scope, Span> spans = lru();

    private static <K, V> Map<K, V> lru() {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > ENTRIES;
            }
        };
    }

    /**
     * {@code count}'s answer for {@code what} under {@code filter}, kept or counted now, over a
     * snapshot's connection (inside its read transaction). {@code count} must depend on the
     * archive's memories and vectors and on {@code filter} only, answer the same for equal
     * {@code what}, and answer an immutable value (it is handed to every later read).
     */
    @SuppressWarnings("unchecked")
    <T> T kept(Sql sql, Record what, Eligibility filter, Count<T> count) throws SQLException {
        TimelineTimes.Mark mark = TimelineTimes.mark(sql);
        Key key = new Key(what, filter.scope(), filter.includeHistory());
        String time = filter.includeHistory() ? null : Times.format(filter.at());
        Kept k;
        Span span;
        synchronized (this) {
            k = kept.get(key);
            span = time == null ? new Span(mark, null, null) : spans.get(filter.scope());
        }
        if (k != null && k.span().holds(mark, time)) {
            return (T) k.value();
        }
        T counted = count.count();
        if (span == null || !span.holds(mark, time)) {
            span = span(sql, filter.scope(), mark, time);
            synchronized (this) {
                spans.put(filter.scope(), span);
            }
        }
        synchronized (this) {
            kept.put(key, new Kept(span, counted));
        }
        return counted;
    }

    /**
     * The scope's last validity boundary at or before {@code time} and its first after it, of its
     * memories that are not revoked (index-only, along {@code memories_scope_seq}).
     */
    private static Span span(Sql sql, Scope scope, TimelineTimes.Mark mark, String time) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT max(CASE WHEN valid_at <= ?1 THEN valid_at END), "
                + "max(CASE WHEN invalid_at <= ?1 THEN invalid_at END), min(CASE WHEN valid_at > ?1 THEN valid_at END), "
                + "min(CASE WHEN invalid_at > ?1 THEN invalid_at END) FROM memories INDEXED BY memories_scope_seq "
                + "WHERE persona_id = ?2 AND project_id = ?3 AND revoked_at IS NULL");
        ps.setString(1, time);
        ps.setString(2, scope.personaId());
        ps.setString(3, scope.projectId());
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new Span(mark, later(rs.getString(1), rs.getString(2)), earlier(rs.getString(3), rs.getString(4)));
        }
    }

    private static String later(String a, String b) {
        return a == null ? b : b == null ? a : a.compareTo(b) >= 0 ? a : b;
    }

    private static String earlier(String a, String b) {
        return a == null ? b : b == null ? a : a.compareTo(b) <= 0 ? a : b;
    }
}
