package dev.jiyi.bench.quality;

import dev.jiyi.ranking.RecallConfig;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A smoke run of the recall-quality check on the two small MADial-Bench sets (LoCoMo takes a
 * minute and runs with {@code ./jiyi bench recall}): the figures must match the expected ones in
 * {@code expected-recall-quality.properties} (the file {@code bench recall --check} reads), and
 * beat the trigram baseline.
 */
class RecallQualitySmokeTest {

    static Path datasets() {
        for (Path p : List.of(Path.of("..", "..", "shared", "datasets"), Path.of("..", "shared", "datasets"))) {
            if (Files.isDirectory(p.resolve("madial-bench"))) {
                return p;
            }
        }
        return null;
    }

    @Test
    @DisplayName("R1 R3 R6 MADial-Bench zh and en: recall@5, @10 and MRR as expected, above the trigram FTS5 baseline; off-topic probes unanswered in Chinese")
    void madial() throws Exception {
        Path data = datasets();
        Assumptions.assumeTrue(data != null, "../shared/datasets is not present");
        Expected expected;
        try (InputStream in = getClass().getResourceAsStream("/expected-recall-quality.properties")) {
            Properties p = new Properties();
            p.load(in);
            expected = Expected.of(p);
        }
        List<RecallQuality.Row> rows = RecallQuality.run(data, List.of("madial-zh", "madial-en"), RecallConfig.DEFAULT);
        // Lexical recall is deterministic: every figure the file has for these rows is met exactly (to
        // its three decimals), neither worse nor better; a change that moves them updates the file.
        Expected.Outcome outcome = expected.check(rows);
        assertThat(outcome.verdicts()).as("figures checked").hasSizeGreaterThanOrEqualTo(rows.size() * 4);
        assertThat(outcome.verdicts()).as(outcome.table()).allMatch(v -> v.status() == Expected.Status.OK);
        for (RecallQuality.Row row : rows) {
            String k = row.dataset();
            assertThat(row.questions()).isEqualTo(160);
            assertThat(row.recall5()).as(k + " beats the trigram baseline").isGreaterThan(row.baseRecall5());
            // R6: the off-topic probes (12 per persona) find nothing in the Chinese archive; in the English
            // one, a probe that shares a word with the short memories still can (measured 0.17).
            assertThat(row.offTopicAny()).as(k + " off-topic probes answered")
                    .isLessThanOrEqualTo(k.equals("madial-zh") ? 0.0 : 0.2);
        }
    }
}
