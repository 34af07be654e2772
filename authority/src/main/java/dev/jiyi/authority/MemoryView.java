package dev.jiyi.authority;

import java.util.List;

/**
 * What {@code memory read} shows (M4): the memory (with its revocation), one page of its source
 * event's original text (with whether it was amended), the other memories derived from the same
 * event, its relations, and its correction lineage (C1).
 *
 * @param corrects the memories this one corrects, directly or through earlier corrections, nearest first
 * @param correctedBy the memories that correct this one, directly or through later corrections, nearest first
 */
public record MemoryView(
        Memory memory,
        Event source,
        SourcePage page,
        List<Memory> coDerived,
        List<Relation> relations,
        List<Memory> corrects,
        List<Memory> correctedBy) {

    public MemoryView {
        coDerived = List.copyOf(coDerived);
        relations = List.copyOf(relations);
        corrects = List.copyOf(corrects);
        correctedBy = List.copyOf(correctedBy);
    }

    /** One page of stored text; the stored text itself is never changed by paging. */
    public record SourcePage(int page, int totalPages, int pageSize, int totalCharacters, String text) {
    }
}
