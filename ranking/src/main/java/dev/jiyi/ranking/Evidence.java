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
     * Only the best match's own words, those the query does not have, lead to it: the event it was
     * derived from holds them, so it says more about what the best match is about. (A memory whose
     * event also has neighbours that matched says {@link #ADJACENT_TURN}.)
     */
    SHARED_WORDS,
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
