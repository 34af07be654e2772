package dev.jiyi.opensearch;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.RecallIndexContract;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.authority.index.Settings;
import dev.jiyi.authority.index.TransactionalIndex;

import org.junit.jupiter.api.AfterEach;

import java.util.List;
import java.util.Map;

/**
 * L1, L3: the OpenSearch index under the recall index contract FTS5 and Lucene pass, on a cluster of
 * three nodes. Each test's home has an index of its own, so that its shard's average document length
 * is the home's, as the Lucene index's is, and R11's exact score checks hold (beside other homes in
 * one index, lengths are compared with the shard's average: {@code ManyHomesTest} measures that).
 * Before every query the index follows the change log (L2), as it does in use. Vectors are the
 * authority's exact scan, so the brute-force checks run too.
 */
class OpenSearchRecallIndexTest extends RecallIndexContract {

    private OpenSearchBackend backend;

    private String indexName;

    static Settings settings(String url, String index) {
        Map<String, String> m = Map.of("index.opensearch.url", url, "index.opensearch.index", index);
        return m::get;
    }

    @Override
    protected List<TransactionalIndex> attachedIndexes() {
        return List.of();
    }

    @Override
    protected RecallIndex recallIndex() {
        indexName = "contract-" + HomeState.randomId();
        backend = new OpenSearchBackend(home(), settings(TestCluster.get().url(), indexName), Map.of());
        return backend.recallIndex();
    }

    @Override
    protected boolean exactNeighbours() {
        return true;
    }

    @Override
    protected void caughtUp(Authority authority) {
        backend.index().catchUp(authority);
    }

    @AfterEach
    void closeBackend() {
        if (backend != null) {
            backend.close();
            TestCluster.get().deleteIndex(indexName);
        }
    }
}
