package dev.jiyi.authority;

import java.time.Instant;

/**
 * What a host submits for one event. {@code occurredAt} may be null: a new event then happens now,
 * and a re-submission reuses the stored time (E3).
 */
public record EventSubmission(
        String id,
        Scope scope,
        Role role,
        String text,
        String source,
        Category category,
        String sessionId,
        Instant occurredAt) {

    public static final String DEFAULT_SOURCE = "cli";
    public static final String DEFAULT_SESSION = "default";

    public EventSubmission {
        Ids.check("id", id);
        if (scope == null) {
            throw new InvalidInputException("scope", "is required");
        }
        if (role == null) {
            throw new InvalidInputException("role", "is required");
        }
        if (text == null || text.isEmpty()) {
            throw new InvalidInputException("text", "is required and must not be empty");
        }
        if (text.length() > Limits.MAX_EVENT_TEXT) {
            throw new InvalidInputException("text", "must be at most " + Limits.MAX_EVENT_TEXT + " characters");
        }
        Limits.wellFormed("text", text);
        source = source == null ? DEFAULT_SOURCE : Limits.requireText("source", source, Limits.MAX_LABEL);
        category = category == null ? Category.CONVERSATION : category;
        sessionId = sessionId == null ? DEFAULT_SESSION : Ids.check("session", sessionId);
        occurredAt = occurredAt == null ? null : Times.checkRange("occurred_at", Times.truncate(occurredAt));
    }
}
