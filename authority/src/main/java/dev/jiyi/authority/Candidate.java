package dev.jiyi.authority;

/**
 * One lexical match proposed by a {@link CandidateIndex}.
 *
 * @param rowId the memory's internal row number ({@code memories.seq}) or the event's sequence
 * @param score the index's relevance score (BM25), greater is better, always positive
 */
public record Candidate(long rowId, double score) {
}
