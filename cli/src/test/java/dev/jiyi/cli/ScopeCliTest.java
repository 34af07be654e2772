package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class ScopeCliTest {

    @TempDir
    Path tmp;

    private static String memoryId(String out) {
        Matcher m = Pattern.compile("mem_[0-9A-Z]{26}").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return m.group();
    }

    @Test
    @DisplayName("S1 every command takes persona + project; the defaults are explicit in --help")
    void defaultsShownInHelp() {
        CliRunner cli = new CliRunner(tmp.resolve("home"));
        String help = cli.run("--help").out();
        assertThat(help).contains("--persona=ID", "Persona scope (default: default)", "--project=ID",
                "Project scope (default: default)");
        assertThat(cli.run("memory", "add", "--help").out()).contains("--persona", "--project");
        assertThat(cli.run("event", "submit", "--help").out()).contains("--persona", "--project");
    }

    @Test
    @DisplayName("S1 S7 scopes partition data: a memory of one project is not visible from another, "
            + "and any client may name any scope (partitions, not security boundaries)")
    void scopesPartition() {
        CliRunner cli = new CliRunner(tmp.resolve("home"));
        assertThat(cli.run("--persona", "alice", "--project", "work", "event", "submit", "--id", "w1", "--role", "user",
                "--text", "项目代号是青龙 the codename is Qinglong").code()).isZero();
        String id = memoryId(cli.run("--persona", "alice", "--project", "work", "memory", "add", "--event", "w1",
                "--kind", "fact", "--basis", "user_statement", "--text", "codename Qinglong", "--quote", "项目代号是青龙").out());
        // Another project of the same persona: not found.
        assertThat(cli.run("--persona", "alice", "--project", "home", "memory", "read", id).code())
                .isEqualTo(ExitCode.NOT_FOUND);
        // The default scope: not found, and deriving from alice/work's event is refused.
        assertThat(cli.run("memory", "read", id).code()).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(cli.run("memory", "add", "--event", "w1", "--kind", "fact", "--basis", "user_statement",
                "--text", "x", "--quote", "青龙").code()).isEqualTo(ExitCode.INVALID);
        // S7: naming the scope is all it takes; there is no credential.
        assertThat(cli.run("--persona", "alice", "--project", "work", "memory", "read", id).code()).isZero();
        assertThat(cli.run("--help").out()).contains("not security boundaries");
    }

    @Test
    @DisplayName("S5 a persona's versions span all of its projects")
    void personaSpansProjects() {
        CliRunner cli = new CliRunner(tmp.resolve("home"));
        cli.run("--persona", "bob", "--project", "p1", "persona", "edit", "--text", "简洁 concise");
        CliRunner.Result other = cli.run("--json", "--persona", "bob", "--project", "p2", "persona", "show");
        assertThat(other.json().get("version").asInt()).isEqualTo(2);
        assertThat(other.json().get("content").asString()).isEqualTo("简洁 concise");
    }

    @Test
    @DisplayName("O7 the data directory is 0700 and the database file 0600")
    void privateFiles() throws Exception {
        Path home = tmp.resolve("private-home");
        CliRunner cli = new CliRunner(home);
        assertThat(cli.run("event", "submit", "--id", "x", "--role", "user", "--text", "私密 private").code()).isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cli.database()))).isEqualTo("rw-------");
    }
}
