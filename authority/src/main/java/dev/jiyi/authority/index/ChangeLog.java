package dev.jiyi.authority.index;

import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Snapshot;

import java.time.Instant;
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

    private ChangeLog() {
    }

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
}
