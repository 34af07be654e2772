package dev.jiyi.lucene;

import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.DocIdSetIterator;

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

    /** The documents of {@code reader} holding both {@code term} and {@code scope}, deleted ones included. */
    long holding(IndexReader reader, Term term, Term scope) throws IOException {
        long n = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            n += inSegment(leaf.reader(), term, scope);
        }
        return n;
    }

    private long inSegment(LeafReader leaf, Term term, Term scope) throws IOException {
        IndexReader.CacheHelper helper = leaf.getCoreCacheHelper();
        if (helper == null) {
            return count(leaf, term, scope);
        }
        Map<String, Long> counts = bySegment.computeIfAbsent(helper.getKey(), key -> {
            helper.addClosedListener(bySegment::remove);
            return new ConcurrentHashMap<>();
        });
        String key = scope.text() + '\u0001' + term.field() + '\u0001' + term.text();
        Long cached = counts.get(key);
        if (cached != null) {
            return cached;
        }
        long n = count(leaf, term, scope);
        if (counts.size() >= MAX_PER_SEGMENT) {
            counts.clear();
        }
        counts.put(key, n);
        return n;
    }

    /** The two postings lists intersected. */
    private static long count(LeafReader leaf, Term term, Term scope) throws IOException {
        PostingsEnum a = leaf.postings(term, PostingsEnum.NONE);
        PostingsEnum b = a == null ? null : leaf.postings(scope, PostingsEnum.NONE);
        if (b == null) {
            return 0;
        }
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
}
