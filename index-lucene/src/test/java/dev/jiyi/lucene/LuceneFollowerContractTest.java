package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.index.ChangeLogFollower;
import dev.jiyi.authority.index.ChangeLogFollowerContract;

import org.apache.lucene.search.TermQuery;

import java.io.IOException;
import java.nio.file.Path;

/** L2: the Lucene index's follower is a {@link ChangeLogFollower.Target} that keeps the contract. */
class LuceneFollowerContractTest extends ChangeLogFollowerContract {

    private Handles handles;

    @Override
    protected ChangeLogFollower.Target target(Path dir, Authority authority) {
        handles = new Handles(dir, LuceneOptions.defaults());
        handles.openCurrent(); // none yet: the follower builds one first, as a search would
        LuceneFollower follower = new LuceneFollower(handles);
        rebuild(authority, follower, "there was none yet");
        return follower;
    }

    @Override
    protected boolean holds(ChangeLogFollower.Target target, boolean event, String id) throws IOException {
        handles.searchers.maybeRefreshBlocking();
        return handles.withSearcher(s -> s.count(new TermQuery(
                Documents.id(event ? Documents.EVENT : Documents.MEMORY, id))) > 0);
    }

    @Override
    protected void close(ChangeLogFollower.Target target) {
        handles.close();
    }
}
