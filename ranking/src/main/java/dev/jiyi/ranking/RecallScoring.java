package dev.jiyi.ranking;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.RawEventRow;
import dev.jiyi.authority.RecallRow;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Recall's third phase: each admitted memory and each raw candidate event scored by its fused
 * signals (R3), each {@link Signal} times its weight, and presented with the forgetting rules
 * (F1-F3; raw text capped, R7).
 */
final class RecallScoring {

    /**
     * Best score first; memories before raw events; then the source event's ID (the host's, so equal
     * scores come in the same order in any copy of the archive, where memory IDs are made anew by
     * each load), then the memory's ID.
     */
    static final Comparator<RecalledItem> ORDER = Comparator.comparingDouble(RecalledItem::score).reversed()
            .thenComparing(RecalledItem::type)
            .thenComparing(RecalledItem::sourceEventId)
            .thenComparing(i -> i.memoryId() == null ? "" : i.memoryId());

    /** Everything a memory's signals are computed from. */
    record Inputs(RecallEvidence.Lexical lexical, Map<Long, Double> cosine, Map<Long, Double> related,
                  List<TimeExpressions.Window> windows) {
    }

    private final RecallConfig config;
    private final Forgetting forgetting;

    RecallScoring(RecallConfig config, Forgetting forgetting) {
        this.config = config;
        this.forgetting = forgetting;
    }

    RecalledItem memory(RecallRow row, Inputs in, Instant at) {
        Memory m = row.memory();
        long r = row.rowId();
        Status status = Status.of(m.validity(), at);
        Weights w = config.weights();
        List<Signal.Value> signals = List.of(
                Signal.LEXICAL.of(in.lexical().lexical().getOrDefault(r, 0.0), w),
                Signal.CONTEXT.of(in.lexical().context().getOrDefault(r, 0.0), w),
                Signal.COSINE.of(in.cosine().getOrDefault(r, 0.0), w),
                Signal.RELATED.of(in.related().getOrDefault(r, 0.0), w),
                Signal.BASIS.of(basisValue(m.basis()), w),
                Signal.CONFIDENCE.of(m.confidence(), w),
                Signal.FRESHNESS.of(forgetting.freshness(row.occurredAt(), at), w),
                Signal.TIME.of(inside(row.occurredAt(), in.windows()), w));
        Forgetting.Shown shown = forgetting.presentation(m, row.occurredAt(), at);
        return new RecalledItem(RecalledItem.Type.MEMORY, m.id(), m.eventId(), sum(signals), shown.text(),
                shown.presentation(),
                m.kind(), m.basis(), null, m.confidence(), forgetting.timeLabel(m.kind(), row.occurredAt(), at),
                row.occurredAt(), m.validity(), status, false,
                in.lexical().via().getOrDefault(r, Evidence.RELATED_LINK), signals);
    }

    /** A raw event's result (R7), or null for one with memories, amended (C3) or after the query time. */
    RecalledItem raw(RawEventRow raw, double lexical, double context, List<TimeExpressions.Window> windows, Instant at) {
        Event e = raw.event();
        if (raw.derived() || e.amended() || e.occurredAt().isAfter(at)) {
            return null; // R7 only for events without memories; C3 never from amended text
        }
        Weights w = config.weights();
        List<Signal.Value> signals = List.of(
                Signal.LEXICAL.of(lexical, w),
                Signal.CONTEXT.of(context, w),
                Signal.FRESHNESS.of(forgetting.freshness(e.occurredAt(), at), w),
                Signal.TIME.of(inside(e.occurredAt(), windows), w));
        String text = e.text();
        boolean truncated = text.codePointCount(0, text.length()) > config.rawTextCap();
        if (truncated) {
            text = text.substring(0, text.offsetByCodePoints(0, config.rawTextCap()));
        }
        return new RecalledItem(RecalledItem.Type.RAW_EVENT, null, e.id(), sum(signals), text, Presentation.RAW_EVENT,
                null, null, e.category(), 0.0, forgetting.timeLabel(null, e.occurredAt(), at), e.occurredAt(), null,
                Status.CURRENT, truncated, Evidence.RAW_EVENT, signals);
    }

    /** R10: 1 when the time is inside a window the query names, else 0. */
    private static double inside(Instant time, List<TimeExpressions.Window> windows) {
        for (TimeExpressions.Window window : windows) {
            if (window.contains(time)) {
                return 1;
            }
        }
        return 0;
    }

    static double basisValue(Basis basis) {
        return switch (basis) {
            case USER_STATEMENT -> 1.0;
            case ASSISTANT_EXPRESSION -> 0.7;
            case INFERENCE -> 0.5;
        };
    }

    private static double sum(List<Signal.Value> signals) {
        double s = 0;
        for (Signal.Value signal : signals) {
            s += signal.contribution();
        }
        return s;
    }
}
