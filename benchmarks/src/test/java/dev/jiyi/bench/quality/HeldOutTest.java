package dev.jiyi.bench.quality;

import dev.jiyi.ranking.RecallConfig;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@code bench heldout} against the application jar the build just packaged (the cli module is built
 * before this one): a scenario through the command line scores what {@code bench recall} measures
 * in process, Chinese and English alike.
 */
class HeldOutTest {

    private static final Path JAR = Path.of("..", "cli", "target", "jiyi.jar").toAbsolutePath().normalize();

    private static final PrintStream QUIET = new PrintStream(java.io.OutputStream.nullOutputStream());

    @Test
    @DisplayName("B2 a twenty-row home through the CLI: the same R@5 and off-topic rate as bench recall in process")
    void throughTheCommandLine(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(JAR), "the application jar is built (mvn verify from the root)");
        Scenario home = SmallHome.build();

        HeldOut.Score cli = HeldOut.measure(home, JAR, dir, "fast", "fts5");

        RecallQuality.Row inProcess = RecallQuality.evaluate(home, 0,
                RecallQuality.Plan.fast(null, List.of(home.name()), RecallConfig.DEFAULT, "fts5"), null, QUIET).getFirst();
        assertThat(cli.questions()).isEqualTo(inProcess.questions()).isPositive();
        assertThat(cli.recall5()).isCloseTo(inProcess.recall5(), within(1e-9));
        assertThat(cli.probes()).isEqualTo(Calibration.OFF_TOPIC.size());
        assertThat((double) cli.probesAnswered() / cli.probes()).isCloseTo(inProcess.offTopicAny(), within(1e-9));
        assertThat(Files.readString(dir.resolve("requests.jsonl"))).doesNotContain("\"gold\"");
    }

    @Test
    @DisplayName("B2 bad arguments exit 2 naming the option; a jar that is not jiyi's exits 1 naming the command")
    void badArgumentsAndABrokenBuild(@TempDir Path dir) throws Exception {
        for (String[] args : List.of(new String[] {"--datasets", "nope"}, new String[] {"--mode", "psychic"},
                new String[] {"--index", "elastic"}, new String[] {"--jar", dir.resolve("none.jar").toString()},
                new String[] {"--frobnicate"}, new String[] {"--jar"})) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = HeldOut.run(args, QUIET, new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(code).as(String.join(" ", args)).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("bench heldout: ");
        }
        Path broken = Files.writeString(dir.resolve("broken.jar"), "not a jar");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = HeldOut.run(new String[] {"--jar", broken.toString(), "--datasets", SmallHome.NAME, "--work",
                dir.resolve("work").toString()}, QUIET, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("bench heldout: event submit exited 1");
    }
}
