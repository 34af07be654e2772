package dev.jiyi.ranking;

import java.util.Locale;

/** Why a result is a candidate; shown as its lower-case code ({@code --explain}, JSON). */
public enum Evidence {
    /** Its own text matched the query. */
    MEMORY,
    /** The text of the event it was derived from matched. */
    SOURCE_EVENT,
    /** The turns around its event, in the same session (its conversation context), matched. */
    ADJACENT_TURN,
    /**
     * R9: an earlier fact of its timeline (same subject and fact key) matched, and it is that
     * timeline's fact at the query time.
     */
    TIMELINE,
    /** It is linked by {@code related} to a match. */
    RELATED_LINK,
    /** Its vector is similar to the query's (semantic and deep modes only). */
    VECTOR,
    /** A raw event without memories, matched (R7). */
    RAW_EVENT;

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
