package dev.jiyi.lucene;

import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.CollectionTerminatedException;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.FilterCollector;
import org.apache.lucene.search.FilterLeafCollector;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.MultiCollector;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TopFieldCollector;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.Weight;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Two top windows filled by one search: the first takes only the hits {@code admitted} matches, the
 * second every hit. Each window raises the score it needs as it fills, and the search skips only
 * what neither needs ({@link MultiCollector} passes the lower of the two on), so each window ends
 * holding what a search of its own would. The result is both windows' hits, the first's first.
 */
final class TwoWindows implements CollectorManager<Collector, TopFieldDocs[]> {

    private final TopFieldCollectorManager first;
    private final TopFieldCollectorManager second;
    private final Weight admitted;
    private final List<TopFieldCollector> firsts = new ArrayList<>();
    private final List<TopFieldCollector> seconds = new ArrayList<>();

    TwoWindows(TopFieldCollectorManager first, TopFieldCollectorManager second, Weight admitted) {
        this.first = first;
        this.second = second;
        this.admitted = admitted;
    }

    @Override
    public Collector newCollector() throws IOException {
        TopFieldCollector a = first.newCollector();
        TopFieldCollector b = second.newCollector();
        firsts.add(a);
        seconds.add(b);
        return MultiCollector.wrap(admittedOnly(a), b);
    }

    @Override
    public TopFieldDocs[] reduce(Collection<Collector> collectors) throws IOException {
        return new TopFieldDocs[] {first.reduce(firsts), second.reduce(seconds)};
    }

    /** {@code in}, offered only the hits {@link #admitted} matches in each segment. */
    private Collector admittedOnly(Collector in) {
        return new FilterCollector(in) {
            @Override
            public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
                Scorer admits = admitted.scorer(context);
                if (admits == null) {
                    throw new CollectionTerminatedException(); // nothing of this segment is admitted
                }
                LeafCollector leaf = super.getLeafCollector(context);
                return new FilterLeafCollector(leaf) {
                    private DocIdSetIterator docs = admits.iterator();
                    private int last = -1;

                    @Override
                    public void collect(int doc) throws IOException {
                        if (doc <= last) {
                            // A scorer offers a segment's hits in order; should one not, read the set anew.
                            docs = admitted.scorer(context).iterator();
                        }
                        last = doc;
                        int next = docs.docID();
                        if (next < doc) {
                            next = docs.advance(doc);
                        }
                        if (next == doc) {
                            super.collect(doc);
                        }
                    }

                    @Override
                    public DocIdSetIterator competitiveIterator() {
                        return null; // the hits it skips are the other window's to see
                    }
                };
            }
        };
    }
}
