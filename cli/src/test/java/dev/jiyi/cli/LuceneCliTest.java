package dev.jiyi.cli;

import dev.jiyi.authority.FileBytes;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;
import dev.jiyi.lucene.LuceneIndex;
import dev.jiyi.lucene.LuceneOptions;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Lucene index through the real command line (L1-L5): {@code recall --index lucene} against the
 * same small bilingual archive as FTS5, the settings that choose and shape it, {@code recall
 * --batch} choosing per line, {@code reindex --lucene}, deletion, and a second holder of the write
 * lock. Everything is set up through the CLI, in-process, on a temporary home.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LuceneCliTest {

    /** A value that must never be echoed by an error (O7). */
    private static final String SECRET = "SECRET-VALUE-42";

    @TempDir
    Path tmp;

    private CliRunner cli;

    @BeforeEach
    void setUp() {
        cli = new CliRunner(tmp.resolve("home"));
    }

    // ------------------------------------------------------------------ helpers

    private static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private CliRunner.Result ok(CliRunner runner, String... args) {
        CliRunner.Result r = runner.run(args);
        assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isZero();
        return r;
    }

    private void event(String id, String text, String occurredAt) {
        ok(cli, "event", "submit", "--id", id, "--role", "user", "--session", "s-" + id, "--occurred-at", occurredAt,
                "--text", text);
    }

    private String memory(String eventId, String text, String quote) {
        return ok(cli, "--json", "memory", "add", "--event", eventId, "--kind", "fact", "--basis", "user_statement",
                "--text", text, "--quote", quote).json().get("memory").get("id").asString();
    }

    /** The small bilingual archive of RecallCliTest, plus a note whose only shared word is 北京 inside 北京大学. */
    private Map<String, String> archive() {
        event("b1", "这本书的作者是鲁迅", "2025-03-01T10:00:00+08:00");
        String book = memory("b1", "那本书的作者是鲁迅", "这本书的作者是鲁迅");
        event("bj", "我在北京大学读书", "2025-03-02T10:00:00+08:00"); // raw: no memory
        event("paris", "I lived in Paris for two years", "2025-03-03T10:00:00Z");
        String paris = memory("paris", "The user lived in Paris for two years", "I lived in Paris");
        event("mix", "我在 Acme 公司做 Java 开发", "2025-03-04T10:00:00+08:00");
        String mix = memory("mix", "用户在 Acme 公司做 Java 开发", "我在 Acme 公司做 Java 开发");
        event("tea", "I prefer green tea over coffee", "2025-03-05T10:00:00Z");
        String tea = memory("tea", "Prefers green tea over coffee", "I prefer green tea over coffee");
        return Map.of("book", book, "paris", paris, "mix", mix, "tea", tea);
    }

    /** {@code --json recall QUERY ARGS...} with this runner: exit 0 and exactly one line on stdout. */
    private CliRunner.Result recall(CliRunner runner, String query, String... args) {
        CliRunner.Result r = ok(runner, concat(new String[] {"--json", "recall", query}, args));
        assertThat(r.jsonLines()).as(r.toString()).hasSize(1);
        return r;
    }

    /** Memory IDs of memory results and source event IDs of raw results, in result order. */
    private static List<String> ids(JsonNode result) {
        List<String> out = new ArrayList<>();
        for (JsonNode item : result.get("results")) {
            out.add(item.get("type").asString().equals("memory") ? item.get("memory_id").asString()
                    : item.get("source_event_id").asString());
        }
        return out;
    }

    private static List<String> warnings(JsonNode result) {
        List<String> out = new ArrayList<>();
        result.get("warnings").forEach(w -> out.add(w.asString()));
        return out;
    }

    private Path luceneRoot() {
        return cli.home().resolve("lucene");
    }

    private void config(String properties) throws IOException {
        Files.createDirectories(cli.home());
        Files.writeString(cli.home().resolve("config.properties"), properties, StandardCharsets.UTF_8);
    }

    /** The files of every index directory in the home whose bytes contain {@code text} in UTF-8. */
    private List<String> luceneFilesContaining(String text) throws IOException {
        return FileBytes.filesContaining(luceneRoot(), text);
    }

    // ------------------------------------------------------------------ recall --index lucene

    @Test
    @DisplayName("L1 L3 recall --index lucene answers Chinese, English and mixed queries with the same top result as "
            + "fts5; the first use builds the index and says so on stderr, never on stdout")
    void sameTopResultAsFts5() {
        Map<String, String> ids = archive();
        assertThat(luceneRoot()).doesNotExist();

        CliRunner.Result first = recall(cli, "鲁迅", "--index", "lucene");
        assertThat(ids(first.json())).containsExactly(ids.get("book"));
        assertThat(first.out()).doesNotContain("rebuilt");
        JsonNode notice = Output.mapper().readTree(first.err().lines().findFirst().orElseThrow());
        assertThat(notice.get("notice").asString()).contains("lucene index rebuilt from the authority", "none yet");
        assertThat(Files.exists(luceneRoot().resolve("current"))).isTrue();

        Map<String, String> expectedTop = Map.of(
                "鲁迅", ids.get("book"),
                "那本书的作者", ids.get("book"),
                "where did I live, Paris?", ids.get("paris"),
                "green tea", ids.get("tea"),
                "Acme 公司的 Java 开发", ids.get("mix"),
                "我喜欢 tea", ids.get("tea"),
                "北京", "bj");
        for (Map.Entry<String, String> q : expectedTop.entrySet()) {
            CliRunner.Result fts5 = recall(cli, q.getKey(), "--index", "fts5");
            CliRunner.Result lucene = recall(cli, q.getKey(), "--index", "lucene");
            assertThat(ids(fts5.json())).as("fts5: " + q.getKey()).first().isEqualTo(q.getValue());
            assertThat(ids(lucene.json())).as("lucene: " + q.getKey()).first().isEqualTo(q.getValue());
            assertThat(ids(lucene.json())).as(q.getKey()).containsExactlyInAnyOrderElementsOf(ids(fts5.json()));
            assertThat(warnings(lucene.json())).as(q.getKey()).isEmpty();
            assertThat(lucene.err()).as("the index is built once").isEmpty();
        }

        CliRunner.Result human = ok(cli, "recall", "鲁迅", "--index", "lucene");
        assertThat(human.out()).contains("1. [fact] 那本书的作者是鲁迅");
        assertThat(human.err()).isEmpty();
    }

    @Test
    @DisplayName("L1 recall.index=lucene in config.properties, or JIYI_RECALL_INDEX=lucene, makes Lucene the default; "
            + "--index and a line's index still choose; the environment overrides the file")
    void configuredDefault() throws IOException {
        archive();
        // smartcn keeps 北京大学 whole, so on Lucene-with-smartcn 北京 finds nothing while FTS5 finds the event:
        // the answer shows which index was searched.
        config("recall.index=lucene\nlucene.analyzer=smartcn\n");
        assertThat(ids(recall(cli, "北京", "--index", "fts5").json())).containsExactly("bj");
        assertThat(luceneRoot()).as("fts5 chosen: the Lucene index is not even opened").doesNotExist();
        assertThat(ids(recall(cli, "北京").json())).isEmpty();
        assertThat(ids(recall(cli, "鲁迅").json())).hasSize(1);
        assertThat(ids(recall(cli.env("JIYI_RECALL_INDEX", "fts5"), "北京").json())).containsExactly("bj");

        CliRunner fromEnv = new CliRunner(tmp.resolve("home2"))
                .env("JIYI_RECALL_INDEX", "lucene").env("JIYI_LUCENE_ANALYZER", "smartcn");
        ok(fromEnv, "event", "submit", "--id", "bj", "--role", "user", "--text", "我在北京大学读书");
        assertThat(ids(recall(fromEnv, "北京").json())).isEmpty();
        assertThat(ids(recall(fromEnv, "北京大学").json())).containsExactly("bj");
        assertThat(ids(recall(fromEnv, "北京", "--index", "fts5").json())).containsExactly("bj");
        assertThat(Files.exists(tmp.resolve("home2").resolve("lucene").resolve("current"))).isTrue();
    }

    @Test
    @DisplayName("L1 O7 a bad recall.index, lucene.analyzer, lucene.vectors, lucene.knn_candidates or lucene.catch_up_ms "
            + "(file or environment) and --index bogus exit 2 naming the key, never the value, and change nothing")
    void badSettings() throws IOException {
        archive();
        Map<String, Long> before = cli.rowCounts();
        record Case(String properties, String[] args, String key) {
        }
        List<Case> cases = List.of(
                new Case("recall.index=" + SECRET, new String[] {"recall", "书"}, "recall.index"),
                new Case("recall.index=" + SECRET, new String[] {"recall", "--batch", "-"}, "recall.index"),
                new Case("lucene.analyzer=" + SECRET, new String[] {"recall", "书", "--index", "lucene"}, "lucene.analyzer"),
                new Case("recall.index=lucene\nlucene.analyzer=ik", new String[] {"recall", "书"}, "lucene.analyzer"),
                new Case("lucene.vectors=" + SECRET, new String[] {"recall", "书", "--index", "lucene"}, "lucene.vectors"),
                new Case("lucene.vectors=int4", new String[] {"reindex", "--lucene"}, "lucene.vectors"),
                new Case("lucene.knn_candidates=0", new String[] {"recall", "书", "--index", "lucene"},
                        "lucene.knn_candidates"),
                new Case("lucene.catch_up_ms=" + SECRET, new String[] {"reindex", "--lucene"}, "lucene.catch_up_ms"),
                new Case("", new String[] {"recall", "书", "--index", "bogus"}, "index"),
                new Case("", new String[] {"recall", "书", "--index", SECRET}, "index"));
        for (Case c : cases) {
            config(c.properties() + "\n");
            for (String[] args : List.of(c.args(), concat(new String[] {"--json"}, c.args()))) {
                CliRunner.Result r = cli.runWithStdin("{\"query\": \"书\"}\n", args);
                assertThat(r.code()).as(c + "\n" + r).isEqualTo(ExitCode.INVALID);
                assertThat(r.out()).as(r.toString()).isEmpty();
                assertThat(r.err()).as(r.toString()).contains(c.key()).doesNotContain(SECRET);
            }
        }
        // The same mistakes through the environment.
        config("");
        CliRunner.Result env = cli.env("JIYI_LUCENE_VECTORS", "half").run("recall", "书", "--index", "lucene");
        assertThat(env.code()).as(env.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(env.err()).contains("lucene.vectors", "float or int8");
        assertThat(luceneRoot()).as("no index was built").doesNotExist();
        assertThat(cli.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("L1 R3 recall --batch: each line's index chooses (fts5, lucene), a line without one takes --index, "
            + "else recall.index; the build notice goes to stderr once, stdout stays JSON lines")
    void batchPerLineIndex() throws IOException {
        Map<String, String> ids = archive();
        config("recall.index=lucene\nlucene.analyzer=smartcn\n");
        String input = String.join("\n",
                "{\"tag\": \"fts5\", \"query\": \"北京\", \"index\": \"fts5\"}",
                "{\"tag\": \"lucene\", \"query\": \"北京\", \"index\": \"lucene\"}",
                "{\"tag\": \"default\", \"query\": \"北京\"}",
                "{\"tag\": \"book\", \"query\": \"鲁迅\"}",
                "{\"tag\": \"bad\", \"query\": \"鲁迅\", \"index\": \"" + SECRET + "\"}",
                "{\"tag\": \"tea\", \"query\": \"green tea\", \"index\": \"fts5\"}") + "\n";
        for (String[] flags : List.<String[]>of(new String[] {}, new String[] {"--json"})) {
            CliRunner.Result r = cli.runWithStdin(input, concat(flags, "recall", "--batch", "-"));
            assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID); // the bad line
            List<JsonNode> out = r.jsonLines();
            assertThat(out).as(r.toString()).hasSize(6);
            assertThat(ids(out.get(0))).containsExactly("bj");
            assertThat(ids(out.get(1))).isEmpty();
            assertThat(ids(out.get(2))).as("recall.index=lucene").isEmpty();
            assertThat(ids(out.get(3))).containsExactly(ids.get("book"));
            assertThat(out.get(4).get("message").asString()).contains("index", "fts5 or lucene").doesNotContain(SECRET);
            assertThat(ids(out.get(5))).first().isEqualTo(ids.get("tea"));
            for (JsonNode line : out) {
                if (line.has("warnings")) {
                    assertThat(warnings(line)).isEmpty();
                }
            }
        }
        CliRunner.Result flag = cli.runWithStdin("{\"query\": \"北京\"}\n", "recall", "--batch", "-", "--index", "fts5");
        assertThat(flag.code()).as(flag.toString()).isZero();
        assertThat(ids(flag.jsonLines().get(0))).as("--index fts5 for lines without one").containsExactly("bj");

        // A fresh home: the first line that uses Lucene builds it, and the notice is on stderr only.
        CliRunner fresh = new CliRunner(tmp.resolve("fresh"));
        ok(fresh, "event", "submit", "--id", "bj", "--role", "user", "--text", "我在北京大学读书");
        CliRunner.Result r = fresh.runWithStdin("{\"query\": \"北京\", \"index\": \"lucene\"}\n{\"query\": \"北京\", "
                + "\"index\": \"lucene\"}\n", "recall", "--batch", "-");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.jsonLines()).hasSize(2).allSatisfy(l -> assertThat(ids(l)).containsExactly("bj"));
        assertThat(r.err().lines().toList()).containsExactly(
                "jiyi: lucene index rebuilt from the authority: there was none yet");
    }

    // ------------------------------------------------------------------ reindex --lucene, deletion

    @Test
    @DisplayName("L1 reindex --lucene rebuilds from the authority and reports what it fed (human and JSON); "
            + "with --vectors the vectors come first and the rebuilt index holds them")
    void reindexLucene() throws IOException {
        archive();
        CliRunner.Result human = ok(cli, "reindex", "--lucene");
        assertThat(human.out()).contains("rebuilt the Lucene index: 5 events, 4 memories, 0 vectors, up to change-log "
                + "sequence ");
        // Nothing on stderr but the progress of the rebuild (a log's last line, as stderr is not a terminal here).
        assertThat(human.err().lines().filter(l -> !l.startsWith("reindex --lucene: "))).isEmpty();
        String pointer = Files.readString(luceneRoot().resolve("current")).strip();
        assertThat(human.out()).contains(luceneRoot().resolve(pointer).toString());

        JsonNode json = ok(cli, "--json", "reindex", "--lucene").json();
        assertThat(json.get("rebuilt").asString()).isEqualTo("lucene");
        assertThat(json.get("events").asLong()).isEqualTo(5);
        assertThat(json.get("memories").asLong()).isEqualTo(4);
        assertThat(json.get("vectors").asLong()).isZero();
        assertThat(json.get("applied_seq").asLong()).isEqualTo(
                Long.parseLong(cli.query("SELECT max(seq) FROM change_log").get(0)));
        assertThat(json.get("directory").asString()).isEqualTo(Files.readString(luceneRoot().resolve("current")).strip())
                .isNotEqualTo(pointer).startsWith("index-");
        assertThat(json.get("millis").asLong()).isNotNegative();

        try (MockWebServer embed = new MockWebServer()) {
            embed.setDispatcher(new MockModels.Embeddings());
            embed.start();
            CliRunner withModel = MockModels.embedWith(new CliRunner(cli.home()), embed);
            CliRunner.Result both = ok(withModel, "--json", "reindex", "--vectors", "--lucene");
            List<JsonNode> lines = both.jsonLines();
            assertThat(lines).as(both.toString()).hasSize(2);
            assertThat(lines.get(0).get("rebuilt").asString()).isEqualTo("vectors");
            assertThat(lines.get(0).get("stored").asLong()).isEqualTo(4);
            assertThat(lines.get(1).get("rebuilt").asString()).isEqualTo("lucene");
            assertThat(lines.get(1).get("vectors").asLong()).isEqualTo(4);
            assertThat(recall(withModel, "鲁迅", "--index", "lucene", "--mode", "deep").json().get("results")).isNotEmpty();
        }
    }

    @Test
    @DisplayName("L2 D1 L4 a memory deleted with jiyi delete --memory never comes back from recall --index lucene, "
            + "not even with history, and once applied no term of its text is left in the index files")
    void deletedNeverReturns() throws IOException {
        Map<String, String> ids = archive();
        event("secret", "my locker code word is zorblaxite", "2025-03-06T10:00:00Z");
        String secret = memory("secret", "The locker code word is zorblaxite", "my locker code word is zorblaxite");
        assertThat(ids(recall(cli, "zorblaxite locker", "--index", "lucene").json())).first().isEqualTo(secret);
        assertThat(luceneFilesContaining("orblaxit")).as("the check can see the term").isNotEmpty();

        ok(cli, "delete", "--memory", secret);
        for (String query : List.of("zorblaxite", "locker code word", "zorblaxite locker")) {
            for (String[] extra : List.of(new String[] {}, new String[] {"--include-history"},
                    new String[] {"--mode", "deep"})) {
                JsonNode r = recall(cli, query, concat(new String[] {"--index", "lucene"}, extra)).json();
                assertThat(ids(r)).as(query).doesNotContain(secret, "secret");
            }
        }
        assertThat(luceneFilesContaining("orblaxit")).as("no residue in " + luceneRoot()).isEmpty();
        assertThat(ids(recall(cli, "鲁迅", "--index", "lucene").json())).containsExactly(ids.get("book"));

        // A rebuild from the authority cannot bring it back either.
        ok(cli, "reindex", "--lucene");
        assertThat(ids(recall(cli, "zorblaxite", "--index", "lucene", "--include-history").json())).isEmpty();
    }

    // ------------------------------------------------------------------ a second process

    @Test
    @DisplayName("L5 while another holder has the index's write lock, recall --index lucene answers from its last "
            + "commit with a warning saying how far behind it is (JSON warnings and human stderr); doctor reports "
            + "read_only and stays healthy; once the lock is free the index catches up")
    void anotherWriterHoldsTheLock() throws IOException {
        Map<String, String> ids = archive();
        recall(cli, "鲁迅", "--index", "lucene"); // builds it
        String fresh;
        // Opening takes the write lock (one writer per directory; Lucene counts this JVM's holders too).
        try (LuceneIndex holder = LuceneIndex.open(luceneRoot(), LuceneOptions.defaults())) {
            event("new", "我们下周去杭州看西湖", "2025-03-07T10:00:00+08:00");
            fresh = memory("new", "用户下周去杭州看西湖", "我们下周去杭州看西湖");

            JsonNode behind = recall(cli, "鲁迅", "--index", "lucene").json();
            assertThat(ids(behind)).containsExactly(ids.get("book"));
            assertThat(warnings(behind)).singleElement().asString()
                    .contains("lucene index is", "behind the authority", "write lock", "rechecked");
            assertThat(ids(recall(cli, "西湖", "--index", "fts5").json())).containsExactly(fresh);

            CliRunner.Result human = ok(cli, "recall", "鲁迅", "--index", "lucene");
            assertThat(human.err()).contains("warning: lucene index is", "change(s) behind");

            CliRunner.Result doctor = cli.run("--json", "doctor");
            assertThat(doctor.code()).as(doctor.toString()).isZero();
            assertThat(doctor.json().get("lucene").get("read_only").asBoolean()).isTrue();
        }
        JsonNode caughtUp = recall(cli, "西湖", "--index", "lucene").json();
        assertThat(ids(caughtUp)).containsExactly(fresh);
        assertThat(warnings(caughtUp)).isEmpty();
    }
}
