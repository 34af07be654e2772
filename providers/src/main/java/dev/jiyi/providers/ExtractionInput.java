package dev.jiyi.providers;

/**
 * What the extraction model sees of one event (the prompt in docs/extraction.md). Plain strings:
 * providers depend on none of jiyi's modules.
 *
 * @param role {@code user}, {@code assistant} or {@code system}
 * @param occurredAt ISO-8601 UTC
 */
public record ExtractionInput(String eventId, String role, String category, String occurredAt, String text) {
}
