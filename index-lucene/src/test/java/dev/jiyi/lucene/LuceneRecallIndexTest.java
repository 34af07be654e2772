package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.RecallIndexContract;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.authority.index.TransactionalIndex;

import org.junit.jupiter.api.AfterEach;

import java.util.List;

/**
 * L1, L3: the Lucene index under the same recall index contract as FTS5, with jiyi's analysis. No
 * index is attached to the authority's transactions: before every query the index follows the
 * change log (L2), as it does in use. Its neighbours are HNSW's, rescored exactly; on archives this
 * small the filtered search visits every eligible vector, so the brute-force checks run too.
 */
class LuceneRecallIndexTest extends RecallIndexContract {

    private LuceneIndex lucene;

    /** The analysis under test; the smartcn subclass changes it. */
    protected Analysis analysis() {
        return Analysis.JIYI;
    }

    @Override
    protected List<TransactionalIndex> attachedIndexes() {
        return List.of();
    }

    @Override
    protected RecallIndex recallIndex() {
        lucene = LuceneIndex.open(home().resolve("lucene"), LuceneOptions.defaults().withAnalysis(analysis()));
        return new RecallIndex(lucene, lucene);
    }

    @Override
    protected boolean exactNeighbours() {
        return true;
    }

    @Override
    protected void caughtUp(Authority authority) {
        lucene.catchUp(authority);
    }

    @AfterEach
    void closeLucene() {
        if (lucene != null) {
            lucene.close();
        }
    }
}
