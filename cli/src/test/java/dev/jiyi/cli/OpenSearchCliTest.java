package dev.jiyi.cli;

import dev.jiyi.opensearch.TestCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenSearch backend through the real command line, on three nodes started in this JVM:
 * {@code recall --index opensearch} answering as FTS5 and Lucene do on a bilingual archive, the
 * settings that point at the cluster (and their errors), {@code reindex --opensearch} and
 * {@code doctor}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class OpenSearchCliTest {

    private static final String INDEX = "cli-" + Long.toHexString(System.nanoTime());

    @TempDir
    Path tmp;

    private CliRunner cli;

    @BeforeEach
    void setUp() throws IOException {
        cli = new CliRunner(tmp.resolve("home"));
        config("index.opensearch.url=" + TestCluster.get().url() + "\nindex.opensearch.index=" + INDEX + "\n");
    }

    @AfterAll
    static void dropIndex() {
        TestCluster.get().deleteIndex(INDEX);
    }

    private void config(String properties) throws IOException {
        Files.createDirectories(cli.home());
        Files.writeString(cli.home().resolve("config.properties"), properties, StandardCharsets.UTF_8);
    }

    private CliRunner.Result ok(String... args) {
        CliRunner.Result r = cli.run(args);
        assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isZero();
        return r;
    }

    private void event(String id, String text, String occurredAt) {
        ok("event", "submit", "--id", id, "--role", "user", "--session", "s-" + id, "--occurred-at", occurredAt,
                "--text", text);
    }

    private String memory(String eventId, String text, String quote) {
        return ok("--json", "memory", "add", "--event", eventId, "--kind", "fact", "--basis", "user_statement",
                "--text", text, "--quote", quote).json().get("memory").get("id").asString();
    }

    private static List<String> ids(JsonNode result) {
        List<String> out = new ArrayList<>();
        for (JsonNode item : result.get("results")) {
            out.add(item.get("type").asString().equals("memory") ? item.get("memory_id").asString()
                    : item.get("source_event_id").asString());
        }
        return out;
    }

    private JsonNode recall(String query, String index) {
        return ok("--json", "recall", query, "--index", index).json();
    }

    @Test
    @DisplayName("L1 L3 recall --index opensearch gives FTS5's and Lucene's answers in Chinese, English and mixed; "
            + "reindex --opensearch and doctor report the home in the cluster")
    void sameAnswersAsTheLocalIndexes() {
        event("b1", "这本书的作者是鲁迅", "2025-03-01T10:00:00+08:00");
        String book = memory("b1", "那本书的作者是鲁迅", "这本书的作者是鲁迅");
        event("bj", "我在北京大学读书", "2025-03-02T10:00:00+08:00");
        event("paris", "I lived in Paris for two years", "2025-03-03T10:00:00Z");
        String paris = memory("paris", "The user lived in Paris for two years", "I lived in Paris");
        event("mix", "我在 Acme 公司做 Java 开发", "2025-03-04T10:00:00+08:00");
        String mix = memory("mix", "用户在 Acme 公司做 Java 开发", "我在 Acme 公司做 Java 开发");
        event("tea", "I prefer green tea over coffee", "2025-03-05T10:00:00Z");
        String tea = memory("tea", "Prefers green tea over coffee", "I prefer green tea over coffee");

        Map<String, String> expectedTop = Map.of("鲁迅", book, "where did I live, Paris?", paris, "green tea", tea,
                "Acme 公司的 Java 开发", mix, "我喜欢 tea", tea, "北京", "bj");
        for (Map.Entry<String, String> q : expectedTop.entrySet()) {
            List<String> opensearch = ids(recall(q.getKey(), "opensearch"));
            assertThat(opensearch).as(q.getKey()).first().isEqualTo(q.getValue());
            assertThat(opensearch).as(q.getKey()).isEqualTo(ids(recall(q.getKey(), "lucene")));
            assertThat(opensearch).as(q.getKey()).containsExactlyInAnyOrderElementsOf(ids(recall(q.getKey(), "fts5")));
        }
        assertThat(ids(recall("量子色动力学", "opensearch"))).isEmpty();
        assertThat(ids(recall("AND OR NOT \"(\" * NEAR", "opensearch"))).isEmpty();

        JsonNode rebuilt = ok("--json", "reindex", "--opensearch").json();
        assertThat(rebuilt.get("rebuilt").asString()).isEqualTo("opensearch");
        assertThat(rebuilt.get("events").asLong()).isEqualTo(5);
        assertThat(rebuilt.get("memories").asLong()).isEqualTo(4);
        assertThat(ids(recall("鲁迅", "opensearch"))).containsExactly(book);

        // D1 at once: a deleted event's memory is not found by the next recall.
        ok("delete", "--event", "b1");
        assertThat(ids(recall("鲁迅", "opensearch"))).isEmpty();

        JsonNode doctor = ok("--json", "doctor").json();
        JsonNode os = doctor.findValue("opensearch");
        assertThat(os).as(doctor.toString()).isNotNull();
        assertThat(os.get("present").asBoolean()).isTrue();
        assertThat(os.get("index").asString()).isEqualTo(INDEX);
        assertThat(os.get("lag").asLong()).isZero();
        assertThat(os.get("memories").asLong()).isEqualTo(3);
        assertThat(os.get("events").asLong()).isEqualTo(4);
        assertThat(os.get("cluster_health").asString()).isIn("green", "yellow");
        assertThat(ok("doctor").out()).contains("opensearch index: " + INDEX);
    }

    @Test
    @DisplayName("O7 E2 recall --index opensearch without a cluster, or with a bad address or index name: exit 2, "
            + "the key and the rule, never the value")
    void badSettings() throws IOException {
        config("");
        CliRunner.Result none = cli.run("recall", "鲁迅", "--index", "opensearch");
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.err()).contains("index.opensearch.url");
        config("index.opensearch.url=ftp://SECRET-VALUE-42\n");
        CliRunner.Result bad = cli.run("recall", "鲁迅", "--index", "opensearch");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("index.opensearch.url").doesNotContain("SECRET-VALUE-42");
        config("index.opensearch.url=http://127.0.0.1:9\nindex.opensearch.index=SECRET-VALUE-42\n");
        CliRunner.Result name = cli.run("recall", "鲁迅", "--index", "opensearch");
        assertThat(name.code()).isEqualTo(2);
        assertThat(name.err()).contains("index.opensearch.index").doesNotContain("SECRET-VALUE-42");
        // A home that never named a cluster: doctor has no opensearch section and stays healthy.
        config("");
        JsonNode doctor = ok("--json", "doctor").json();
        assertThat(doctor.findValue("opensearch")).isNull();
    }
}
