package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Progress of long work on stderr (issue 15), as a log shows it ({@code -Djiyi.progress=lines}): batch
 * commands report the lines done out of the file's line count, {@code reindex} and {@code reindex
 * --lucene} the events and memories fed out of their count; {@code --quiet} shows none, {@code --json}
 * none in a log; stdout is the same either way.
 */
class ProgressCliTest {

    @TempDir
    Path dir;

    @BeforeEach
    void asALog() {
        System.setProperty("jiyi.progress", "lines");
    }

    @AfterEach
    void restore() {
        System.clearProperty("jiyi.progress");
    }

    private Path lines(String name, List<String> lines) throws Exception {
        return Files.write(dir.resolve(name), lines, StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("event submit --batch and memory add --batch show the lines done on stderr, none with --quiet or in a --json log; stdout is unchanged")
    void batchesReportProgress() throws Exception {
        List<String> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            events.add("{\"id\":\"e" + i + "\",\"role\":\"user\",\"session\":\"s1\","
                    + "\"occurred_at\":\"2024-05-01T10:00:00+08:00\",\"text\":\"第" + i + "天：记得开会 meeting " + i + "\"}");
        }
        Path file = lines("events.jsonl", events);
        CliRunner shown = new CliRunner(dir.resolve("shown"));
        CliRunner.Result r = shown.run("event", "submit", "--batch", file.toString(), "--chunk-size", "2");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.err()).containsPattern("event submit --batch: 5 done in [0-9.]+ s");

        CliRunner quiet = new CliRunner(dir.resolve("quiet"));
        CliRunner.Result q = quiet.run("--quiet", "event", "submit", "--batch", file.toString(), "--chunk-size", "2");
        assertThat(q.code()).as(q.toString()).isZero();
        assertThat(q.err()).doesNotContain("event submit --batch");
        assertThat(q.out()).isEqualTo(r.out());

        // With --json, stderr holds only JSON documents (programs parse it): no progress lines in a log.
        CliRunner json = new CliRunner(dir.resolve("json"));
        CliRunner.Result j = json.run("--json", "event", "submit", "--batch", file.toString(), "--chunk-size", "2");
        assertThat(j.code()).as(j.toString()).isZero();
        assertThat(j.err()).isEmpty();
        assertThat(j.out().lines().toList()).hasSize(6).allSatisfy(line -> assertThat(line).startsWith("{"));

        // A batch that fails part-way says where it stopped: the lines through the last committed one.
        Path broken = lines("broken.jsonl", List.of(events.get(0), events.get(1), "{\"id\":\"x\"}", events.get(3)));
        CliRunner.Result b = new CliRunner(dir.resolve("broken")).run("event", "submit", "--batch", broken.toString());
        assertThat(b.code()).isEqualTo(ExitCode.INVALID);
        assertThat(b.err()).containsPattern("event submit --batch: 2/4 \\(50%\\) stopped after [0-9.]+ s");

        Path memories = lines("memories.jsonl", List.of(
                "{\"event\":\"e0\",\"kind\":\"fact\",\"basis\":\"user_statement\",\"text\":\"第0天开会\",\"quote\":\"记得开会\"}",
                "{\"event\":\"e1\",\"kind\":\"fact\",\"basis\":\"user_statement\",\"text\":\"meeting 1\",\"quote\":\"meeting 1\"}"));
        CliRunner.Result m = shown.run("memory", "add", "--batch", memories.toString());
        assertThat(m.code()).as(m.toString()).isZero();
        assertThat(m.err()).containsPattern("memory add --batch: 2 done in [0-9.]+ s");
    }

    @Test
    @DisplayName("O2 a command that opens a database whose search index is being built (as after a migration) shows the build's progress, then runs")
    void indexBuildAtOpen() throws Exception {
        CliRunner cli = new CliRunner(dir.resolve("build"));
        for (int i = 0; i < 3; i++) {
            assertThat(cli.run("event", "submit", "--id", "b" + i, "--role", "user", "--text", "建索引 build " + i).code()).isZero();
        }
        String version = cli.query("SELECT version FROM index_state WHERE name = 'fts5'").getFirst();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + cli.database());
             java.sql.Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE"); // what a migration that replaces the FTS5 tables leaves
            s.execute("INSERT INTO events_fts (events_fts) VALUES ('delete-all')");
            s.execute("UPDATE index_state SET version = '" + version + "#building', events_built = 0, events_target = 3, "
                    + "memories_built = 0, memories_target = 0 WHERE name = 'fts5'");
            s.execute("COMMIT");
        }
        CliRunner.Result r = cli.run("recall", "建索引");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.err()).containsPattern("building the search index: 3 done in [0-9.]+ s");
        assertThat(r.out()).contains("b0", "b1", "b2");
        assertThat(cli.query("SELECT version FROM index_state WHERE name = 'fts5'")).containsExactly(version);
    }

    @Test
    @DisplayName("reindex and reindex --lucene show the events and memories fed, out of their count; --quiet shows none")
    void reindexReportsProgress() throws Exception {
        CliRunner cli = new CliRunner(dir.resolve("reindex"));
        for (int i = 0; i < 3; i++) {
            assertThat(cli.run("event", "submit", "--id", "r" + i, "--role", "user", "--text", "第" + i + "条 note " + i)
                    .code()).isZero();
        }
        assertThat(cli.run("memory", "add", "--event", "r0", "--kind", "fact", "--basis", "user_statement",
                "--text", "第0条 note 0", "--quote", "第0条").code()).isZero();

        CliRunner.Result fts5 = cli.run("reindex");
        assertThat(fts5.code()).as(fts5.toString()).isZero();
        assertThat(fts5.err()).containsPattern("reindex: 4 done in [0-9.]+ s");
        assertThat(fts5.out()).contains("rebuilt the FTS5 index: 3 events, 1 memories");

        CliRunner.Result lucene = cli.run("reindex", "--lucene");
        assertThat(lucene.code()).as(lucene.toString()).isZero();
        assertThat(lucene.err()).containsPattern("reindex --lucene: 4 done in [0-9.]+ s");

        CliRunner.Result quiet = cli.run("--quiet", "reindex");
        assertThat(quiet.code()).isZero();
        assertThat(quiet.err()).doesNotContain("reindex:");
        assertThat(quiet.out()).contains("rebuilt the FTS5 index: 3 events, 1 memories");
    }

    @Test
    @DisplayName("a batch read from stdin has no total: its progress counts lines and their rate, and says when it stopped early")
    void stdinHasNoTotal() {
        CliRunner cli = new CliRunner(dir.resolve("stdin"));
        CliRunner.Result r = cli.runWithStdin("{\"id\":\"s1\",\"role\":\"user\",\"session\":\"s1\","
                + "\"occurred_at\":\"2024-05-01T10:00:00Z\",\"text\":\"你好\"}\n",
                "event", "submit", "--batch", "-");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.err()).containsPattern("event submit --batch: 1 done in [0-9.]+ s");

        // One line committed, then a line without its time: it stopped, and says so though no total is known.
        CliRunner.Result failed = cli.runWithStdin("{\"id\":\"s2\",\"role\":\"user\",\"session\":\"s1\","
                + "\"occurred_at\":\"2024-05-01T10:00:00Z\",\"text\":\"再见 bye\"}\n"
                + "{\"id\":\"s3\",\"role\":\"user\",\"session\":\"s1\",\"text\":\"没有时间 no time\"}\n",
                "event", "submit", "--batch", "-", "--chunk-size", "1");
        assertThat(failed.code()).isEqualTo(ExitCode.INVALID);
        assertThat(failed.err()).containsPattern("event submit --batch: 1 stopped after [0-9.]+ s")
                .doesNotContain("done in");
    }
}
