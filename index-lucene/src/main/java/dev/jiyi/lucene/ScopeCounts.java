package dev.jiyi.lucene;

import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TermState;
import org.apache.lucene.index.TermStates;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.IOSupplier;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many of a scope's documents hold a term, counted once per segment and kept for the segment's
 * life: a segment never changes (a deletion marks a document, and the counts include deleted
 * documents, as Lucene's own document frequencies do), so a count stays true until the segment is
 * merged away, when its cache entry goes with it. A search then pays for intersecting a term's
 * postings with the scope's only in the segments written since the term was last asked for: a
 * background ingest's small new segments, not the archive.
 */
final class ScopeCounts {

    /** Counts kept per segment before its cache starts over (a bound on memory, not a tuning knob). */
    private static final int MAX_PER_SEGMENT = 100_000;

    private final Map<IndexReader.CacheKey, Map<String, Long>> bySegment = new ConcurrentHashMap<>();

    /**
     * The documents of the view holding both {@code term} and {@code scope}, deleted ones included;
     * only the segments that hold the term are visited ({@link ViewTerms}).
     */
    long holding(ViewTerms terms, Term term, Term scope) throws IOException {
        TermStates held = terms.states(term);
        if (held.docFreq() == 0) {
            return 0;
        }
        TermStates inScope = terms.states(scope);
        String key = scope.text() + '\u0001' + term.field() + '\u0001' + term.text();
        long n = 0;
        for (LeafReaderContext leaf : terms.reader().leaves()) {
            IOSupplier<TermState> a = held.get(leaf);
            if (a != null) {
                n += inSegment(leaf, key, term, a, scope, inScope.get(leaf));
            }
        }
        return n;
    }

    private long inSegment(LeafReaderContext leaf, String key, Term term, IOSupplier<TermState> a, Term scope,
                           IOSupplier<TermState> b) throws IOException {
        if (b == null) {
            return 0;
        }
        IndexReader.CacheHelper helper = leaf.reader().getCoreCacheHelper();
        if (helper == null) {
            return count(leaf.reader(), term, a.get(), scope, b.get());
        }
        Map<String, Long> counts = bySegment.computeIfAbsent(helper.getKey(), k -> {
            helper.addClosedListener(bySegment::remove);
            return new ConcurrentHashMap<>();
        });
        Long cached = counts.get(key);
        if (cached != null) {
            return cached;
        }
        long n = count(leaf.reader(), term, a.get(), scope, b.get());
        if (counts.size() >= MAX_PER_SEGMENT) {
            counts.clear();
        }
        counts.put(key, n);
        return n;
    }

    /** The two postings lists intersected, each read from where the view found it. */
    private static long count(LeafReader leaf, Term term, TermState termState, Term scope, TermState scopeState)
            throws IOException {
        if (termState == null || scopeState == null) {
            return 0;
        }
        PostingsEnum a = postings(leaf, term, termState);
        PostingsEnum b = postings(leaf, scope, scopeState);
        long n = 0;
        int x = a.nextDoc();
        int y = b.nextDoc();
        while (x != DocIdSetIterator.NO_MORE_DOCS && y != DocIdSetIterator.NO_MORE_DOCS) {
            if (x == y) {
                n++;
                x = a.nextDoc();
                y = b.nextDoc();
            } else if (x < y) {
                x = a.advance(y);
            } else {
                y = b.advance(x);
            }
        }
        return n;
    }

    private static PostingsEnum postings(LeafReader leaf, Term term, TermState state) throws IOException {
        TermsEnum terms = leaf.terms(term.field()).iterator();
        terms.seekExact(term.bytes(), state);
        return terms.postings(null, PostingsEnum.NONE);
    }
}
