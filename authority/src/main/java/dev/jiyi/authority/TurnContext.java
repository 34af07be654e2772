package dev.jiyi.authority;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The conversation context of a dialogue turn: the turns around it, whose matches recall lends it
 * at reduced weight (a question is often answered by the turn after the one that shares its words,
 * and a turn's own words rarely say everything it is about).
 *
 * <p>A turn's context is the conversation events next to it in its session, in arrival order
 * (sequence), that happened within {@link #GAP} of it: {@code near} the one before and the one after,
 * {@code far} the two beyond those. The gap keeps standalone memories that merely share a session
 * (notes submitted days apart, or everything a host put in the default session) from lending each
 * other their matches; turns of one dialogue are minutes apart. References, persona sources and
 * corrections are no one's context and have none. The relation is symmetric: a turn is in the
 * context of each turn in its own.
 *
 * <p>Nothing of it is stored: it is read from the events table when recall needs it, so an arriving
 * turn changes no index row but its own and a deleted turn leaves no one's context in the same
 * transaction that deletes it. (Schema 8 kept each turn's context words in an FTS5 table; keeping it
 * exact made every arrival rewrite the rows of the turns before it, more than ten times the cost of
 * ingestion, for no measured gain over this.)
 *
 * @param near the sequences of the turns one before and one after, those that exist within the gap
 * @param far  the sequences of the turns two before and two after, likewise
 */
public record TurnContext(List<Long> near, List<Long> far) {

    /** The longest time between a turn and a neighbour that is its context. */
    public static final Duration GAP = Duration.ofHours(1);

    /** How far the context reaches, in turns on each side. */
    static final int REACH = 2;

    public static final TurnContext NONE = new TurnContext(List.of(), List.of());

    public TurnContext {
        near = List.copyOf(near);
        far = List.copyOf(far);
    }

    public boolean isEmpty() {
        return near.isEmpty() && far.isEmpty();
    }

    /**
     * The context of the conversation turn with {@code sequence} in {@code sessionId} of
     * {@code scope}, which occurred at {@code at}; reads only the neighbours' sequences and times.
     */
    static TurnContext of(Sql sql, Scope scope, String sessionId, long sequence, Instant at) throws SQLException {
        List<Long> near = new ArrayList<>(2);
        List<Long> far = new ArrayList<>(2);
        for (boolean before : new boolean[] {true, false}) {
            PreparedStatement ps = sql.prepare("SELECT sequence, occurred_at FROM events INDEXED BY events_scope_session "
                    + "WHERE persona_id = ? AND project_id = ? AND session_id = ? AND sequence " + (before ? "<" : ">")
                    + " ? AND category = 'conversation' ORDER BY sequence " + (before ? "DESC" : "ASC")
                    + " LIMIT " + REACH);
            ps.setString(1, scope.personaId());
            ps.setString(2, scope.projectId());
            ps.setString(3, sessionId);
            ps.setLong(4, sequence);
            try (ResultSet rs = ps.executeQuery()) {
                for (int i = 0; rs.next(); i++) {
                    Instant when = Times.read(rs.getString(2));
                    if (Duration.between(when, at).abs().compareTo(GAP) <= 0) {
                        (i == 0 ? near : far).add(rs.getLong(1));
                    }
                }
            }
        }
        return new TurnContext(near, far);
    }
}
