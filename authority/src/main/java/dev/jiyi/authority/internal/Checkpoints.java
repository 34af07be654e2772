package dev.jiyi.authority.internal;

import dev.jiyi.authority.Checkpoint;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.index.ChangeLog;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Checkpoints (K1, D3): host-reported, covering an event of the same scope and session; invalidated
 * (never removed) by a correction or deletion in their scope, and removed with the event they cover.
 */
public final class Checkpoints {

    private final Sql sql;
    private final ChangeLogWriter changeLog;

    public Checkpoints(Sql sql, ChangeLogWriter changeLog) {
        this.sql = sql;
        this.changeLog = changeLog;
    }

    /** Saves a checkpoint whose covered sequence belongs to an event of the same scope and session (K1). */
    public Checkpoint save(Scope scope, CheckpointDraft d) throws SQLException {
        PreparedStatement covered = sql.prepare("SELECT persona_id, project_id, session_id FROM events WHERE sequence = ?");
        covered.setLong(1, d.coveredSequence());
        try (ResultSet rs = covered.executeQuery()) {
            if (!rs.next() || !new Scope(rs.getString("persona_id"), rs.getString("project_id")).equals(scope)
                    || !rs.getString("session_id").equals(d.sessionId())) {
                throw new InvalidInputException("covered_seq",
                        "must be the sequence of an event in the same scope and session");
            }
        }
        Instant now = Times.now();
        PreparedStatement ps = sql.prepare("INSERT INTO checkpoints (persona_id, project_id, session_id, goal, done, "
                + "pending, constraints, next_action, covered_seq, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "RETURNING id");
        ps.setString(1, scope.personaId());
        ps.setString(2, scope.projectId());
        ps.setString(3, d.sessionId());
        ps.setString(4, d.goal());
        ps.setString(5, JsonStrings.encode(d.done()));
        ps.setString(6, JsonStrings.encode(d.pending()));
        ps.setString(7, JsonStrings.encode(d.constraints()));
        ps.setString(8, d.nextAction());
        ps.setLong(9, d.coveredSequence());
        ps.setString(10, Times.format(now));
        long id = Long.parseLong(Sql.strings(ps).getFirst());
        changeLog.append(ChangeLog.Entity.CHECKPOINT, Long.toString(id), ChangeLog.Op.INSERT, scope, now);
        return new Checkpoint(id, scope, d.sessionId(), d.goal(), d.done(), d.pending(), d.constraints(),
                d.nextAction(), d.coveredSequence(), now, null);
    }

    /** The newest valid checkpoint of the scope, of one session when {@code sessionId} is given. */
    public Optional<Checkpoint> latest(Scope scope, String sessionId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT " + Rows.CHECKPOINT_COLUMNS + " FROM checkpoints "
                + "WHERE persona_id = ? AND project_id = ? AND (? IS NULL OR session_id = ?) AND invalidated_at IS NULL "
                + "ORDER BY id DESC LIMIT 1");
        ps.setString(1, scope.personaId());
        ps.setString(2, scope.projectId());
        ps.setString(3, sessionId);
        ps.setString(4, sessionId);
        return Sql.first(ps, Rows::checkpoint);
    }

    /** D3: invalidates every still-valid checkpoint of the scope; returns how many. */
    public int invalidateAll(Scope scope, Instant now) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE checkpoints SET invalidated_at = ? "
                + "WHERE persona_id = ? AND project_id = ? AND invalidated_at IS NULL RETURNING id");
        ps.setString(1, Times.format(now));
        ps.setString(2, scope.personaId());
        ps.setString(3, scope.projectId());
        List<String> ids = Sql.strings(ps);
        for (String id : ids) {
            changeLog.append(ChangeLog.Entity.CHECKPOINT, id, ChangeLog.Op.UPDATE, scope, now);
        }
        return ids.size();
    }

    /** Removes the checkpoints that cover this event (it is being deleted); returns how many. */
    public int deleteCovering(Event e, Instant now) throws SQLException {
        PreparedStatement ps = sql.prepare("DELETE FROM checkpoints WHERE covered_seq = ? RETURNING id");
        ps.setLong(1, e.sequence());
        List<String> ids = Sql.strings(ps);
        for (String id : ids) {
            changeLog.append(ChangeLog.Entity.CHECKPOINT, id, ChangeLog.Op.DELETE, e.scope(), now);
        }
        return ids.size();
    }
}
