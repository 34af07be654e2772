package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;

import mockwebserver3.MockWebServer;
import mockwebserver3.QueueDispatcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.jiyi.cli.ExtractionCliTest.ZH;
import static dev.jiyi.cli.ExtractionCliTest.ZH_ANSWER;
import static dev.jiyi.cli.MockModels.BODY_SECRET;
import static dev.jiyi.cli.MockModels.EMBED_KEY;
import static dev.jiyi.cli.MockModels.chat;
import static dev.jiyi.cli.MockModels.failure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vectors through the real command line (V1-V4): opportunistic embedding after extraction and its
 * failure, coverage warnings in semantic recall, and {@code reindex --vectors}, which embeds outside
 * any transaction and replaces vectors only after every batch succeeded, skipping memories deleted
 * or revoked meanwhile. Both endpoints are local MockWebServers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VectorCliTest {

    private static final String COVERAGE = "vector coverage incomplete";

    @TempDir
    Path home;

    MockWebServer model;
    MockWebServer embed;
    QueueDispatcher answers;
    MockModels.Embeddings vectors;
    CliRunner cli;

    @BeforeEach
    void start() throws IOException {
        model = new MockWebServer();
        answers = MockModels.queue(model);
        model.start();
        embed = new MockWebServer();
        vectors = new MockModels.Embeddings();
        embed.setDispatcher(vectors);
        embed.start();
        cli = MockModels.configure(new CliRunner(home), model, embed);
    }

    @AfterEach
    void stop() {
        model.close();
        embed.close();
    }

    // ------------------------------------------------------------------ helpers

    private JsonNode ok(CliRunner runner, String... args) {
        CliRunner.Result r = runner.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
        return r.json();
    }

    private void event(String id, String text) {
        ok(cli, "--json", "event", "submit", "--id", id, "--role", "user", "--session", "s-" + id,
                "--occurred-at", "2024-05-01T10:00:00+08:00", "--text", text);
    }

    /** Derives one memory by hand (no vector, V4) and returns its ID. */
    private String memory(String eventId, String text) {
        return ok(cli, "--json", "memory", "add", "--event", eventId, "--kind", "fact", "--basis", "user_statement",
                "--text", text, "--quote", text).get("memory").get("id").asString();
    }

    private List<String> warnings(CliRunner runner, String query) {
        JsonNode r = ok(runner, "--json", "recall", query, "--mode", "semantic");
        List<String> out = new ArrayList<>();
        r.get("warnings").forEach(w -> out.add(w.asString()));
        return out;
    }

    /** Every embeddings row, every column, vectors as hex: equal dumps mean a byte-for-byte equal table. */
    private List<String> dump() {
        return cli.query("SELECT memory_id || '|' || fingerprint || '|' || dimensions || '|' || hex(vector) || '|' "
                + "|| content_hash || '|' || created_at FROM embeddings ORDER BY memory_id");
    }

    private List<String> stagingFiles() throws IOException {
        try (Stream<Path> files = Files.list(home)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.contains("staging")).toList();
        }
    }

    // ------------------------------------------------------------------ tests

    @Test
    @DisplayName("V2 V4 X2 the embedding endpoint failing (HTTP 500, closed port) never rolls back extracted memories: "
            + "exit 0, a warning, semantic recall warns about coverage until reindex --vectors completes it")
    void vectorFailureKeepsMemories() throws Exception {
        vectors.hook = (n, texts) -> failure(500, String.join(" ", texts));
        answers.enqueue(chat(ZH_ANSWER));
        CliRunner.Result r = cli.run("--json", "event", "submit", "--id", "e1", "--role", "user", "--session", "s1",
                "--text", ZH, "--extract");
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode v = r.json().get("extraction").get("vectors");
        assertThat(v.get("stored").asInt()).isZero();
        assertThat(v.get("missing").asInt()).isEqualTo(2);
        assertThat(v.get("failure").asString()).isEqualTo("embedding endpoint answered HTTP 500");
        assertThat(r.err()).contains("2 new memory(ies) have no vector").contains("reindex --vectors")
                .doesNotContain(BODY_SECRET).doesNotContain(EMBED_KEY).doesNotContain("用户住在杭州");
        assertThat(cli.query("SELECT extraction_state FROM events")).containsExactly("done");
        assertThat(cli.rowCounts()).containsEntry("memories", 2L).containsEntry("embeddings", 0L);

        // A closed port: the same, "could not be reached".
        MockWebServer closed = new MockWebServer();
        closed.start();
        closed.close();
        CliRunner down = MockModels.embedWith(MockModels.configure(new CliRunner(home), model, embed), closed);
        answers.enqueue(chat(ExtractionCliTest.EN_ANSWER));
        CliRunner.Result r2 = down.run("event", "submit", "--id", "e2", "--role", "user", "--session", "s1",
                "--text", ExtractionCliTest.EN, "--extract");
        assertThat(r2.code()).as(r2.toString()).isZero();
        assertThat(r2.err()).contains("1 new memory(ies) have no vector").contains("could not be reached")
                .doesNotContain(String.valueOf(closed.getPort()));
        assertThat(cli.rowCounts()).containsEntry("memories", 3L).containsEntry("embeddings", 0L);

        // The query itself cannot be embedded: recall still answers, lexically, and says why.
        JsonNode lexical = ok(cli, "--json", "recall", "杭州", "--mode", "semantic");
        assertThat(lexical.get("results")).isNotEmpty();
        assertThat(lexical.get("warnings").toString()).contains("could not be embedded").contains("HTTP 500")
                .doesNotContain(BODY_SECRET).doesNotContain(EMBED_KEY);

        vectors.hook = (n, texts) -> null;
        assertThat(warnings(cli, "杭州")).anySatisfy(w -> assertThat(w).contains(COVERAGE).contains("3 of 3"));

        JsonNode reindex = ok(cli, "--json", "reindex", "--vectors");
        assertThat(reindex.get("rebuilt").asString()).isEqualTo("vectors");
        assertThat(reindex.get("embedded").asInt()).isEqualTo(3);
        assertThat(reindex.get("stored").asInt()).isEqualTo(3);
        assertThat(reindex.get("skipped").asInt()).isZero();
        assertThat(reindex.get("fingerprint").asString()).contains(MockModels.EMBED_MODEL).doesNotContain(EMBED_KEY);
        assertThat(cli.query("SELECT count(*) FROM memories m JOIN embeddings e ON e.memory_id = m.id"))
                .containsExactly("3");
        assertThat(warnings(cli, "杭州")).noneSatisfy(w -> assertThat(w).contains(COVERAGE));
        // Nothing left to do: a second run embeds nothing.
        JsonNode again = ok(cli, "--json", "reindex", "--vectors");
        assertThat(again.get("embedded").asInt()).isZero();
        assertThat(stagingFiles()).isEmpty();

        // Progress on stderr (as a log shows it), none with --quiet; stdout is the same JSON either way.
        event("e9", "第九条：周五交报告 report due Friday");
        memory("e9", "第九条：周五交报告 report due Friday");
        System.setProperty("jiyi.progress", "lines");
        try {
            CliRunner.Result shown = cli.run("reindex", "--vectors");
            assertThat(shown.code()).as(shown.toString()).isZero();
            assertThat(shown.err()).containsPattern("reindex --vectors: 1 done in [0-9.]+ s");
            assertThat(shown.out()).contains("1 memories embedded");
            event("e10", "第十条：周六爬山 hiking on Saturday");
            memory("e10", "第十条：周六爬山 hiking on Saturday");
            CliRunner.Result quiet = cli.run("--quiet", "reindex", "--vectors");
            assertThat(quiet.code()).as(quiet.toString()).isZero();
            assertThat(quiet.err()).doesNotContain("reindex --vectors");
            assertThat(quiet.out()).contains("1 memories embedded");
            // With --json, stderr holds only JSON documents: no progress lines in a log.
            event("e11", "第十一条：周日休息 rest on Sunday");
            memory("e11", "第十一条：周日休息 rest on Sunday");
            CliRunner.Result json = cli.run("--json", "reindex", "--vectors");
            assertThat(json.code()).as(json.toString()).isZero();
            assertThat(json.err()).doesNotContain("reindex --vectors");
            assertThat(json.json().get("embedded").asInt()).isEqualTo(1);
        } finally {
            System.clearProperty("jiyi.progress");
        }
    }

    @Test
    @DisplayName("V3 V1 reindex --vectors failing on its second request (exit 5) leaves the embeddings table "
            + "byte-for-byte unchanged, older fingerprint included; a later run replaces them all")
    void reindexReplacesOnlyAfterSuccess() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            event("e" + i, "第" + i + "条记录：周末去爬山 hiking trip " + i);
            ids.add(memory("e" + i, "周末去爬山 hiking trip " + i));
        }
        CliRunner v1 = cli.env("JIYI_EMBED_VERSION", "1");
        assertThat(ok(v1, "--json", "reindex", "--vectors").get("stored").asInt()).isEqualTo(3);
        for (int i = 3; i < 5; i++) {
            event("e" + i, "第" + i + "条记录：明天要交税务报告 tax report " + i);
            ids.add(memory("e" + i, "明天要交税务报告 tax report " + i));
        }
        List<String> before = dump();
        assertThat(before).hasSize(3);
        int requestsBefore = vectors.requests.get();

        // Version 2, two texts per request: 5 texts take 3 requests; the second one fails.
        CliRunner v2 = MockModels.configure(new CliRunner(home), model, embed)
                .env("JIYI_EMBED_VERSION", "2").env("JIYI_EMBED_BATCH_SIZE", "2");
        vectors.hook = (n, texts) -> n == requestsBefore + 2 ? failure(500, String.join(" ", texts)) : null;
        CliRunner.Result failed = v2.run("--json", "reindex", "--vectors");
        assertThat(failed.code()).as(failed.toString()).isEqualTo(ExitCode.PROVIDER);
        JsonNode error = Output.mapper().readTree(failed.err());
        assertThat(error.get("error").asString()).isEqualTo("provider_failure");
        assertThat(error.get("message").asString()).contains("nothing was replaced").contains("HTTP 500")
                .doesNotContain(BODY_SECRET).doesNotContain("tax report");
        assertThat(vectors.requests.get() - requestsBefore).as("stopped at the failing request").isEqualTo(2);
        assertThat(dump()).isEqualTo(before);
        assertThat(stagingFiles()).isEmpty();
        assertThat(warnings(v2, "爬山")).anySatisfy(w -> assertThat(w).contains(COVERAGE).contains("5 of 5"));

        vectors.hook = (n, texts) -> null;
        JsonNode done = ok(v2, "--json", "reindex", "--vectors");
        assertThat(done.get("embedded").asInt()).isEqualTo(5);
        assertThat(done.get("stored").asInt()).isEqualTo(5);
        assertThat(vectors.inputs.subList(vectors.inputs.size() - 3, vectors.inputs.size()))
                .allSatisfy(batch -> assertThat(batch.size()).isLessThanOrEqualTo(2));
        assertThat(cli.query("SELECT DISTINCT fingerprint FROM embeddings")).hasSize(1)
                .allSatisfy(f -> assertThat(f).endsWith("|2"));
        assertThat(cli.query("SELECT memory_id FROM embeddings ORDER BY memory_id"))
                .containsExactlyInAnyOrderElementsOf(ids);
        assertThat(warnings(v2, "爬山")).noneSatisfy(w -> assertThat(w).contains(COVERAGE));
        // V1: version 1's vectors were replaced, so version 1 now has no coverage.
        assertThat(warnings(v1, "爬山")).anySatisfy(w -> assertThat(w).contains(COVERAGE).contains("5 of 5"));
    }

    @Test
    @DisplayName("V3 D1 C1 a memory deleted and another corrected while reindex --vectors embeds get no vector and "
            + "count as skipped; the correction's new memory is embedded")
    void reindexSkipsMemoriesChangedMeanwhile() {
        event("d1", "我住在杭州西湖边");
        event("c1", "我最喜欢的颜色是蓝色");
        event("k1", "我每天早上跑步五公里");
        String deleted = memory("d1", "我住在杭州西湖边");
        String corrected = memory("c1", "我最喜欢的颜色是蓝色");
        String kept = memory("k1", "我每天早上跑步五公里");
        List<String> sideEffects = new CopyOnWriteArrayList<>();
        vectors.hook = (n, texts) -> {
            if (n == 1) {
                // In-process, on the server's thread, while reindex waits for this answer.
                CliRunner other = new CliRunner(home);
                sideEffects.add(other.run("delete", "--memory", deleted).code() + " delete");
                sideEffects.add(other.run("memory", "correct", corrected, "--text", "我最喜欢的颜色是绿色").code()
                        + " correct");
            }
            return null;
        };

        JsonNode r = ok(cli, "--json", "reindex", "--vectors");
        assertThat(sideEffects).containsExactly("0 delete", "0 correct");
        assertThat(vectors.inputs.getFirst()).containsExactly("我住在杭州西湖边", "我最喜欢的颜色是蓝色", "我每天早上跑步五公里");
        assertThat(r.get("skipped").asInt()).as(r.toString()).isEqualTo(2);
        String replacement = cli.query("SELECT id FROM memories WHERE text = '我最喜欢的颜色是绿色'").getFirst();
        assertThat(cli.query("SELECT memory_id FROM embeddings ORDER BY memory_id"))
                .containsExactlyInAnyOrder(kept, replacement)
                .doesNotContain(deleted, corrected);
        assertThat(r.get("stored").asInt()).isEqualTo(2);
        assertThat(r.get("embedded").asInt()).isEqualTo(r.get("stored").asInt() + r.get("skipped").asInt());
        assertThat(cli.query("SELECT count(*) FROM memories WHERE id = '" + deleted + "'")).containsExactly("0");
        assertThat(warnings(cli, "跑步")).noneSatisfy(w -> assertThat(w).contains(COVERAGE));
    }

    @Test
    @DisplayName("V1 V4 V2 extraction embeds its memories; manual derivation and a changed JIYI_EMBED_VERSION leave "
            + "coverage incomplete, and semantic recall warns, until reindex --vectors")
    void coverageFollowsVersionAndManualDerivation() {
        answers.enqueue(chat(ZH_ANSWER));
        ok(cli, "--json", "event", "submit", "--id", "e1", "--role", "user", "--session", "s1", "--text", ZH,
                "--extract");
        assertThat(cli.rowCounts()).containsEntry("embeddings", 2L);
        assertThat(warnings(cli, "杭州")).noneSatisfy(w -> assertThat(w).contains(COVERAGE));

        memory("e1", "我叫小明");
        assertThat(warnings(cli, "杭州")).anySatisfy(w -> assertThat(w).contains(COVERAGE).contains("1 of 3"));
        assertThat(ok(cli, "--json", "reindex", "--vectors").get("stored").asInt()).isEqualTo(1);
        assertThat(warnings(cli, "杭州")).noneSatisfy(w -> assertThat(w).contains(COVERAGE));

        CliRunner v2 = MockModels.configure(new CliRunner(home), model, embed).env("JIYI_EMBED_VERSION", "2");
        assertThat(warnings(v2, "杭州")).anySatisfy(w -> assertThat(w).contains(COVERAGE).contains("3 of 3"));
        assertThat(ok(v2, "--json", "reindex", "--vectors").get("stored").asInt()).isEqualTo(3);
        assertThat(warnings(v2, "杭州")).noneSatisfy(w -> assertThat(w).contains(COVERAGE));
        // Fast recall never embeds the query and never warns about vectors.
        int requests = vectors.requests.get();
        JsonNode fast = ok(v2, "--json", "recall", "杭州");
        assertThat(fast.get("warnings")).isEmpty();
        assertThat(fast.get("results")).isNotEmpty();
        assertThat(vectors.requests.get()).isEqualTo(requests);
    }
}
