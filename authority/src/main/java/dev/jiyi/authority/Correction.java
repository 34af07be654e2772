package dev.jiyi.authority;

/**
 * The outcome of a correction (C1): the new explicit-correction event, the mistaken memory (now
 * revoked), the corrected memory derived from the correction event, the {@code corrects} edge from
 * the corrected memory to the mistaken one, and how many checkpoints of the scope it invalidated (D3).
 */
public record Correction(Event event, Memory revoked, Memory corrected, Relation relation,
                         int checkpointsInvalidated) {
}
