package dev.jiyi.authority;

import java.sql.PreparedStatement;
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
 */
final class CaptureCursors {

    private final Sql sql;
    private final Checkpoints checkpoints;

    CaptureCursors(Sql sql, Checkpoints checkpoints) {
        this.sql = sql;
        this.checkpoints = checkpoints;
    }

    Optional<CaptureCursor> get(String instanceId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT instance_id, persona_id, project_id, cursor, version, updated_at "
                + "FROM capture_cursors WHERE instance_id = ?");
        ps.setString(1, instanceId);
        return Sql.first(ps, rs -> new CaptureCursor(rs.getString(1), new Scope(rs.getString(2), rs.getString(3)),
                rs.getString(4), rs.getLong(5), Times.read(rs.getString(6))));
    }

    /**
     * Saves the checkpoints, then moves the cursor to {@code position} if it is still at
     * {@code expectedVersion} (0: the instance has no cursor yet); otherwise refuses, and the
     * caller's transaction rolls the checkpoints back with it.
     */
    CaptureCursor advance(Scope scope, String instanceId, long expectedVersion, String position,
                          List<CheckpointDraft> drafts) throws SQLException {
        Optional<CaptureCursor> current = get(instanceId);
        if (current.isPresent() && !current.get().scope().equals(scope)) {
            throw new InvalidInputException("instance", "captures into another persona and project: one instance has one scope");
        }
        long version = current.map(CaptureCursor::version).orElse(0L);
        if (version != expectedVersion) {
            throw new ConflictException("another capture of this instance moved its cursor meanwhile; this one's events "
                    + "are stored, its checkpoints and cursor were not: run it again");
        }
        for (CheckpointDraft d : drafts) {
            checkpoints.save(scope, d);
        }
        Instant now = Times.now();
        PreparedStatement ps = sql.prepare("INSERT INTO capture_cursors (instance_id, persona_id, project_id, cursor, "
                + "version, updated_at) VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (instance_id) DO UPDATE SET "
                + "cursor = excluded.cursor, version = capture_cursors.version + 1, updated_at = excluded.updated_at");
        ps.setString(1, instanceId);
        ps.setString(2, scope.personaId());
        ps.setString(3, scope.projectId());
        ps.setString(4, position);
        ps.setString(5, Times.format(now));
        ps.executeUpdate();
        return new CaptureCursor(instanceId, scope, position, version + 1, now);
    }
}
