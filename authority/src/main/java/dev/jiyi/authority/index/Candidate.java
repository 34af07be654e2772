package dev.jiyi.authority.index;

import dev.jiyi.authority.Memory;

import java.util.Comparator;

/**
 * One match proposed by an index: a {@link LexicalIndex} or a {@link VectorIndex}.
 *
 * @param rowId the memory's row number ({@link Memory#rowId}) or the event's sequence
 * @param score the index's relevance (BM25, or cosine similarity for a vector), greater is better
 */
public record Candidate(long rowId, double score) {

    /** The order of every ranked list of candidates: best score first, equal scores newest (larger) row first. */
    public static final Comparator<Candidate> BEST_FIRST = Comparator.comparingDouble(Candidate::score).reversed()
            .thenComparing(Comparator.comparingLong(Candidate::rowId).reversed());
}
