package dev.jiyi.ranking;

import java.util.Locale;

/** How a result's text was chosen (F2, R7); shown as its lower-case code. */
public enum Presentation {
    /** The memory's own text. */
    FULL,
    /** An old episode, observation or emotion shown by its authored gist. */
    GIST,
    /** An old one without a gist, shown by an extractive topic cue, labeled as such. */
    TOPIC_CUE,
    /** A raw event's text (at most the configured cap). */
    RAW_EVENT;

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
