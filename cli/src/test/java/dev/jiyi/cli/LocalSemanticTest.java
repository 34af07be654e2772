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
 * Semantic and deep recall with the bundled models (no embedding URL): BGE small zh for memories
 * with Chinese, BGE small en for the others. Memories derived by hand, vectors built by
 * {@code reindex --vectors}, then a query that shares no word with its answer (R3, R5, V1, V3, V4).
 * Fast recall never loads a model nor calls an endpoint (R4). The models load once per JVM, so the
 * whole class shares one home.
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
    static String orangeCat;
    static String englishCat;

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
        // A new user's first home: five messages, Chinese and English, kept as they were written.
        orangeCat = derive("home5", "h-cat", "fact", "我养了一只橘猫", "我养了一只橘猫");
        derive("home5", "h-work", "fact", "我在上海工作", "我在上海工作");
        derive("home5", "h-tea", "preference", "我喜欢喝乌龙茶", "我喜欢喝乌龙茶");
        englishCat = derive("home5", "h-en-cat", "fact", "I have a cat", "I have a cat");
        derive("home5", "h-sister", "fact", "My sister lives in Boston", "My sister lives in Boston");
        for (String project : List.of("default", "en", "home5")) {
            JsonNode r = ok(cli, "--json", "--project", project, "reindex", "--vectors");
            assertThat(r.get("skipped").asInt()).isZero();
            assertThat(r.get("fingerprint").asString()).startsWith("local:bge-small-zh");
            assertThat(strings(r.get("fingerprints"))).hasSize(2)
                    .anySatisfy(f -> assertThat(f).startsWith("local:bge-small-en-v1.5-q@"));
        }
        // V1: each memory has the vector of its language's model.
        assertThat(cli.query("SELECT count(*) FROM embeddings WHERE dimensions = 512 AND fingerprint LIKE '%bge-small-zh%'"))
                .containsExactly("7");
        assertThat(cli.query("SELECT count(*) FROM embeddings WHERE dimensions = 384 AND fingerprint LIKE '%bge-small-en%'"))
                .containsExactly("5");
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
    @DisplayName("R6 R3 with the bundled models' own thresholds, a semantic or deep query about nothing in the "
            + "archive returns nothing, in Chinese and English, in a Chinese and an English scope")
    void unrelatedQueriesFindNothing() {
        for (String project : List.of("default", "en")) {
            for (String q : List.of("量子物理", "xyz", "tax law in Norway")) {
                for (String mode : List.of("semantic", "deep")) {
                    JsonNode r = recall(project, q, mode, cli);
                    assertThat(r.get("results")).as(project + ": " + q + " " + mode + ": " + r).isEmpty();
                }
            }
        }
    }

    @Test
    @DisplayName("R3 V1 English memories have the English model's vectors: do I have any pets? finds the puppy by "
            + "vector alone in semantic and deep mode, fast recall nothing; beside a lexical match, the vector "
            + "still adds its signal")
    void englishSemantic() {
        String q = "do I have any pets?";
        assertThat(recall("en", q, "fast", cli).get("results")).isEmpty();
        assertVectorHit(recall("en", q, "semantic", cli), puppy);
        assertVectorHit(recall("en", q, "deep", cli), puppy);
        JsonNode withWord = recall("en", "my puppy, do I have pets?", "deep", cli);
        assertThat(withWord.get("results").get(0).get("memory_id").asString()).isEqualTo(puppy);
        assertThat(withWord.get("results").get(0).get("explain").get("lexical").get("value").asDouble()).isPositive();
        assertThat(withWord.get("results").get(0).get("explain").get("cosine").get("value").asDouble()).isPositive();
    }

    @Test
    @DisplayName("R3 R6 in a five-row home, semantic mode finds 我养了一只橘猫 for 宠物 and I have a cat for pet, "
            + "each by its language's model; unrelated questions, Chinese and English, find nothing")
    void smallHome() {
        for (String mode : List.of("semantic", "deep")) {
            JsonNode zh = recall("home5", "宠物", mode, cli);
            assertVectorHit(zh, orangeCat);
            assertThat(zh.get("results")).hasSize(1); // the English cat is in another model's space
            JsonNode en = recall("home5", "pet", mode, cli);
            assertVectorHit(en, englishCat);
            assertThat(en.get("results")).hasSize(1);
            for (String q : List.of("量子色动力学的渐近自由", "今天上证指数收盘是多少点？", "What is the capital of France?",
                    "How do I bake sourdough bread?", "tax law in Norway", "xyz")) {
                JsonNode r = recall("home5", q, mode, cli);
                assertThat(r.get("results")).as(q + " " + mode + ": " + r).isEmpty();
            }
        }
        assertThat(recall("home5", "宠物", "fast", cli).get("results")).isEmpty();
        assertThat(recall("home5", "pet", "fast", cli).get("results")).isEmpty();
        // The Lucene index keeps each model's vectors in a field of its own (HNSW in deep mode).
        for (String[] q : new String[][]{{"宠物", orangeCat}, {"pet", englishCat}}) {
            JsonNode lucene = ok(cli, "--json", "--project", "home5", "recall", q[0], "--mode", "deep", "--index",
                    "lucene", "--explain");
            assertVectorHit(lucene, q[1]);
            assertThat(lucene.get("results")).hasSize(1);
        }
    }

    @Test
    @DisplayName("V2 V1 an extraction with Chinese, English and mixed memories and no embedding URL: each memory "
            + "is embedded at once by its language's bundled model, and semantic recall finds them")
    void extractionEmbedsByLanguage(@TempDir Path own) throws Exception {
        try (MockWebServer model = new MockWebServer()) {
            MockModels.queue(model);
            model.start();
            model.enqueue(MockModels.chat(MockModels.memories(
                    MockModels.item("我养了一只橘猫", "我养了一只橘猫", "fact", "user_statement", 0.9),
                    MockModels.item("I have a cat named Mochi", "I have a cat named Mochi", "fact", "user_statement", 0.9),
                    MockModels.item("我每天用 Java 写代码", "我每天用 Java 写代码", "fact", "user_statement", 0.9))));
            CliRunner runner = new CliRunner(own).env("JIYI_EXTRACT_URL", model.url("/v1").toString())
                    .env("JIYI_EXTRACT_MODEL", MockModels.MODEL).env("JIYI_EXTRACT_TIMEOUT_SECONDS", "10");
            JsonNode x = ok(runner, "--json", "event", "submit", "--id", "x-1", "--role", "user", "--extract",
                    "--occurred-at", "2024-05-01T10:00:00+08:00",
                    "--text", "我养了一只橘猫。I have a cat named Mochi. 我每天用 Java 写代码。").get("extraction");
            assertThat(x.get("vectors").get("stored").asInt()).as(x.toString()).isEqualTo(3);
            assertThat(runner.query("SELECT m.text || ' ' || e.dimensions FROM memories m JOIN embeddings e "
                    + "ON e.memory_seq = m.seq ORDER BY m.seq")).containsExactly("我养了一只橘猫 512",
                    "I have a cat named Mochi 384", "我每天用 Java 写代码 512");
            assertThat(ok(runner, "--json", "recall", "宠物", "--mode", "semantic").get("results").get(0)
                    .get("text").asString()).isEqualTo("我养了一只橘猫");
            // A single English word sits near the model's threshold (pet · this memory 0.537); a question clears it.
            assertThat(ok(runner, "--json", "recall", "What pet do I have?", "--mode", "semantic").get("results").get(0)
                    .get("text").asString()).isEqualTo("I have a cat named Mochi");
        }
    }

    @Test
    @DisplayName("V1 a user's own ONNX model (embed.onnx.*: here the bundled Chinese model's own files, copied out "
            + "of its jar) embeds every memory, whatever its language, under its own fingerprint, and answers "
            + "宠物 with 我养了一只猫; V4 back on the bundled models, coverage is incomplete until reindex")
    void usersOwnModel(@TempDir Path own) throws Exception {
        Path model = own.resolve("model.onnx");
        Path tokenizer = own.resolve("tokenizer.json");
        ClassLoader jar = dev.langchain4j.model.embedding.onnx.bgesmallzhv15q.BgeSmallZhV15QuantizedEmbeddingModel.class
                .getClassLoader();
        try (var in = jar.getResourceAsStream("bge-small-zh-v1.5-q.onnx")) {
            Files.copy(in, model);
        }
        try (var in = jar.getResourceAsStream("bge-small-zh-v1.5-q-tokenizer.json")) {
            Files.copy(in, tokenizer);
        }
        CliRunner runner = new CliRunner(own.resolve("home")).env("JIYI_EMBED_ONNX_MODEL", model.toString())
                .env("JIYI_EMBED_ONNX_TOKENIZER", tokenizer.toString()).env("JIYI_EMBED_ONNX_POOLING", "cls")
                .env("JIYI_EMBED_ONNX_STANDALONE_THRESHOLD", "0.55").env("JIYI_RECALL_COSINE_THRESHOLD", "0.5");
        for (String[] m : new String[][]{{"o-cat", "我养了一只猫"}, {"o-tax", "明天要交税务报告"}, {"o-en", "I prefer green tea"}}) {
            ok(runner, "--json", "event", "submit", "--id", m[0], "--role", "user", "--occurred-at",
                    "2024-05-01T10:00:00+08:00", "--text", m[1]);
            ok(runner, "--json", "memory", "add", "--event", m[0], "--kind", "fact", "--basis", "user_statement",
                    "--text", m[1], "--quote", m[1]);
        }
        JsonNode r = ok(runner, "--json", "reindex", "--vectors");
        assertThat(r.get("embedded").asInt()).isEqualTo(3);
        assertThat(strings(r.get("fingerprints"))).singleElement().asString()
                .matches("local:onnx@[0-9a-f]{16}-cls\\|1");
        assertThat(runner.query("SELECT count(DISTINCT fingerprint) || ' ' || min(dimensions) FROM embeddings"))
                .containsExactly("1 512");
        JsonNode pet = ok(runner, "--json", "recall", "宠物", "--mode", "semantic", "--explain");
        assertThat(pet.get("results")).hasSize(1);
        assertThat(pet.get("results").get(0).get("text").asString()).isEqualTo("我养了一只猫");
        assertThat(strings(pet.get("warnings"))).isEmpty();

        // V4: back to the bundled models, no vector is of theirs until reindex, which embeds each
        // memory with its language's model and replaces the user's model's vector.
        CliRunner bundled = new CliRunner(own.resolve("home"));
        assertThat(strings(ok(bundled, "--json", "recall", "宠物", "--mode", "semantic").get("warnings")))
                .anySatisfy(w -> assertThat(w).contains("vector coverage incomplete: 3 of 3"));
        assertThat(ok(bundled, "--json", "reindex", "--vectors").get("embedded").asInt()).isEqualTo(3);
        assertThat(bundled.query("SELECT dimensions || ' ' || substr(fingerprint, 1, 25) FROM embeddings ORDER BY memory_seq"))
                .containsExactly("512 local:bge-small-zh-v1.5-q", "512 local:bge-small-zh-v1.5-q",
                        "384 local:bge-small-en-v1.5-q");
        JsonNode again = ok(bundled, "--json", "recall", "宠物", "--mode", "semantic");
        assertThat(again.get("results").get(0).get("text").asString()).isEqualTo("我养了一只猫");
        assertThat(strings(again.get("warnings"))).isEmpty();
    }

    @Test
    @DisplayName("V4 a home embedded before there was a model per language: doctor counts the English memory that "
            + "has the Chinese model's vector (healthy all the same), and reindex --vectors gives it its own")
    void upgradedHome(@TempDir Path own) throws Exception {
        CliRunner runner = new CliRunner(own);
        ok(runner, "--json", "event", "submit", "--id", "u-en", "--role", "user", "--occurred-at",
                "2024-05-01T10:00:00+08:00", "--text", "I have a cat");
        String english = ok(runner, "--json", "memory", "add", "--event", "u-en", "--kind", "fact", "--basis",
                "user_statement", "--text", "I have a cat", "--quote", "I have a cat").get("memory").get("id").asString();
        // What an earlier build stored: the Chinese model's vector for an English memory.
        dev.jiyi.providers.LocalEmbedder chinese = new dev.jiyi.providers.LocalEmbedder(
                dev.jiyi.providers.LocalModel.BGE_SMALL_ZH, "1");
        try (dev.jiyi.engine.Jiyi jiyi = dev.jiyi.engine.Jiyi.open(own)) {
            assertThat(jiyi.authority().storeVectors(chinese.fingerprint(), List.of(new dev.jiyi.authority.VectorCache.NewVector(
                    english, dev.jiyi.authority.VectorCache.contentHash("I have a cat"), chinese.embed("I have a cat"))))
                    .stored()).isEqualTo(1);
        }
        JsonNode before = ok(runner, "--json", "doctor");
        assertThat(before.get("healthy").asBoolean()).isTrue();
        assertThat(before.get("vectors_of_other_language").asLong()).isEqualTo(1);
        CliRunner.Result text = runner.run("doctor");
        assertThat(text.out()).contains("vectors: 1 memories have the other language's model's vector");

        assertThat(ok(runner, "--json", "reindex", "--vectors").get("embedded").asInt()).isEqualTo(1);
        assertThat(runner.query("SELECT dimensions FROM embeddings")).containsExactly("384");
        assertThat(ok(runner, "--json", "doctor").get("vectors_of_other_language").asLong()).isZero();
    }

    @Test
    @DisplayName("V1 a user's model configured wrong is refused naming the setting and the rule, never the path: "
            + "no tokenizer, a pooling other than cls or mean, a file that cannot be read, a relative path")
    void usersOwnModelConfiguredWrong(@TempDir Path own) throws Exception {
        Path model = Files.writeString(own.resolve("m.onnx"), "not a model");
        String secret = own.resolve("secret-dir/none.json").toString();
        String[][] cases = {
                {"JIYI_EMBED_ONNX_MODEL", model.toString(), "JIYI_EMBED_ONNX_POOLING", "cls",
                        "embed.onnx.tokenizer: is required with embed.onnx.model"},
                {"JIYI_EMBED_ONNX_TOKENIZER", model.toString(), "JIYI_EMBED_ONNX_POOLING", "max",
                        "embed.onnx.pooling: must be cls or mean"},
                {"JIYI_EMBED_ONNX_TOKENIZER", secret, "JIYI_EMBED_ONNX_POOLING", "mean",
                        "embed.onnx.tokenizer: must be a readable file"},
                {"JIYI_EMBED_ONNX_TOKENIZER", "secret-dir/tokenizer.json", "JIYI_EMBED_ONNX_POOLING", "mean",
                        "embed.onnx.tokenizer: must be an absolute path"}};
        for (String[] c : cases) {
            CliRunner runner = new CliRunner(own.resolve("home")).env("JIYI_EMBED_ONNX_MODEL", model.toString())
                    .env(c[0], c[1]).env(c[2], c[3]);
            CliRunner.Result r = runner.run("--json", "reindex", "--vectors");
            assertThat(r.code()).as(r.toString()).isNotZero();
            assertThat(r.toString()).contains(c[4]).doesNotContain("secret-dir").doesNotContain("m.onnx");
        }
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
    @DisplayName("R5 V1 with JIYI_RECALL_SEMANTIC_LIMIT=2 a home with both models compares the 2 most recent "
            + "vectors in all (the two English ones), not 2 of each model, and says so, on FTS5 and on Lucene; pet "
            + "still finds cat, 宠物 not the older 橘猫")
    void semanticLimitAcrossModels() {
        CliRunner limited = new CliRunner(home).env("JIYI_RECALL_SEMANTIC_LIMIT", "2");
        for (String index : List.of("fts5", "lucene")) {
            for (String[] q : new String[][] {{"pet", englishCat}, {"宠物", orangeCat}}) {
                JsonNode r = ok(limited, "--json", "--project", "home5", "recall", q[0], "--mode", "semantic",
                        "--index", index, "--explain");
                assertThat(strings(r.get("warnings"))).as(index + " " + q[0])
                        .anySatisfy(w -> assertThat(w).contains("compared the 2 most recent of 5"));
                List<String> found = new ArrayList<>();
                r.get("results").forEach(item -> found.add(item.get("memory_id").asString()));
                if (q[1].equals(englishCat)) {
                    assertThat(found).as(index + " " + q[0]).contains(englishCat);
                } else {
                    assertThat(found).as(index + " " + q[0]).doesNotContain(orangeCat);
                }
            }
        }
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
