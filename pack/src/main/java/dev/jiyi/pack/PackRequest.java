package dev.jiyi.pack;

import dev.jiyi.authority.Ids;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.Scope;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;

/**
 * One context pack to build (S1: always for one persona and project).
 *
 * @param budget the most tokens (or UTF-8 bytes) the context text may take
 * @param model the model the context is for; it picks the {@link TokenCounter}; null for bytes
 * @param query what to recall by; null to recall by the checkpoint and the latest user turn
 * @param sessionId the session whose checkpoint and recent turns to pack; null for the whole scope
 * @param mode the recall mode for the recalled memories (fast unless given)
 */
public record PackRequest(Scope scope, int budget, String model, String query, String sessionId, RecallMode mode) {

    public static final int DEFAULT_BUDGET = 4_000;
    public static final int MAX_BUDGET = 1_000_000;
    public static final int MAX_MODEL = 200;

    public PackRequest {
        if (scope == null) {
            throw new InvalidInputException("scope", "is required");
        }
        if (budget < 1 || budget > MAX_BUDGET) {
            throw new InvalidInputException("budget", "must be between 1 and " + MAX_BUDGET);
        }
        if (model != null) {
            if (model.length() > MAX_MODEL) {
                throw new InvalidInputException("model", "must be at most " + MAX_MODEL + " characters");
            }
            Limits.wellFormed("model", model);
        }
        if (query != null) {
            if (query.isBlank()) {
                query = null;
            } else if (query.length() > RecallRequest.MAX_QUERY) {
                throw new InvalidInputException("query", "must be at most " + RecallRequest.MAX_QUERY + " characters");
            } else {
                Limits.wellFormed("query", query);
            }
        }
        if (sessionId != null) {
            Ids.check("session", sessionId);
        }
        mode = mode == null ? RecallMode.FAST : mode;
    }

    /** A pack of the scope with the default budget, counted in UTF-8 bytes. */
    public static PackRequest of(Scope scope) {
        return new PackRequest(scope, DEFAULT_BUDGET, null, null, null, RecallMode.FAST);
    }
}
