package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.EncodingType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code jiyi resume} end to end: the real command line on a temporary home, data set up through the CLI. */
class ResumeCliTest {

    @TempDir
    Path tmp;

    private CliRunner cli;

    @BeforeEach
    void setUp() {
        cli = new CliRunner(tmp.resolve("home"));
        ok("persona", "edit", "--text", "你是一位耐心的中文老师。 A patient Chinese teacher.");
        ok("event", "submit", "--id", "t1", "--role", "user", "--session", "s1",
                "--occurred-at", "2026-11-20T09:00:00+08:00", "--text", "我想每天练习写汉字，尤其是「鬱」这个字。");
        ok("memory", "add", "--event", "t1", "--kind", "preference", "--basis", "user_statement",
                "--text", "用户想每天练习写汉字", "--quote", "我想每天练习写汉字");
        ok("event", "submit", "--id", "t2", "--role", "assistant", "--session", "s1",
                "--occurred-at", "2026-11-20T09:01:00+08:00", "--text", "好的，我们约定每天晚上八点练习 calligraphy。");
        ok("memory", "add", "--event", "t2", "--kind", "agreement", "--basis", "assistant_expression",
                "--text", "每天晚上八点一起练习书法 (calligraphy at 8pm)", "--quote", "我们约定每天晚上八点练习 calligraphy");
        ok("event", "submit", "--id", "t3", "--role", "user", "--session", "s1",
                "--occurred-at", "2026-11-21T20:00:00+08:00", "--text", "Tonight I want to practise the character 鬱 again.");
        ok("checkpoint", "save", "--session", "s1", "--goal", "教会用户写「鬱」", "--done", "拆解部件",
                "--pending", "默写三遍", "--next", "检查用户的笔顺", "--covered-seq", "3");
    }

    private CliRunner.Result ok(String... args) {
        CliRunner.Result r = cli.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
        return r;
    }

    @Test
    @DisplayName("P1 P2 --json gives the context as JSON text plus metadata, components in order")
    void jsonShape() {
        JsonNode pack = ok("resume", "--session", "s1", "--budget", "3000", "--json").json();
        assertThat(pack.get("status").asString()).isEqualTo("ok");
        assertThat(pack.get("tokenizer").asString()).isEqualTo("utf8_bytes");
        String context = pack.get("context").asString();
        assertThat(pack.get("tokens").asInt()).isEqualTo(context.getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(3000);
        JsonNode doc = JsonMapper.builder().build().readTree(context);
        List<String> keys = new ArrayList<>(doc.propertyNames());
        assertThat(keys).containsExactly("about", "persona", "checkpoint", "agreements_and_growth",
                "recalled_memories", "recent_events");
        assertThat(doc.get("persona").get("text").asString()).contains("耐心的中文老师");
        assertThat(doc.get("checkpoint").get("goal").asString()).isEqualTo("教会用户写「鬱」");
        assertThat(doc.get("agreements_and_growth").get(0).get("text").asString()).contains("calligraphy");
        assertThat(doc.get("recent_events").get("note").asString()).contains("not current facts");
        assertThat(doc.get("recent_events").get("turns")).hasSize(3);
        assertThat(doc.get("recent_events").get("turns").get(2).get("text").asString()).contains("鬱 again");
        assertThat(pack.get("recalled_by").asString()).isEqualTo("checkpoint+latest_user_turn");
        assertThat(pack.get("omitted")).isEmpty();
        assertThat(pack.get("empty").toString()).contains("current_emotion");
        Map<String, Integer> included = new java.util.LinkedHashMap<>();
        pack.get("included").properties().forEach(e -> included.put(e.getKey(), e.getValue().asInt()));
        assertThat(included).containsEntry("agreements_and_growth", 1).containsEntry("recent_events", 3);
    }

    @Test
    @DisplayName("P5 --model gpt-4 counts cl100k tokens of the context text, within the budget")
    void cl100k() {
        JsonNode pack = ok("resume", "--model", "gpt-4", "--budget", "500", "--query", "汉字 calligraphy", "--json").json();
        assertThat(pack.get("tokenizer").asString()).isEqualTo("cl100k_base");
        int independent = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE)
                .countTokensOrdinary(pack.get("context").asString());
        assertThat(pack.get("tokens").asInt()).isEqualTo(independent).isLessThanOrEqualTo(500);
        assertThat(pack.get("recalled_by").asString()).isEqualTo("query");
    }

    @Test
    @DisplayName("P3 text output shows the pack, then what was omitted and the count")
    void textOutput() {
        CliRunner.Result r = ok("resume", "--session", "s1", "--budget", "1100", "--query", "汉字");
        assertThat(r.out()).startsWith("{\"about\":")
                .containsPattern("-- \\d+ of 1100 bytes \\(utf8_bytes\\)")
                .containsPattern("omitted \\(did not fit\\): [a-z_, ]+")
                .contains("recalled by: query");
        assertThat(r.out()).doesNotContain("omitted (did not fit): nothing");
    }

    @Test
    @DisplayName("P4 a budget too small for persona and framing: empty context, insufficient_budget")
    void insufficient() {
        JsonNode pack = ok("resume", "--budget", "40", "--json").json();
        assertThat(pack.get("status").asString()).isEqualTo("insufficient_budget");
        assertThat(pack.get("context").asString()).isEmpty();
        assertThat(pack.get("tokens").asInt()).isZero();
        CliRunner.Result text = ok("resume", "--budget", "40");
        assertThat(text.err()).contains("insufficient budget");
    }

    @Test
    @DisplayName("L1 the pack recalls through either index, with the same memories")
    void bothIndexes() {
        JsonNode fts5 = ok("resume", "--query", "书法 calligraphy 汉字", "--index", "fts5", "--json").json();
        JsonNode lucene = ok("resume", "--query", "书法 calligraphy 汉字", "--index", "lucene", "--json").json();
        JsonNode a = JsonMapper.builder().build().readTree(fts5.get("context").asString()).get("recalled_memories");
        JsonNode b = JsonMapper.builder().build().readTree(lucene.get("context").asString()).get("recalled_memories");
        assertThat(a).isNotNull();
        List<String> idsA = new ArrayList<>();
        List<String> idsB = new ArrayList<>();
        a.forEach(n -> idsA.add(n.get("id").asString()));
        b.forEach(n -> idsB.add(n.get("id").asString()));
        assertThat(idsB).containsExactlyInAnyOrderElementsOf(idsA);
    }

    @Test
    @DisplayName("S1 another persona's pack holds none of this persona's memories or turns")
    void scope() {
        JsonNode pack = ok("--persona", "other", "resume", "--query", "汉字 calligraphy", "--json").json();
        assertThat(pack.get("context").asString()).doesNotContain("汉字").doesNotContain("calligraphy");
        assertThat(pack.get("recalled_by").asString()).isEqualTo("query");
    }

    @Test
    @DisplayName("bad input: a clear error naming the option and rule, never the value; nothing changes")
    void badInput() {
        Map<String, Long> before = cli.rowCounts();
        String secret = "SECRET-42-机密";
        assertError(cli.run("resume", "--budget", "0"), "budget");
        assertError(cli.run("resume", "--budget", secret), "--budget");
        assertError(cli.run("resume", "--budget", "1000001"), "budget");
        assertError(cli.run("resume", "--model", secret.repeat(20)), "model");
        assertError(cli.run("resume", "--session", "bad id " + secret), "session");
        assertError(cli.run("resume", "--index", secret), "index");
        assertError(cli.run("resume", "--mode", secret), "--mode");
        assertError(cli.run("resume", "--query", secret.repeat(2_000)), "query");
        assertThat(cli.rowCounts()).isEqualTo(before);
    }

    private static void assertError(CliRunner.Result r, String field) {
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(r.err()).contains(field).doesNotContain("SECRET-42").doesNotContain("机密");
    }

    @Test
    @DisplayName("R2 FTS syntax in the query is plain text")
    void ftsSyntax() {
        JsonNode pack = ok("resume", "--query", "汉字\" AND NEAR( calligraphy* -x ^y", "--json").json();
        assertThat(pack.get("status").asString()).isEqualTo("ok");
        assertThat(pack.get("included").has("recalled_memories")).isTrue();
    }
}
