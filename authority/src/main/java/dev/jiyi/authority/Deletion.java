package dev.jiyi.authority;

import java.util.List;

/**
 * The outcome of a permanent deletion (D1): the events and memories removed (the source event,
 * every memory co-derived from it and the whole correction lineage), how many relation edges and
 * vectors went with them, the checkpoints removed because they covered a removed event, and the
 * other checkpoints of the scope that were invalidated (D3).
 */
public record Deletion(List<String> eventIds, List<String> memoryIds, int relationsRemoved, int vectorsRemoved,
                       int checkpointsRemoved, int checkpointsInvalidated) {

    public Deletion {
        eventIds = List.copyOf(eventIds);
        memoryIds = List.copyOf(memoryIds);
    }
}
