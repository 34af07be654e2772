package dev.jiyi.authority.index;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * How much work a lexical index's searches did since it was opened (B1), by what they searched for:
 * the searches, the hits they visited (the rows or documents a search read and scored: for FTS5
 * every row of the scope holding a searched term, since it ranks them all; for Lucene the
 * documents its scorers offered the collector after skipping those that could not reach the top)
 * and the hits they collected (the candidates they returned). Visited hits are what a search costs
 * as an archive grows; collected ones are what recall goes on to read. Counted whatever the caller,
 * so that a benchmark can report them per recall beside its latency.
 */
public final class SearchCounts {

    /** What a search looked for. */
    public enum Search {
        /** Memory candidates ({@link LexicalIndex#memories}). */
        MEMORIES,
        /** Event candidates ({@link LexicalIndex#events}). */
        EVENTS,
        /** The best row's share of the query ({@link LexicalIndex#coverage}). */
        EVIDENCE
    }

    /** The counts at one moment; {@link #minus} gives the work between two. */
    public record Totals(long searches, long visited, long collected) {

        public static final Totals NONE = new Totals(0, 0, 0);

        public Totals minus(Totals earlier) {
            return new Totals(searches - earlier.searches, visited - earlier.visited, collected - earlier.collected);
        }

        Totals plus(Totals other) {
            return new Totals(searches + other.searches, visited + other.visited, collected + other.collected);
        }
    }

    private final Map<Search, LongAdder[]> counts = new EnumMap<>(Search.class);

    public SearchCounts() {
        for (Search s : Search.values()) {
            counts.put(s, new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder()});
        }
    }

    /** Counts one search for {@code search} that visited and collected this many hits. */
    public void add(Search search, long visitedHits, long collectedHits) {
        LongAdder[] c = counts.get(search);
        c[0].increment();
        c[1].add(visitedHits);
        c[2].add(collectedHits);
    }

    /** The counts of the searches for {@code search}. */
    public Totals totals(Search search) {
        LongAdder[] c = counts.get(search);
        return new Totals(c[0].sum(), c[1].sum(), c[2].sum());
    }

    /** The counts of every search. */
    public Totals totals() {
        Totals all = Totals.NONE;
        for (Search s : Search.values()) {
            all = all.plus(totals(s));
        }
        return all;
    }
}
