package dev.jiyi.lucene;

import dev.jiyi.authority.index.Eligibility;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.ConstantScoreWeight;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BitSet;
import org.apache.lucene.util.BitSetIterator;
import org.apache.lucene.util.FixedBitSet;
import org.apache.lucene.util.SparseFixedBitSet;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/**
 * The memories a current recall may return ({@link Documents#eligible}: the scope's live pool,
 * {@code valid_at <= at < invalid_at}) as one bit set per segment, kept while the query time stays
 * between the same two validity boundaries of that segment's memories.
 *
 * <p>Checked document by document on the doc values, the two times cost a random read each for
 * every document the query's terms propose (a fifth of a whole recall at 1,000,000 turns); on the
 * points, nearly every memory matches, so a range would collect the whole segment before each
 * search. But which of a segment's memories are valid changes only when the query time crosses one
 * of their {@code valid_at} or {@code invalid_at}: a segment is immutable, and a memory that changes
 * is written anew in another. So the set is computed once for a time, together with the interval of
 * times around it that no boundary splits, and every later search at a time inside that interval (the
 * real clock moving on) reads the bit set. A time past the interval computes it anew; a time before
 * every kept set (a recall {@code --as-of} an earlier date) is checked on the doc values as before, so
 * that recalls of many past times never recompute whole segments. Two sets are kept per segment and
 * pool, the most recently used, so that a recall as of a later date keeps its own beside the one
 * current recalls read.
 *
 * <p>Sets are kept per segment core (deletions do not change them; the searcher applies them) and go
 * with the segment; a pool with few memories in a large segment keeps a sparse set, and a segment
 * without the pool's memories keeps none. Thread-safe; a set is computed outside the lock.
 */
final class EligibleSets {

    /**
     * One pool's eligible memories in one segment (null when there are none), for query times from
     * {@code from} to {@code until} (exclusive; with no boundary above, {@code open}: every later time).
     */
    private record Entry(BitSet docs, int count, long from, long until, boolean open) {

        boolean covers(long at) {
            return at >= from && (open || at < until);
        }
    }

    /** Sets kept per segment and pool: the one current recalls read, and one an as-of recall of a later time made. */
    private static final int KEPT = 2;

    /**
     * By segment core key, then by pool, the kept sets, most recently used first; the core keys are
     * weak, so a merged-away segment's sets go with it.
     */
    private final Map<Object, Map<String, Entry[]>> entries = new WeakHashMap<>();
    private long computed;
    private long checked;

    /** {@link Documents#eligible}, with the validity of a current recall read from the kept sets (with history: the pool alone, as before). */
    Query query(Eligibility filter) {
        if (filter.includeHistory()) {
            return Documents.eligible(filter);
        }
        return new Eligible(this, Documents.livePool(filter.scope(), true), Eligibility.micros(filter.at()), filter);
    }

    /** How many segment sets have been computed (a test's window on the cache). */
    synchronized long computed() {
        return computed;
    }

    /** How many times a segment was checked on the doc values instead (a test's window on the cache). */
    synchronized long checked() {
        return checked;
    }

    /**
     * The kept set covering {@code at}; computed anew when none does and {@code at} is not before
     * every kept one (time moved on, or an as-of recall of a later date, which then keeps its own set
     * beside the current one); null for an earlier time, which is checked on the doc values. A set
     * is computed outside the lock, so a recall of another scope never waits for it.
     */
    private Entry entry(LeafReader reader, String pool, long at) throws IOException {
        IndexReader.CacheHelper helper = reader.getCoreCacheHelper();
        if (helper == null) {
            return compute(reader, pool, at);
        }
        Object core = helper.getKey();
        synchronized (this) {
            Entry[] kept = entries.computeIfAbsent(core, k -> new HashMap<>()).get(pool);
            if (kept != null) {
                for (int i = 0; i < kept.length; i++) {
                    Entry e = kept[i];
                    if (e != null && e.covers(at)) {
                        System.arraycopy(kept, 0, kept, 1, i);
                        kept[0] = e;
                        return e;
                    }
                }
                boolean earlier = true;
                for (Entry e : kept) {
                    earlier &= e == null || at < e.from();
                }
                if (earlier) {
                    checked++;
                    return null; // before every kept set: checked on the doc values, the kept sets stay
                }
            }
        }
        Entry e = compute(reader, pool, at);
        synchronized (this) {
            computed++;
            Entry[] kept = entries.computeIfAbsent(core, k -> new HashMap<>()).computeIfAbsent(pool, p -> new Entry[KEPT]);
            System.arraycopy(kept, 0, kept, 1, KEPT - 1);
            kept[0] = e;
        }
        return e;
    }

    /**
     * The pool's memories valid at {@code at} (the rule of {@link Documents#eligible}: a memory
     * without {@code valid_at} never is, and {@code invalid_at} {@code Long.MAX_VALUE} is open), and
     * the nearest boundaries of any of them on either side of {@code at}.
     */
    private static Entry compute(LeafReader reader, String pool, long at) throws IOException {
        long from = Long.MIN_VALUE;
        long until = Long.MAX_VALUE;
        boolean open = true;
        Term term = new Term(Documents.POOL, pool);
        PostingsEnum postings = reader.postings(term, PostingsEnum.NONE);
        if (postings == null) {
            return new Entry(null, 0, from, until, true); // no memory of the pool here, at any time
        }
        // A pool with few memories in a large segment (one scope of many) keeps a sparse set.
        int size = Math.max(1, reader.maxDoc());
        BitSet docs = reader.docFreq(term) < size >> 6 ? new SparseFixedBitSet(size) : new FixedBitSet(size);
        int count = 0;
        SortedNumericDocValues validAt = DocValues.getSortedNumeric(reader, Documents.VALID_AT);
        SortedNumericDocValues invalidAt = DocValues.getSortedNumeric(reader, Documents.INVALID_AT);
        for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = postings.nextDoc()) {
            if (!validAt.advanceExact(doc) || !invalidAt.advanceExact(doc)) {
                continue;
            }
            long valid = validAt.nextValue();
            long invalid = invalidAt.nextValue();
            if (valid <= at) {
                from = Math.max(from, valid);
            } else {
                until = Math.min(until, valid);
                open = false;
            }
            if (invalid != Long.MAX_VALUE) {
                if (invalid <= at) {
                    from = Math.max(from, invalid);
                } else {
                    until = Math.min(until, invalid);
                    open = false;
                }
            }
            if (valid <= at && (invalid > at || invalid == Long.MAX_VALUE)) {
                docs.set(doc);
                count++;
            }
        }
        return count == 0 ? new Entry(null, 0, from, until, open) : new Entry(docs, count, from, until, open);
    }

    /** The filter: a segment's kept set where it covers the time, else the doc-values check of {@link Documents#eligible}. */
    private static final class Eligible extends Query {

        private final EligibleSets sets;
        private final String pool;
        private final long at;
        private final Eligibility filter;

        Eligible(EligibleSets sets, String pool, long at, Eligibility filter) {
            this.sets = sets;
            this.pool = pool;
            this.at = at;
            this.filter = filter;
        }

        @Override
        public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
            return new ConstantScoreWeight(this, boost) {

                private volatile Weight checked;

                /** The doc-values check's weight, made when a segment first needs it (leaves may be searched in parallel). */
                private Weight checked() throws IOException {
                    Weight w = checked;
                    if (w == null) {
                        synchronized (this) {
                            w = checked;
                            if (w == null) {
                                w = searcher.createWeight(searcher.rewrite(Documents.eligible(filter)), scoreMode, boost);
                                checked = w;
                            }
                        }
                    }
                    return w;
                }

                @Override
                public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
                    Entry e = sets.entry(context.reader(), pool, at);
                    if (e == null) {
                        return checked().scorerSupplier(context);
                    }
                    if (e.count() == 0) {
                        return null;
                    }
                    return new DefaultScorerSupplier(new ConstantScoreScorer(score(), scoreMode,
                            new BitSetIterator(e.docs(), e.count())));
                }

                @Override
                public boolean isCacheable(LeafReaderContext context) {
                    return false; // kept by EligibleSets, per segment and interval of time
                }
            };
        }

        @Override
        public void visit(QueryVisitor visitor) {
            visitor.visitLeaf(this);
        }

        @Override
        public String toString(String field) {
            return "eligible(" + pool.replace('\u0000', '/') + " at " + at + ")";
        }

        @Override
        public boolean equals(Object o) {
            return sameClassAs(o) && ((Eligible) o).sets == sets && ((Eligible) o).pool.equals(pool)
                    && ((Eligible) o).at == at;
        }

        @Override
        public int hashCode() {
            return Objects.hash(classHash(), System.identityHashCode(sets), pool, at);
        }
    }
}
