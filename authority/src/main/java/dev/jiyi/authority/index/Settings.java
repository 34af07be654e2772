package dev.jiyi.authority.index;

import dev.jiyi.authority.InvalidInputException;

/**
 * Settings by key, as the home's configuration gives them ({@code config.properties}, overridden by
 * the environment): how a backend reads its own keys ({@code lucene.*}) without the engine knowing
 * them. Errors name the key and the rule, never the value.
 */
@FunctionalInterface
public interface Settings {

    /** No settings at all: every key unset. */
    Settings NONE = key -> null;

    /** The raw value of {@code key}, or null when unset. */
    String get(String key);

    /** The stripped value of {@code key}, or null when unset or blank. */
    default String text(String key) {
        String v = get(key);
        return v == null || v.isBlank() ? null : v.strip();
    }

    /** A number; {@code fallback} when unset or blank. */
    default double number(String key, double fallback) {
        String v = text(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new InvalidInputException(key, "must be a number");
        }
    }

    /** A whole number in [0, 1000000]; {@code fallback} when unset or blank. */
    default int integer(String key, int fallback) {
        double v = number(key, fallback);
        if (v != Math.rint(v) || v < 0 || v > 1_000_000) {
            throw new InvalidInputException(key, "must be a whole number in [0, 1000000]");
        }
        return (int) v;
    }

    /** A whole number of at least 1; {@code fallback} when unset or blank. */
    default int positiveInteger(String key, int fallback) {
        int v = integer(key, fallback);
        if (v < 1) {
            throw new InvalidInputException(key, "must be at least 1");
        }
        return v;
    }
}
