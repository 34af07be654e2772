package dev.jiyi.authority;

import java.util.List;

/**
 * A lexical index that proposes recall candidates: the FTS5 index, or the derived Lucene index.
 * Recall treats every answer as a proposal and rechecks it against the authority, so an index that
 * lags behind (or returns something since deleted) can never surface text the authority no longer
 * holds; but an index applies the filters it is given inside its search, so that its best
 * {@code limit} are all rows the recheck keeps (L4).
 *
 * <p>Implementations analyze the query with the shared token stream, search its terms as literals
 * (R2: query syntax is text) and drop stop words, so that a query sharing only common words with a
 * text does not propose it (R6). An index that lives in the authority's database reads through the
 * snapshot's {@link Snapshot#sql()}, inside its read transaction; one that lives elsewhere may
 * ignore the snapshot. The contract test {@code RecallIndexContract} holds every implementation to
 * this.
 */
public interface LexicalIndex {

    /** A short name for reports and {@code --index}: {@code fts5}, {@code lucene}. */
    String name();

    /**
     * At most {@code limit} memories that {@code filter} admits (its scope, not revoked, valid at its
     * time unless it includes history) matching {@code query}, best first; equal scores newest row first.
     */
    List<Candidate> memories(Snapshot snapshot, String query, Eligibility filter, int limit);

    /**
     * At most {@code limit} raw events of {@code scope} matching {@code query}, best first; equal
     * scores newest first. Events are evidence for their memories and neighbouring turns too, so
     * they are filtered by scope only; recall decides which may be shown as raw results (R7, C3).
     */
    List<Candidate> events(Snapshot snapshot, String query, Scope scope, int limit);
}
