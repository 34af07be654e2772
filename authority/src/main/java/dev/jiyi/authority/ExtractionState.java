package dev.jiyi.authority;

import dev.jiyi.authority.internal.Codes;

import java.util.Locale;

/** Where an event stands with extraction (E5, X2, X5, E6); stored as its lower-case code. */
public enum ExtractionState {
    /** Never asked for: submitted without {@code --extract}, or memories derived by hand. */
    NONE,
    /** Asked for and not yet applied: what {@code retry} works through. */
    PENDING,
    /** An answer was applied (its memories, if any, are saved). */
    DONE,
    /** Must not be extracted: a reference or persona event, an amended event, or one with memories. */
    SKIPPED;

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Prints as its stored code. */
    @Override
    public String toString() {
        return code();
    }

    public static ExtractionState parse(String field, String value) {
        return Codes.parse(ExtractionState.class, field, value);
    }
}
