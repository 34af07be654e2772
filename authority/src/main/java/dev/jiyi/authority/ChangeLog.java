package dev.jiyi.authority;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The append-only list of authoritative changes, written in the same transaction as the change
 * itself. Derived indexes that live outside SQLite (Lucene) apply the entries after the last
 * sequence they have seen: an entry names the row (IDs only, never text), and the follower reads
 * the row's current state, with its row number, from the authority ({@link Snapshot#memoriesById}, {@link Snapshot#eventsById}).
 * A row that is gone by then was deleted, and a later {@code delete} entry says so.
 *
 * <p>What touches an index is always logged: events and memories inserted, updated (a closed
 * interval, a revocation, an amended or extraction-state flag) and deleted, and vectors stored and
 * removed ({@link Entity#VECTOR}, keyed by the memory's ID and row; {@code insert} means stored, new
 * or replacing the memory's vector of another fingerprint; the vector itself is read with
 * {@link Snapshot#vectorsByMemoryRow}).
 */
public final class ChangeLog {

    /** What kind of row changed. Stored as its lower-case code; prints as it. */
    public enum Entity {
        PERSONA, EVENT, MEMORY, RELATION, CHECKPOINT, VECTOR;

        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }

        @Override
        public String toString() {
            return code();
        }
    }

    /** What happened to it. Stored as its lower-case code; prints as it. */
    public enum Op {
        INSERT, UPDATE, DELETE;

        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }

        @Override
        public String toString() {
            return code();
        }
    }

    /**
     * One change: what kind of row, its ID, what happened, in which scope (no project for a persona),
     * when.
     *
     * @param rowId the row number indexes key the row by: the event's sequence, or the memory's row
     *              ({@link Memory#rowId}) for a memory or its vector; null for other rows, and for
     *              entries written before schema 6 whose row no longer existed then
     */
    public record Entry(long seq, Entity entity, String entityId, Long rowId, Op op, String personaId,
                        String projectId, Instant at) {
    }

    private final Sql sql;

    ChangeLog(Sql sql) {
        this.sql = sql;
    }

    /** Logs a change to an event: keyed by its ID and sequence. */
    void event(Event e, Op op, Instant at) throws SQLException {
        append(Entity.EVENT, e.id(), e.sequence(), op, e.scope().personaId(), e.scope().projectId(), at);
    }

    /** Logs a change to a memory: keyed by its ID and row number. */
    void memory(Memory m, Op op, Instant at) throws SQLException {
        append(Entity.MEMORY, m.id(), m.rowId(), op, m.scope().personaId(), m.scope().projectId(), at);
    }

    /** Logs a change to a memory's vector: keyed by the memory's ID and row number. */
    void vector(String memoryId, long memoryRow, Scope scope, Op op, Instant at) throws SQLException {
        append(Entity.VECTOR, memoryId, memoryRow, op, scope.personaId(), scope.projectId(), at);
    }

    /** Logs a change to a row that no index keys (a relation, a checkpoint). */
    void append(Entity entity, String entityId, Op op, Scope scope, Instant at) throws SQLException {
        append(entity, entityId, null, op, scope.personaId(), scope.projectId(), at);
    }

    void append(Entity entity, String entityId, Long rowId, Op op, String personaId, String projectId, Instant at)
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

    List<Entry> after(long afterSeq, int limit) throws SQLException {
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
    long head() throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT coalesce(max(seq), 0) FROM change_log").executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }
}
