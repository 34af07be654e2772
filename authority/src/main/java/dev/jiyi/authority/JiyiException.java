package dev.jiyi.authority;

/**
 * A domain error with a stable category, so that every front end (CLI exit codes, MCP errors) can
 * map it without parsing messages. Messages never contain user text (O7): field names, rules,
 * IDs and numbers only.
 */
public abstract sealed class JiyiException extends RuntimeException
        permits InvalidInputException, NotFoundException, ConflictException, RefusedException,
        StorageException {

    protected JiyiException(String message) {
        super(message);
    }

    protected JiyiException(String message, Throwable cause) {
        super(message, cause);
    }
}
