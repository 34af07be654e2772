package dev.jiyi.authority;

import java.sql.SQLException;

/** SQLite failed underneath an operation; the cause is kept, the transaction was rolled back. */
public final class StorageException extends JiyiException {

    public StorageException(String operation, SQLException cause) {
        super(operation + " failed: " + cause.getMessage(), cause);
    }

    /** A failure of storage outside SQLite: a derived index's files, an archive. */
    public StorageException(String operation, java.io.IOException cause) {
        super(operation + " failed: " + cause.getMessage(), cause);
    }
}
