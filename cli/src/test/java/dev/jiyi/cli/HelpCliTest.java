package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line as a newcomer meets it: {@code jiyi} alone, the command list, {@code jiyi bench}. */
class HelpCliTest {

    @TempDir
    Path dir;

    private CliRunner cli() {
        return new CliRunner(dir.resolve("home"));
    }

    @Test
    @DisplayName("jiyi with no command prints every command with its summary on stdout, exits 0 and creates nothing")
    void noCommand() {
        CliRunner.Result r = cli().run();

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).startsWith("Usage: jiyi").contains("Commands:", "jiyi COMMAND --help", "Exit codes:");
        String flat = r.out().replaceAll("\\s+", " ");
        for (Map.Entry<String, String> c : summaries().entrySet()) {
            assertThat(r.out()).as(c.getKey()).containsPattern("(?m)^  " + Pattern.quote(c.getKey()) + " ");
            assertThat(flat).as(c.getKey()).contains(c.getKey() + " " + c.getValue());
        }
        assertThat(JiyiCommand.COMMANDS).containsKeys("bench", "resume", "mcp", "probe");
        assertThat(dir.resolve("home")).doesNotExist();
    }

    @Test
    @DisplayName("jiyi --json with no command is one object listing every command in help order")
    void noCommandJson() {
        CliRunner.Result r = cli().run("--json");

        assertThat(r.code()).as(r.toString()).isZero();
        List<String> names = new ArrayList<>();
        for (JsonNode c : r.json().path("commands")) {
            names.add(c.path("name").stringValue());
            assertThat(c.path("summary").stringValue()).isEqualTo(summaries().get(c.path("name").stringValue()));
        }
        assertThat(names).containsExactlyElementsOf(JiyiCommand.COMMANDS.keySet());
    }

    @Test
    @DisplayName("--help shows the same list as no command at all")
    void helpIsTheSame() {
        assertThat(cli().run("--help").out()).isEqualTo(cli().run().out());
    }

    @Test
    @DisplayName("every command's and subcommand's summary (the first description line) is one whole sentence")
    void summariesAreSentences() {
        List<String> checked = new ArrayList<>();
        walk(tree(), "jiyi", (path, summary) -> {
            checked.add(path);
            assertThat(summary).as(path).matches("[A-Z].*[a-z0-9)]\\.");
            assertThat(summary).as(path + ": one sentence").doesNotContainPattern("[.;:] [A-Z]");
            assertThat(count(summary, '(')).as(path + ": brackets").isEqualTo(count(summary, ')'));
            assertThat(count(summary, '{')).as(path + ": braces").isEqualTo(count(summary, '}'));
            assertThat(count(summary, '"') % 2).as(path + ": quotes").isZero();
        });
        assertThat(checked).contains("jiyi delete", "jiyi reindex", "jiyi memory add", "jiyi memory correct",
                "jiyi event submit", "jiyi bench", "jiyi probe", "jiyi resume", "jiyi mcp");
    }

    @Test
    @DisplayName("jiyi bench from the application jar says to use the ./jiyi launcher, lists the harnesses, exits 2")
    void benchFromTheJar() {
        for (String[] args : List.of(new String[] {"bench"}, new String[] {"bench", "lucene", "--sizes", "10000"},
                new String[] {"bench", "no-such-harness"})) {
            CliRunner.Result r = cli().run(args);

            assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
            assertThat(r.out()).isEmpty();
            assertThat(r.err()).contains("./jiyi launcher", "source checkout", "does not contain them")
                    .doesNotContain("unknown option");
            for (BenchCommand.Harness h : BenchCommand.Harness.values()) {
                assertThat(r.err()).containsPattern("(?m)^  " + h.command() + " ");
            }
        }
        assertThat(dir.resolve("home")).doesNotExist();

        CliRunner.Result json = cli().run("--json", "bench", "recall");
        assertThat(json.code()).isEqualTo(ExitCode.INVALID);
        JsonNode error = Output.mapper().readTree(json.err().strip());
        assertThat(error.path("error").stringValue()).isEqualTo("invalid_input");
        assertThat(error.path("message").stringValue()).contains("./jiyi launcher", "recall|heldout|ingest|");
    }

    @Test
    @DisplayName("jiyi bench --help describes every harness and how to run it through the launcher")
    void benchHelp() {
        CliRunner.Result r = cli().run("bench", "--help");

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("./jiyi bench HARNESS [OPTIONS]", "source checkout", "docs/benchmarks.md");
        for (BenchCommand.Harness h : BenchCommand.Harness.values()) {
            assertThat(r.out()).containsPattern("(?m)^  " + h.command() + " ");
        }
        for (String line : r.out().split("\n")) {
            assertThat(SideBySide.width(line)).as(line).isLessThanOrEqualTo(80);
        }
    }

    @Test
    @DisplayName("the harness list agrees with the ./jiyi launcher: it accepts the same names, in the same order")
    void benchAgreesWithTheLauncher() throws IOException {
        Path launcher = Path.of("").toAbsolutePath().getParent().resolve("jiyi");
        assertThat(launcher).as("the launcher beside the cli module").isRegularFile();
        Matcher m = Pattern.compile("(?m)^\\s+((?:[a-z-]+\\|)+[a-z-]+)\\) ;;").matcher(Files.readString(launcher));
        assertThat(m.find()).as("the launcher's case of harness names").isTrue();
        List<String> cases = List.of(m.group(1).split("\\|"));
        List<String> listed = new ArrayList<>();
        for (BenchCommand.Harness h : BenchCommand.Harness.values()) {
            listed.add(h.command());
        }
        assertThat(listed).containsExactlyElementsOf(cases);
    }

    /** The top-level summaries as the command list shows them. */
    private static Map<String, String> summaries() {
        Map<String, String> m = new LinkedHashMap<>();
        tree().getSubcommands().forEach((name, sub) -> m.put(name, JiyiCommand.summary(sub.getCommandSpec())));
        return m;
    }

    /** The whole command tree, every command registered (as {@link Main} does when none is named). */
    private static CommandLine tree() {
        CommandLine root = new CommandLine(new JiyiCommand(new ByteArrayInputStream(new byte[0]), Map.of()));
        JiyiCommand.COMMANDS.forEach(root::addSubcommand);
        return root;
    }

    private static void walk(CommandLine command, String path, java.util.function.BiConsumer<String, String> check) {
        command.getSubcommands().forEach((name, sub) -> {
            check.accept(path + " " + name, JiyiCommand.summary(sub.getCommandSpec()));
            walk(sub, path + " " + name, check);
        });
    }

    private static long count(String s, char c) {
        return s.chars().filter(x -> x == c).count();
    }
}
