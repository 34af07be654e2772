package dev.jiyi.authority.index;

import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.TableCounts;

import java.sql.SQLException;
import java.util.List;

/**
 * A derived index kept inside the authority's write transactions (the FTS5 index): each call runs
 * on the writing connection, inside the open transaction, so the index row commits or rolls back
 * together with the authoritative row. An exception aborts the whole write. Statements go through
 * {@link Sql#prepare}, so they are compiled once per connection.
 */
public interface TransactionalIndex {

    /**
     * Called before a write transaction that will add rows, outside any lock: the place to load
     * expensive resources (a dictionary) so that the write lock is not held while they load.
     */
    default void prepare() {
    }

    /**
     * Called before a write transaction, before its database lock is taken, with what it is about to
     * insert: the place to analyze text ahead, so that the lock is held for as little analysis as
     * possible (all of it, or a batch's analysis overlapped with its own writing). A hint only: the
     * transaction may insert other rows too (or fewer), and {@link #eventAdded} and
     * {@link #memoryAdded} must work without it.
     */
    default void analyzeAhead(List<EventSubmission> events, List<MemoryDraft> memories) {
    }

    /** A raw event was inserted. */
    void eventAdded(Sql tx, Event event) throws SQLException;

    /** A raw event is being removed (its row is still there): the same event {@link #eventAdded} got. */
    void eventRemoved(Sql tx, Event event) throws SQLException;

    /** A memory was inserted; {@link Memory#rowId} is its internal row number. */
    void memoryAdded(Sql tx, Memory memory) throws SQLException;

    /**
     * A memory is being removed (its row is still there): the same memory {@link #memoryAdded} got.
     * Nothing of it may remain in the index afterwards (D1).
     */
    void memoryRemoved(Sql tx, Memory memory) throws SQLException;

    /**
     * Called once at the end of a permanent deletion, inside its transaction, after every
     * {@link #eventRemoved} and {@link #memoryRemoved} call, with everything that was removed: the
     * place to remove traces that per-row deletes leave behind.
     */
    default void removalsDone(Sql tx, List<Event> events, List<Memory> memories) throws SQLException {
    }

    /**
     * Called at the end of every write transaction of the authority's verbs, builds and rebuilds,
     * inside it, just before it commits (not when it rolls back; not in a migration's transaction):
     * the place for upkeep that the transaction's inserts owe the index as a whole, in steps no
     * larger than those inserts (so that no single write pays for the archive's size).
     */
    default void beforeCommit(Sql tx) throws SQLException {
    }

    /** The name this index's state is kept under in {@code index_state}. */
    default String name() {
        return getClass().getSimpleName();
    }

    /**
     * What the index's rows are built from: its own format and the analysis that makes its terms.
     * When the version stored for {@link #name()} differs (or none is stored), the authority rebuilds
     * the index from the authoritative rows when it opens: {@link #clear}, then every event and memory
     * in insertion order. Null (the default) means the index is not tracked.
     */
    default String version() {
        return null;
    }

    /** Removes every row of the index, inside the rebuild's transaction. */
    default void clear(Sql tx) throws SQLException {
    }

    /**
     * Whether the index's own tables are in the database. An index defines its own storage (the
     * authority's migrations create authoritative tables only): when they are missing (a new
     * database, or dropped by hand) the authority creates them with {@link #install} and builds the
     * index, in a write transaction, before any write touches it. An index kept elsewhere has none.
     */
    default boolean installed(Sql tx) throws SQLException {
        return true;
    }

    /** Creates the index's own tables, empty, inside the write transaction that then builds it. */
    default void install(Sql tx) throws SQLException {
    }

    /**
     * What {@code doctor} finds wrong with the index's rows against the authoritative ones (one line
     * each, with what to run), asked only when the index claims to be complete: neither stale nor
     * being built. {@code counts} are the authoritative tables' rows.
     */
    default List<String> check(Sql tx, TableCounts counts) throws SQLException {
        return List.of();
    }
}
