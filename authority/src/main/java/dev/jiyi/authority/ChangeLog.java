package dev.jiyi.authority;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The append-only list of authoritative changes, written in the same transaction as the change
 * itself. Derived indexes that live outside SQLite (Lucene) apply entries after the last sequence
 * they have seen.
 */
public final class ChangeLog {

    /** One change: what kind of row, its ID, what happened, in which scope, when. */
    public record Entry(long seq, String entity, String entityId, String op, String personaId, String projectId,
                        Instant at) {
    }

    void append(Connection tx, String entity, String entityId, String op, String personaId, String projectId,
                Instant at) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(
                "INSERT INTO change_log (entity, entity_id, op, persona_id, project_id, at) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, entity);
            ps.setString(2, entityId);
            ps.setString(3, op);
            ps.setString(4, personaId);
            ps.setString(5, projectId);
            ps.setString(6, Times.format(at));
            ps.executeUpdate();
        }
    }

    List<Entry> after(Connection c, long afterSeq, int limit) throws SQLException {
        List<Entry> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT seq, entity, entity_id, op, persona_id, project_id, at "
                + "FROM change_log WHERE seq > ? ORDER BY seq LIMIT ?")) {
            ps.setLong(1, afterSeq);
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Entry(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                            rs.getString(6), Times.read(rs.getString(7))));
                }
            }
        }
        return out;
    }
}
