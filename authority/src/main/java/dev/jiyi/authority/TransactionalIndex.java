package dev.jiyi.authority;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A derived index kept inside the authority's write transactions (the FTS5 index): each call runs
 * on the writing connection, inside the open transaction, so the index row commits or rolls back
 * together with the authoritative row. An exception aborts the whole write.
 */
public interface TransactionalIndex {

    /**
     * Called before a write transaction that will add rows, outside any lock: the place to load
     * expensive resources (a dictionary) so that the write lock is not held while they load.
     */
    default void prepare() {
    }

    /** A raw event was inserted. */
    void eventAdded(Connection tx, Event event) throws SQLException;

    /** A raw event with this sequence is being removed. */
    void eventRemoved(Connection tx, long sequence) throws SQLException;

    /** A memory was inserted; {@code rowId} is its internal row number. */
    void memoryAdded(Connection tx, long rowId, Memory memory) throws SQLException;

    /** The memory with this internal row number is being removed. */
    void memoryRemoved(Connection tx, long rowId) throws SQLException;

    /**
     * Called at the end of a permanent deletion (D1), still inside its transaction: rewrite whatever
     * storage still holds traces of the removed rows (an inverted index keeps a deleted document's
     * terms in its segments until they are merged), so that nothing of them remains.
     */
    default void compact(Connection tx) throws SQLException {
    }
}
