package dev.jiyi.authority.internal;

import dev.jiyi.authority.Database;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Times;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Permanent deletion (D1-D3, T7), in one transaction: a memory's source event, every memory
 * co-derived from it and the connected correction lineage in both directions, transitively (a
 * lineage member's own source event and its co-derived memories too), with their index rows,
 * vectors, relation edges and extraction records. Memories linked to them only by {@code related}
 * survive; the edges go. Intervals the removed facts had closed stay closed (T7). Checkpoints that
 * covered a removed event are removed with it; every other checkpoint of the scope is invalidated.
 * Change-log entries (IDs and row numbers, never text) let derived indexes follow.
 *
 * <p>Connections zero what they free ({@code secure_delete}, see {@link Database}) and the FTS5
 * tables remove a deleted row's entries from their pages at once; the facade then checkpoints the
 * write-ahead log.
 */
public final class Deletions {

    private final Sql sql;
    private final Indexes indexes;
    private final Events events;
    private final Memories memories;
    private final Relations relations;
    private final Vectors vectors;
    private final Checkpoints checkpoints;
    private final Extractions extractions;

    public Deletions(Sql sql, Indexes indexes, Events events, Memories memories, Relations relations, Vectors vectors,
              Checkpoints checkpoints, Extractions extractions) {
        this.sql = sql;
        this.indexes = indexes;
        this.events = events;
        this.memories = memories;
        this.relations = relations;
        this.vectors = vectors;
        this.checkpoints = checkpoints;
        this.extractions = extractions;
    }

    /** How long the WAL checkpoint after a deletion waits for readers on older snapshots. */
    private static final int CHECKPOINT_WAIT_MS = 2_000;

    public Deletion deleteEvent(Scope scope, String eventId) throws SQLException {
        Event start = events.inScope(scope, eventId).orElseThrow(() -> new NotFoundException("event", eventId));
        return deleteClosure(scope, Set.of(start.id()), Set.of());
    }

    public Deletion deleteMemory(Scope scope, String memoryId) throws SQLException {
        Memory start = memories.inScope(scope, memoryId).orElseThrow(() -> new NotFoundException("memory", memoryId));
        return deleteClosure(scope, Set.of(), Set.of(start.id()));
    }

    private Deletion deleteClosure(Scope scope, Set<String> startEvents, Set<String> startMemories) throws SQLException {
        // The closure: events pull in their memories; memories pull in their source events and their
        // corrects neighbours in both directions. Related edges are not followed (D2).
        Set<String> eventIds = new LinkedHashSet<>(startEvents);
        Set<String> memoryIds = new LinkedHashSet<>(startMemories);
        ArrayDeque<String> eventQueue = new ArrayDeque<>(startEvents);
        ArrayDeque<String> memoryQueue = new ArrayDeque<>(startMemories);
        PreparedStatement derived = sql.prepare("SELECT id FROM memories WHERE event_id = ?");
        PreparedStatement source = sql.prepare("SELECT event_id FROM memories WHERE id = ?");
        while (!eventQueue.isEmpty() || !memoryQueue.isEmpty()) {
            if (!eventQueue.isEmpty()) {
                derived.setString(1, eventQueue.poll());
                Relations.collect(Sql.strings(derived), memoryIds, memoryQueue);
                continue;
            }
            String memory = memoryQueue.poll();
            source.setString(1, memory);
            Relations.collect(Sql.strings(source), eventIds, eventQueue);
            Relations.collect(relations.lineageNeighbours(memory), memoryIds, memoryQueue);
        }
        Instant now = Times.now();
        int relationsRemoved = 0;
        int vectorsRemoved = 0;
        List<Memory> removedMemories = new ArrayList<>();
        for (String id : memoryIds) {
            Memory removed = memories.byId(id).orElseThrow();
            relationsRemoved += relations.deleteAllOf(removed, now);
            vectorsRemoved += vectors.deleteFor(removed, now);
            memories.delete(removed, now);
            removedMemories.add(removed);
        }
        int checkpointsRemoved = 0;
        List<Event> removedEvents = new ArrayList<>();
        for (String id : eventIds) {
            Event removed = events.byId(id).orElseThrow();
            checkpointsRemoved += checkpoints.deleteCovering(removed, now);
            extractions.deleteFor(removed);
            events.delete(removed, now);
            removedEvents.add(removed);
        }
        indexes.removalsDone(removedEvents, removedMemories);
        int invalidated = checkpoints.invalidateAll(scope, now);
        return new Deletion(List.copyOf(eventIds), List.copyOf(memoryIds), relationsRemoved, vectorsRemoved,
                checkpointsRemoved, invalidated);
    }

    /**
     * After a deletion commits: checkpoints the write-ahead log and truncates it, so that older copies
     * of the changed pages leave it. A reader still on an older snapshot makes the checkpoint wait; it
     * waits briefly, not the full busy timeout, and a checkpoint that cannot finish is skipped (the old
     * frames are overwritten when the log is next reset): the deletion has committed either way.
     */
    public void truncateLog() {
        try {
            sql.execute("PRAGMA busy_timeout = " + CHECKPOINT_WAIT_MS);
            try {
                sql.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            } finally {
                sql.execute("PRAGMA busy_timeout = " + Database.BUSY_TIMEOUT_MS);
            }
        } catch (SQLException busy) {
            // Best effort, as above: never reported as a failure of the committed deletion.
        }
    }
}
