package dev.jiyi.pack;

import java.util.List;
import java.util.Map;

/**
 * A context pack (P1): the context text, itself a JSON document, and metadata about it. Metadata is
 * outside the budget (P5).
 *
 * @param status {@code ok}, or {@code insufficient_budget} when persona and framing do not fit (P4)
 * @param context the JSON-encoded context, empty when the budget is insufficient
 * @param tokens the count of {@code context} by {@code tokenizer}; never more than {@code budget}
 * @param tokenizer {@code cl100k_base}, {@code o200k_base} or {@code utf8_bytes}
 * @param included the components in the context, in order, with how many items each holds
 * @param omitted the components that had something to say but did not fit (P3), in order; all six
 *                when the budget is insufficient (P4), since nothing was packed
 * @param empty the components that had nothing to add (no checkpoint, no emotion, ...)
 * @param recalledBy what the recalled memories were recalled by: {@code query}, {@code checkpoint},
 *                   {@code latest_user_turn}, {@code checkpoint+latest_user_turn}, or {@code nothing}
 * @param warnings the recall's warnings (vector coverage, a lagging index)
 */
public record Pack(String status, String context, int tokens, int budget, String tokenizer,
                   Map<String, Integer> included, List<String> omitted, List<String> empty, String recalledBy,
                   List<String> warnings) {

    public static final String OK = "ok";
    public static final String INSUFFICIENT_BUDGET = "insufficient_budget";

    public Pack {
        included = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(included));
        omitted = List.copyOf(omitted);
        empty = List.copyOf(empty);
        warnings = List.copyOf(warnings);
    }
}
