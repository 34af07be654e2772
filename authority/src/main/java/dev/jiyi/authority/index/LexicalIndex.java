package dev.jiyi.authority.index;

import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;

import java.util.Collection;
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
 *
 * <p>Scores are <em>coverage</em>, comparable across queries and lists (R11): a row's BM25 divided by
 * the query's ideal ({@code QueryCoverage.ideal} in analysis), the BM25 a row of average length would
 * earn holding each of the query's {@code QueryCoverage.IDEAL_TERMS} most informative terms once. A row that holds the query's
 * informative words scores about 1 whatever the query; one that shares a single common character
 * with a long query scores near 0, however much better than the rest it is. Scores may exceed 1
 * (short rows, repeated terms).
 *
 * <p>BM25's statistics are the scope's own (R11): IDF counts the rows of the scope searched, not of
 * the whole archive, so a scope ranks as it would in a home of its own, whatever other personas and
 * projects share the file (a word one persona uses everywhere is common there, however rare in the
 * file). Only the average row length is the archive's. The contract test holds every
 * implementation to it.
 */
public interface LexicalIndex {

    /**
     * R6, R11: the statistics of how much evidence the query has here at all, and the answer to R6's
     * question, whether some row holds the minimum evidence ({@link Coverage#reaches}): the
     * query's {@code QueryCoverage.words} (its terms without the CJK characters of a longer query
     * word) and the most of the query's words one row holds, over the memories {@code filter} admits
     * and the events of its scope. A row holds the share of the ideal that its words make up: each word it holds counts its weight in the
     * ideal once ({@code QueryCoverage.evidenceWeight}: its IDF over the scope times how specific it
     * is in the language), however often it occurs and however short the row, since the question is
     * whether the archive holds what the query asks about, not how well one row matches.
     * {@link Coverage#held} and {@link Coverage#reaches} are asked for from the same snapshot, while it is open.
     */
    Coverage coverage(Snapshot snapshot, String query, Eligibility filter);

    /** What {@link #coverage} reports; see there. */
    interface Coverage {

        /** No searchable word at all: no evidence. */
        Coverage NONE = of(0, () -> 0);

        /** The statistics of a query of {@code words} words, {@link #reaches} measuring the best row. */
        static Coverage of(int words, java.util.function.DoubleSupplier held) {
            return of(words, held, share -> held.getAsDouble() >= share);
        }

        /**
         * The statistics of a query of {@code words} words, with an index's own {@link #reaches}, which
         * must answer exactly as {@code held.getAsDouble() >= share} would.
         */
        static Coverage of(int words, java.util.function.DoubleSupplier held,
                           java.util.function.DoublePredicate reaches) {
            return new Coverage() {
                @Override
                public int words() {
                    return words;
                }

                @Override
                public double held() {
                    return held.getAsDouble();
                }

                @Override
                public boolean reaches(double share) {
                    return reaches.test(share);
                }
            };
        }

        /** How many words the query has. */
        int words();

        /** The most of the query one eligible row holds. */
        double held();

        /**
         * Whether some eligible row holds at least {@code share} of the query: {@code held() >= share},
         * which is all R6's minimum evidence asks. An index may answer it without finding the best row:
         * skip the rows that cannot reach {@code share} and stop at the first that does.
         */
        boolean reaches(double share);
    }

    /** A short name for reports and {@code --index}: {@code fts5}, {@code lucene}. */
    String name();

    /** The work this index's searches did since it was opened (B1: hits visited and collected). */
    SearchCounts searchCounts();

    /**
     * At most {@code limit} memories that {@code filter} admits (its scope, not revoked, valid at its
     * time unless it includes history) matching {@code query}, best first; equal scores newest row first.
     */
    List<Candidate> memories(Snapshot snapshot, String query, Eligibility filter, int limit);

    /**
     * R9: those of {@code rows}, memories of {@code scope}, that match {@code query}, each with the
     * score {@link #memories} gives it at any time, at most {@code limit}, best first; equal scores
     * newest row first. Revoked rows and rows of other scopes are left out. Recall asks it for the
     * scope's facts that are not valid at the query time (as many as its timelines hold, not as many
     * as its memories), so that an earlier fact that matches leads to its timeline's current one even
     * when thousands of current memories match better. An index answers it from the rows given,
     * reading what those rows hold rather than every match.
     */
    List<Candidate> memoriesAmong(Snapshot snapshot, String query, Scope scope, Collection<Long> rows, int limit);

    /**
     * At most {@code limit} raw events of {@code scope} matching {@code query}, best first; equal
     * scores newest first. Events are evidence for their memories and neighbouring turns too, so
     * they are filtered by scope only; recall decides which may be shown as raw results (R7, C3).
     */
    List<Candidate> events(Snapshot snapshot, String query, Scope scope, int limit);
}
