package dev.jiyi.authority.internal;

import dev.jiyi.authority.ConflictException;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.ExtractionState;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.index.ChangeLog;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Events (E1-E4): the original, authoritative input. Submitting stores an event with its text
 * exactly as given, feeds the attached indexes and logs the change; re-submitting the same payload
 * is idempotent and a different one a conflict. Events are otherwise only flagged (amended,
 * extraction state), never rewritten.
 */
public final class Events {

    private final Sql sql;
    private final ChangeLogWriter changeLog;
    private final Indexes indexes;

    public Events(Sql sql, ChangeLogWriter changeLog, Indexes indexes) {
        this.sql = sql;
        this.changeLog = changeLog;
        this.indexes = indexes;
    }

    /** Stores one event (E1), or returns the identical stored one (E2, E3); a different one conflicts. */
    public SubmitResult submit(EventSubmission s) throws SQLException {
        Optional<Event> existing = byId(s.id());
        if (existing.isPresent()) {
            Event e = existing.get();
            boolean same = e.scope().equals(s.scope()) && e.role() == s.role() && e.text().equals(s.text())
                    && e.source().equals(s.source()) && e.category() == s.category()
                    && e.sessionId().equals(s.sessionId())
                    && (s.occurredAt() == null || e.occurredAt().equals(s.occurredAt()));
            if (!same) {
                throw new ConflictException("event " + s.id()
                        + " already exists with a different payload or scope; nothing was changed");
            }
            return new SubmitResult(e, false);
        }
        Instant ingested = Times.now();
        Instant occurred = s.occurredAt() != null ? s.occurredAt() : ingested;
        PreparedStatement ps = sql.prepare("INSERT INTO events (id, persona_id, project_id, role, source, category, "
                + "session_id, text, occurred_at, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        ps.setString(1, s.id());
        ps.setString(2, s.scope().personaId());
        ps.setString(3, s.scope().projectId());
        ps.setString(4, s.role().code());
        ps.setString(5, s.source());
        ps.setString(6, s.category().code());
        ps.setString(7, s.sessionId());
        ps.setString(8, s.text());
        ps.setString(9, Times.format(occurred));
        ps.setString(10, Times.format(ingested));
        long sequence = sql.insert(ps);
        Event event = new Event(sequence, s.id(), s.scope(), s.role(), s.source(), s.category(), s.sessionId(),
                s.text(), occurred, ingested, ExtractionState.NONE, null, false);
        indexes.eventAdded(event);
        changeLog.event(event, ChangeLog.Op.INSERT, ingested);
        return new SubmitResult(event, true);
    }

    public Optional<Event> byId(String id) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT " + Rows.EVENT_COLUMNS + " FROM events WHERE id = ?");
        ps.setString(1, id);
        return Sql.first(ps, Rows::event);
    }

    /** The event with this ID in this scope. */
    public Optional<Event> inScope(Scope scope, String id) throws SQLException {
        return byId(id).filter(e -> e.scope().equals(scope));
    }

    /** Events of a scope after a sequence, in order, at most {@code limit}; only pending ones if asked. */
    public List<Event> page(Scope scope, long afterSequence, int limit, boolean pendingOnly) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT " + Rows.EVENT_COLUMNS + " FROM events WHERE "
                + (pendingOnly ? "extraction_state = 'pending' AND " : "")
                + "persona_id = ? AND project_id = ? AND sequence > ? ORDER BY sequence LIMIT ?");
        ps.setString(1, scope.personaId());
        ps.setString(2, scope.projectId());
        ps.setLong(3, afterSequence);
        ps.setInt(4, limit);
        return Sql.list(ps, Rows::event);
    }

    /** C1: the event's text holds a mistake that a correction revoked. */
    public void markAmended(Event e, Instant now) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE events SET amended = 1 WHERE id = ?");
        ps.setString(1, e.id());
        ps.executeUpdate();
        changeLog.event(e, ChangeLog.Op.UPDATE, now);
    }

    /** Sets the extraction state and its reason (null when there is none), and logs the update. */
    public void setExtractionState(Event e, ExtractionState state, String reason, Instant now) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE events SET extraction_state = ?, extraction_error = ? WHERE id = ?");
        ps.setString(1, state.code());
        ps.setString(2, reason);
        ps.setString(3, e.id());
        ps.executeUpdate();
        changeLog.event(e, ChangeLog.Op.UPDATE, now);
    }

    /**
     * X2: marks an event's extraction pending with a sanitized reason, unless it is done or skipped
     * meanwhile; false when it was left alone.
     */
    public boolean markPending(String eventId, String reason) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE events SET extraction_state = 'pending', extraction_error = ? "
                + "WHERE id = ? AND extraction_state IN ('none', 'pending')");
        ps.setString(1, reason);
        ps.setString(2, eventId);
        if (ps.executeUpdate() == 0) {
            return false;
        }
        Event e = byId(eventId).orElseThrow();
        changeLog.event(e, ChangeLog.Op.UPDATE, Times.now());
        return true;
    }

    /** Removes an event row (the caller has removed what refers to it) from the indexes and the table. */
    public void delete(Event e, Instant now) throws SQLException {
        indexes.eventRemoved(e);
        PreparedStatement ps = sql.prepare("DELETE FROM events WHERE id = ?");
        ps.setString(1, e.id());
        ps.executeUpdate();
        changeLog.event(e, ChangeLog.Op.DELETE, now);
    }
}
