package dev.jiyi.cli;

import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Semantic and deep recall with the local BGE small zh model (no embedding URL): memories derived by
 * hand, vectors built by {@code reindex --vectors}, then a query that shares no word with its
 * answer (R3, R5, V3, V4). Fast recall never loads the model nor calls an endpoint (R4). The model
 * loads once per JVM, so the whole class shares one home.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LocalSemanticTest {

    @TempDir
    static Path home;

    @TempDir
    Path logs;

    static CliRunner cli;
    static String cat;
    static String puppy;

    private static JsonNode ok(CliRunner runner, String... args) {
        CliRunner.Result r = runner.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
        return r.json();
    }

    private static String derive(String project, String id, String kind, String eventText, String memoryText) {
        ok(cli, "--json", "--project", project, "event", "submit", "--id", id, "--role", "user", "--session", "s-" + id,
                "--occurred-at", "2024-05-01T10:00:00+08:00", "--text", eventText);
        return ok(cli, "--json", "--project", project, "memory", "add", "--event", id, "--kind", kind, "--basis",
                "user_statement", "--text", memoryText, "--quote", memoryText).get("memory").get("id").asString();
    }

    @BeforeAll
    static void archive() {
        cli = new CliRunner(home);
        // Oldest first: the cat is the oldest memory of its scope (R5 below relies on it).
        cat = derive("default", "zh-cat", "fact", "我养了一只猫，它叫咪咪。", "我养了一只猫");
        derive("default", "zh-tax", "agreement", "明天要交税务报告。", "明天要交税务报告");
        derive("default", "zh-hike", "preference", "我喜欢在周末爬山。", "我喜欢在周末爬山");
        derive("default", "zh-rain", "observation", "今天下午下了一场大雨。", "今天下午下了一场大雨");
        puppy = derive("en", "en-puppy", "episode", "I adopted a puppy last week.", "I adopted a puppy last week");
        derive("en", "en-budget", "agreement", "The quarterly budget review is on Friday.",
                "The quarterly budget review is on Friday");
        derive("en", "en-tea", "preference", "I prefer green tea in the morning.", "I prefer green tea in the morning");
        for (String project : List.of("default", "en")) {
            JsonNode r = ok(cli, "--json", "--project", project, "reindex", "--vectors");
            assertThat(r.get("skipped").asInt()).isZero();
            assertThat(r.get("fingerprint").asString()).startsWith("local:bge-small-zh");
        }
        assertThat(cli.query("SELECT count(*) FROM embeddings WHERE dimensions = 512")).containsExactly("7");
    }

    private static JsonNode recall(String project, String query, String mode, CliRunner runner) {
        return ok(runner, "--json", "--project", project, "recall", query, "--mode", mode, "--explain");
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString()));
        return out;
    }

    private static void assertVectorHit(JsonNode result, String memoryId) {
        JsonNode first = result.get("results").get(0);
        assertThat(first).as(result.toString()).isNotNull();
        assertThat(first.get("memory_id").asString()).as(result.toString()).isEqualTo(memoryId);
        assertThat(first.get("evidence").asString()).isEqualTo("vector");
        // The similarity above the local model's threshold (0.5), rescaled: (c - 0.5) / (1 - 0.5).
        assertThat(first.get("explain").get("cosine").get("value").asDouble()).isGreaterThan(0.05);
        assertThat(first.get("explain").get("lexical").get("value").asDouble()).isZero();
        assertThat(strings(result.get("warnings"))).isEmpty();
    }

    @Test
    @DisplayName("R3 V3 宠物 finds 我养了一只猫 by vector alone in semantic and deep mode (cosine > 0.3), "
            + "while fast recall finds nothing: no shared word")
    void chineseSemantic() {
        assertThat(recall("default", "宠物", "fast", cli).get("results")).isEmpty();
        assertVectorHit(recall("default", "宠物", "semantic", cli), cat);
        assertVectorHit(recall("default", "宠物", "deep", cli), cat);
    }

    @Test
    @DisplayName("R6 R3 with the local model's own threshold (0.5), a semantic or deep query about nothing in the "
            + "archive returns nothing, in Chinese and English")
    void unrelatedQueriesFindNothing() {
        for (String q : List.of("量子物理", "xyz", "tax law in Norway")) {
            for (String mode : List.of("semantic", "deep")) {
                JsonNode r = recall("default", q, mode, cli);
                assertThat(r.get("results")).as(q + " " + mode + ": " + r).isEmpty();
            }
        }
    }

    @Test
    @DisplayName("R6 R11 the local (Chinese) model never answers an English query by vector alone: its English "
            + "similarities cannot tell unrelated from related, so do I have any pets? finds nothing; beside a "
            + "lexical match, the vector still adds its signal")
    void englishSemantic() {
        String q = "do I have any pets?";
        assertThat(recall("en", q, "fast", cli).get("results")).isEmpty();
        assertThat(recall("en", q, "semantic", cli).get("results")).isEmpty();
        assertThat(recall("en", q, "deep", cli).get("results")).isEmpty();
        JsonNode withWord = recall("en", "my puppy, do I have pets?", "deep", cli);
        assertThat(withWord.get("results").get(0).get("memory_id").asString()).isEqualTo(puppy);
        assertThat(withWord.get("results").get(0).get("explain").get("lexical").get("value").asDouble()).isPositive();
    }

    @Test
    @DisplayName("R5 with JIYI_RECALL_SEMANTIC_LIMIT=2 semantic mode warns it compared only the 2 most recent and "
            + "misses the older cat; deep mode compares all and finds it")
    void semanticLimit() {
        CliRunner limited = new CliRunner(home).env("JIYI_RECALL_SEMANTIC_LIMIT", "2");
        JsonNode semantic = recall("default", "宠物", "semantic", limited);
        assertThat(strings(semantic.get("warnings")))
                .anySatisfy(w -> assertThat(w).contains("compared the 2 most recent of 4").contains("--mode deep"));
        List<String> found = new ArrayList<>();
        semantic.get("results").forEach(r -> found.add(r.get("memory_id").asString()));
        assertThat(found).doesNotContain(cat);

        JsonNode deep = recall("default", "宠物", "deep", limited);
        assertThat(strings(deep.get("warnings"))).noneSatisfy(w -> assertThat(w).contains("most recent"));
        assertVectorHit(deep, cat);
    }

    @Test
    @DisplayName("R4 fast recall in its own JVM loads no class of langchain4j, ONNX Runtime or DJL")
    void fastRecallLoadsNoModel() throws Exception {
        ProcessBuilder pb = cli.process("--json", "recall", "猫", "--mode", "fast");
        pb.command().add(1, "-verbose:class");
        Path out = logs.resolve("verbose.out");
        pb.redirectOutput(out.toFile());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("fast recall finished").isTrue();
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())))
                .isZero();
        List<String> loaded = lines.stream().filter(l -> l.contains("[class,load]")).toList();
        // The flag worked and the recall really ran.
        assertThat(loaded).anySatisfy(l -> assertThat(l).contains("dev.jiyi.ranking.Recall "));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("{").contains(cat));
        assertThat(loaded).noneSatisfy(l -> assertThat(l).containsAnyOf(" dev.langchain4j.", " ai.onnxruntime.",
                " ai.djl."));
    }

    @Test
    @DisplayName("R4 with an embedding endpoint configured, fast recall makes no request, semantic recall does")
    void fastRecallCallsNoEndpoint() throws Exception {
        try (MockWebServer embed = new MockWebServer()) {
            MockModels.Embeddings vectors = new MockModels.Embeddings();
            embed.setDispatcher(vectors);
            embed.start();
            CliRunner remote = MockModels.embedWith(new CliRunner(home), embed);
            JsonNode fast = recall("default", "猫", "fast", remote);
            assertThat(fast.get("results").get(0).get("memory_id").asString()).isEqualTo(cat);
            assertThat(embed.getRequestCount()).isZero();
            JsonNode semantic = recall("default", "猫", "semantic", remote);
            assertThat(embed.getRequestCount()).isGreaterThanOrEqualTo(1);
            assertThat(vectors.allTexts()).contains("猫");
            // Its vectors are of another fingerprint: none of the local model's is used (V1).
            assertThat(strings(semantic.get("warnings"))).anySatisfy(w -> assertThat(w)
                    .contains("vector coverage incomplete").contains("4 of 4"));
        }
    }
}
