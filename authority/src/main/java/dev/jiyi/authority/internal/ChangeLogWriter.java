package dev.jiyi.authority.internal;

import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.index.ChangeLog.Entity;
import dev.jiyi.authority.index.ChangeLog.Entry;
import dev.jiyi.authority.index.ChangeLog.Op;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * Writes the change log ({@link dev.jiyi.authority.index.ChangeLog}) in the transaction of the change
 * it records, and reads it back for followers.
 */
public final class ChangeLogWriter {

    private final Sql sql;

    public ChangeLogWriter(Sql sql) {
        this.sql = sql;
    }

    /** Logs a change to an event: keyed by its ID and sequence. */
    public void event(Event e, Op op, Instant at) throws SQLException {
        append(Entity.EVENT, e.id(), e.sequence(), op, e.scope().personaId(), e.scope().projectId(), at);
    }

    /** Logs a change to a memory: keyed by its ID and row number. */
    public void memory(Memory m, Op op, Instant at) throws SQLException {
        append(Entity.MEMORY, m.id(), m.rowId(), op, m.scope().personaId(), m.scope().projectId(), at);
    }

    /** Logs a change to a memory's vector: keyed by the memory's ID and row number. */
    public void vector(String memoryId, long memoryRow, Scope scope, Op op, Instant at) throws SQLException {
        append(Entity.VECTOR, memoryId, memoryRow, op, scope.personaId(), scope.projectId(), at);
    }

    /** Logs a change to a row that no index keys (a relation, a checkpoint). */
    public void append(Entity entity, String entityId, Op op, Scope scope, Instant at) throws SQLException {
        append(entity, entityId, null, op, scope.personaId(), scope.projectId(), at);
    }

    public void append(Entity entity, String entityId, Long rowId, Op op, String personaId, String projectId, Instant at)
            throws SQLException {
        PreparedStatement ps = sql.prepare("INSERT INTO change_log (entity, entity_id, row_id, op, persona_id, "
                + "project_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)");
        ps.setString(1, entity.code());
        ps.setString(2, entityId);
        if (rowId == null) {
            ps.setNull(3, java.sql.Types.INTEGER);
        } else {
            ps.setLong(3, rowId);
        }
        ps.setString(4, op.code());
        ps.setString(5, personaId);
        ps.setString(6, projectId);
        ps.setString(7, Times.format(at));
        ps.executeUpdate();
    }

    public List<Entry> after(long afterSeq, int limit) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT seq, entity, entity_id, row_id, op, persona_id, project_id, at "
                + "FROM change_log WHERE seq > ? ORDER BY seq LIMIT ?");
        ps.setLong(1, afterSeq);
        ps.setInt(2, limit);
        return Sql.list(ps, rs -> {
            long row = rs.getLong("row_id");
            Long rowId = rs.wasNull() ? null : row; // asked right after its own column
            return new Entry(rs.getLong("seq"), Codes.parse(Entity.class, "entity", rs.getString("entity")),
                    rs.getString("entity_id"), rowId, Codes.parse(Op.class, "op", rs.getString("op")),
                    rs.getString("persona_id"), rs.getString("project_id"), Times.read(rs.getString("at")));
        });
    }

    /** The sequence of the newest entry, 0 when the log is empty: how far a follower has to go. */
    public long head() throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT coalesce(max(seq), 0) FROM change_log").executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }
}
