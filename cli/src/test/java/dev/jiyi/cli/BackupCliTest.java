package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class BackupCliTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("O5 jiyi backup FILE copies the database (Chinese and English) into a file another home opens; an existing FILE is refused with exit 4")
    void backupAndRefuse() throws Exception {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        assertThat(cli.run("event", "submit", "--id", "e1", "--role", "user", "--text", "我住在上海 I live in Shanghai")
                .code()).isZero();
        assertThat(cli.run("memory", "add", "--event", "e1", "--kind", "fact", "--basis", "user_statement",
                "--text", "住在上海 lives in Shanghai", "--quote", "我住在上海").code()).isZero();

        Path file = dir.resolve("jiyi-2026-12-02.db");
        CliRunner.Result r = cli.run("--json", "backup", file.toString());
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode made = r.json();
        assertThat(made.get("file").asString()).isEqualTo(file.toAbsolutePath().toString());
        assertThat(made.get("bytes").asLong()).isEqualTo(Files.size(file));
        assertThat(made.get("table_counts").get("events").asLong()).isEqualTo(1);
        assertThat(made.get("table_counts").get("memories").asLong()).isEqualTo(1);

        // The backup is a whole jiyi database: a home made of it recalls the memory and is healthy.
        Path restored = Files.createDirectories(dir.resolve("other"));
        Files.copy(file, restored.resolve("jiyi.db"));
        CliRunner other = new CliRunner(restored);
        assertThat(other.run("doctor").code()).isZero();
        assertThat(other.run("recall", "上海").out()).contains("住在上海 lives in Shanghai");
        assertThat(other.run("recall", "Shanghai").out()).contains("住在上海 lives in Shanghai");

        Path plain = dir.resolve("plain.db");
        CliRunner.Result logged = cli.run("backup", plain.toString());
        assertThat(logged.code()).as(logged.toString()).isZero();
        assertThat(logged.err()).as("progress in bytes, its last line in a log").contains("backup (bytes):", "done");

        byte[] before = Files.readAllBytes(file);
        CliRunner.Result again = cli.run("backup", file.toString());
        assertThat(again.code()).as(again.toString()).isEqualTo(ExitCode.REFUSED);
        assertThat(again.err()).contains("never overwrites");
        assertThat(Files.readAllBytes(file)).isEqualTo(before);

        Path note = Files.writeString(dir.resolve("note.txt"), "备忘 memo", StandardCharsets.UTF_8);
        assertThat(cli.run("backup", note.toString()).code()).isEqualTo(ExitCode.REFUSED);
        assertThat(Files.readString(note, StandardCharsets.UTF_8)).isEqualTo("备忘 memo");

        assertThat(cli.run("backup").code()).as("FILE is required").isEqualTo(ExitCode.INVALID);
        assertThat(cli.run("backup", "--help").out()).contains("online backup", "must not exist");
    }
}
