package dev.jiyi.authority.internal;

import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Ids;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.MemoryView;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.Validity;
import dev.jiyi.authority.index.ChangeLog;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Memories (M1, M2, M4, X3, E6, T1-T5): derivation checked against the source event (same scope,
 * derivable category, exact quote, the role the basis requires), placement on a fact timeline,
 * revocation, reading with the source text paged, and removal. Every derivation path (by hand,
 * extraction, correction) goes through {@link #add}.
 */
public final class Memories {

    private final Sql sql;
    private final ChangeLogWriter changeLog;
    private final Indexes indexes;
    private final Events events;
    private final Timelines timelines;

    public Memories(Sql sql, ChangeLogWriter changeLog, Indexes indexes, Events events, Timelines timelines) {
        this.sql = sql;
        this.changeLog = changeLog;
        this.indexes = indexes;
        this.events = events;
        this.timelines = timelines;
    }

    /**
     * Derives one memory (X3, E6, M2), placing a fact timeline member between its neighbours (T4).
     *
     * @param place the fact's place among equal starts (T5): null for a new fact (its source event's
     *              sequence, its own ID); a correction passes the mistaken memory's
     */
    public Memory add(Scope scope, MemoryDraft d, Timelines.Place place) throws SQLException {
        Event source = events.inScope(scope, d.eventId())
                .orElseThrow(() -> new InvalidInputException("event", "must refer to an existing event in the same scope"));
        if (!source.category().derivable()) {
            throw new InvalidInputException("event",
                    "reference and persona events are sources only and cannot be derived into memories");
        }
        if (!source.text().contains(d.quote())) {
            throw new InvalidInputException("quote", "must be an exact substring of the source event's text");
        }
        Role required = d.basis().requiredRole();
        if (required != null && source.role() != required) {
            throw new InvalidInputException("basis", d.basis().code() + " requires a " + required.code() + " event");
        }
        Instant validAt = d.validAt() != null ? d.validAt() : source.occurredAt();
        if (d.invalidAt() != null && d.invalidAt().isBefore(validAt)) {
            throw new InvalidInputException("invalid_at", "must not be before valid_at");
        }
        Validity validity = new Validity(validAt, d.invalidAt());
        String id = Ids.newMemoryId();
        Timelines.Place at = place != null ? place : new Timelines.Place(source.sequence(), id);
        String closedBy = null;
        if (d.onTimeline()) {
            Timelines.Successor successor = timelines.place(scope, d.subject(), d.factKey(), validity, at, id);
            if (successor != null && (validity.invalidAt() == null || validity.invalidAt().isAfter(successor.validAt()))) {
                validity = validity.closedAt(successor.validAt());
                closedBy = successor.id();
            }
        }
        Instant now = Times.now();
        Emotion emotion = d.emotion();
        PreparedStatement ps = sql.prepare("INSERT INTO memories (id, persona_id, project_id, event_id, kind, basis, "
                + "text, quote, confidence, subject, fact_key, valid_at, invalid_at, emotion_label, valence, arousal, "
                + "gist, cue_keys, created_at, evidence_seq, lineage_id, closed_by, stated_invalid_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        ps.setString(1, id);
        ps.setString(2, scope.personaId());
        ps.setString(3, scope.projectId());
        ps.setString(4, source.id());
        ps.setString(5, d.kind().code());
        ps.setString(6, d.basis().code());
        ps.setString(7, d.text());
        ps.setString(8, d.quote());
        ps.setDouble(9, d.confidence());
        ps.setString(10, d.subject());
        ps.setString(11, d.factKey());
        ps.setString(12, Times.format(validity.validAt()));
        ps.setString(13, Times.format(validity.invalidAt()));
        ps.setString(14, emotion == null ? null : emotion.label());
        setNullableDouble(ps, 15, emotion == null ? null : emotion.valence());
        setNullableDouble(ps, 16, emotion == null ? null : emotion.arousal());
        ps.setString(17, d.gist());
        ps.setString(18, JsonStrings.encode(d.cueKeys()));
        ps.setString(19, Times.format(now));
        ps.setLong(20, at.evidenceSeq());
        ps.setString(21, at.lineageId());
        ps.setString(22, closedBy);
        ps.setString(23, Times.format(d.invalidAt()));
        long rowId = sql.insert(ps);
        Memory memory = new Memory(rowId, id, scope, source.id(), d.kind(), d.basis(), d.text(), d.quote(),
                d.confidence(), d.subject(), d.factKey(), validity, null, emotion, d.gist(), d.cueKeys(), now);
        indexes.memoryAdded(memory);
        changeLog.memory(memory, ChangeLog.Op.INSERT, now);
        return memory;
    }

    public Optional<Memory> byId(String id) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT " + Rows.MEMORY_COLUMNS + " FROM memories WHERE id = ?");
        ps.setString(1, id);
        return Sql.first(ps, Rows::memory);
    }

    /** These memories as stored now (one deleted meanwhile as it was). */
    public List<Memory> current(List<Memory> memories) throws SQLException {
        List<Memory> out = new ArrayList<>();
        for (Memory m : memories) {
            out.add(byId(m.id()).orElse(m));
        }
        return out;
    }

    /** The memory with this ID in this scope. */
    public Optional<Memory> inScope(Scope scope, String id) throws SQLException {
        return byId(id).filter(m -> m.scope().equals(scope));
    }

    /** The memories derived from an event, in row order. */
    public List<Memory> derivedFrom(String eventId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT " + Rows.MEMORY_COLUMNS + " FROM memories WHERE event_id = ? ORDER BY seq");
        ps.setString(1, eventId);
        return Sql.list(ps, Rows::memory);
    }

    /** Whether any memory was derived from this event. */
    public boolean anyDerivedFrom(String eventId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT 1 FROM memories WHERE event_id = ? LIMIT 1");
        ps.setString(1, eventId);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    /** C1: a correction revokes the mistaken memory; it is never shown in current recall again (R8). */
    public void revoke(Memory m, Instant now) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE memories SET revoked_at = ? WHERE id = ?");
        ps.setString(1, Times.format(now));
        ps.setString(2, m.id());
        ps.executeUpdate();
        changeLog.memory(m, ChangeLog.Op.UPDATE, now);
    }

    /** Removes a memory row (its edges and vector already gone) from the indexes and the table. */
    public void delete(Memory m, Instant now) throws SQLException {
        indexes.memoryRemoved(m);
        PreparedStatement ps = sql.prepare("DELETE FROM memories WHERE id = ?");
        ps.setString(1, m.id());
        ps.executeUpdate();
        changeLog.memory(m, ChangeLog.Op.DELETE, now);
    }

    /**
     * M4: the memory, a page of its source event's text, the memories derived from the same event,
     * its relations in both directions and its correction lineage, nearest first.
     */
    public MemoryView view(Scope scope, String memoryId, int page, int pageSize, Relations relations) throws SQLException {
        Memory memory = inScope(scope, memoryId).orElseThrow(() -> new NotFoundException("memory", memoryId));
        Event source = events.byId(memory.eventId()).orElseThrow(() -> new NotFoundException("event", memory.eventId()));
        List<Memory> coDerived = derivedFrom(memory.eventId()).stream().filter(m -> !m.id().equals(memory.id())).toList();
        return new MemoryView(memory, source, page(source.text(), page, pageSize), coDerived, relations.of(memory.id()),
                present(relations.corrected(memory.id())), present(relations.correctors(memory.id())));
    }

    /** The memories of these IDs that still exist, in the same order. */
    private List<Memory> present(List<String> ids) throws SQLException {
        List<Memory> out = new ArrayList<>();
        for (String id : ids) {
            byId(id).ifPresent(out::add);
        }
        return out;
    }

    /**
     * M4: page {@code page} (1-based) of a source text of {@code pageSize} characters; a surrogate
     * pair is never split across pages, and the stored text is never changed.
     */
    public static MemoryView.SourcePage page(String text, int page, int pageSize) {
        int totalPages = Math.max(1, (text.length() + pageSize - 1) / pageSize);
        if (page > totalPages) {
            throw new InvalidInputException("page", "must be at most the total page count " + totalPages);
        }
        int from = (page - 1) * pageSize;
        int to = Math.min(text.length(), from + pageSize);
        if (to < text.length() && Character.isHighSurrogate(text.charAt(to - 1))) {
            to--;
        }
        if (from > 0 && Character.isLowSurrogate(text.charAt(from))) {
            from--;
        }
        return new MemoryView.SourcePage(page, totalPages, pageSize, text.length(), text.substring(from, to));
    }

    private static void setNullableDouble(PreparedStatement ps, int index, Double value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.REAL);
        } else {
            ps.setDouble(index, value);
        }
    }
}
