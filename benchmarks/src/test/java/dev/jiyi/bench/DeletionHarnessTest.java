package dev.jiyi.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The deletion harness end to end on a 400-event archive: a smoke test, not a measurement. */
class DeletionHarnessTest {

    @Test
    void runsOnFourHundredEvents() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = new CommandLine(new DeletionHarness(out)).execute("--sizes", "400", "--deletions", "5");
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(code).as(printed).isZero();
        // 400 events, 200 memories and 2 corrections; each deletion removes an event and its memory at least.
        assertThat(printed).contains("400 events, 202 memories").contains("(5 deletions, ")
                .containsPattern("deletion p50 [0-9.]+ ms");
    }
}
