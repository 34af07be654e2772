package dev.jiyi.ranking;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.Scope;

import java.time.Instant;

/**
 * One recall.
 *
 * @param asOf evaluate validity at this time instead of now (T6); null for now
 * @param includeHistory return expired and future facts too, labeled (T6)
 */
public record RecallRequest(Scope scope, String query, RecallMode mode, int limit, Instant asOf,
                            boolean includeHistory) {

    /** The longest query accepted, in characters (a long dialogue fits). */
    public static final int MAX_QUERY = 20_000;
    public static final int MAX_LIMIT = 200;

    public RecallRequest {
        if (scope == null) {
            throw new InvalidInputException("scope", "is required");
        }
        if (query == null) {
            throw new InvalidInputException("query", "is required");
        }
        if (query.length() > MAX_QUERY) {
            throw new InvalidInputException("query", "must be at most " + MAX_QUERY + " characters");
        }
        Limits.wellFormed("query", query);
        mode = mode == null ? RecallMode.FAST : mode;
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new InvalidInputException("limit", "must be between 1 and " + MAX_LIMIT);
        }
    }
}
