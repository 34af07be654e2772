package dev.jiyi.bench;

import dev.jiyi.authority.index.Candidate;

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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * The HNSW against exact scan harness end to end on 400 memories with clustered vectors of 32
 * dimensions, both formats and two knnCandidates values: a smoke test, not a measurement.
 */
class VectorRecallHarnessTest {

    @Test
    void runsOnFourHundredVectors(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Path json = dir.resolve("vectors.json");
        int code = VectorRecallHarness.command(out).execute("--sizes", "400", "--dimensions", "32", "--queries", "5",
                "--warmup", "1", "--knn-candidates", "100,20", "--chunk-size", "128",
                "--archives", dir.resolve("archives").toString(), "--json", json.toString());
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(printed).isZero();
        assertThat(printed)
                .contains("400 memories with a clustered vector of 32 dimensions each")
                .containsPattern("Lucene float index: built in [0-9.]+ s; directory [0-9.]+ MiB, of which vector files")
                .containsPattern("Lucene int8  index: built in [0-9.]+ s")
                .containsPattern("exact scan +p50 +[0-9.]+ +p99")
                .containsPattern("hnsw float cand 100 +p50 +[0-9.]+ .* [01]\\.[0-9]{3}")
                .containsPattern("hnsw int8 cand 20 +p50 ");

        JsonNode size = JsonMapper.builder().build().readTree(Files.readString(json)).get("sizes").get(0);
        assertThat(size.get("hnsw")).hasSize(4);
        for (JsonNode h : size.get("hnsw")) {
            if (h.get("knnCandidates").asInt() == 100) {
                // 100 candidates of 400 vectors, rescored exactly: the true ten are found.
                assertThat(h.get("recallAtK").asDouble()).as(h.toString()).isCloseTo(1.0, offset(0.05));
            }
        }
        for (JsonNode b : size.get("builds")) {
            assertThat(b.get("vectorBytes").asLong()).as(b.toString()).isPositive();
        }
    }

    @Test
    void recallIsTheShareOfTheTrueNearestFound() {
        List<Long> truth = List.of(1L, 2L, 3L, 4L);
        assertThat(VectorRecallHarness.recall(truth, List.of(new Candidate(2, 0.9), new Candidate(7, 0.8),
                new Candidate(4, 0.7)))).isEqualTo(0.5);
        assertThat(VectorRecallHarness.recall(List.of(), List.of())).isEqualTo(1.0);
    }

    @Test
    void clusteredVectorsAreSeededUnitVectors() {
        CachedArchive.VectorSpec spec = new CachedArchive.VectorSpec(64, CachedArchive.Distribution.CLUSTERED);
        CachedArchive.VectorSource a = new CachedArchive.VectorSource(spec, 11);
        CachedArchive.VectorSource b = new CachedArchive.VectorSource(spec, 11);
        for (int i = 0; i < 10; i++) {
            float[] v = a.next();
            assertThat(v).containsExactly(b.next());
            double sum = 0;
            for (float x : v) {
                sum += x * x;
            }
            assertThat(sum).isCloseTo(1.0, offset(1e-4));
        }
        assertThat(VectorRecallHarness.vectorFile("_0_Lucene99HnswVectorsFormat_0.vec")).isTrue();
        assertThat(VectorRecallHarness.vectorFile("_0.cfs")).isFalse();
    }
}
