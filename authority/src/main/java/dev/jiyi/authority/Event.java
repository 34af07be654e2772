package dev.jiyi.authority;

import java.time.Instant;

/**
 * An original, authoritative event (E1). Its text is stored exactly as submitted.
 *
 * @param sequence database-wide, strictly increasing, never reused
 * @param extraction {@code none}, {@code pending}, {@code done} or {@code skipped}
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
        String extraction,
        String extractionError,
        boolean amended) {
}
