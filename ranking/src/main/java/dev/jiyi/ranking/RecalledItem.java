package dev.jiyi.ranking;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Validity;

import java.time.Instant;
import java.util.List;

/**
 * One recall result: a memory, or a raw event that has no derived memory (R7).
 *
 * @param memoryId null for a raw event
 * @param sourceEventId the event the memory was derived from, or the raw event itself
 * @param text the memory text, its gist or topic cue (see {@code presentation}), or the raw text
 *             (at most the configured cap)
 * @param presentation how the text was chosen: full, an authored gist or an extracted topic cue (F2),
 *                     or a raw event's text
 * @param timeLabel the exact UTC time, or a decade such as {@code 2010s} once old (F2)
 * @param status current, expired or future at the query time
 * @param truncated true when raw text was cut at the cap
 * @param evidence why it is a candidate
 * @param signals every signal of the score, for {@code --explain}
 */
public record RecalledItem(
        Type type,
        String memoryId,
        String sourceEventId,
        double score,
        String text,
        Presentation presentation,
        Kind kind,
        Basis basis,
        Category category,
        double confidence,
        String timeLabel,
        Instant occurredAt,
        Validity validity,
        Status status,
        boolean truncated,
        Evidence evidence,
        List<Signal.Value> signals) {

    /** What a result is. */
    public enum Type {
        MEMORY, RAW_EVENT;

        public String code() {
            return this == MEMORY ? "memory" : "raw_event";
        }
    }

    public RecalledItem {
        signals = List.copyOf(signals);
    }
}
