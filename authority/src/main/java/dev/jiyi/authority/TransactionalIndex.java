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
}
