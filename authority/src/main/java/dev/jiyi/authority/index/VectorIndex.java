package dev.jiyi.authority.index;

import dev.jiyi.authority.Snapshot;

/**
 * Nearest memories by embedding vector: the exact scan of the authority's vector cache
 * ({@link ExactVectorScan}), or the derived Lucene index's HNSW graph. Like a {@link LexicalIndex},
 * it applies the query's eligibility filter inside its search and proposes rows that recall
 * rechecks against the authority.
 */
public interface VectorIndex {

    /** A short name for reports: {@code exact}, {@code lucene}. */
    String name();

    /**
     * The at most {@link VectorQuery#k()} eligible memories whose vectors (of the query's
     * fingerprint only, V1) are most similar to the query vector, above its minimum similarity,
     * best first with equal similarities newest row first, and how many vectors were compared.
     */
    Neighbours nearest(Snapshot snapshot, VectorQuery query);
}
