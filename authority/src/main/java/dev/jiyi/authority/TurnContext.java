package dev.jiyi.authority;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The conversation context of a dialogue turn: the texts of the turns around it, which the lexical
 * indexes keep beside the turn at reduced weight (a question is often answered by the turn after the
 * one that shares its words, and a turn's own words rarely say everything it is about).
 *
 * <p>A turn's neighbours are the conversation events just before and after it in its session, in
 * arrival order (sequence), that happened within {@link #GAP} of it: {@code near} holds the text of
 * the one before and the one after, {@code far} the two beyond those. The gap keeps standalone
 * memories that merely share a session (notes submitted days apart, or everything a host put in the
 * default session) from lending each other their words; turns of one dialogue are minutes apart.
 * References, persona sources and corrections are no one's neighbours and have none.
 *
 * <p>The context is a function of immutable facts (sequence, session, category, time and text of
 * events), so an index that stores it can always recompute exactly what it stored: when an event
 * arrives, the context of the turns before it changes ({@link #around}); when one is deleted, that
 * of the turns around it. {@link #of} computes a turn's context with or without one event, the state
 * before or after such a change.
 *
 * @param near the texts of the turns one before and one after, joined by a newline; empty when none
 * @param far  the texts of the turns two before and two after
 */
public record TurnContext(String near, String far) {

    /** The longest time between a turn and a neighbour that lends it context. */
    public static final Duration GAP = Duration.ofHours(1);

    /** How far the context reaches, in turns on each side. */
    static final int REACH = 2;

    public static final TurnContext NONE = new TurnContext("", "");

    public boolean isEmpty() {
        return near.isEmpty() && far.isEmpty();
    }

    /** Whether an event takes part in conversation context at all. */
    public static boolean isTurn(Event e) {
        return e.category() == Category.CONVERSATION;
    }

    /**
     * The context of {@code turn} in the state {@code sql} reads, as if the event with sequence
     * {@code without} did not exist (-1: as it is).
     */
    public static TurnContext of(Sql sql, Event turn, long without) throws SQLException {
        if (!isTurn(turn)) {
            return NONE;
        }
        List<Event> before = side(sql, turn, without, true);
        List<Event> after = side(sql, turn, without, false);
        StringBuilder near = new StringBuilder();
        StringBuilder far = new StringBuilder();
        for (int i = 0; i < REACH; i++) {
            StringBuilder into = i == 0 ? near : far;
            for (List<Event> side : List.of(before, after)) {
                if (i < side.size() && within(turn, side.get(i))) {
                    if (!into.isEmpty()) {
                        into.append('\n');
                    }
                    into.append(side.get(i).text());
                }
            }
        }
        return new TurnContext(near.toString(), far.toString());
    }

    /**
     * The turns whose context includes {@code event}: up to two before and two after it in its
     * session, nearest first, itself excluded. Their context changes when it arrives or is deleted.
     */
    public static List<Event> around(Sql sql, Event event) throws SQLException {
        if (!isTurn(event)) {
            return List.of();
        }
        List<Event> out = new ArrayList<>(2 * REACH);
        for (Event e : side(sql, event, -1, true)) {
            if (within(e, event)) {
                out.add(e);
            }
        }
        for (Event e : side(sql, event, -1, false)) {
            if (within(e, event)) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * The turns of a session within {@link #REACH} positions of {@code sequence} on either side (the
     * event with that sequence excluded, present or not): a superset of {@link #around}, for an index
     * that learns of a deletion after the deleted event is gone and recomputes its neighbours' context.
     */
    public static List<Event> near(Sql sql, Scope scope, String sessionId, long sequence) throws SQLException {
        List<Event> out = new ArrayList<>(side(sql, scope, sessionId, sequence, -1, true));
        out.addAll(side(sql, scope, sessionId, sequence, -1, false));
        return out;
    }

    private static boolean within(Event a, Event b) {
        return Duration.between(a.occurredAt(), b.occurredAt()).abs().compareTo(GAP) <= 0;
    }

    /** Up to {@link #REACH} conversation events of the turn's session before (or after) it, nearest first. */
    private static List<Event> side(Sql sql, Event turn, long without, boolean before) throws SQLException {
        return side(sql, turn.scope(), turn.sessionId(), turn.sequence(), without, before);
    }

    private static List<Event> side(Sql sql, Scope scope, String sessionId, long sequence, long without, boolean before)
            throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT " + Rows.EVENT_COLUMNS + " FROM events INDEXED BY events_scope_session "
                + "WHERE persona_id = ? AND project_id = ? AND session_id = ? AND sequence " + (before ? "<" : ">")
                + " ? AND sequence <> ? AND category = 'conversation' ORDER BY sequence " + (before ? "DESC" : "ASC")
                + " LIMIT " + REACH);
        ps.setString(1, scope.personaId());
        ps.setString(2, scope.projectId());
        ps.setString(3, sessionId);
        ps.setLong(4, sequence);
        ps.setLong(5, without);
        return Sql.list(ps, Rows::event);
    }
}
