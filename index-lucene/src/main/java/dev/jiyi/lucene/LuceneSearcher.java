package dev.jiyi.lucene;

import dev.jiyi.analysis.QueryCoverage;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.SearchCounts;

import org.apache.lucene.document.LongField;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * BM25 search over the current index (the follower has caught up before each call).
 * Scores are coverage (R11, {@link LexicalIndex}): BM25 divided by the query's ideal, read from the
 * same point-in-time view as the search, with the statistics of the scope searched
 * ({@link ScopedSearcher}). Used under the lock of its {@link LuceneIndex}.
 */
final class LuceneSearcher {

    /** Best score first; equal scores the newer row: the order of {@link Candidate#BEST_FIRST}. */
    private static final Sort BEST_FIRST = new Sort(SortField.FIELD_SCORE,
            LongField.newSortField(Documents.ROW, true, SortedNumericSelector.Type.MIN));
    /** Lucene's BM25 term saturation ({@code IndexSearcher}'s default similarity, b 0.75). */
    private static final double K1 = 1.2;

    private final Handles h;
    /** The work of this index's lexical searches ({@link LexicalIndex#searchCounts}). */
    final SearchCounts counts = new SearchCounts();
    /** The scoped searchers of the view last searched, by field and scope: the view's term statistics, counted once. */
    private final Map<String, IndexSearcher> scoped = new HashMap<>();
    private IndexReader scopedView;
    /** The terms the view last searched has been asked for, each looked up once. */
    private ViewTerms terms;

    LuceneSearcher(Handles handles) {
        this.h = handles;
    }

    /** The terms of {@code acquired}'s view; what was kept for an earlier view is let go. */
    private ViewTerms view(IndexSearcher acquired) {
        if (acquired.getIndexReader() != scopedView) {
            scoped.clear();
            scopedView = acquired.getIndexReader();
            terms = new ViewTerms(acquired);
        }
        return terms;
    }

    /** The searcher with {@code scope}'s statistics for {@code field} over {@code acquired}'s view, kept while the view is. */
    private IndexSearcher scoped(IndexSearcher acquired, String field, Scope scope) throws IOException {
        ViewTerms t = view(acquired);
        String key = field + '\u0001' + Documents.scope(scope);
        IndexSearcher s = scoped.get(key);
        if (s == null) {
            s = ScopedSearcher.of(acquired, t, field, scope);
            scoped.put(key, s);
        }
        return s;
    }

    /** The query's terms as the index analyzes them, each a list of pieces (several: a phrase). */
    List<List<String>> phrases(String query) {
        return h.options.analysis().queryPhrases(query, h.analyzer);
    }

    /**
     * The eligible memories. With history (R9's timelines, {@code --include-history}) that is every
     * memory of the scope but the revoked ones (R8), which the search leaves out as the exception
     * they are: the scope's text terms are held by its own memories only, so the scope's pool as a
     * filter would be read beside the terms for nothing. The same documents come back; the search
     * took 8 to 18 % less time on the realistic archive of 1,000,000 turns (docs/benchmarks.md).
     */
    List<Candidate> memories(List<List<String>> phrases, Eligibility filter, int limit) {
        if (filter.includeHistory()) {
            return ranked(SearchCounts.Search.MEMORIES, Documents.MEMORY_TEXT, null, Documents.revoked(filter.scope()),
                    filter.scope(), phrases, limit);
        }
        return ranked(SearchCounts.Search.MEMORIES, Documents.MEMORY_TEXT, h.eligible.query(filter), null,
                filter.scope(), phrases, limit);
    }

    /**
     * R9: those of {@code rows} that match, each scored as {@link #memories} scores it at any time:
     * the same search (the scope's memories but the revoked ones), filtered to the rows (a set query
     * on the row points: one walk of each segment's tree, where a set of key terms costs a seek per
     * row and segment).
     */
    List<Candidate> memoriesAmong(List<List<String>> phrases, Scope scope, Collection<Long> rows, int limit) {
        long[] wanted = rows.stream().mapToLong(Long::longValue).toArray();
        return ranked(SearchCounts.Search.MEMORIES, Documents.MEMORY_TEXT, LongField.newSetQuery(Documents.ROW, wanted),
                Documents.revoked(scope), scope, phrases, limit);
    }

    /** {@code query} but what {@code excluded} matches: outside the disjunction, which still skips by its terms' scores. */
    private static Query excluding(Query query, Query excluded) {
        return new BooleanQuery.Builder().add(query, BooleanClause.Occur.MUST)
                .add(excluded, BooleanClause.Occur.MUST_NOT).build();
    }

    /** The scope's events: no filter, since only events have the field and only the scope's hold its terms. */
    List<Candidate> events(List<List<String>> phrases, Scope scope, int limit) {
        return ranked(SearchCounts.Search.EVENTS, Documents.EVENT_TEXT, null, null, scope, phrases, limit);
    }

    /**
     * The phrases a search of {@code field} in {@code scope} asks for ({@link QueryCoverage#searched},
     * the rule both indexes follow), by the scope's documents of the field holding each: a scoped
     * term's document frequency, a phrase's matching documents. These are the rows FTS5 counts, but
     * for the old versions of replaced documents (a revocation, a stored vector) that no merge has
     * dropped yet, which a term's document frequency still counts (a deletion's purge drops its own):
     * so after replacements the two indexes may leave out different terms of a query whose terms hold
     * about SEARCHED_ROWS.
     */
    private List<List<String>> searched(IndexSearcher searcher, String field, Scope scope, List<List<String>> phrases)
            throws IOException {
        ViewTerms t = view(searcher);
        try {
            return QueryCoverage.searchedPieces(phrases, pieces -> {
                try {
                    return pieces.size() == 1 ? t.docFreq(Documents.text(field, scope, pieces.get(0)))
                            : searcher.count(term(field, scope, pieces));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** The query's {@link LexicalIndex#words}, each as its pieces. */
    static List<List<String>> words(List<List<String>> phrases) {
        return QueryCoverage.wordPieces(phrases);
    }

    /**
     * The most of the query one eligible memory or event of the scope holds ({@link LexicalIndex#coverage}),
     * in one search of both fields: each word a document holds counts its evidence weight
     * ({@link QueryCoverage#evidenceWeight}) once over the query's evidence ideal in the document's own
     * field (every document has one text field), however often it occurs and however long the
     * document, and the best document's sum is the answer.
     */
    double held(List<List<String>> words, Eligibility filter) {
        return held(words, filter, Double.NaN);
    }

    /**
     * Whether some eligible memory or event of the scope holds at least {@code share} of the query:
     * {@code held(words, filter) >= share}, found by a search that skips the rows that cannot reach
     * {@code share} and stops at the first that does ({@link FirstAtLeast}).
     */
    boolean reaches(List<List<String>> words, Eligibility filter, double share) {
        return held(words, filter, share) >= share;
    }

    /** The best row's share with {@code floor} NaN; else the best share offered, at least {@code floor} if and only if a row reaches it. */
    private double held(List<List<String>> words, Eligibility filter, double floor) {
        try {
            return h.withSearcher(acquired -> {
                BooleanQuery.Builder any = new BooleanQuery.Builder();
                boolean memories = held(acquired, Documents.MEMORY_TEXT, filter.scope(), words, any);
                boolean events = held(acquired, Documents.EVENT_TEXT, filter.scope(), words, any);
                if (!memories && !events) {
                    return 0.0;
                }
                BooleanQuery.Builder eligible = new BooleanQuery.Builder();
                if (memories) {
                    eligible.add(h.eligible.query(filter), BooleanClause.Occur.SHOULD);
                }
                if (events) {
                    eligible.add(Documents.events(filter.scope()), BooleanClause.Occur.SHOULD);
                }
                Query q = new BooleanQuery.Builder().add(any.build(), BooleanClause.Occur.MUST)
                        .add(eligible.build(), BooleanClause.Occur.FILTER).build();
                if (!Double.isNaN(floor)) {
                    CountedSearch<?, Float> counted = new CountedSearch<>(new FirstAtLeast(floor));
                    float best = acquired.search(q, counted);
                    counts.add(SearchCounts.Search.EVIDENCE, counted.visited(), best >= floor ? 1 : 0);
                    return Math.max(0.0, best);
                }
                // Only the best row counts: prune from the first hit, and stop once a row holds every word.
                CountedSearch<?, TopDocs> counted = new CountedSearch<>(new TopScoreDocCollectorManager(1, null, 1));
                TopDocs top = acquired.search(q, counted);
                counts.add(SearchCounts.Search.EVIDENCE, counted.visited(), top.scoreDocs.length);
                return top.scoreDocs.length == 0 ? 0.0 : (double) top.scoreDocs[0].score;
            });
        } catch (IOException e) {
            throw new StorageException("searching the Lucene index", e);
        }
    }

    /**
     * Adds to {@code any} each searched word of {@code field} that some document of the scope holds,
     * scoring its evidence weight over the field's evidence ideal ({@link QueryCoverage#evidenceIdeal});
     * whether it added any.
     */
    private boolean held(IndexSearcher acquired, String field, Scope scope, List<List<String>> words,
                         BooleanQuery.Builder any) throws IOException {
        IndexSearcher searcher = scoped(acquired, field, scope);
        TermWeights w = weights(searcher, field, scope, words);
        if (w == null || w.held().isEmpty()) {
            return false;
        }
        long docs = searcher.collectionStatistics(field).docCount();
        double one = idf(docs, 1);
        double ideal = QueryCoverage.evidenceIdeal(w.held(), w.absent().keySet(), one, docs);
        boolean added = false;
        for (List<String> pieces : searched(acquired, field, scope, words)) {
            String word = String.join(" ", pieces);
            Double idf = w.held().get(word);
            if (idf != null) {
                double weight = QueryCoverage.evidenceWeight(word, idf, one, docs);
                any.add(new BoostQuery(new ConstantScoreQuery(term(field, scope, pieces)), (float) (weight / ideal)),
                        BooleanClause.Occur.SHOULD);
                added = true;
            }
        }
        return added;
    }

    /**
     * The query's terms as literals, OR'ed (R2: no query syntax exists here; a term of several pieces
     * is a phrase, as FTS5 searches it). {@code phrases} is not empty (R6: nothing searchable is no search).
     */
    private Query terms(String field, Scope scope, List<List<String>> phrases) throws IOException {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        for (List<String> pieces : phrases) {
            b.add(term(field, scope, pieces), BooleanClause.Occur.SHOULD);
        }
        return b.build();
    }

    /**
     * A term of the query as the scope's documents hold it ({@link Documents#text}): one piece read
     * where the view found it ({@link ViewTerms}), several a phrase.
     */
    private Query term(String field, Scope scope, List<String> pieces) throws IOException {
        if (pieces.size() == 1) {
            return terms.query(Documents.text(field, scope, pieces.get(0)));
        }
        PhraseQuery.Builder phrase = new PhraseQuery.Builder();
        for (String piece : pieces) {
            phrase.add(Documents.text(field, scope, piece));
        }
        return phrase.build();
    }

    /**
     * The best {@code limit} by BM25 of the phrases searched ({@link #searched}) among the documents
     * {@code filter} admits (null: every document holding the scope's terms) but those
     * {@code excluded} matches (null: none), equal scores newest row first, both inside the query (L4);
     * each score divided by the query's ideal over {@code field} in the same view ({@link #ideal}).
     * Both count the statistics of {@code scope} ({@link ScopedSearcher}).
     */
    private List<Candidate> ranked(SearchCounts.Search search, String field, Query filter, Query excluded, Scope scope,
                                   List<List<String>> phrases, int limit) {
        try {
            return h.withSearcher(acquired -> {
                List<List<String>> asked = searched(acquired, field, scope, phrases);
                if (asked.isEmpty()) {
                    return List.<Candidate>of();
                }
                Query query = terms(field, scope, asked);
                if (excluded != null) {
                    query = excluding(query, excluded);
                }
                if (filter != null) {
                    query = new BooleanQuery.Builder().add(query, BooleanClause.Occur.MUST)
                            .add(filter, BooleanClause.Occur.FILTER).build();
                }
                IndexSearcher searcher = scoped(acquired, field, scope);
                double ideal = ideal(searcher, field, scope, phrases);
                CountedSearch<?, TopFieldDocs> counted = new CountedSearch<>(window(limit));
                TopFieldDocs top = searcher.search(query, counted);
                counts.add(search, counted.visited(), top.scoreDocs.length);
                return candidates(top, ideal);
            });
        } catch (IOException e) {
            throw new StorageException("searching the Lucene index", e);
        }
    }

    /**
     * The best {@code limit} hits, best first and equal scores newest row first. The score is the
     * first sort field, so the collector reads it as it sorts (no second scoring pass), and skips what
     * cannot enter the top from the first {@code limit} hits on.
     */
    private static TopFieldCollectorManager window(int limit) {
        return new TopFieldCollectorManager(BEST_FIRST, Math.max(1, limit), null, Math.max(1, limit));
    }

    /** A window's hits as candidates, each score over the query's ideal. */
    private static List<Candidate> candidates(TopFieldDocs top, double ideal) {
        List<Candidate> out = new ArrayList<>(top.scoreDocs.length);
        for (ScoreDoc hit : top.scoreDocs) {
            Object[] sorted = ((FieldDoc) hit).fields;
            out.add(new Candidate((Long) sorted[1], (Float) sorted[0] / ideal));
        }
        return out;
    }

    /**
     * The query's ideal over one field (see {@link LexicalIndex}): the sum of the
     * {@link LexicalIndex#IDEAL_TERMS} largest scores a document of average length earns holding a
     * term once, which in Lucene's BM25 is the term's IDF over {@code 1 + k1}, IDF being
     * {@code ln(1 + (N - n + 0.5) / (n + 0.5))} with N the documents that have the field and n those
     * that hold the term, both counted as the searcher's BM25 counts them (over the scope, in an
     * index of several: {@link ScopedSearcher}); for a term of several pieces, searched as a phrase,
     * the fewest of any piece. A term no document holds counts too (n 0): a query whose informative
     * words the archive lacks has little evidence, whatever else matches. 1 for a field no document has.
     */
    private double ideal(IndexSearcher searcher, String field, Scope scope, List<List<String>> phrases)
            throws IOException {
        TermWeights w = weights(searcher, field, scope, phrases);
        return w == null ? 1 : QueryCoverage.ideal(w.held(), w.absent());
    }

    /**
     * Each term's score at one occurrence in a document of average length (see {@link #ideal}), by
     * its pieces joined with spaces: those some document holds, and those none does (as if one
     * did). Null for a field no document has.
     */
    private TermWeights weights(IndexSearcher searcher, String field, Scope scope, List<List<String>> phrases)
            throws IOException {
        CollectionStatistics stats = searcher.collectionStatistics(field);
        if (stats == null) {
            return null;
        }
        long docs = stats.docCount();
        Map<String, Double> held = new HashMap<>();
        Map<String, Double> absent = new HashMap<>();
        for (List<String> pieces : phrases) {
            long n = Long.MAX_VALUE;
            for (String piece : pieces) {
                n = Math.min(n, terms.docFreq(Documents.text(field, scope, piece)));
            }
            // A term no document holds scores as if one did (LexicalIndex.ideal).
            (n > 0 ? held : absent).put(String.join(" ", pieces), idf(docs, Math.max(1, n)));
        }
        return new TermWeights(held, absent);
    }

    /** Lucene's BM25 weight of a term {@code n} of {@code docs} documents hold, once in a document of average length. */
    private static double idf(long docs, long n) {
        long total = Math.max(docs, n);
        return Math.log(1 + (total - n + 0.5) / (n + 0.5)) / (1 + K1);
    }

    private record TermWeights(Map<String, Double> held, Map<String, Double> absent) {
    }
}
