package dev.jiyi.opensearch;

import dev.jiyi.authority.Scope;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * L5 on OpenSearch: processes of one home share its state file. A process that stays open while
 * another rebuilds the home (jiyi reindex --opensearch beside a running jiyi mcp) must not write its
 * old build back, or every process started later would find the file and the cluster apart and
 * rebuild the home again.
 */
class TwoProcessesTest {

    private static final String INDEX = "processes-" + HomeState.randomId();
    private static final Scope SCOPE = new Scope("小明", "default");

    @AfterAll
    static void dropIndex() {
        TestCluster.get().deleteIndex(INDEX);
    }

    @Test
    @DisplayName("L5 a process open while another rebuilds the home keeps the new build: its next commit leaves the state file to it, and a later process does not rebuild (Chinese, English)")
    void aRebuildByAnotherProcessIsKept(@TempDir Path dir) {
        try (Homes server = new Homes(dir, INDEX)) {
            server.remember(SCOPE, "第一条 first note");
            server.index().catchUp(server.authority);
            server.backend.takeNotices();
            try (Homes reindex = new Homes(dir, INDEX)) {
                reindex.backend.rebuild(reindex.authority, n -> { });
            }
            server.remember(SCOPE, "第二条 second note");
            server.index().catchUp(server.authority);
            assertThat(server.memories(SCOPE, "第一条 第二条 note", 10)).hasSize(2);
            assertThat(server.backend.takeNotices()).noneSatisfy(n -> assertThat(n).contains("rebuilt"));
        }
        try (Homes later = new Homes(dir, INDEX)) {
            assertThat(later.memories(SCOPE, "first second", 10)).hasSize(2);
            assertThat(later.backend.takeNotices()).noneSatisfy(n -> assertThat(n).contains("rebuilt"));
        }
    }
}
