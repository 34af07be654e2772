package dev.jiyi.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The harness end to end on 200 events, spawned runs skipped: a smoke test, not a measurement. */
class IngestHarnessTest {

    @Test
    void runsOnTwoHundredEvents() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new IngestHarness(out)).execute("--single", "200", "--batch", "200",
                "--chunk-size", "50", "--no-spawn");
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(printed).isZero();
        assertThat(printed)
                .contains("jieba dictionary load: ")
                .contains("single commit: 200 events in ")
                .contains("batch file: 200 events")
                .contains("event submit --batch, in this JVM (the engine): 200 events in ")
                .contains("tokenization alone (ChineseTokens.indexText, second pass over the batch texts): 200 texts")
                .contains("spawned runs: skipped");
    }

    @Test
    void percentilesAndMedian() {
        long[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertThat(IngestHarness.percentile(sorted, 50)).isEqualTo(5);
        assertThat(IngestHarness.percentile(sorted, 99)).isEqualTo(10);
        assertThat(IngestHarness.median(new long[] {5, 1, 3, 9, 7})).isEqualTo(5.0);
        assertThat(IngestHarness.median(new long[] {4, 1, 3, 2})).isEqualTo(2.5);
    }
}
