package dev.jiyi.authority;

import java.util.List;

/**
 * The outcome of applying an extraction to an event (X3-X5): the event (now {@code done}), the
 * memories saved, the items rejected with their reasons, and whether the event had already been
 * extracted, in which case the memories are the existing ones and nothing was created (X5).
 */
public record Extraction(Event event, List<Memory> memories, List<Rejection> rejected, boolean duplicate) {

    public Extraction {
        memories = List.copyOf(memories);
        rejected = List.copyOf(rejected);
    }
}
