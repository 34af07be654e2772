package dev.jiyi.authority.internal;

import dev.jiyi.authority.Event;
import dev.jiyi.authority.Extraction;
import dev.jiyi.authority.ExtractionBatch;
import dev.jiyi.authority.ExtractionState;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.authority.Rejection;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.Times;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Extraction state and records (E5, E6, X2-X5, C3): which events are queued, which must never be
 * extracted and why, applying one answer with its items checked one by one, and the record that
 * makes a repeated completion return what the first one saved.
 */
public final class Extractions {

    private final Sql sql;
    private final Events events;
    private final Memories memories;

    public Extractions(Sql sql, Events events, Memories memories) {
        this.sql = sql;
        this.events = events;
        this.memories = memories;
    }

    /**
     * Queues an event never asked for: {@code pending}, or {@code skipped} with the reason it must
     * not be extracted. An event already pending, done or skipped is left as it is.
     */
    public SubmitResult queue(SubmitResult submitted) throws SQLException {
        Event e = submitted.event();
        if (e.extraction() != ExtractionState.NONE) {
            return submitted;
        }
        String skip = skipReason(e);
        events.setExtractionState(e, skip == null ? ExtractionState.PENDING : ExtractionState.SKIPPED, skip, Times.now());
        return new SubmitResult(events.byId(e.id()).orElseThrow(), submitted.created());
    }

    /**
     * Why an event must not be extracted, or null. Reference and persona events are sources only
     * (E6). An amended event's text holds a mistake a correction revoked, and an event that already
     * has memories (derived by hand, or the event of a correction) has been interpreted: extracting
     * either again could bring back what was corrected (C3) or duplicate what is there.
     */
    private String skipReason(Event e) throws SQLException {
        if (!e.category().derivable()) {
            return "reference and persona events are archived, not extracted";
        }
        if (e.amended()) {
            return "amended by a correction: its text is not extracted again";
        }
        if (memories.anyDerivedFrom(e.id())) {
            return "already has memories: it is not extracted again";
        }
        return null;
    }

    /**
     * X3-X5: applies one extraction answer to its event. Each proposed draft is checked against the
     * event (exact quote, the role its basis requires, derivable category) under a savepoint; the
     * accepted ones are saved together with the event's {@code done} state, and the rejected ones
     * are returned with their reasons. If the event was already extracted, nothing is created and
     * the existing memories are returned, marked as a duplicate (X5): a repeated completion, a retry
     * after success and two racing extractions all end with one set of memories. An event that a
     * correction amended, or that got memories by hand, while the model was answering is marked
     * {@code skipped} instead and the answer dropped.
     */
    public Extraction apply(Scope scope, String eventId, ExtractionBatch batch) throws SQLException {
        Event event = events.inScope(scope, eventId).orElseThrow(() -> new NotFoundException("event", eventId));
        Optional<Extraction> done = completed(event);
        if (done.isPresent()) {
            return done.get();
        }
        if (!event.category().derivable()) {
            throw new InvalidInputException("event",
                    "reference and persona events are sources only and cannot be derived into memories");
        }
        String skip = skipReason(event);
        if (skip != null) {
            // Amended or derived by hand while the model was answering: the answer is dropped.
            events.setExtractionState(event, ExtractionState.SKIPPED, skip, Times.now());
            return new Extraction(events.byId(eventId).orElseThrow(), List.of(), List.of(), false);
        }
        List<Rejection> rejected = new ArrayList<>(batch.rejected());
        List<Memory> saved = new ArrayList<>();
        for (ExtractionBatch.Proposed p : batch.proposed()) {
            if (!p.draft().eventId().equals(eventId)) {
                rejected.add(new Rejection(p.index(), "event", "must be the event being extracted"));
                continue;
            }
            sql.execute("SAVEPOINT extraction_item");
            try {
                saved.add(memories.add(scope, p.draft(), null));
            } catch (InvalidInputException e) {
                sql.execute("ROLLBACK TO extraction_item");
                rejected.add(Rejection.of(p.index(), e));
            }
            sql.execute("RELEASE extraction_item");
        }
        rejected.sort(Comparator.comparingInt(Rejection::index));
        Instant now = Times.now();
        PreparedStatement ps = sql.prepare("INSERT INTO extractions (event_id, extractor, digest, memory_ids, "
                + "rejected, completed_at) VALUES (?, ?, ?, ?, ?, ?)");
        ps.setString(1, eventId);
        ps.setString(2, batch.extractor());
        ps.setString(3, batch.digest());
        ps.setString(4, JsonStrings.encode(saved.stream().map(Memory::id).toList()));
        ps.setString(5, JsonStrings.encode(rejected.stream().map(Rejection::encode).toList()));
        ps.setString(6, Times.format(now));
        ps.executeUpdate();
        events.setExtractionState(event, ExtractionState.DONE, null, now);
        // Re-read: a later item of the batch may have closed an earlier one's interval.
        List<Memory> stored = new ArrayList<>();
        for (Memory m : saved) {
            stored.add(memories.byId(m.id()).orElseThrow());
        }
        return new Extraction(events.byId(eventId).orElseThrow(), stored, rejected, false);
    }

    /** The completed extraction of an event, if any (X5), with the memories it saved that still exist. */
    public Optional<Extraction> completed(Event event) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT memory_ids, rejected FROM extractions WHERE event_id = ?");
        ps.setString(1, event.id());
        List<String> ids;
        List<Rejection> rejected;
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            ids = JsonStrings.decode(rs.getString("memory_ids"));
            rejected = JsonStrings.decode(rs.getString("rejected")).stream().map(Rejection::decode).toList();
        }
        List<Memory> saved = new ArrayList<>();
        for (String id : ids) {
            memories.byId(id).ifPresent(saved::add);
        }
        return Optional.of(new Extraction(event, saved, rejected, true));
    }

    /** Removes an event's extraction record (the event is being deleted). */
    public void deleteFor(Event e) throws SQLException {
        PreparedStatement ps = sql.prepare("DELETE FROM extractions WHERE event_id = ?");
        ps.setString(1, e.id());
        ps.executeUpdate();
    }
}
