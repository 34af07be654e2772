package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.stream.Stream;

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

    // ------------------------------------------------------------------ the Lucene index

    private static void submit(CliRunner cli, String id, String text) {
        CliRunner.Result r = cli.run("event", "submit", "--id", id, "--role", "user", "--session", "s-" + id, "--text", text);
        assertThat(r.code()).as(r.toString()).isZero();
    }

    private static void derive(CliRunner cli, String eventId, String text) {
        CliRunner.Result r = cli.run("memory", "add", "--event", eventId, "--kind", "fact", "--basis", "user_statement",
                "--text", text, "--quote", text);
        assertThat(r.code()).as(r.toString()).isZero();
    }

    /** Overwrites every file of the index directory {@code lucene/current} names with garbage. */
    private static void corrupt(Path home) throws Exception {
        Path lucene = home.resolve("lucene");
        Path dir = lucene.resolve(Files.readString(lucene.resolve("current")).strip());
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> !p.getFileName().toString().equals("write.lock")).toList()) {
                Files.write(f, "not a lucene file at all, 不是索引".repeat(8).getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    @DisplayName("L1 doctor without a Lucene index: 'not built (optional ...)', healthy, exit 0, and builds none")
    void luceneNotBuilt() {
        CliRunner cli = new CliRunner(home);
        submit(cli, "a", "你好 hello");
        CliRunner.Result r = cli.run("doctor");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("lucene index: not built (optional; built on first `recall --index lucene` or "
                + "`reindex --lucene`)", "healthy");
        JsonNode lucene = cli.run("--json", "doctor").json().get("lucene");
        assertThat(lucene.get("present").asBoolean()).isFalse();
        assertThat(lucene.get("problem").isNull()).isTrue();
        assertThat(lucene.get("note").asString()).startsWith("not built");
        assertThat(home.resolve("lucene")).doesNotExist();
    }

    @Test
    @DisplayName("L1 L2 doctor with a built Lucene index: catches it up, counts its memory and event documents against "
            + "the authority's rows (equal), shows applied seq against the change-log head; exit 0")
    void luceneBuilt() throws Exception {
        CliRunner cli = new CliRunner(home);
        submit(cli, "e1", "我在杭州喝龙井 Longjing tea");
        derive(cli, "e1", "我在杭州喝龙井");
        submit(cli, "e2", "周末爬山 weekend hike");
        assertThat(cli.run("recall", "龙井", "--index", "lucene").code()).isZero();
        submit(cli, "e3", "下周去苏州 Suzhou next week"); // not applied yet: doctor catches up first
        derive(cli, "e3", "下周去苏州");

        CliRunner.Result r = cli.run("--json", "doctor");
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode lucene = r.json().get("lucene");
        assertThat(lucene.get("present").asBoolean()).isTrue();
        assertThat(lucene.get("memories").asLong()).isEqualTo(2).isEqualTo(r.json().get("tables").get("memories").asLong());
        assertThat(lucene.get("events").asLong()).isEqualTo(3).isEqualTo(r.json().get("tables").get("events").asLong());
        assertThat(lucene.get("applied_seq").asLong()).isEqualTo(lucene.get("change_log_head").asLong())
                .isEqualTo(r.json().get("tables").get("change_log").asLong());
        assertThat(lucene.get("read_only").asBoolean()).isFalse();
        assertThat(lucene.get("segments").get("mixed").asInt()).as("no segment holds events and memories").isZero();
        assertThat(lucene.get("segments").get("events").asInt()).isPositive();
        assertThat(lucene.get("segments").get("memories").asInt()).isPositive();
        assertThat(lucene.get("problem").isNull()).isTrue();
        assertThat(lucene.get("version").asString()).startsWith("jiyi-lucene-");
        assertThat(lucene.get("directory").asString()).startsWith(home.resolve("lucene").toString());
        assertThat(r.err()).isEmpty();

        CliRunner.Result text = cli.run("doctor");
        assertThat(text.code()).isZero();
        assertThat(text.out()).contains("lucene index: " + home.resolve("lucene"), "memories         2 of 2",
                "events           3 of 3", "segments         ", " of events, ", " of memories\n", "healthy");

        // A bad Lucene setting does not stop doctor: it is reported as a problem naming the key.
        Files.writeString(home.resolve("config.properties"), "lucene.analyzer=ik\n");
        CliRunner.Result badSetting = cli.run("doctor");
        assertThat(badSetting.code()).as(badSetting.toString()).isEqualTo(ExitCode.UNHEALTHY);
        assertThat(badSetting.out()).contains("integrity: ok", "lucene index not checked: lucene.analyzer: must be jiyi or smartcn");
    }

    @Test
    @DisplayName("L1 a corrupted Lucene index: recall --index lucene still answers and a notice says it was rebuilt; "
            + "doctor on a corrupted one rebuilds it the same way; doctor afterwards is healthy")
    void luceneCorrupted() throws Exception {
        CliRunner cli = new CliRunner(home);
        submit(cli, "e1", "我在杭州喝龙井 Longjing tea");
        derive(cli, "e1", "我在杭州喝龙井");
        assertThat(cli.run("recall", "龙井", "--index", "lucene").code()).isZero();

        corrupt(home);
        CliRunner.Result recall = cli.run("--json", "recall", "龙井", "--index", "lucene");
        assertThat(recall.code()).as(recall.toString()).isZero();
        assertThat(recall.json().get("results")).hasSize(1);
        assertThat(recall.err()).contains("lucene index rebuilt from the authority", "could not be read");
        assertThat(recall.out()).doesNotContain("rebuilt");
        CliRunner.Result healthy = cli.run("doctor");
        assertThat(healthy.code()).as(healthy.toString()).isZero();
        assertThat(healthy.err()).isEmpty();

        corrupt(home);
        CliRunner.Result doctor = cli.run("doctor");
        assertThat(doctor.code()).as(doctor.toString()).isZero();
        assertThat(doctor.err()).contains("jiyi: lucene index rebuilt from the authority");
        assertThat(doctor.out()).contains("memories         1 of 1", "healthy");
        assertThat(cli.run("recall", "Longjing", "--index", "lucene").out()).contains("我在杭州喝龙井");
    }

    @Test
    @DisplayName("L1 O6 doctor reports a Lucene index whose documents do not match the authority's rows (exit 6, "
            + "run jiyi reindex --lucene); after reindex --lucene it is healthy")
    void luceneOutOfStep() throws Exception {
        CliRunner cli = new CliRunner(home);
        submit(cli, "e1", "我在杭州喝龙井 Longjing tea");
        submit(cli, "e2", "周末爬山 weekend hike");
        assertThat(cli.run("reindex", "--lucene").code()).isZero();
        // Remove an event behind the authority's back: no change-log entry tells the index.
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + cli.database()); Statement s = c.createStatement()) {
            s.execute("DELETE FROM events WHERE id = 'e2'");
        }
        CliRunner.Result sick = cli.run("doctor");
        assertThat(sick.code()).as(sick.toString()).isEqualTo(ExitCode.UNHEALTHY);
        assertThat(sick.out()).contains("lucene index holds 0 memory and 2 event document(s) for 0 memories and 1 events",
                "jiyi reindex --lucene");
        JsonNode json = cli.run("--json", "doctor").json();
        assertThat(json.get("healthy").asBoolean()).isFalse();
        assertThat(json.get("lucene").get("problem").asString()).contains("jiyi reindex --lucene");
        assertThat(json.get("problems").toString()).contains("lucene index holds");

        assertThat(cli.run("reindex").code()).isZero(); // the FTS5 rows of the removed event too
        assertThat(cli.run("reindex", "--lucene").code()).isZero();
        CliRunner.Result well = cli.run("doctor");
        assertThat(well.code()).as(well.toString()).isZero();
    }
}
