package dev.jiyi.ranking;

import dev.jiyi.authority.Validity;

import java.time.Instant;
import java.util.Locale;

/** Where a result stands at the query time (T3, T6); shown as its lower-case code. */
public enum Status {
    CURRENT, EXPIRED, FUTURE;

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The status of a validity interval at {@code at}, by the half-open rule. */
    public static Status of(Validity v, Instant at) {
        if (v.contains(at)) {
            return CURRENT;
        }
        return at.isBefore(v.validAt()) ? FUTURE : EXPIRED;
    }
}
