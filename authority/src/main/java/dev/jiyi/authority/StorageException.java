package dev.jiyi.authority;

import java.sql.SQLException;

/** SQLite failed underneath an operation; the cause is kept, the transaction was rolled back. */
public final class StorageException extends JiyiException {

    public StorageException(String operation, SQLException cause) {
        super(operation + " failed: " + cause.getMessage(), cause);
    }
}
