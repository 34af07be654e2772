package dev.jiyi.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class SmokeTest {

    @TempDir
    Path home;

    @Test
    void submitAndRead() {
        CliRunner cli = new CliRunner(home);
        CliRunner.Result r = cli.run("--json", "event", "submit", "--id", "e1", "--role", "user", "--text", "我在北京大学读书");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.json().get("event").get("sequence").asLong()).isEqualTo(1);
        assertThat(cli.rowCounts()).containsEntry("events", 1L).containsEntry("events_fts", 1L);
    }
}
