package dev.jiyi.authority.internal;

import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.StorageException;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * How the authority runs its work on its one connection: writes in one {@code BEGIN IMMEDIATE}
 * transaction that any failure rolls back whole, writes that touch indexed rows after the attached
 * indexes are made current, batches that commit the items before a rejected one, and reads in one read transaction (a
 * consistent snapshot across their statements). Failures of SQLite become a
 * {@link StorageException} naming the operation, with the cause kept.
 */
public final class Transactions {

    private final Sql sql;
    private final Indexes indexes;

    public Transactions(Sql sql, Indexes indexes) {
        this.sql = sql;
        this.indexes = indexes;
    }

    @FunctionalInterface
    public interface Work<T> {
        T run() throws SQLException;
    }

    @FunctionalInterface
    public interface VoidWork {
        void run() throws SQLException;
    }

    /**
     * Runs {@code work} in one BEGIN IMMEDIATE transaction, then the attached indexes' upkeep
     * ({@link Indexes#beforeCommit}); any failure rolls everything back.
     */
    public <T> T write(String operation, Work<T> work) {
        try {
            sql.execute("BEGIN IMMEDIATE");
            T result;
            try {
                result = work.run();
                indexes.beforeCommit();
                sql.execute("COMMIT");
            } catch (Throwable e) {
                // Whatever failed, including an Error or the COMMIT itself, leave no open transaction.
                rollback(e);
                throw e;
            }
            return result;
        } catch (SQLException e) {
            throw new StorageException(operation, e);
        }
    }

    public void write(String operation, VoidWork work) {
        write(operation, () -> {
            work.run();
            return null;
        });
    }

    /** A {@link #write} that adds or removes indexed rows: the indexes are made current first. */
    public <T> T indexedWrite(String operation, Work<T> work) {
        return write(operation, () -> {
            indexes.sync();
            return work.run();
        });
    }

    /** Runs {@code work} in one read transaction: a consistent snapshot across its statements. */
    public <T> T read(String operation, Work<T> work) {
        try {
            sql.execute("BEGIN");
            try {
                return work.run();
            } finally {
                sql.execute("COMMIT");
            }
        } catch (SQLException e) {
            throw new StorageException(operation, e);
        }
    }

    /** Rolls back; when no transaction is open any more (a failed COMMIT may end it), that is noted. */
    private void rollback(Throwable primary) {
        try {
            sql.execute("ROLLBACK");
        } catch (SQLException e) {
            primary.addSuppressed(e);
        }
    }

    /**
     * Applies {@code items} in one transaction. If one is rejected (a {@link JiyiException}), the
     * transaction commits the items before it: those end committed and nothing of the rejected item
     * or those after it is.
     *
     * <p>Items run without a savepoint each: a savepoint makes FTS5 flush its pending terms into a
     * segment of its own, per item, and that cost most of a batch's time (a profile of 10,000 events
     * put more SQLite time in {@code SAVEPOINT}/{@code RELEASE} than in the inserts). A rejection is
     * rare, so it rolls back the whole transaction and the items before it are applied again in a
     * new one; should one of those now be rejected (another process wrote meanwhile), the same
     * happens with fewer items, so the loop ends.
     */
    public <I, T> BatchResult<T> batch(String operation, List<I> items, ItemWork<I, T> work) {
        if (items.isEmpty()) {
            return BatchResult.success(List.of());
        }
        int end = items.size();
        JiyiException rejection = null;
        while (end > 0) {
            int upTo = end;
            try {
                List<T> done = indexedWrite(operation, () -> {
                    List<T> applied = new ArrayList<>(upTo);
                    for (int i = 0; i < upTo; i++) {
                        try {
                            applied.add(work.apply(items.get(i)));
                        } catch (JiyiException e) {
                            throw new Rejected(i, e); // rolls the transaction back
                        }
                    }
                    return applied;
                });
                return rejection == null ? BatchResult.success(done) : new BatchResult<>(done, end, rejection);
            } catch (Rejected r) {
                end = r.index;
                rejection = r.cause;
            }
        }
        return new BatchResult<>(List.of(), 0, rejection);
    }

    /** An item of a batch was rejected: the batch's transaction rolls back and is retried without it. */
    private static final class Rejected extends RuntimeException {
        final int index;
        final JiyiException cause;

        Rejected(int index, JiyiException cause) {
            super(null, cause, false, false);
            this.index = index;
            this.cause = cause;
        }
    }

    @FunctionalInterface
    public interface ItemWork<I, T> {
        T apply(I item) throws SQLException;
    }
}
