package dev.jiyi.authority;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * How the authority runs its work on its one connection: writes in one {@code BEGIN IMMEDIATE}
 * transaction that any failure rolls back whole, writes that touch indexed rows after the attached
 * indexes are made current, batches with a savepoint per item, and reads in one read transaction (a
 * consistent snapshot across their statements). Failures of SQLite become a
 * {@link StorageException} naming the operation, with the cause kept.
 */
final class Transactions {

    private final Sql sql;
    private final Indexes indexes;

    Transactions(Sql sql, Indexes indexes) {
        this.sql = sql;
        this.indexes = indexes;
    }


    @FunctionalInterface
    interface Work<T> {
        T run() throws SQLException;
    }

    @FunctionalInterface
    interface VoidWork {
        void run() throws SQLException;
    }

    /** Runs {@code work} in one BEGIN IMMEDIATE transaction; any failure rolls everything back. */
    <T> T write(String operation, Work<T> work) {
        try {
            sql.execute("BEGIN IMMEDIATE");
            T result;
            try {
                result = work.run();
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

    void write(String operation, VoidWork work) {
        write(operation, () -> {
            work.run();
            return null;
        });
    }

    /** A {@link #write} that adds or removes indexed rows: the indexes are made current first. */
    <T> T indexedWrite(String operation, Work<T> work) {
        return write(operation, () -> {
            indexes.sync();
            return work.run();
        });
    }

    /** Runs {@code work} in one read transaction: a consistent snapshot across its statements. */
    <T> T read(String operation, Work<T> work) {
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
     * Applies {@code items} in one transaction, each under its own savepoint. If one is rejected, its
     * savepoint is rolled back and the transaction commits the items before it: those end committed
     * and nothing of the rejected item or those after it is.
     */
    <I, T> BatchResult<T> batch(String operation, List<I> items, ItemWork<I, T> work) {
        return indexedWrite(operation, () -> {
            List<T> done = new ArrayList<>();
            for (int i = 0; i < items.size(); i++) {
                sql.execute("SAVEPOINT batch_item");
                try {
                    done.add(work.apply(items.get(i)));
                } catch (JiyiException e) {
                    sql.execute("ROLLBACK TO batch_item");
                    sql.execute("RELEASE batch_item");
                    return new BatchResult<>(done, i, e);
                }
                sql.execute("RELEASE batch_item");
            }
            return BatchResult.success(done);
        });
    }

    @FunctionalInterface
    interface ItemWork<I, T> {
        T apply(I item) throws SQLException;
    }
}
