package dev.jiyi.authority;

/**
 * An event loaded for the raw fallback (R7), and whether memories were derived from it (then its raw
 * text must not stand in for them, C3).
 */
public record RawEventRow(Event event, boolean derived) {
}
