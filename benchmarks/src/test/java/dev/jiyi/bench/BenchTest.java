package dev.jiyi.bench;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The benchmarks' one entry point runs every harness the launcher accepts, by the same names. */
class BenchTest {

    @Test
    @DisplayName("Bench knows exactly the launcher's harness names, in its order")
    void namesAgreeWithTheLauncher() throws IOException {
        Path launcher = Path.of("").toAbsolutePath().getParent().resolve("jiyi");
        Matcher m = Pattern.compile("(?m)^\\s+((?:[a-z-]+\\|)+[a-z-]+)\\) ;;").matcher(Files.readString(launcher));
        assertThat(m.find()).isTrue();
        List<String> names = Arrays.stream(Bench.Harness.values()).map(Bench.Harness::command).toList();
        assertThat(names).containsExactly(m.group(1).split("\\|"));
        assertThat(Bench.Harness.named("jmh-report")).isEqualTo(Bench.Harness.JMH_REPORT);
        assertThat(Bench.Harness.named("nope")).isNull();
    }

    @Test
    @DisplayName("a harness run through Bench returns its exit code: the JMH report and a picocli harness refuse bad arguments with 2")
    void harnessReturnsItsExitCode() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Bench.Harness.JMH_REPORT.run(new String[] {"only-one"}, new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(2);
        assertThat(Bench.Harness.GUARD.run(new String[] {"--no-such-option"}, new PrintStream(out, true, StandardCharsets.UTF_8)))
                .as("picocli's usage error").isEqualTo(2);
    }
}
