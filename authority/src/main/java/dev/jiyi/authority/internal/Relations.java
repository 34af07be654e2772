package dev.jiyi.authority.internal;

import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Relation;
import dev.jiyi.authority.RelationType;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.index.ChangeLog;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;

/**
 * Relations (M3, C1): {@code related} links between two memories of one scope, and {@code corrects}
 * links that record correction lineage. Inserting an edge that exists changes nothing.
 */
public final class Relations {

    private static final String CORRECTS_TO = "SELECT to_id FROM relations WHERE from_id = ? AND type = 'corrects'";
    private static final String CORRECTS_FROM = "SELECT from_id FROM relations WHERE to_id = ? AND type = 'corrects'";

    private final Sql sql;
    private final ChangeLogWriter changeLog;

    public Relations(Sql sql, ChangeLogWriter changeLog) {
        this.sql = sql;
        this.changeLog = changeLog;
    }

    /** Inserts an edge unless it exists (idempotent) and returns the stored one. */
    public Relation insert(Scope scope, String fromId, String toId, RelationType type, Instant now) throws SQLException {
        PreparedStatement ps = sql.prepare("INSERT INTO relations (persona_id, project_id, from_id, to_id, type, "
                + "created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
        ps.setString(1, scope.personaId());
        ps.setString(2, scope.projectId());
        ps.setString(3, fromId);
        ps.setString(4, toId);
        ps.setString(5, type.code());
        ps.setString(6, Times.format(now));
        if (ps.executeUpdate() == 1) {
            changeLog.append(ChangeLog.Entity.RELATION, fromId + "->" + toId, ChangeLog.Op.INSERT, scope, now);
        }
        return of(fromId).stream()
                .filter(r -> r.type() == type && r.fromId().equals(fromId) && r.toId().equals(toId))
                .findFirst().orElseThrow();
    }

    /** A memory's edges in both directions, oldest first. */
    public List<Relation> of(String memoryId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT from_id, to_id, type, created_at FROM relations "
                + "WHERE from_id = ? OR to_id = ? ORDER BY created_at, from_id, to_id, type");
        ps.setString(1, memoryId);
        ps.setString(2, memoryId);
        return Sql.list(ps, rs -> new Relation(rs.getString("from_id"), rs.getString("to_id"),
                RelationType.parse("type", rs.getString("type")), Times.read(rs.getString("created_at"))));
    }

    /** The IDs of the memories that {@code memoryId} corrects, directly or transitively, nearest first. */
    public List<String> corrected(String memoryId) throws SQLException {
        return walk(memoryId, CORRECTS_TO);
    }

    /** The IDs of the memories that correct {@code memoryId}, directly or transitively, nearest first. */
    public List<String> correctors(String memoryId) throws SQLException {
        return walk(memoryId, CORRECTS_FROM);
    }

    /** The memories a memory's correction lineage reaches in one step, in either direction. */
    public List<String> lineageNeighbours(String memoryId) throws SQLException {
        PreparedStatement ps = sql.prepare(CORRECTS_TO + " UNION " + CORRECTS_FROM);
        ps.setString(1, memoryId);
        ps.setString(2, memoryId);
        return Sql.strings(ps);
    }

    /** Deletes a memory's edges in both directions and logs each; returns how many. */
    public int deleteAllOf(Memory m, Instant now) throws SQLException {
        PreparedStatement ps = sql.prepare(
                "DELETE FROM relations WHERE from_id = ? OR to_id = ? RETURNING from_id || '->' || to_id");
        ps.setString(1, m.id());
        ps.setString(2, m.id());
        List<String> edges = Sql.strings(ps);
        for (String edge : edges) {
            changeLog.append(ChangeLog.Entity.RELATION, edge, ChangeLog.Op.DELETE, m.scope(), now);
        }
        return edges.size();
    }

    /** Breadth first from {@code start} along {@code step}, without {@code start}. */
    private List<String> walk(String start, String step) throws SQLException {
        Set<String> seen = new LinkedHashSet<>(List.of(start)); // insertion order: breadth first
        Queue<String> queue = new ArrayDeque<>(List.of(start));
        PreparedStatement ps = sql.prepare(step);
        while (!queue.isEmpty()) {
            ps.setString(1, queue.poll());
            collect(Sql.strings(ps), seen, queue);
        }
        seen.remove(start);
        return new ArrayList<>(seen);
    }

    /** Adds the IDs to {@code seen}, and those not seen before to {@code queue}. */
    public static void collect(List<String> ids, Set<String> seen, Queue<String> queue) {
        for (String id : ids) {
            if (seen.add(id)) {
                queue.add(id);
            }
        }
    }
}
