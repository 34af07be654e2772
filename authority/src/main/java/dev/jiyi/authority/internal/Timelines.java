package dev.jiyi.authority.internal;

import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.Validity;
import dev.jiyi.authority.index.ChangeLog;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * Single-valued fact timelines (T1-T5, T7, C2): the members of one (scope, subject, fact key) in
 * order, placing a new member between its predecessor and successor, and undoing the closings of a
 * member that a correction revokes. Members are ordered by (valid_at, evidence_seq, lineage_id, ID):
 * evidence_seq is when the fact's evidence entered the archive (its source event's sequence), so the
 * timeline does not depend on the order in which memories are derived; a correction copies
 * evidence_seq and lineage_id from the mistaken memory and so keeps its place. Revoked members take
 * no part. Deletion never reopens an interval (T7): nothing here runs on deletion.
 */
public final class Timelines {

    /** Where a fact sits among members with the same start (T5). */
    public record Place(long evidenceSeq, String lineageId) {
    }

    /** One non-revoked member of a fact timeline, with its ordering key and who closed it. */
    private record Member(String id, long row, Instant validAt, Instant invalidAt, Place place, String closedBy,
                          Instant statedInvalidAt) {
        /** True when this member sorts before the key (start, place, id). */
        boolean before(Instant start, Place other, String otherId) {
            int order = validAt.compareTo(start);
            if (order == 0) {
                order = Long.compare(place.evidenceSeq(), other.evidenceSeq());
            }
            if (order == 0) {
                order = place.lineageId().compareTo(other.lineageId());
            }
            if (order == 0) {
                order = id.compareTo(otherId);
            }
            return order < 0;
        }
    }

    /** A new member's successor: the member that closes it. */
    public record Successor(String id, Instant validAt) {
    }

    private final Sql sql;
    private final ChangeLogWriter changeLog;

    public Timelines(Sql sql, ChangeLogWriter changeLog) {
        this.sql = sql;
        this.changeLog = changeLog;
    }

    /**
     * T4/T5: places a new single-valued fact by validity time and returns its successor (the member
     * that closes it), or null. The predecessor is closed at the new start, and records who closed it.
     */
    public Successor place(Scope scope, String subject, String factKey, Validity validity, Place place, String id)
            throws SQLException {
        Member predecessor = null;
        Member successor = null;
        for (Member m : members(scope, subject, factKey)) {
            if (m.before(validity.validAt(), place, id)) {
                predecessor = m;
            } else {
                successor = m;
                break;
            }
        }
        if (predecessor != null && (predecessor.invalidAt() == null || predecessor.invalidAt().isAfter(validity.validAt()))) {
            setInvalidAt(scope, predecessor, validity.validAt(), id);
        }
        return successor == null ? null : new Successor(successor.id(), successor.validAt());
    }

    /**
     * A correction revokes a mistaken timeline member: the closings it caused were part of the
     * mistake. Every member it closed ends again where it was stated to end, or where whatever now
     * follows it starts, whichever is first (open if neither). Ends caused by other members are left
     * alone, and deletion never does this (T7).
     */
    public void undoClosingsBy(Memory revoked) throws SQLException {
        List<Member> members = members(revoked.scope(), revoked.subject(), revoked.factKey());
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            if (revoked.id().equals(m.closedBy())) {
                Member next = i + 1 < members.size() ? members.get(i + 1) : null;
                Instant stated = m.statedInvalidAt();
                if (next != null && (stated == null || next.validAt().isBefore(stated))) {
                    setInvalidAt(revoked.scope(), m, next.validAt(), next.id());
                } else {
                    setInvalidAt(revoked.scope(), m, stated, null); // back to where it was stated to end
                }
            }
        }
    }

    /** A memory's place among equal starts, which its correction inherits (T5, C2). */
    public Place placeOf(String memoryId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT evidence_seq, lineage_id FROM memories WHERE id = ?");
        ps.setString(1, memoryId);
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new Place(rs.getLong("evidence_seq"), rs.getString("lineage_id"));
        }
    }

    /** The end a memory was stated with (not one a successor caused), or null. */
    public Instant statedInvalidAt(String memoryId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT stated_invalid_at FROM memories WHERE id = ?");
        ps.setString(1, memoryId);
        return Times.read(Sql.strings(ps).getFirst());
    }

    private List<Member> members(Scope scope, String subject, String factKey) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT id, seq, valid_at, invalid_at, evidence_seq, lineage_id, closed_by, "
                + "stated_invalid_at FROM memories WHERE persona_id = ? AND project_id = ? AND subject = ? "
                + "AND fact_key = ? AND revoked_at IS NULL ORDER BY valid_at, evidence_seq, lineage_id, id");
        ps.setString(1, scope.personaId());
        ps.setString(2, scope.projectId());
        ps.setString(3, subject);
        ps.setString(4, factKey);
        return Sql.list(ps, rs -> new Member(rs.getString("id"), rs.getLong("seq"), Times.read(rs.getString("valid_at")),
                Times.read(rs.getString("invalid_at")), new Place(rs.getLong("evidence_seq"), rs.getString("lineage_id")),
                rs.getString("closed_by"), Times.read(rs.getString("stated_invalid_at"))));
    }

    private void setInvalidAt(Scope scope, Member member, Instant end, String closedBy) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE memories SET invalid_at = ?, closed_by = ? WHERE id = ?");
        ps.setString(1, Times.format(end));
        ps.setString(2, closedBy);
        ps.setString(3, member.id());
        ps.executeUpdate();
        changeLog.append(ChangeLog.Entity.MEMORY, member.id(), member.row(), ChangeLog.Op.UPDATE, scope.personaId(),
                scope.projectId(), Times.now());
    }
}
