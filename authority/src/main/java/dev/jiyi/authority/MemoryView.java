package dev.jiyi.authority;

import java.util.List;

/**
 * What {@code memory read} shows (M4): the memory, one page of its source event's original text,
 * the other memories derived from the same event, and its relations.
 */
public record MemoryView(
        Memory memory,
        Event source,
        SourcePage page,
        List<Memory> coDerived,
        List<Relation> relations) {

    /** One page of stored text; the stored text itself is never changed by paging. */
    public record SourcePage(int page, int totalPages, int pageSize, int totalCharacters, String text) {
    }
}
