package dev.jiyi.opensearch;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.index.ChangeLogFollower;
import dev.jiyi.authority.index.ChangeLogFollowerContract;
import dev.jiyi.authority.index.Settings;

import org.junit.jupiter.api.AfterAll;

import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;

/** L2: the OpenSearch follower is a {@link ChangeLogFollower.Target} that keeps the contract, on the three-node cluster. */
class OpenSearchFollowerContractTest extends ChangeLogFollowerContract {

    private static final String INDEX = "follower-" + HomeState.randomId();

    private Cluster cluster;
    private Follower follower;

    @AfterAll
    static void dropIndex() {
        TestCluster.get().deleteIndex(INDEX);
    }

    @Override
    protected ChangeLogFollower.Target target(Path dir, Authority authority) throws IOException {
        Map<String, String> m = Map.of("index.opensearch.url", TestCluster.get().url(), "index.opensearch.index", INDEX);
        Settings settings = m::get;
        OpenSearchOptions options = OpenSearchOptions.of(settings, Map.of());
        cluster = Cluster.connect(options);
        Path folder = dir.resolve("opensearch");
        follower = new Follower(cluster, options, folder, new HomeState(HomeState.randomId(), "",
                ChangeLogFollower.Position.START, "", folder.toAbsolutePath().normalize().toString()));
        rebuild(authority, follower, "there was none yet");
        return follower;
    }

    @Override
    protected boolean holds(ChangeLogFollower.Target target, boolean event, String id) throws IOException {
        String home = follower.state().home();
        ObjectNode body = Cluster.object();
        var filter = body.putObject("query").putObject("bool").putArray("filter");
        filter.add(Documents.term("home", home));
        filter.add(Documents.term("id", (event ? Documents.EVENT : Documents.MEMORY) + ":" + id));
        return cluster.call("counting", "POST", "/" + INDEX + "/_count", Map.of("routing", home, "preference", home), body)
                .path("count").asLong(0) > 0;
    }

    @Override
    protected void close(ChangeLogFollower.Target target) {
        try {
            cluster.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
