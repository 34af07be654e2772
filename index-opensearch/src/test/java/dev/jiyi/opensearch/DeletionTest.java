package dev.jiyi.opensearch;

import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * D1 on the cluster: a deleted event and its memories are not searchable once the deletion is
 * followed, and no node keeps a byte of their text on disk (segments, translog) afterwards.
 */
class DeletionTest {

    private static final String INDEX = "deletion-" + HomeState.randomId();
    private static final Scope SCOPE = new Scope("alice", "work");

    @AfterAll
    static void dropIndex() {
        TestCluster.get().deleteIndex(INDEX);
    }

    @Test
    @DisplayName("D1 a deleted event leaves nothing searchable and nothing on any node's disk (Chinese and English)")
    void deletedTextIsGoneFromEveryNode(@TempDir Path dir) throws IOException {
        try (Homes home = new Homes(dir, INDEX)) {
            for (int i = 0; i < 20; i++) {
                home.remember(SCOPE, "周会记录 weekly notes " + i);
            }
            Memory secret = home.remember(SCOPE, "门禁密码是翡翠麒麟 the vault word is zephyrquartz");
            home.index().catchUp(home.authority);
            assertThat(home.memories(SCOPE, "翡翠麒麟", 10)).extracting(c -> c.rowId()).contains(secret.rowId());
            assertThat(home.events(SCOPE, "zephyrquartz", 10)).isNotEmpty();
            assertThat(filesHolding("zephyrquartz")).as("precondition: the text is on disk").isNotEmpty();

            home.authority.deleteEvent(SCOPE, secret.eventId());
            home.index().catchUp(home.authority);

            assertThat(home.memories(SCOPE, "翡翠麒麟", 10)).isEmpty();
            assertThat(home.events(SCOPE, "zephyrquartz 翡翠麒麟", 10)).isEmpty();
            assertThat(home.memories(SCOPE, "weekly notes", 30)).hasSize(20);
            // The cluster keeps the soft-deleted document until its retention leases pass it.
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
            while (home.index().purgeIfDue()) {
                assertThat(System.nanoTime()).as("purged within two minutes").isLessThan(deadline);
                TestCluster.pause(500);
            }
            assertThat(home.index().purgeOwed()).isFalse();
            assertThat(filesHolding("zephyrquartz")).isEmpty();
            assertThat(filesHolding("翡翠麒麟")).isEmpty();
        }
    }

    /** Files under every node's data path whose bytes contain {@code text} (UTF-8), while the nodes run. */
    private static List<String> filesHolding(String text) throws IOException {
        return FileBytes.filesContaining(TestCluster.get().dataRoot(), text);
    }
}
