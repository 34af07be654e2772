package dev.jiyi.lucene;

import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.Neighbours;
import dev.jiyi.authority.index.VectorQuery;

import org.apache.lucene.document.LongField;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldDocs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Vector search over the current index: the HNSW graph in deep mode, the newest memories in
 * semantic mode, both rescored by the exact vectors the authority stores. Used under the lock of
 * its {@link LuceneIndex}.
 */
final class LuceneVectors {

    private static final Sort NEWEST_FIRST = new Sort(
            LongField.newSortField(Documents.ROW, true, SortedNumericSelector.Type.MIN));

    private final Handles h;

    LuceneVectors(Handles handles) {
        this.h = handles;
    }

    /**
     * Deep mode (newest 0): the HNSW graph's nearest eligible memories, searched with the eligibility
     * filter inside the graph walk (Lucene switches to an exact scan of the filtered documents when
     * the filter leaves few), then rescored by their exact vectors from the authority. Semantic mode
     * (newest N) keeps its meaning: the N most recent eligible memories with a vector of the
     * fingerprint, compared exactly. {@link Neighbours#compared} is, in deep mode, the eligible
     * vectors the search covered (all of them, approximately), in semantic mode those compared.
     */
    Neighbours nearest(Snapshot snapshot, VectorQuery q) {
        String field = Documents.vectorField(q.fingerprint(), q.vector().length);
        Query eligible = new BooleanQuery.Builder()
                .add(h.eligible.query(q.filter()), BooleanClause.Occur.FILTER)
                .add(new FieldExistsQuery(field), BooleanClause.Occur.FILTER)
                .build();
        try {
            return h.withSearcher(searcher -> {
                if (q.newest() > 0) {
                    TopFieldDocs newest = searcher.search(eligible, q.newest(), NEWEST_FIRST, false);
                    List<Long> rows = new ArrayList<>(newest.scoreDocs.length);
                    for (ScoreDoc hit : newest.scoreDocs) {
                        rows.add((Long) ((FieldDoc) hit).fields[0]);
                    }
                    return rescored(snapshot, q, rows, rows.size());
                }
                int n = Math.max(q.k(), h.options.knnCandidates());
                TopDocs knn = searcher.search(new KnnFloatVectorQuery(field, q.vector(), n, eligible), n);
                return rescored(snapshot, q, rows(searcher, knn.scoreDocs), searcher.count(eligible));
            });
        } catch (IOException e) {
            throw new StorageException("searching vectors in the Lucene index", e);
        }
    }

    /** The rows' exact similarities (their vectors of the query's fingerprint, from the authority), best {@code k} above the threshold. */
    private static Neighbours rescored(Snapshot snapshot, VectorQuery q, List<Long> rows, long compared) {
        List<Candidate> out = new ArrayList<>();
        for (VectorCache.StoredVector v : snapshot.vectorsByMemoryRow(rows)) {
            if (v.fingerprint().equals(q.fingerprint()) && v.vector().length == q.vector().length) {
                double similarity = ExactVectorScan.dot(q.vector(), v.vector());
                if (similarity > q.minSimilarity()) {
                    out.add(new Candidate(v.memoryRow(), similarity));
                }
            }
        }
        out.sort(Candidate.BEST_FIRST);
        return new Neighbours(out.subList(0, Math.min(q.k(), out.size())), compared);
    }

    /** The row numbers of hits, read from the {@code row} doc values. */
    private static List<Long> rows(IndexSearcher searcher, ScoreDoc[] hits) throws IOException {
        ScoreDoc[] byDoc = hits.clone();
        Arrays.sort(byDoc, (a, b) -> Integer.compare(a.doc, b.doc));
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        List<Long> out = new ArrayList<>(hits.length);
        int leaf = -1;
        SortedNumericDocValues values = null;
        for (ScoreDoc hit : byDoc) {
            int i = ReaderUtil.subIndex(hit.doc, leaves);
            if (i != leaf) {
                leaf = i;
                values = DocValues.getSortedNumeric(leaves.get(i).reader(), Documents.ROW);
            }
            if (values.advanceExact(hit.doc - leaves.get(i).docBase)) {
                out.add(values.nextValue());
            }
        }
        return out;
    }
}
