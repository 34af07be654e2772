package dev.jiyi.lucene;

import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TermStates;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The terms one point-in-time view has been asked for, each looked up once in every segment: a
 * recall asks for the same terms in up to seven searches and counts (which terms to search, the
 * scope's document frequencies, the query's ideal, the searches themselves), and without this each
 * of them seeks every term in every segment's terms dictionary again. A term's {@link TermStates}
 * holds where its postings start in each segment that has it, so a later search or count reads the
 * postings without a seek and skips the segments without the term at no cost.
 */
final class ViewTerms {

    /** Terms kept before the view's cache starts over (a bound on memory for a view that lives long). */
    private static final int MAX_TERMS = 10_000;

    private final IndexSearcher searcher;
    private final Map<Term, TermStates> states = new HashMap<>();

    ViewTerms(IndexSearcher searcher) {
        this.searcher = searcher;
    }

    IndexReader reader() {
        return searcher.getIndexReader();
    }

    /** The term's state in each segment of the view (with its document frequency over the view). */
    TermStates states(Term term) throws IOException {
        TermStates s = states.get(term);
        if (s == null) {
            if (states.size() >= MAX_TERMS) {
                states.clear();
            }
            s = TermStates.build(searcher, term, true);
            states.put(term, s);
        }
        return s;
    }

    /** The view's documents holding {@code term}, deleted ones not yet merged away included ({@link IndexReader#docFreq}). */
    int docFreq(Term term) throws IOException {
        return states(term).docFreq();
    }

    /** A query for the term that reads its postings where this view found them. */
    TermQuery query(Term term) throws IOException {
        return new TermQuery(term, states(term));
    }
}
