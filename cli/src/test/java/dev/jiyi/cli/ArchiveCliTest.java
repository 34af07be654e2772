package dev.jiyi.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jiyi.engine.ExitCode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code jiyi export}, {@code import} and {@code restore} (O3-O5) through the command line. */
class ArchiveCliTest {

    @TempDir
    Path dir;

    private CliRunner filled(String name) {
        CliRunner cli = new CliRunner(dir.resolve(name));
        assertThat(cli.run("event", "submit", "--id", "e1", "--role", "user", "--session", "s1",
                "--occurred-at", "2024-05-01T10:00:00+08:00", "--text", "我住在广州，I love oolong tea").code()).isZero();
        assertThat(cli.run("event", "submit", "--id", "e2", "--role", "assistant", "--session", "s1",
                "--occurred-at", "2024-05-01T10:01:00+08:00", "--text", "记住了 noted").code()).isZero();
        assertThat(cli.run("memory", "add", "--event", "e1", "--kind", "fact", "--basis", "user_statement",
                "--text", "住在广州 lives in Guangzhou", "--quote", "我住在广州", "--subject", "user", "--fact-key", "city")
                .code()).isZero();
        assertThat(cli.run("--project", "side", "event", "submit", "--id", "p1", "--role", "user",
                "--text", "副业 side project: 咖啡店 coffee shop").code()).isZero();
        assertThat(cli.run("checkpoint", "save", "--session", "s1", "--goal", "搬家 move", "--covered-seq", "2").code()).isZero();
        return cli;
    }

    @Test
    @DisplayName("O3 O4 export then import into an empty home: the same rows, FTS5 rebuilt (Chinese and English recall), export again byte-identical")
    void exportImportRoundTrip() throws Exception {
        CliRunner source = filled("source");
        Path archive = dir.resolve("all.jsonl");
        CliRunner.Result exported = source.run("--json", "export", "--all", "--format", "jsonl", "--out", archive.toString());
        assertThat(exported.code()).as(exported.toString()).isZero();
        JsonNode e = exported.json();
        assertThat(e.get("bytes").asLong()).isEqualTo(Files.size(archive));
        assertThat(e.get("rows").get("events").asLong()).isEqualTo(3);
        assertThat(e.get("version").asInt()).isEqualTo(1);
        assertThat(exported.err()).as("with --json, progress shows on a terminal only").isEmpty();

        CliRunner target = new CliRunner(dir.resolve("target"));
        CliRunner.Result imported = target.run("import", archive.toString());
        assertThat(imported.code()).as(imported.toString()).isZero();
        assertThat(imported.out()).contains("imported 5 rows", "reindex --vectors");
        assertThat(imported.err()).as("a log gets each phase's last line").contains("import: 5 done", "import: indexing: 4 done");
        for (String table : new String[] {"personas", "events", "memories", "relations", "checkpoints", "capture_cursors"}) {
            assertThat(target.rowCounts().get(table)).as(table).isEqualTo(source.rowCounts().get(table));
        }
        assertThat(target.query("SELECT count(*) FROM events")).containsExactly("3");
        assertThat(target.run("recall", "广州").out()).contains("住在广州 lives in Guangzhou");
        assertThat(target.run("recall", "Guangzhou").out()).contains("住在广州 lives in Guangzhou");
        assertThat(target.run("--project", "side", "recall", "咖啡").out()).contains("p1");
        assertThat(target.run("doctor").code()).isZero();

        Path again = dir.resolve("again.jsonl");
        assertThat(target.run("export", "--all", "--format", "jsonl", "--out", again.toString()).code()).isZero();
        assertThat(Files.readAllBytes(again)).isEqualTo(Files.readAllBytes(archive));

        // a scope's export (the default scope, without --all) leaves the other project out
        Path scoped = dir.resolve("default.json");
        assertThat(source.run("export", "--format", "json", "--out", scoped.toString()).code()).isZero();
        assertThat(Files.readString(scoped, StandardCharsets.UTF_8)).contains("我住在广州").doesNotContain("咖啡店");
        assertThat(source.run("export", "--format", "jsonl", "--out", dir.resolve("d.jsonl").toString()).err())
                .as("a one-scope export says what it left out").contains("1 event(s) of other scopes", "--all");
    }

    @Test
    @DisplayName("O3 O4 no command overwrites: export to an existing file and import into a home with data are refused (exit 4), changing nothing")
    void refusals() throws Exception {
        CliRunner source = filled("source");
        Path existing = Files.writeString(dir.resolve("existing.jsonl"), "旧的 old", StandardCharsets.UTF_8);
        CliRunner.Result r = source.run("export", "--all", "--format", "jsonl", "--out", existing.toString());
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.REFUSED);
        assertThat(r.err()).contains("never overwrites");
        assertThat(Files.readString(existing, StandardCharsets.UTF_8)).isEqualTo("旧的 old");

        Path archive = dir.resolve("a.jsonl");
        assertThat(source.run("export", "--all", "--format", "jsonl", "--out", archive.toString()).code()).isZero();
        Map<String, Long> before = source.rowCounts();
        CliRunner.Result into = source.run("import", archive.toString());
        assertThat(into.code()).as(into.toString()).isEqualTo(ExitCode.REFUSED);
        assertThat(into.err()).contains("not empty");
        assertThat(source.rowCounts()).isEqualTo(before);

        assertThat(source.run("export", "--format", "xml", "--out", dir.resolve("x").toString()).code())
                .isEqualTo(ExitCode.INVALID);
        assertThat(source.run("import", dir.resolve("missing.jsonl").toString()).code()).isEqualTo(ExitCode.INVALID);
    }

    @Test
    @DisplayName("O4 a hostile archive is refused with its line, field and rule, never its value, and the home stays empty")
    void hostileArchive() throws Exception {
        CliRunner source = filled("source");
        Path archive = dir.resolve("a.jsonl");
        assertThat(source.run("export", "--all", "--format", "jsonl", "--out", archive.toString()).code()).isZero();
        String text = Files.readString(archive, StandardCharsets.UTF_8);
        Path bad = Files.writeString(dir.resolve("bad.jsonl"), text.replace("\"quote\":\"我住在广州\"", "\"quote\":\"我住在北京\""),
                StandardCharsets.UTF_8);
        CliRunner target = new CliRunner(dir.resolve("target"));
        CliRunner.Result r = target.run("--json", "import", bad.toString());
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(r.err()).contains("line 5", "memories.quote", "exact substring").doesNotContain("北京");
        assertThat(target.rowCounts().values()).allMatch(n -> n == 0);
        assertThat(target.run("import", archive.toString()).code()).as("the same home takes a good archive after").isZero();
    }

    @Test
    @DisplayName("O5 restore a backup into an empty home: checked like an import, indexed, the backup unchanged; a home with data is refused")
    void backupAndRestore() throws Exception {
        CliRunner source = filled("source");
        Path backup = dir.resolve("backup.db");
        assertThat(source.run("backup", backup.toString()).code()).isZero();
        byte[] bytes = Files.readAllBytes(backup);

        CliRunner target = new CliRunner(dir.resolve("target"));
        CliRunner.Result r = target.run("--json", "restore", backup.toString());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.json().get("restored").asLong()).isEqualTo(5);
        assertThat(target.run("recall", "广州").out()).contains("住在广州 lives in Guangzhou");
        assertThat(target.run("doctor").code()).isZero();
        assertThat(Files.readAllBytes(backup)).isEqualTo(bytes);
        assertThat(dir.resolve("target")).isDirectoryNotContaining(p -> p.getFileName().toString().startsWith(".restore-"));

        assertThat(target.run("restore", backup.toString()).code()).as("not empty any more").isEqualTo(ExitCode.REFUSED);
        Path notADatabase = Files.writeString(dir.resolve("notes.db"), "这不是数据库 not a database");
        CliRunner empty = new CliRunner(dir.resolve("empty"));
        CliRunner.Result refused = empty.run("restore", notADatabase.toString());
        assertThat(refused.code()).as(refused.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(empty.rowCounts().values()).allMatch(n -> n == 0);
    }

    @Test
    @DisplayName("O4 import rebuilds the home's Lucene index when it has one")
    void importRebuildsLucene() throws Exception {
        CliRunner source = filled("source");
        Path archive = dir.resolve("a.jsonl");
        assertThat(source.run("export", "--all", "--format", "jsonl", "--out", archive.toString()).code()).isZero();
        CliRunner target = new CliRunner(dir.resolve("target"));
        assertThat(target.run("reindex", "--lucene").code()).isZero(); // an empty home with a Lucene index
        CliRunner.Result r = target.run("import", archive.toString());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("rebuilt FTS5 and Lucene");
        assertThat(target.run("recall", "--index", "lucene", "广州").out()).contains("住在广州 lives in Guangzhou");
    }
}
