package dev.jiyi.fts5;

import dev.jiyi.authority.RecallIndexContract;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.authority.index.TransactionalIndex;

import java.util.List;

/**
 * FTS5 and the exact vector scan under the recall index contract: the FTS5 index is attached to the
 * authority (its rows are written in the authority's transactions) and serves lexical recall, the
 * exact scan of the vector cache serves vector recall, so every neighbour check runs exactly.
 */
class Fts5RecallIndexTest extends RecallIndexContract {

    private final Fts5Index fts5 = new Fts5Index();

    @Override
    protected List<TransactionalIndex> attachedIndexes() {
        return List.of(fts5);
    }

    @Override
    protected RecallIndex recallIndex() {
        return new RecallIndex(fts5, new ExactVectorScan());
    }

    @Override
    protected boolean exactNeighbours() {
        return true;
    }
}
