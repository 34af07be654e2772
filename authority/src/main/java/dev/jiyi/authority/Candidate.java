package dev.jiyi.authority;

/**
 * One match proposed by an index: a {@link LexicalIndex} or a {@link VectorIndex}.
 *
 * @param rowId the memory's row number ({@link Memory#rowId}) or the event's sequence
 * @param score the index's relevance (BM25, or cosine similarity for a vector), greater is better
 */
public record Candidate(long rowId, double score) {
}
