package dev.jiyi.authority.internal;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.ConflictException;
import dev.jiyi.authority.Correction;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Ids;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.authority.Relation;
import dev.jiyi.authority.RelationType;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.Times;

import java.sql.SQLException;
import java.time.Instant;

/**
 * Correction (C1, C2, D3) of a memory that was wrong from the start, in one transaction: a new
 * explicit-correction event holding the corrected text (same role as the mistaken memory's source,
 * so the basis rules still hold; its own session, so it is nobody's adjacent turn), the mistaken
 * memory revoked, the corrected memory derived from the new event with the mistaken memory's kind,
 * basis, confidence, subject, fact key and emotion (its gist and cues described the mistake and are
 * dropped), a {@code corrects} edge from the corrected memory to the mistaken one, the old source
 * event marked amended, and every checkpoint of the scope invalidated (D3).
 *
 * <p>Without {@code validAt} the corrected memory keeps the mistaken one's start (C2) and its place
 * among equal starts. It keeps the mistaken one's stated end when that is after its start; a fact
 * timeline then places it like any member (T4), after the closings the mistake caused are undone.
 */
public final class Corrections {

    private final Events events;
    private final Memories memories;
    private final Timelines timelines;
    private final Relations relations;
    private final Checkpoints checkpoints;

    public Corrections(Events events, Memories memories, Timelines timelines, Relations relations, Checkpoints checkpoints) {
        this.events = events;
        this.memories = memories;
        this.timelines = timelines;
        this.relations = relations;
        this.checkpoints = checkpoints;
    }

    public Correction correct(Scope scope, String memoryId, CorrectionDraft draft) throws SQLException {
        Memory mistaken = memories.inScope(scope, memoryId).orElseThrow(() -> new NotFoundException("memory", memoryId));
        if (mistaken.revoked()) {
            throw new ConflictException("memory " + memoryId
                    + " is already revoked by a correction; correct the memory that replaced it instead");
        }
        Event original = events.byId(mistaken.eventId()).orElseThrow();
        Instant now = Times.now();

        String eventId = Ids.newCorrectionEventId();
        SubmitResult submitted = events.submit(new EventSubmission(eventId, scope, original.role(), draft.text(),
                Authority.CORRECTION_SOURCE, Category.CORRECTION, eventId, now));

        Instant validAt = draft.validAt() != null ? draft.validAt() : mistaken.validity().validAt();
        Instant invalidAt = timelines.statedInvalidAt(mistaken.id()); // an end caused by a successor is re-derived by placement
        if (invalidAt != null && !invalidAt.isAfter(validAt)) {
            invalidAt = null; // a new start at or after the old end: the old end says nothing about it
        }
        Timelines.Place place = timelines.placeOf(mistaken.id());
        memories.revoke(mistaken, now);
        if (mistaken.onTimeline()) {
            timelines.undoClosingsBy(mistaken);
        }
        MemoryDraft corrected = MemoryDraft.builder(eventId)
                .kind(mistaken.kind()).basis(mistaken.basis())
                .text(draft.text()).quote(draft.quoteOrText())
                .confidence(mistaken.confidence())
                .subject(mistaken.subject()).factKey(mistaken.factKey())
                .validAt(validAt).invalidAt(invalidAt)
                .emotion(mistaken.emotion())
                .build();
        Memory added = memories.add(scope, corrected, place);
        Relation relation = relations.insert(scope, added.id(), mistaken.id(), RelationType.CORRECTS, now);
        events.markAmended(original, now);
        int invalidated = checkpoints.invalidateAll(scope, now);
        return new Correction(submitted.event(), memories.byId(mistaken.id()).orElseThrow(),
                memories.byId(added.id()).orElseThrow(), relation, invalidated);
    }
}
