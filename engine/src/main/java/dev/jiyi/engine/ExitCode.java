package dev.jiyi.engine;

import dev.jiyi.authority.ConflictException;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.authority.RefusedException;

/** The public exit codes of {@code jiyi} (add, never renumber). */
public final class ExitCode {

    public static final int OK = 0;
    /** The thing the command is about does not exist. */
    public static final int NOT_FOUND = 1;
    /** Input broke a rule; nothing changed. */
    public static final int INVALID = 2;
    /** The write contradicts stored data; nothing changed. */
    public static final int CONFLICT = 3;
    /** Refused to protect data (a newer schema, an existing target, a non-empty destination). */
    public static final int REFUSED = 4;
    /** A provider failed or is missing; the data is saved and the work is pending. */
    public static final int PROVIDER = 5;
    /** {@code doctor} found a problem. */
    public static final int UNHEALTHY = 6;
    /** An unexpected internal or storage error. */
    public static final int INTERNAL = 70;

    private ExitCode() {
    }

    /** The exit code for an exception thrown by a command. */
    public static int of(Throwable e) {
        return switch (e) {
            case InvalidInputException ignored -> INVALID;
            case NotFoundException ignored -> NOT_FOUND;
            case ConflictException ignored -> CONFLICT;
            case RefusedException ignored -> REFUSED;
            case dev.jiyi.providers.ProviderException p when p.kind() == dev.jiyi.providers.ProviderException.Kind.NOT_CONFIGURED -> INVALID;
            case dev.jiyi.providers.ProviderException ignored -> PROVIDER;
            default -> INTERNAL;
        };
    }

    /** The short name used for an error in JSON output. */
    public static String name(int code) {
        return switch (code) {
            case OK -> "ok";
            case NOT_FOUND -> "not_found";
            case INVALID -> "invalid_input";
            case CONFLICT -> "conflict";
            case REFUSED -> "refused";
            case PROVIDER -> "provider_failure";
            case UNHEALTHY -> "unhealthy";
            default -> "internal_error";
        };
    }
}
