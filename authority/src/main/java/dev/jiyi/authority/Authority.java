package dev.jiyi.authority;

import dev.jiyi.authority.archive.Archives;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.TransactionalIndex;
import dev.jiyi.authority.internal.CaptureCursors;
import dev.jiyi.authority.internal.ChangeLogWriter;
import dev.jiyi.authority.internal.Checkpoints;
import dev.jiyi.authority.internal.Corrections;
import dev.jiyi.authority.internal.Deletions;
import dev.jiyi.authority.internal.Doctor;
import dev.jiyi.authority.internal.Events;
import dev.jiyi.authority.internal.Extractions;
import dev.jiyi.authority.internal.Indexes;
import dev.jiyi.authority.internal.Memories;
import dev.jiyi.authority.internal.Personas;
import dev.jiyi.authority.internal.Relations;
import dev.jiyi.authority.internal.Timelines;
import dev.jiyi.authority.internal.Transactions;
import dev.jiyi.authority.internal.Vectors;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The SQLite authority: the public facade of every write rule of jiyi and the runner of its
 * transactions. Each verb runs in one transaction (writes in {@code BEGIN IMMEDIATE}) and hands the
 * work to the class that owns the concept and its SQL ({@link Personas}, {@link Events},
 * {@link Memories}, {@link Timelines}, {@link Relations}, {@link Corrections}, {@link Deletions},
 * {@link Checkpoints}, {@link Extractions}, {@link Vectors}, {@link CaptureCursors}, the archives,
 * the recall reads of a {@link Snapshot}, the {@link ChangeLog}, the attached {@link Indexes},
 * {@link Doctor}); no rule is implemented here. One instance owns one connection and is used by
 * one thread at a time (methods are synchronized). Several processes may open the same file at
 * once: writers queue on SQLite's lock with a busy timeout.
 */
public final class Authority implements AutoCloseable {

    /** Characters per page of source text in {@link #readMemory}, unless the caller asks otherwise. */
    public static final int DEFAULT_PAGE_SIZE = 4_000;

    /** The persona text a persona starts with when it is first read (S3). */
    public static final String NEUTRAL_PERSONA = "Neutral default persona: no personality, tone or preferences have been set. "
            + "中性默认人设：尚未设置性格、语气或偏好。";

    /** The {@code source} of the explicit-correction events that {@link #correctMemory} creates. */
    public static final String CORRECTION_SOURCE = "jiyi:correct";

    private final Sql sql;
    private final Indexes indexes;
    private final ChangeLogWriter changeLog;
    private final Personas personas;
    private final Events events;
    private final Memories memories;
    private final Relations relations;
    private final Corrections corrections;
    private final Deletions deletions;
    private final Checkpoints checkpoints;
    private final Extractions extractions;
    private final Vectors vectors;
    private final CaptureCursors cursors;
    private final Transactions tx;
    private final Archives archives;
    private final AtomicLong memoryRowsRead = new AtomicLong();
    private final TimelineTimes timelineTimes = new TimelineTimes();
    private final KeptCounts keptCounts = new KeptCounts();

    private Authority(Sql sql, List<TransactionalIndex> attached) {
        this.sql = sql;
        this.indexes = new Indexes(sql, attached);
        this.tx = new Transactions(sql, indexes);
        this.changeLog = new ChangeLogWriter(sql);
        this.personas = new Personas(sql, changeLog);
        this.events = new Events(sql, changeLog, indexes);
        Timelines timelines = new Timelines(sql, changeLog);
        this.memories = new Memories(sql, changeLog, indexes, events, timelines);
        this.relations = new Relations(sql, changeLog);
        this.checkpoints = new Checkpoints(sql, changeLog);
        this.cursors = new CaptureCursors(sql, checkpoints);
        this.vectors = new Vectors(sql, changeLog);
        this.extractions = new Extractions(sql, events, memories);
        this.corrections = new Corrections(events, memories, timelines, relations, checkpoints);
        this.deletions = new Deletions(sql, indexes, events, memories, relations, vectors, checkpoints, extractions);
        this.archives = new Archives(this, sql, tx, indexes);
    }

    /** {@link #open(Path, List, PhaseProgress)} without progress. */
    public static Authority open(Path file, List<TransactionalIndex> attached) {
        return open(file, attached, PhaseProgress.NONE);
    }

    /**
     * Opens (creating and migrating as needed) the database file, with these indexes attached; an
     * attached index of another version ({@link TransactionalIndex#version()}), or one a migration
     * replaced, is rebuilt first, in steps others can write between, reported to {@code building}.
     */
    public static Authority open(Path file, List<TransactionalIndex> attached, PhaseProgress building) {
        // A migration that replaces index tables begins their build in its own transaction; the build
        // goes on in steps that other processes can write between (Indexes), and open returns after it.
        Authority authority = new Authority(new Sql(Database.open(file, Indexes.migrationHook(attached))), attached);
        try {
            authority.indexes.catchUp(authority.tx, building);
        } catch (RuntimeException e) {
            authority.close();
            throw e;
        }
        return authority;
    }

    /** Rebuilds every attached, versioned index now ({@code reindex}), telling {@code fed} of each row it feeds. */
    public synchronized Rebuilt rebuildIndexes(java.util.function.LongConsumer fed) {
        indexes.prepare();
        return tx.write("rebuilding the indexes", () -> indexes.rebuildAll(fed));
    }

    /** How many events and memories a rebuilt index was fed. */
    public record Rebuilt(long events, long memories) {
    }

    /** Marks a derived index in this file stale: the next open or write that attaches it rebuilds it. */
    public synchronized void markIndexStale(String name) {
        tx.write("marking an index stale", () -> indexes.markStale(name));
    }

    @Override
    public synchronized void close() {
        sql.closeStatements();
        try {
            sql.connection().close();
        } catch (SQLException e) {
            throw new StorageException("closing the database", e);
        }
    }

    /**
     * Runs {@code work} over one read transaction: every read it makes through the snapshot (index
     * candidates, rows, neighbours, vectors) sees the same state of the archive.
     */
    public synchronized <T> T read(Function<Snapshot, T> work) {
        return tx.read("reading a snapshot", () -> {
            Snapshot snapshot = new Snapshot(sql, vectors, events, memories, changeLog, memoryRowsRead, timelineTimes, keptCounts);
            try {
                return work.apply(snapshot);
            } finally {
                snapshot.close();
            }
        });
    }

    // ---------------------------------------------------------------- personas (S2-S5)

    /** The persona's latest version, or the given one; an absent persona starts neutral (S3). */
    public synchronized Persona persona(String personaId, Integer version) {
        Ids.check("persona", personaId);
        if (version != null && version < 1) {
            throw new InvalidInputException("version", "must be at least 1");
        }
        // Only a persona never read before takes the write lock (S3): a pack never waits for a writer.
        Persona existing = tx.read("reading persona", () -> personas.latest(personaId));
        Persona latest = existing != null ? existing
                : tx.write("reading persona", () -> personas.latestOrNeutral(personaId));
        if (version == null || version == latest.version()) {
            return latest;
        }
        return tx.read("reading persona", () -> personas.version(personaId, version))
                .orElseThrow(() -> new NotFoundException("persona version", personaId + "@" + version));
    }

    /** All versions, oldest first. */
    public synchronized List<Persona> personaHistory(String personaId) {
        persona(personaId, null);
        return tx.read("reading persona history", () -> personas.history(personaId));
    }

    /** Appends version n+1 with new content (S2); nothing is updated in place. */
    public synchronized Persona editPersona(String personaId, String content) {
        Ids.check("persona", personaId);
        Limits.requireText("text", content, Limits.MAX_PERSONA_TEXT);
        return tx.write("editing persona", () -> personas.edit(personaId, content));
    }

    /** Appends a version whose content equals version {@code k} (S4); history is never erased. */
    public synchronized Persona rollbackPersona(String personaId, int k) {
        Ids.check("persona", personaId);
        if (k < 1) {
            throw new InvalidInputException("to", "must be a version number of at least 1");
        }
        return tx.write("rolling back persona", () -> personas.rollback(personaId, k));
    }

    // ---------------------------------------------------------------- events (E1-E5)

    /** Stores one event in its own transaction (E5), or returns the identical stored one (E2). */
    public synchronized SubmitResult submitEvent(EventSubmission submission) {
        indexes.prepare(List.of(submission), List.of());
        return tx.indexedWrite("submitting an event", () -> events.submit(submission));
    }

    /** Stores many events in one transaction; see {@link BatchResult} for a rejected item. */
    public synchronized BatchResult<SubmitResult> submitEvents(List<EventSubmission> submissions) {
        indexes.prepare(submissions, List.of());
        return tx.batch("submitting events", submissions, events::submit);
    }

    /** The event with this ID in this scope. */
    public synchronized Optional<Event> event(Scope scope, String eventId) {
        Ids.check("id", eventId);
        return tx.read("reading an event", () -> events.inScope(scope, eventId));
    }

    /** Events of a scope in sequence order, after {@code afterSequence}, at most {@code limit}. */
    public synchronized List<Event> events(Scope scope, long afterSequence, int limit) {
        Limits.limit("limit", limit);
        return tx.read("listing events", () -> events.page(scope, afterSequence, limit, false));
    }

    // ---------------------------------------------------------------- memories (M1-M4, X3, E6, T1-T5)

    /** Derives one memory; see {@link #addMemories}. */
    public synchronized Memory addMemory(Scope scope, MemoryDraft draft) {
        indexes.prepare(List.of(), List.of(draft));
        return tx.indexedWrite("adding a memory", () -> memories.add(scope, draft, null));
    }

    /**
     * Derives memories in one transaction, each checked against its source event (X3, E6, M2):
     * the event exists in the same scope and may be derived from, the quote is an exact substring of
     * its text, and its role fits the basis. A fact timeline member closes its neighbours (T4).
     */
    public synchronized BatchResult<Memory> addMemories(List<Derivation> derivations) {
        indexes.prepare(List.of(), derivations.stream().map(Derivation::draft).toList());
        BatchResult<Memory> result = tx.batch("adding memories", derivations, d -> memories.add(d.scope(), d.draft(), null));
        if (result.committed().stream().noneMatch(Memory::onTimeline)) {
            return result;
        }
        // A later fact of the batch may have closed an earlier one's interval: report what is stored.
        List<Memory> stored = tx.read("reading memories", () -> memories.current(result.committed()));
        return new BatchResult<>(stored, result.failedAt(), result.error());
    }

    /** The memory with this ID in this scope. */
    public synchronized Optional<Memory> memory(Scope scope, String memoryId) {
        Ids.check("id", memoryId);
        return tx.read("reading a memory", () -> memories.inScope(scope, memoryId));
    }

    /**
     * M4: the memory, page {@code page} (1-based) of its source event's text, the memories derived
     * from the same event, its relations in both directions and its correction lineage.
     */
    public synchronized MemoryView readMemory(Scope scope, String memoryId, int page, int pageSize) {
        if (page < 1) {
            throw new InvalidInputException("page", "must be at least 1");
        }
        if (pageSize < 1) {
            throw new InvalidInputException("page_size", "must be at least 1");
        }
        Ids.check("id", memoryId);
        return tx.read("reading a memory", () -> memories.view(scope, memoryId, page, pageSize, relations));
    }

    // ---------------------------------------------------------------- relations (M3)

    /** Links two memories of the same scope with a {@code related} edge (M3). Idempotent. */
    public synchronized Relation relate(Scope scope, String fromId, String toId) {
        Ids.check("a", fromId);
        Ids.check("b", toId);
        if (fromId.equals(toId)) {
            throw new InvalidInputException("b", "must differ from a: a memory is not related to itself");
        }
        return tx.write("relating memories", () -> {
            Memory a = memories.byId(fromId).orElseThrow(() -> new InvalidInputException("a", "must refer to an existing memory"));
            Memory b = memories.byId(toId).orElseThrow(() -> new InvalidInputException("b", "must refer to an existing memory"));
            if (!a.scope().equals(scope)) {
                throw new InvalidInputException("a", "must be a memory of the requested scope");
            }
            if (!b.scope().equals(scope)) {
                throw new InvalidInputException("b", "must be a memory of the same scope: cross-scope links are rejected");
            }
            return relations.insert(scope, fromId, toId, RelationType.RELATED, Times.now());
        });
    }

    // ---------------------------------------------------------------- correction (C1-C3) and deletion (D1-D3)

    /** C1, C2, D3: corrects a mistaken memory in one transaction; the rule is {@link Corrections}'s. */
    public synchronized Correction correctMemory(Scope scope, String memoryId, CorrectionDraft draft) {
        Ids.check("id", memoryId);
        Objects.requireNonNull(draft, "draft");
        indexes.prepare();
        return tx.indexedWrite("correcting a memory", () -> corrections.correct(scope, memoryId, draft));
    }

    /** D1: permanently deletes this event and everything connected to it; see {@link #deleteMemory}. */
    public synchronized Deletion deleteEvent(Scope scope, String eventId) {
        Ids.check("event", eventId);
        return purge("deleting an event", () -> deletions.deleteEvent(scope, eventId));
    }

    /** D1-D3: permanently deletes this memory and everything connected to it ({@link Deletions}). */
    public synchronized Deletion deleteMemory(Scope scope, String memoryId) {
        Ids.check("memory", memoryId);
        return purge("deleting a memory", () -> deletions.deleteMemory(scope, memoryId));
    }

    /** Runs a deletion, then checkpoints the WAL so that older copies of the changed pages leave it. */
    private Deletion purge(String operation, Transactions.Work<Deletion> work) {
        indexes.prepare();
        Deletion deletion = tx.indexedWrite(operation, work);
        deletions.truncateLog(); // committed: from here on nothing may report the deletion as failed
        return deletion;
    }

    // ---------------------------------------------------------------- extraction (E5, X2-X5)

    /**
     * Stores one event as {@link #submitEvent} does and, in the same transaction, queues its
     * extraction (E5, E6; {@link Extractions#queue}), so that a process killed before the model
     * answers leaves work for {@code retry}.
     */
    public synchronized SubmitResult submitForExtraction(EventSubmission submission) {
        indexes.prepare(List.of(submission), List.of());
        return tx.indexedWrite("submitting an event", () -> extractions.queue(events.submit(submission)));
    }

    /** {@link #submitEvents} with every event queued for extraction as in {@link #submitForExtraction}. */
    public synchronized BatchResult<SubmitResult> submitEventsForExtraction(List<EventSubmission> submissions) {
        indexes.prepare(submissions, List.of());
        return tx.batch("submitting events", submissions, s -> extractions.queue(events.submit(s)));
    }

    /** Queues extraction of an event already stored (see {@link #submitForExtraction}). */
    public synchronized Event requestExtraction(Scope scope, String eventId) {
        Ids.check("event", eventId);
        return tx.write("queueing an extraction", () -> {
            Event event = events.inScope(scope, eventId).orElseThrow(() -> new NotFoundException("event", eventId));
            return extractions.queue(new SubmitResult(event, false)).event();
        });
    }

    /**
     * X2: marks an event's extraction pending with a reason written by jiyi (never a provider's body,
     * a credential or input text), unless it was done or skipped meanwhile.
     */
    public synchronized void markExtractionPending(String eventId, String sanitizedReason) {
        Ids.check("event", eventId);
        Limits.requireText("reason", sanitizedReason, Limits.MAX_CHECKPOINT_TEXT);
        tx.write("marking extraction pending", () -> {
            if (!events.markPending(eventId, sanitizedReason)) {
                events.byId(eventId).orElseThrow(() -> new NotFoundException("event", eventId));
            }
        });
    }

    /** Events of a scope whose extraction is pending, in sequence order, after {@code afterSequence}. */
    public synchronized List<Event> pendingExtractions(Scope scope, long afterSequence, int limit) {
        Limits.limit("limit", limit);
        return tx.read("listing pending extractions", () -> events.page(scope, afterSequence, limit, true));
    }

    /** X3-X5: applies one extraction answer to its event in one transaction ({@link Extractions#apply}). */
    public synchronized Extraction applyExtraction(Scope scope, String eventId, ExtractionBatch batch) {
        Ids.check("event", eventId);
        indexes.prepare(List.of(), batch.proposed().stream().map(ExtractionBatch.Proposed::draft).toList());
        return tx.indexedWrite("applying an extraction", () -> extractions.apply(scope, eventId, batch));
    }

    /** The completed extraction of an event in this scope, if any (X5), marked as a duplicate. */
    public synchronized Optional<Extraction> extraction(Scope scope, String eventId) {
        Ids.check("event", eventId);
        return tx.read("reading an extraction", () -> extractions.completed(
                events.inScope(scope, eventId).orElseThrow(() -> new NotFoundException("event", eventId))));
    }

    // ---------------------------------------------------------------- vectors (V1-V4, R5)

    /**
     * Memories of a scope (not revoked) that have no vector of this fingerprint, in row order after
     * {@code afterRow}, at most {@code limit}: what {@code reindex --vectors} embeds.
     */
    public synchronized List<VectorCache.Task> memoriesWithoutVectors(Scope scope, String fingerprint, long afterRow,
                                                                      int limit) {
        Limits.limit("limit", limit);
        return tx.read("listing memories without vectors", () -> vectors.missing(scope, fingerprint, afterRow, limit));
    }

    /** {@link #storeVectors(Map)} of one model. */
    public VectorCache.Stored storeVectors(String fingerprint, Iterable<VectorCache.NewVector> vectors) {
        return storeVectors(java.util.Collections.singletonMap(fingerprint, vectors));
    }

    /**
     * V2, V3: stores computed vectors, by the fingerprint of the model that made them, in one
     * transaction, replacing a memory's vector of any fingerprint. Each memory is rechecked first: a
     * vector whose memory is gone, revoked or no longer has the text it was computed from is dropped.
     */
    public synchronized VectorCache.Stored storeVectors(Map<String, ? extends Iterable<VectorCache.NewVector>> byModel) {
        byModel.keySet().forEach(f -> Limits.requireText("fingerprint", f, ExtractionBatch.MAX_FINGERPRINT));
        return tx.write("storing vectors", () -> vectors.store(byModel));
    }

    // ---------------------------------------------------------------- checkpoints (K1)

    /**
     * Saves a host-reported checkpoint. Its covered sequence must belong to an event of the same
     * scope and session (K1).
     */
    public synchronized Checkpoint saveCheckpoint(Scope scope, CheckpointDraft d) {
        return tx.write("saving a checkpoint", () -> checkpoints.save(scope, d));
    }

    /** The newest valid checkpoint of the scope, of one session when {@code sessionId} is given. */
    public synchronized Optional<Checkpoint> latestCheckpoint(Scope scope, String sessionId) {
        if (sessionId != null) {
            Ids.check("session", sessionId);
        }
        return tx.read("reading a checkpoint", () -> checkpoints.latest(scope, sessionId));
    }

    // ---------------------------------------------------------------- recall reads, each in a read of its own (see Snapshot)

    /** Memory rows materialized for recall since this authority was opened: what R4 bounds. */
    public long memoryRowsRead() {
        return memoryRowsRead.get();
    }

    /** {@link Snapshot#eventCandidates} in a read of its own. */
    public List<Candidate> eventCandidates(LexicalIndex index, Scope scope, String query, int limit) {
        return read(s -> s.eventCandidates(index, query, scope, limit));
    }

    /** {@link Snapshot#recentEvents} in a read of its own. */
    public List<Event> recentEvents(Scope scope, String sessionId, Set<Category> categories, Instant asOf, int limit) {
        String session = sessionId == null ? null : Ids.check("session", sessionId);
        return read(s -> s.recentEvents(scope, session, categories, asOf, limit));
    }

    /** {@link Snapshot#vectorCoverage} in a read of its own. */
    public VectorCache.Coverage vectorCoverage(Scope scope, String fingerprint, Instant at, boolean includeHistory) {
        Eligibility filter = new Eligibility(scope, at, includeHistory);
        return read(s -> s.vectorCoverage(filter, fingerprint));
    }

    /** {@link Snapshot#scanVectors} in a read of its own. */
    public long scanVectors(Scope scope, String fingerprint, Instant at, boolean includeHistory, int limit,
                            VectorCache.Visitor visitor) {
        if (limit < 0) {
            throw new InvalidInputException("limit", "must not be negative");
        }
        Eligibility filter = new Eligibility(scope, at, includeHistory);
        return read(s -> s.scanVectors(filter, fingerprint, limit, visitor));
    }

    // ---------------------------------------------------------------- operations (O6) and the change log

    /** Integrity, foreign keys, table counts and pending extractions (O6). */
    public synchronized DoctorReport doctor() {
        return tx.read("checking the database", () -> Doctor.check(sql.connection(), indexes));
    }

    // ---------------------------------------------------------------- archives (O3-O5) and host capture (H1)

    /** Export, import, backup and restore ({@link Archives}). */
    public Archives archives() {
        return archives;
    }

    /** H1: the capture cursor of a host instance, if it has one. */
    public synchronized Optional<CaptureCursor> captureCursor(String instanceId) {
        return tx.read("reading a capture cursor", () -> cursors.get(Ids.check("instance", instanceId)));
    }

    /** H1: saves a capture's checkpoints, moves its cursor, in one transaction ({@link CaptureCursors#advance}). */
    public synchronized CaptureCursor.Advanced advanceCapture(Scope scope, String instanceId, long expectedVersion, String position,
                                                              Instant at, List<String> idsAt, List<CheckpointDraft> checkpoints) {
        return tx.write("advancing a capture cursor", () -> cursors.advance(scope, Ids.check("instance", instanceId),
                expectedVersion, Ids.check("cursor", position), Times.checkRange("occurred_at", at), idsAt, checkpoints));
    }

    /** Row counts of the authoritative tables, from one snapshot, without doctor's checks. */
    public synchronized TableCounts tableCounts() {
        return tx.read("counting rows", () -> Doctor.counts(sql.connection()));
    }

    /** Change-log entries after {@code afterSeq}, oldest first: what a derived index follows. */
    public synchronized List<ChangeLog.Entry> changesAfter(long afterSeq, int limit) {
        Limits.limit("limit", limit);
        return read(s -> s.changesAfter(afterSeq, limit));
    }
}
