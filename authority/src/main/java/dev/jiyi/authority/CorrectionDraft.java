package dev.jiyi.authority;

import java.time.Instant;

/**
 * What {@code memory correct} asks for (C1, C2): the corrected text, optionally the exact part of it
 * to quote (default: all of it), and optionally a new validity start (default: the mistaken
 * memory's start).
 */
public record CorrectionDraft(String text, String quote, Instant validAt) {

    public CorrectionDraft {
        Limits.requireText("text", text, Limits.MAX_MEMORY_TEXT);
        Limits.optionalText("quote", quote, Limits.MAX_QUOTE);
        if (quote != null && !text.contains(quote)) {
            throw new InvalidInputException("quote", "must be an exact substring of the corrected text");
        }
        validAt = validAt == null ? null : Times.checkRange("valid_at", Times.truncate(validAt));
    }

    /** The quote the corrected memory carries: the given one, or the whole corrected text. */
    public String quoteOrText() {
        return quote != null ? quote : text;
    }
}
