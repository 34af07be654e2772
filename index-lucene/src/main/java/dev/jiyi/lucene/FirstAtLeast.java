package dev.jiyi.lucene;

import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.CollectionTerminatedException;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;

import java.io.IOException;
import java.util.Collection;

/**
 * A search that asks only whether some document scores at least {@code floor}: from the first
 * document on, it tells the scorers that lower scores do not compete (so a top-scores search skips
 * every document whose best possible score is below the floor, and a clause too weak to lift one
 * over it is only checked, never iterated), and it stops the search at the first document that
 * reaches the floor. The answer is the best score offered: at least {@code floor} if and only if
 * some document reaches it, since no document that could reach it is skipped. A searcher that
 * searches slices of segments apart gives each its own collector, which stops on its own.
 */
final class FirstAtLeast implements CollectorManager<FirstAtLeast.Reach, Float> {

    private final double floor;
    /** The floor as the largest float not above it: the scorers' scores are floats. */
    private final float competitive;

    FirstAtLeast(double floor) {
        this.floor = floor;
        float f = (float) floor;
        this.competitive = (double) f > floor ? Math.nextDown(f) : f;
    }

    @Override
    public Reach newCollector() {
        return new Reach();
    }

    @Override
    public Float reduce(Collection<Reach> collectors) {
        float best = Float.NEGATIVE_INFINITY;
        for (Reach r : collectors) {
            best = Math.max(best, r.best);
        }
        return best;
    }

    /** The collector: the best score offered, until one reaches the floor. */
    final class Reach implements Collector {

        private float best = Float.NEGATIVE_INFINITY;
        private boolean reached;

        @Override
        public LeafCollector getLeafCollector(LeafReaderContext context) {
            if (reached) {
                throw new CollectionTerminatedException();
            }
            return new LeafCollector() {
                private Scorable scorer;

                @Override
                public void setScorer(Scorable scorer) throws IOException {
                    this.scorer = scorer;
                    if (competitive > 0) {
                        scorer.setMinCompetitiveScore(competitive);
                    }
                }

                @Override
                public void collect(int doc) throws IOException {
                    float score = scorer.score();
                    best = Math.max(best, score);
                    if ((double) score >= floor) {
                        reached = true;
                        throw new CollectionTerminatedException();
                    }
                }
            };
        }

        @Override
        public ScoreMode scoreMode() {
            return ScoreMode.TOP_SCORES;
        }
    }
}
