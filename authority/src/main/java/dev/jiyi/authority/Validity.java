package dev.jiyi.authority;

import java.time.Instant;

/**
 * A half-open validity interval (T3): valid when {@code validAt <= t < invalidAt}; an absent
 * {@code invalidAt} means still valid.
 */
public record Validity(Instant validAt, Instant invalidAt) {

    public Validity {
        if (validAt == null) {
            throw new InvalidInputException("valid_at", "is required");
        }
        if (invalidAt != null && invalidAt.isBefore(validAt)) {
            throw new InvalidInputException("invalid_at", "must not be before valid_at");
        }
    }

    public static Validity from(Instant validAt) {
        return new Validity(validAt, null);
    }

    /** The half-open rule, in one place. */
    public boolean contains(Instant t) {
        return !t.isBefore(validAt) && (invalidAt == null || t.isBefore(invalidAt));
    }

    public boolean open() {
        return invalidAt == null;
    }

    public Validity closedAt(Instant end) {
        return new Validity(validAt, end);
    }
}
