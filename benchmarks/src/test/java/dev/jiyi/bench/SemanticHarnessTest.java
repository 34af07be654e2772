package dev.jiyi.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * The semantic harness end to end on 300 memories with random vectors and 5 queries: a smoke test,
 * not a measurement. It loads the local model once, for the query embeddings.
 */
class SemanticHarnessTest {

    @Test
    void runsOnThreeHundredMemories(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Path json = dir.resolve("semantic.json");
        int code = SemanticHarness.command(out).execute("--sizes", "300", "--queries", "5", "--vectors", "random",
                "--embed-texts", "16", "--batches", "8", "--chunk-size", "128", "--json", json.toString());
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(printed).isZero();
        assertThat(printed)
                .contains("local embedding model local:bge-small-zh-v1.5-q")
                .contains("calls of 8 texts, all    :   16 texts")
                .contains("one query alone (5 queries")
                .contains("300 memories (random (seeded unit vectors under the local model's fingerprint) vectors)")
                .containsPattern("fast     recall: p50 [0-9.]+ ms")
                .containsPattern("semantic recall: p50 [0-9.]+ ms, p95 [0-9.]+ ms, max [0-9.]+ ms; without the query embedding p50")
                .containsPattern("deep     recall: p50 [0-9.]+ ms")
                .contains("vector scan alone, 2,000 most recent (semantic): ")
                .contains("vector scan alone, all vectors (deep): ")
                .containsPattern("vector coverage count alone \\(made by every semantic and deep recall\\): p50 [0-9.]+ ms");

        JsonNode report = JsonMapper.builder().build().readTree(Files.readString(json));
        JsonNode size = report.get("sizes").get(0);
        assertThat(size.get("memories").asInt()).isEqualTo(300);
        assertThat(size.get("vectors").asString()).isEqualTo("RANDOM");
        assertThat(size.get("modes")).hasSize(3);
        // Random vectors are nearly orthogonal to any query: none passes the cosine threshold.
        assertThat(size.get("scans").get(1).get("meanAboveThreshold").asDouble()).isZero();
    }

    @Test
    void queriesAreShortExactWindowsOfCorpusTextsInEveryLanguage() {
        List<String> queries = SemanticHarness.queries(new ChatCorpus(3, "q"), 200, new SplittableRandom(3));
        List<String> again = SemanticHarness.queries(new ChatCorpus(3, "q"), 200, new SplittableRandom(3));
        assertThat(queries).isEqualTo(again);
        List<String> texts = new ChatCorpus(3, "q").nextEvents(200).stream().map(e -> e.text()).toList();
        for (int i = 0; i < queries.size(); i++) {
            assertThat(texts.get(i)).contains(queries.get(i));
            assertThat(queries.get(i)).isNotBlank().hasSizeLessThanOrEqualTo(SemanticHarness.QUERY_MAX);
        }
        assertThat(queries).extracting(SemanticHarness.Language::of)
                .contains(SemanticHarness.Language.CHINESE, SemanticHarness.Language.ENGLISH,
                        SemanticHarness.Language.MIXED);
    }

    @Test
    void randomVectorsAreSeededUnitVectors() {
        List<float[]> a = SemanticHarness.randomUnitVectors(new SplittableRandom(9), 3, 512);
        List<float[]> b = SemanticHarness.randomUnitVectors(new SplittableRandom(9), 3, 512);
        assertThat(a).hasSize(3);
        for (int i = 0; i < a.size(); i++) {
            assertThat(a.get(i)).containsExactly(b.get(i));
            double sum = 0;
            for (float x : a.get(i)) {
                sum += x * x;
            }
            assertThat(sum).isCloseTo(1.0, offset(1e-4));
        }
    }
}
