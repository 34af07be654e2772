package dev.jiyi.authority.internal;

import dev.jiyi.authority.CaptureCursor;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.ConflictException;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Times;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Host capture cursors (H1, D4): one per host instance, bound to the scope it first captured into.
 * A cursor only moves by compare-and-set on its version, in the transaction that also saves the
 * capture's checkpoints, after the captured events committed: a capture interrupted before it
 * leaves the cursor where it was (a replay resubmits the same stable IDs, which changes nothing,
 * E2), and of two captures of one instance that read the same version only the first moves it.
 * A checkpoint equal to one already saved (a replay) is not saved again, nor is one whose message
 * is gone (deleted since): the one would repeat at every replay, the other wedge every later one.
 */
public final class CaptureCursors {

    private final Sql sql;
    private final Checkpoints checkpoints;

    public CaptureCursors(Sql sql, Checkpoints checkpoints) {
        this.sql = sql;
        this.checkpoints = checkpoints;
    }

    public Optional<CaptureCursor> get(String instanceId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT instance_id, persona_id, project_id, cursor, occurred_at, ids_at, version, "
                + "updated_at FROM capture_cursors WHERE instance_id = ?");
        ps.setString(1, instanceId);
        return Sql.first(ps, rs -> new CaptureCursor(rs.getString(1), new Scope(rs.getString(2), rs.getString(3)),
                rs.getString(4), Times.read(rs.getString(5)), JsonStrings.decode(rs.getString(6)), rs.getLong(7),
                Times.read(rs.getString(8))));
    }

    /**
     * Saves the new checkpoints, then moves the cursor to the message {@code position} that occurred
     * at {@code occurredAt} (with {@code idsAt}, every message captured at that time), if it is still
     * at {@code expectedVersion} (0: the instance has no cursor yet); otherwise refuses, and the
     * caller's transaction rolls the checkpoints back with it.
     */
    public CaptureCursor.Advanced advance(Scope scope, String instanceId, long expectedVersion, String position,
                                   Instant occurredAt, List<String> idsAt, List<CheckpointDraft> drafts)
            throws SQLException {
        Optional<CaptureCursor> current = get(instanceId);
        if (current.isPresent() && !current.get().scope().equals(scope)) {
            throw new InvalidInputException("instance", "captures into another persona and project: one instance has one scope");
        }
        long version = current.map(CaptureCursor::version).orElse(0L);
        if (version != expectedVersion) {
            throw new ConflictException("another capture of this instance moved its cursor meanwhile; this one's events "
                    + "are stored, its checkpoints and cursor were not: run it again");
        }
        int saved = 0;
        for (CheckpointDraft d : drafts) {
            // A covered event that is gone was deleted since; one of another scope or session is an error (K1).
            if (exists(d.coveredSequence()) && !alreadySaved(scope, d)) {
                checkpoints.save(scope, d);
                saved++;
            }
        }
        Instant now = Times.now();
        PreparedStatement ps = sql.prepare("INSERT INTO capture_cursors (instance_id, persona_id, project_id, cursor, "
                + "occurred_at, ids_at, version, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT (instance_id) "
                + "DO UPDATE SET cursor = excluded.cursor, occurred_at = excluded.occurred_at, ids_at = excluded.ids_at, "
                + "version = capture_cursors.version + 1, updated_at = excluded.updated_at");
        ps.setString(1, instanceId);
        ps.setString(2, scope.personaId());
        ps.setString(3, scope.projectId());
        ps.setString(4, position);
        ps.setString(5, Times.format(occurredAt));
        ps.setString(6, JsonStrings.encode(idsAt));
        ps.setString(7, Times.format(now));
        ps.executeUpdate();
        CaptureCursor moved = new CaptureCursor(instanceId, scope, position, occurredAt, idsAt, version + 1, now);
        return new CaptureCursor.Advanced(moved, saved, drafts.size() - saved);
    }

    private boolean exists(long sequence) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT 1 FROM events WHERE sequence = ?");
        ps.setLong(1, sequence);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    /** Whether an equal checkpoint was saved before, valid or since invalidated (a replay must not revive it). */
    private boolean alreadySaved(Scope scope, CheckpointDraft d) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT 1 FROM checkpoints WHERE persona_id = ? AND project_id = ? "
                + "AND session_id = ? AND covered_seq = ? AND goal = ? AND done = ? AND pending = ? AND constraints = ? "
                + "AND next_action IS ?");
        ps.setString(1, scope.personaId());
        ps.setString(2, scope.projectId());
        ps.setString(3, d.sessionId());
        ps.setLong(4, d.coveredSequence());
        ps.setString(5, d.goal());
        ps.setString(6, JsonStrings.encode(d.done()));
        ps.setString(7, JsonStrings.encode(d.pending()));
        ps.setString(8, JsonStrings.encode(d.constraints()));
        ps.setString(9, d.nextAction());
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }
}
