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

/**
 * The FTS5 against Lucene harness end to end on 300 memories with 5 queries of each kind and 2
 * deletions, run twice on one archive cache: a smoke test, not a measurement.
 */
class LuceneRecallHarnessTest {

    @Test
    void runsOnThreeHundredMemoriesAndReusesTheArchive(@TempDir Path dir) throws Exception {
        String[] args = {"--sizes", "300", "--queries", "5", "--warmup", "1", "--deletions", "2",
                "--delete-sizes", "300", "--chunk-size", "128", "--archives", dir.resolve("archives").toString(),
                "--json", dir.resolve("lucene.json").toString()};
        String first = run(args);
        assertThat(first)
                .contains("building 300 memories in ")
                .contains("300 memories (and as many events) in one scope")
                .containsPattern("FTS5 index build \\(rebuild on open\\): [0-9.]+ s; FTS5 tables [0-9.]+ MiB \\([0-9]+%\\)")
                .containsPattern("Lucene index build \\(rebuild from the authority\\): [0-9.]+ s; directory [0-9.]+ MiB")
                .containsPattern("window +fts5 +5 .*\\| p50 +[0-9.]+ +p99")
                .containsPattern("common +lucene +5 ")
                .containsPattern("frequent +lucene +5 ")
                .containsPattern("long +fts5 +5 ")
                .containsPattern("2 deletions of one event and its memory: authority \\(FTS5 included\\) p50 +[0-9.]+")
                .contains("Lucene catch-up (delete, forceMergeDeletes, commit) p50");

        JsonNode size = JsonMapper.builder().build().readTree(Files.readString(dir.resolve("lucene.json")))
                .get("sizes").get(0);
        assertThat(size.get("memories").asInt()).isEqualTo(300);
        assertThat(size.get("timings")).hasSize(2 * LuceneRecallHarness.QueryKind.values().length);
        for (JsonNode t : size.get("timings")) {
            if (t.get("kind").asString().equals("COMMON")) {
                // 我, 的 and 了 are stop words (R6): neither index proposes anything.
                assertThat(t.get("meanCandidates").asDouble()).as(t.toString()).isZero();
            }
            if (t.get("kind").asString().equals("WINDOW")) {
                // A window of a stored text finds candidates in both indexes.
                assertThat(t.get("meanCandidates").asDouble()).as(t.toString()).isPositive();
            }
        }

        String second = run(args);
        assertThat(second).contains("reusing the archive ").doesNotContain("building 300 memories")
                .contains("(cached archive: build figures from when it was built)");
    }

    @Test
    void longQueriesMixChineseAndEnglish() {
        List<String> queries = LuceneRecallHarness.queries(LuceneRecallHarness.QueryKind.LONG, new ChatCorpus(5, "q"),
                20, new SplittableRandom(5));
        assertThat(queries).hasSize(20).allSatisfy(q -> {
            assertThat(q.length()).isGreaterThanOrEqualTo(LuceneRecallHarness.LONG_MIN);
            assertThat(SemanticHarness.Language.of(q)).isEqualTo(SemanticHarness.Language.MIXED);
        });
        assertThat(queries).isEqualTo(LuceneRecallHarness.queries(LuceneRecallHarness.QueryKind.LONG,
                new ChatCorpus(5, "q"), 20, new SplittableRandom(5)));
    }

    private static String run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = LuceneRecallHarness.command(out).execute(args);
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(printed).isZero();
        return printed;
    }
}
