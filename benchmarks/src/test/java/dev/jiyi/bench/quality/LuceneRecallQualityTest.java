package dev.jiyi.bench.quality;

import dev.jiyi.ranking.RecallConfig;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recall-quality check with {@code --index lucene} on MADial-Bench zh: it runs on the Lucene
 * index and, like FTS5, beats the trigram baseline. The expected figures stay FTS5's
 * ({@link RecallQualitySmokeTest}); Lucene's are reported, not pinned, while its analysis settles.
 */
class LuceneRecallQualityTest {

    @Test
    @DisplayName("R1 MADial-Bench zh on the Lucene index: every question runs, above the trigram FTS5 baseline")
    void madialOnLucene() throws Exception {
        Path data = RecallQualitySmokeTest.datasets();
        Assumptions.assumeTrue(data != null, "../shared/datasets is not present");
        List<RecallQuality.Row> rows = RecallQuality.run(data, List.of("madial-zh"), RecallConfig.DEFAULT, "lucene");
        assertThat(rows).hasSize(1);
        RecallQuality.Row row = rows.getFirst();
        assertThat(row.questions()).isEqualTo(160);
        assertThat(row.recall5()).as("recall@5 on lucene beats the trigram baseline").isGreaterThan(row.baseRecall5());
    }
}
