package dev.jiyi.ranking;

import java.util.List;

/** Results best first, and warnings (incomplete coverage, unsupported mode, nothing searchable). */
public record RecallResult(List<RecalledItem> items, List<String> warnings) {

    public RecallResult {
        items = List.copyOf(items);
        warnings = List.copyOf(warnings);
    }
}
