package dev.jiyi.opensearch;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Scope;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * L1 on OpenSearch: the cluster's documents are terms of jiyi's token stream, so a build analyzed
 * by another release (or a Java release with other Unicode tables) is not this home's build.
 */
class AnalysisChangeTest {

    private static final String INDEX = "analysis-" + HomeState.randomId();
    private static final Scope SCOPE = new Scope("小明", "default");

    @AfterAll
    static void dropIndex() {
        TestCluster.get().deleteIndex(INDEX);
    }

    @Test
    @DisplayName("L1 a build of another token stream, or of none (a build from before), is rebuilt with a notice naming it; one of this stream is kept (Chinese, English, mixed)")
    void anotherAnalysisIsRebuilt(@TempDir Path dir) throws IOException {
        String home;
        try (Homes first = new Homes(dir, INDEX)) {
            first.remember(SCOPE, "I bought a used Subaru Outback 上个月");
            first.index().catchUp(first.authority);
            home = first.index().home();
            assertThat(first.backend.takeNotices()).anySatisfy(n -> assertThat(n).contains("first use"));
        }
        try (Homes same = new Homes(dir, INDEX)) {
            assertThat(same.memories(SCOPE, "what did I buy 上个月", 10)).hasSize(1);
            assertThat(same.backend.takeNotices()).noneSatisfy(n -> assertThat(n).contains("rebuilt"));
        }
        String meta = "/" + INDEX + "/_doc/" + Follower.encode(Documents.metaId(home)) + "?routing=" + Follower.encode(home);
        // A build of analysis-1, and one from before builds named their analysis: the state file and
        // the cluster's meta document agree on it, so only its analysis tells it apart.
        for (String old : new String[] {"0123456789abcdef@analysis-1/unicode-15.1", "0123456789abcdef"}) {
            ObjectNode source = (ObjectNode) Cluster.JSON.readTree(TestCluster.get().request("GET", meta)).path("_source");
            assertThat(source.path("build").asString("")).endsWith("@" + ChineseTokens.version());
            source.put("build", old);
            assertThat(TestCluster.get().request("PUT", meta + "&refresh=true", source.toString())).contains("\"result\":\"updated\"");
            rewriteBuild(dir.resolve("opensearch/state.properties"), old);
            try (Homes later = new Homes(dir, INDEX)) {
                assertThat(later.memories(SCOPE, "bought", 10)).hasSize(1);
                assertThat(later.backend.takeNotices()).as(old)
                        .anySatisfy(n -> assertThat(n).contains("analyzed by another release")
                                .contains(old.contains("@") ? "(analysis-1/unicode-15.1)" : "(none)"));
                assertThat(later.index().home()).isEqualTo(home);
            }
            try (Homes again = new Homes(dir, INDEX)) {
                assertThat(again.memories(SCOPE, "Subaru", 10)).hasSize(1);
                assertThat(again.backend.takeNotices()).as("rebuilt as " + ChineseTokens.version())
                        .noneSatisfy(n -> assertThat(n).contains("rebuilt"));
            }
        }
    }

    private static void rewriteBuild(Path file, String build) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
        }
        p.setProperty("build", build);
        try (Writer out = Files.newBufferedWriter(file)) {
            p.store(out, null);
        }
    }
}
