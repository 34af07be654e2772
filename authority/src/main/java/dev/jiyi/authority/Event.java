package dev.jiyi.authority;

import java.time.Instant;

/**
 * An original, authoritative event (E1). Its text is stored exactly as submitted.
 *
 * @param sequence database-wide, strictly increasing, never reused
 * @param extraction where it stands with extraction
 */
public record Event(
        long sequence,
        String id,
        Scope scope,
        Role role,
        String source,
        Category category,
        String sessionId,
        String text,
        Instant occurredAt,
        Instant ingestedAt,
        ExtractionState extraction,
        String extractionError,
        boolean amended) {
}
