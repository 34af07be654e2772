package dev.jiyi.providers;

/**
 * A provider call failed. The message is jiyi's own words plus numbers (an HTTP status, a timeout,
 * a count): never a response body, a credential, a URL or the input text (X2), so it may be stored
 * on the event and shown to anyone who can read the database.
 */
public final class ProviderException extends RuntimeException {

    /** What went wrong, closed set; front ends decide from it, never from the message. */
    public enum Kind {
        /** Not configured (no endpoint or model); nothing was sent. */
        NOT_CONFIGURED,
        /** The endpoint answered with a non-2xx status; {@link #status()} has it. */
        HTTP_STATUS,
        /** No complete answer within the configured timeout. */
        TIMEOUT,
        /** Connection refused, reset, DNS failure and the like. */
        NETWORK,
        /** The answer was not of the documented shape (not JSON, no {@code memories}, wrong vector count). */
        MALFORMED_ANSWER,
        /** The local model failed to load or run. */
        LOCAL_MODEL
    }

    private final Kind kind;
    private final int status;

    public ProviderException(Kind kind, int status, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.status = status;
    }

    public ProviderException(Kind kind, String message) {
        this(kind, 0, message, null);
    }

    public Kind kind() {
        return kind;
    }

    /** The HTTP status for {@link Kind#HTTP_STATUS}; 0 otherwise. */
    public int status() {
        return status;
    }
}
