package dev.jiyi.authority;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The conversation context of a dialogue turn: the turns around it, whose matches recall lends it
 * at reduced weight (a question is often answered by the turn after the one that shares its words,
 * and a turn's own words rarely say everything it is about).
 *
 * <p>A turn's context is the conversation events next to it in its session, in arrival order
 * (sequence), that happened within {@link #GAP} of it and are part of an exchange with it: {@code near}
 * the one before and the one after, {@code far} the two beyond those. The gap keeps standalone
 * memories that merely share a session (notes submitted days apart, or everything a host put in the
 * default session) from lending each other their matches; turns of one dialogue are minutes apart.
 * The exchange keeps one speaker's run of statements from doing the same: a neighbour is context
 * only if it, or the turn between it and the turn, has another role (user, assistant or system; see
 * {@link #around}). A reply is about what it answers, and the turns around an exchange are about
 * what it is about; a speaker's statements told one after another with no reply between them (a
 * user listing the events of their week, each a fact of its own, or a reply sent in two messages)
 * say nothing about each other by their order. References, persona sources and corrections are no
 * one's context and have none. The relation is symmetric: a turn is in the context of each turn in
 * its own.
 *
 * <p>Nothing of it is stored: it is read from the events table when recall needs it, so an arriving
 * turn changes no index row but its own and a deleted turn leaves no one's context in the same
 * transaction that deletes it. (Schema 8 kept each turn's context words in an FTS5 table; keeping it
 * exact made every arrival rewrite the rows of the turns before it, more than ten times the cost of
 * ingestion, for no measured gain over this.)
 *
 * @param near the sequences of the turns one before and one after, those that exist within the gap
 *             and have another role than the turn's
 * @param far  the sequences of the turns two before and two after, those within the gap that have
 *             another role or lie beyond a turn that has one
 */
public record TurnContext(List<Long> near, List<Long> far) {

    /** The longest time between a turn and a neighbour that is its context. */
    public static final Duration GAP = Duration.ofHours(1);

    /** How far the context reaches, in turns on each side. */
    static final int REACH = 2;

    public static final TurnContext NONE = new TurnContext(List.of(), List.of());

    /** {@code "sequence time role"} turns in arrival order (by sequence, not by time). */
    private static final Comparator<String> BY_SEQUENCE = Comparator.comparingLong(TurnContext::sequence);

    public TurnContext {
        near = List.copyOf(near);
        far = List.copyOf(far);
    }

    public boolean isEmpty() {
        return near.isEmpty() && far.isEmpty();
    }

    /**
     * The contexts of those of {@code sequences} that are conversation turns of {@code scope}, by
     * sequence in ascending order, leaving out turns with none; reads only the turns' and their
     * neighbours' sequences, times and roles, in one statement (each turn's nearest neighbours on
     * each side are a subquery on the session index; {@link #nearestFirst} puts them in order). On
     * each side the exchange begins at the first turn of another role: that turn, and the one beyond
     * it, are context.
     */
    static Map<Long, TurnContext> around(Sql sql, Scope scope, Collection<Long> sequences) throws SQLException {
        Map<Long, TurnContext> out = new LinkedHashMap<>();
        if (sequences.isEmpty()) {
            return out;
        }
        // The unary + keeps the planner on the primary key: by the scope's index it would read the
        // whole scope to find a hundred turns (SQLite has no statistics to tell it otherwise).
        PreparedStatement ps = sql.prepare("SELECT e.sequence, e.occurred_at, e.role, " + neighbours("<", "DESC") + ", "
                + neighbours(">", "ASC") + " FROM events e "
                + "WHERE e.sequence IN (SELECT value FROM json_each(?)) AND +e.persona_id = ? AND +e.project_id = ? "
                + "AND e.category = 'conversation' ORDER BY e.sequence");
        ps.setString(1, Sql.jsonArray(sequences));
        ps.setString(2, scope.personaId());
        ps.setString(3, scope.projectId());
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Instant at = Times.read(rs.getString(2));
                String role = rs.getString(3);
                List<Long> near = new ArrayList<>(2);
                List<Long> far = new ArrayList<>(2);
                for (int side = 4; side <= 5; side++) {
                    String turns = rs.getString(side);
                    if (turns == null) {
                        continue;
                    }
                    String[] each = nearestFirst(turns.split(","), side == 4);
                    boolean exchange = false;
                    for (int i = 0; i < each.length; i++) {
                        // "sequence time role": neither a time (Times.format) nor a role holds a space or a comma
                        int space = each[i].indexOf(' ');
                        int last = each[i].lastIndexOf(' ');
                        exchange |= !each[i].substring(last + 1).equals(role);
                        Instant when = Times.read(each[i].substring(space + 1, last));
                        if (exchange && Duration.between(when, at).abs().compareTo(GAP) <= 0) {
                            (i == 0 ? near : far).add(sequence(each[i]));
                        }
                    }
                }
                if (!near.isEmpty() || !far.isEmpty()) {
                    out.put(rs.getLong(1), new TurnContext(near, far));
                }
            }
        }
        return out;
    }

    /**
     * One side's {@code "sequence time role"} turns, nearest first: before the turn by descending
     * sequence, after it by ascending. SQL leaves the order of {@code group_concat} open unless it
     * sorts, and a sort there builds a temporary B-tree for each turn and side (about a tenth of
     * the statement's time, docs/benchmarks.md), so the turns are put in order here.
     */
    static String[] nearestFirst(String[] turns, boolean before) {
        Arrays.sort(turns, before ? BY_SEQUENCE.reversed() : BY_SEQUENCE);
        return turns;
    }

    private static long sequence(String turn) {
        return Long.parseLong(turn, 0, turn.indexOf(' '), 10);
    }

    /**
     * The {@link #REACH} nearest conversation turns of the outer turn {@code e}'s session on one
     * side of it ({@code <} before, {@code >} after; {@code outward} orders the session index away
     * from the turn), as {@code "sequence time role"} joined by commas in no set order.
     */
    private static String neighbours(String side, String outward) {
        return "(SELECT group_concat(n.sequence || ' ' || n.occurred_at || ' ' || n.role, ',') "
                + "FROM (SELECT sequence, occurred_at, role FROM events INDEXED BY events_scope_session "
                + "WHERE persona_id = e.persona_id AND project_id = e.project_id AND session_id = e.session_id "
                + "AND sequence " + side + " e.sequence AND category = 'conversation' ORDER BY sequence "
                + outward + " LIMIT " + REACH + ") n)";
    }
}
