package dev.jiyi.lucene;

import dev.jiyi.authority.Scope;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermStatistics;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A searcher whose BM25 counts one scope's statistics for one text field (R11): the scope's
 * documents of the field's type, and for each term the scope's documents holding it. Lucene counts
 * them over the whole index, so in an archive of many personas a word that one persona uses all the
 * time (its own name, its cat's) is rare in the index and outweighs the words that tell that
 * persona's documents apart; here a scope ranks as it would in an index of its own, except that
 * document lengths are compared with the field's average over the index (Lucene keeps no per-scope
 * length totals). FTS5 does the same ({@code ScopedBm25}); the contract test holds both to it.
 *
 * <p>A term's documents in the scope are counted when the search or the query's ideal first asks
 * for them, segment by segment, and kept for each segment's life ({@link ScopeCounts}); a searcher
 * serves one point-in-time view, so {@link LuceneSearcher} keeps one per view, field and scope.
 */
final class ScopedSearcher extends IndexSearcher {

    private final String field;
    private final Term scope;
    private final long documents;
    private final ViewTerms terms;
    private final ScopeCounts counts;
    private final Map<Term, Long> holding = new HashMap<>();

    private ScopedSearcher(ViewTerms terms, String field, Term scope, long documents, ScopeCounts counts) {
        super(terms.reader());
        this.field = field;
        this.scope = scope;
        this.documents = documents;
        this.terms = terms;
        this.counts = counts;
    }

    /**
     * A searcher over {@code base}'s reader with the scope's statistics for {@code field}, or
     * {@code base} itself when every document of the field is the scope's (its statistics are the
     * scope's already) or none has the field.
     */
    static IndexSearcher of(IndexSearcher base, ViewTerms terms, String field, Scope scope, ScopeCounts counts)
            throws IOException {
        if (base.collectionStatistics(field) == null) {
            return base;
        }
        long documents = Documents.scopeDocuments(terms.reader(), field, scope);
        String type = field.equals(Documents.EVENT_TEXT) ? Documents.EVENT : Documents.MEMORY;
        if (documents >= terms.docFreq(new Term(Documents.TYPE, type))) {
            return base;
        }
        ScopedSearcher s = new ScopedSearcher(terms, field, new Term(Documents.SCOPE, Documents.scope(scope)),
                documents, counts);
        s.setSimilarity(base.getSimilarity());
        return s;
    }

    /**
     * The documents holding {@code term} that the query's statistics count: in the scope for this
     * searcher's field, else the index's.
     */
    static long holding(IndexSearcher searcher, ViewTerms terms, Term term) throws IOException {
        if (searcher instanceof ScopedSearcher s && term.field().equals(s.field)) {
            return s.inScope(term);
        }
        return terms.docFreq(term);
    }

    /**
     * The scope's documents holding {@code term}, deleted documents not yet merged away included, as
     * Lucene's own document frequencies and the scope's document count include them ({@link ScopeCounts}).
     */
    private long inScope(Term term) throws IOException {
        Long cached = holding.get(term);
        if (cached != null) {
            return cached;
        }
        long n = counts.holding(terms, term, scope);
        holding.put(term, n);
        return n;
    }

    /**
     * The field's statistics over the scope: its documents, and length totals scaled to them from
     * the index's (so the average length is the index's).
     */
    @Override
    public CollectionStatistics collectionStatistics(String f) throws IOException {
        CollectionStatistics all = super.collectionStatistics(f);
        if (all == null || !f.equals(field)) {
            return all;
        }
        long docs = Math.max(1, documents);
        double share = (double) docs / all.docCount();
        long sumDocFreq = Math.max(docs, Math.round(all.sumDocFreq() * share));
        long sumTotalTermFreq = Math.max(sumDocFreq, Math.round(all.sumTotalTermFreq() * share));
        return new CollectionStatistics(f, all.maxDoc(), Math.min(docs, all.maxDoc()), sumTotalTermFreq, sumDocFreq);
    }

    /** A term of the field: its documents in the scope (at least 1: Lucene asks only for terms some document holds). */
    @Override
    public TermStatistics termStatistics(Term term, int docFreq, long totalTermFreq) throws IOException {
        if (!term.field().equals(field)) {
            return super.termStatistics(term, docFreq, totalTermFreq);
        }
        long n = Math.max(1, inScope(term));
        return new TermStatistics(term.bytes(), n, n);
    }
}
