package dev.jiyi.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

class DoctorCliTest {

    @TempDir
    Path home;

    @Test
    @DisplayName("O6 doctor on a healthy database: integrity ok, counts, exit 0")
    void healthy() {
        CliRunner cli = new CliRunner(home);
        assertThat(cli.run("event", "submit", "--id", "a", "--role", "user", "--text", "你好 hello").code()).isZero();
        CliRunner.Result r = cli.run("--json", "doctor");
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode report = r.json();
        assertThat(report.get("healthy").asBoolean()).isTrue();
        assertThat(report.get("schema_version").asInt()).isEqualTo(dev.jiyi.authority.Database.SCHEMA_VERSION);
        assertThat(report.get("integrity").get(0).asString()).isEqualTo("ok");
        assertThat(report.get("tables").get("events").asLong()).isEqualTo(1);
        assertThat(cli.run("doctor").out()).contains("healthy", "integrity: ok");
    }

    @Test
    @DisplayName("O6 doctor detects a broken foreign key and exits non-zero")
    void brokenForeignKey() throws Exception {
        CliRunner cli = new CliRunner(home);
        cli.run("event", "submit", "--id", "e1", "--role", "user", "--text", "我住在上海 I live in Shanghai");
        assertThat(cli.run("memory", "add", "--event", "e1", "--kind", "fact", "--basis", "user_statement",
                "--text", "lives in Shanghai", "--quote", "我住在上海").code()).isZero();
        // Break the link behind the authority's back: delete the source event with FKs off.
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + cli.database());
             Statement s = c.createStatement()) {
            s.execute("PRAGMA foreign_keys = OFF");
            s.execute("DELETE FROM events WHERE id = 'e1'");
        }
        CliRunner.Result r = cli.run("doctor");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.UNHEALTHY);
        assertThat(r.out()).contains("broken foreign key", "memories");
        CliRunner.Result json = cli.run("--json", "doctor");
        assertThat(json.code()).isEqualTo(ExitCode.UNHEALTHY);
        assertThat(json.json().get("healthy").asBoolean()).isFalse();
        assertThat(json.json().get("foreign_key_violations").size()).isEqualTo(1);
    }

    @Test
    @DisplayName("O6 X2 doctor detects a pending extraction and exits non-zero; the event itself is saved")
    void pendingExtraction() {
        CliRunner cli = new CliRunner(home);
        CliRunner.Result submit = cli.run("event", "submit", "--id", "p1", "--role", "user", "--extract",
                "--text", "明天下午三点开会 meeting at 3pm");
        assertThat(submit.code()).as(submit.toString()).isEqualTo(ExitCode.PROVIDER);
        assertThat(submit.out()).contains("created event p1");
        assertThat(submit.err()).contains("extraction pending").doesNotContain("开会");
        assertThat(cli.query("SELECT extraction_state FROM events WHERE id = 'p1'")).containsExactly("pending");
        CliRunner.Result r = cli.run("doctor");
        assertThat(r.code()).isEqualTo(ExitCode.UNHEALTHY);
        assertThat(r.out()).contains("1 event(s) with extraction pending");
    }

    @Test
    @DisplayName("O6 D1 doctor reports an FTS5 index out of step with the archive (exit 6); reindex rebuilds it and recall works again")
    void ftsOutOfStepThenReindex() throws Exception {
        CliRunner cli = new CliRunner(home);
        assertThat(cli.run("event", "submit", "--id", "e1", "--role", "user", "--text", "我在杭州喝龙井 Longjing tea").code()).isZero();
        assertThat(cli.run("event", "submit", "--id", "e2", "--role", "user", "--text", "周末爬山 weekend hike").code()).isZero();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + cli.database()); Statement s = c.createStatement()) {
            s.execute("INSERT INTO events_fts (events_fts) VALUES ('delete-all')"); // the index lost its rows
        }
        CliRunner.Result sick = cli.run("doctor");
        assertThat(sick.code()).as(sick.toString()).isEqualTo(ExitCode.UNHEALTHY);
        assertThat(sick.out()).contains("events_fts holds 0 row(s) for 2 events", "jiyi reindex");
        assertThat(cli.run("--json", "recall", "龙井").json().get("results")).isEmpty();

        CliRunner.Result rebuilt = cli.run("--json", "reindex");
        assertThat(rebuilt.code()).as(rebuilt.toString()).isZero();
        assertThat(rebuilt.json().get("events").asLong()).isEqualTo(2);
        assertThat(cli.run("doctor").code()).isZero();
        assertThat(cli.run("--json", "recall", "龙井").json().get("results")).hasSize(1);
    }
}
