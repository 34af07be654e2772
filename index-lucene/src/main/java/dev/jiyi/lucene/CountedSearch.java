package dev.jiyi.lucene;

import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Weight;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A search's collector manager that counts the documents its scorers offer the collector: the hits
 * the search visited after skipping those that could not reach the top
 * ({@link dev.jiyi.authority.index.SearchCounts}). Everything else is the wrapped manager's: its
 * score mode, its competitive iterator and the scores it sets the minimum of, so the search skips
 * exactly as it would without the count.
 */
final class CountedSearch<C extends Collector, T> implements CollectorManager<CountedSearch.Counting<C>, T> {

    private final CollectorManager<C, T> in;
    private long visited;

    CountedSearch(CollectorManager<C, T> in) {
        this.in = in;
    }

    /** The documents offered to the collectors this manager reduced. */
    long visited() {
        return visited;
    }

    @Override
    public Counting<C> newCollector() throws IOException {
        return new Counting<>(in.newCollector());
    }

    @Override
    public T reduce(Collection<Counting<C>> collectors) throws IOException {
        List<C> inner = new ArrayList<>(collectors.size());
        for (Counting<C> c : collectors) {
            inner.add(c.in);
            visited += c.count;
        }
        return in.reduce(inner);
    }

    /** The wrapped collector and the documents offered to it. */
    static final class Counting<C extends Collector> implements Collector {

        private final C in;
        private long count;

        Counting(C in) {
            this.in = in;
        }

        @Override
        public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
            LeafCollector leaf = in.getLeafCollector(context);
            return new LeafCollector() {
                @Override
                public void setScorer(Scorable scorer) throws IOException {
                    leaf.setScorer(scorer);
                }

                @Override
                public void collect(int doc) throws IOException {
                    count++;
                    leaf.collect(doc);
                }

                @Override
                public DocIdSetIterator competitiveIterator() throws IOException {
                    return leaf.competitiveIterator();
                }

                @Override
                public void finish() throws IOException {
                    leaf.finish();
                }
            };
        }

        @Override
        public ScoreMode scoreMode() {
            return in.scoreMode();
        }

        @Override
        public void setWeight(Weight weight) {
            in.setWeight(weight);
        }
    }
}
