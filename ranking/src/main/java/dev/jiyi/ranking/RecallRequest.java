package dev.jiyi.ranking;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.Scope;

import java.time.Instant;
import java.util.List;

/**
 * One recall.
 *
 * @param asOf evaluate validity at this time instead of now (T6); null for now
 * @param includeHistory return expired and future facts too, labeled (T6)
 * @param dialogue the turns of a dialogue query, oldest first (the query is then their text joined
 *                 by newlines); empty for a plain query
 */
public record RecallRequest(Scope scope, String query, RecallMode mode, int limit, Instant asOf,
                            boolean includeHistory, List<String> dialogue) {

    /** Most turns a dialogue query may have. */
    public static final int MAX_TURNS = 200;

    public RecallRequest(Scope scope, String query, RecallMode mode, int limit, Instant asOf, boolean includeHistory) {
        this(scope, query, mode, limit, asOf, includeHistory, List.of());
    }

    /**
     * A dialogue as the query, as a host passes it before the assistant replies: recall weighs the
     * newest turn over older ones (docs/recall.md). Blank turns are dropped.
     */
    public static RecallRequest dialogue(Scope scope, List<String> turns, RecallMode mode, int limit, Instant asOf,
                                         boolean includeHistory) {
        if (turns == null) {
            throw new InvalidInputException("dialogue", "is required");
        }
        List<String> kept = new java.util.ArrayList<>(turns.size());
        for (String turn : turns) {
            if (turn == null) {
                throw new InvalidInputException("dialogue", "turns must be strings");
            }
            if (!turn.isBlank()) {
                kept.add(turn.strip());
            }
        }
        if (kept.isEmpty()) {
            throw new InvalidInputException("dialogue", "must have at least one non-blank turn");
        }
        if (kept.size() > MAX_TURNS) {
            throw new InvalidInputException("dialogue", "must have at most " + MAX_TURNS + " turns");
        }
        int length = kept.size() - 1;
        for (String turn : kept) {
            length += turn.length();
            Limits.wellFormed("dialogue", turn);
        }
        if (length > MAX_QUERY) {
            throw new InvalidInputException("dialogue", "must be at most " + MAX_QUERY + " characters in all");
        }
        return new RecallRequest(scope, String.join("\n", kept), mode, limit, asOf, includeHistory, kept);
    }

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
        dialogue = dialogue == null ? List.of() : List.copyOf(dialogue);
        mode = mode == null ? RecallMode.FAST : mode;
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new InvalidInputException("limit", "must be between 1 and " + MAX_LIMIT);
        }
    }
}
