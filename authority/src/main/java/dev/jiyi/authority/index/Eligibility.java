package dev.jiyi.authority.index;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;

import java.time.Instant;
import java.util.Objects;

/**
 * Which memories a recall may return (R8, T6): those of one scope that are not revoked and, unless
 * history is asked for, valid at a time (T3: {@code valid_at <= at < invalid_at}). Every index
 * applies it inside its search, before it takes its best {@code limit} (L4), so that no index
 * returns a top-k that the authority's recheck then empties.
 *
 * @param at the query time; may be null only when history is included
 */
public record Eligibility(Scope scope, Instant at, boolean includeHistory) {

    public Eligibility {
        Objects.requireNonNull(scope, "scope");
        if (at == null && !includeHistory) {
            throw new InvalidInputException("as_of", "is required unless history is included");
        }
    }

    /** Memories of the scope valid at {@code at}: current recall, or recall {@code --as-of}. */
    public static Eligibility current(Scope scope, Instant at) {
        return new Eligibility(scope, at, false);
    }

    /** Memories of the scope at any time, expired and future ones included (never revoked ones). */
    public static Eligibility anyTime(Scope scope) {
        return new Eligibility(scope, null, true);
    }

    /**
     * Epoch microseconds, truncated as the authority stores times (its text sorts as these numbers
     * do), clamped to the range of a long: what a derived index compares validity times in, so that
     * its range is the authority's comparison.
     */
    public static long micros(Instant t) {
        long seconds = t.getEpochSecond();
        if (seconds > Long.MAX_VALUE / 1_000_000L - 1) {
            return Long.MAX_VALUE;
        }
        if (seconds < Long.MIN_VALUE / 1_000_000L + 1) {
            return Long.MIN_VALUE;
        }
        return seconds * 1_000_000L + t.getNano() / 1_000;
    }

    /** The same rule as the indexes' filters, on a loaded memory. */
    public boolean admits(Memory m) {
        return m.scope().equals(scope) && !m.revoked() && (includeHistory || m.validity().contains(at));
    }
}
