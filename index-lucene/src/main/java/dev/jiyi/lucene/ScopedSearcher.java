package dev.jiyi.lucene;

import dev.jiyi.authority.Scope;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;

import java.io.IOException;

/**
 * A searcher whose BM25 counts one scope's statistics for one text field (R11): the scope's
 * documents of the field's type as the collection, and for each term the scope's documents holding
 * it. In an archive of many personas a word that one persona uses all the time (its own name, its
 * cat's) is rare in the index and would outweigh the words that tell that persona's documents
 * apart; here a scope ranks as it would in an index of its own, except that document lengths are
 * compared with the field's average over the index (Lucene keeps no per-scope length totals). FTS5
 * does the same ({@code ScopedBm25}); the contract test holds both to it.
 *
 * <p>The terms' statistics need nothing of this class: a text term is the scope's own
 * ({@link Documents#text}), so its document frequency is the scope's. What it overrides is the
 * collection, which Lucene counts over every scope. A searcher serves one point-in-time view, so
 * {@link LuceneSearcher} keeps one per view, field and scope.
 */
final class ScopedSearcher extends IndexSearcher {

    private final String field;
    private final long documents;

    private ScopedSearcher(ViewTerms terms, String field, long documents) {
        super(terms.reader());
        this.field = field;
        this.documents = documents;
    }

    /**
     * A searcher over {@code base}'s reader with the scope's statistics for {@code field}, or
     * {@code base} itself when every document of the field is the scope's (its statistics are the
     * scope's already) or none has the field.
     */
    static IndexSearcher of(IndexSearcher base, ViewTerms terms, String field, Scope scope) throws IOException {
        if (base.collectionStatistics(field) == null) {
            return base;
        }
        long documents = Documents.scopeDocuments(terms.reader(), field, scope);
        String type = field.equals(Documents.EVENT_TEXT) ? Documents.EVENT : Documents.MEMORY;
        if (documents >= terms.docFreq(new Term(Documents.TYPE, type))) {
            return base;
        }
        ScopedSearcher s = new ScopedSearcher(terms, field, documents);
        s.setSimilarity(base.getSimilarity());
        return s;
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
}
