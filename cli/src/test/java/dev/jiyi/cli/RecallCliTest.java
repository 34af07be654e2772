package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * End-to-end tests of {@code jiyi recall} and {@code jiyi recall --batch}: the real command line, run
 * in-process against a temporary home, with all data set up through the CLI itself. Every event is
 * submitted in its own session so that conversational neighbours do not lend evidence.
 */
class RecallCliTest {

    /** Values that look like secrets: error messages must never echo them (O7). */
    private static final String SECRET = "SECRET-VALUE-42";
    private static final String SECRET_ZH = "机密内容";

    private static final List<String> SIGNALS = List.of("lexical", "context", "cosine", "related", "basis", "confidence",
            "freshness", "time");

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

    /** Submits a user event in a session of its own. Extra arguments go before the verb (scope flags). */
    private void event(String id, String text, String occurredAt, String... scope) {
        eventAs(id, "user", "conversation", text, occurredAt, scope);
    }

    private void eventAs(String id, String role, String category, String text, String occurredAt, String... scope) {
        String[] args = concat(scope, "event", "submit", "--id", id, "--role", role, "--category", category,
                "--session", "s-" + id, "--occurred-at", occurredAt, "--text", text);
        CliRunner.Result r = cli.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
    }

    /** Derives a memory by hand and returns its ID. {@code extra} are further {@code memory add} options. */
    private String memory(String eventId, String kind, String text, String quote, String... extra) {
        return memoryIn(new String[0], eventId, kind, "user_statement", text, quote, extra);
    }

    private String memoryIn(String[] scope, String eventId, String kind, String basis, String text, String quote,
                            String... extra) {
        String[] args = concat(concat(scope, "--json", "memory", "add", "--event", eventId, "--kind", kind, "--basis",
                basis, "--text", text, "--quote", quote), extra);
        CliRunner.Result r = cli.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
        return r.json().get("memory").get("id").asString();
    }

    /** {@code jiyi --json recall ARGS...}, which must succeed; returns the one JSON result line. */
    private JsonNode recall(String... args) {
        CliRunner.Result r = cli.run(concat(new String[] {"--json", "recall"}, args));
        assertThat(r.code()).as(r.toString()).isZero();
        List<JsonNode> lines = r.jsonLines();
        assertThat(lines).as(r.toString()).hasSize(1);
        return lines.get(0);
    }

    private static List<JsonNode> results(JsonNode result) {
        List<JsonNode> out = new ArrayList<>();
        result.get("results").forEach(out::add);
        return out;
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

    private static JsonNode item(JsonNode result, String id) {
        for (JsonNode item : result.get("results")) {
            String itemId = item.has("memory_id") ? item.get("memory_id").asString() : item.get("source_event_id").asString();
            if (itemId.equals(id)) {
                return item;
            }
        }
        throw new AssertionError("no result " + id + " in " + result);
    }

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.propertyNames().forEach(out::add);
        return out;
    }

    /** A small bilingual archive in the default scope. */
    private Map<String, String> bilingualArchive() {
        event("b1", "这本书的作者是鲁迅", "2025-03-01T10:00:00+08:00");
        String book = memory("b1", "fact", "那本书的作者是鲁迅", "这本书的作者是鲁迅");
        event("bj", "我在北京大学读书", "2025-03-02T10:00:00+08:00"); // raw: no memory
        event("paris", "I lived in Paris for two years", "2025-03-03T10:00:00Z");
        String paris = memory("paris", "fact", "The user lived in Paris for two years", "I lived in Paris");
        event("mix", "我在 Acme 公司做 Java 开发", "2025-03-04T10:00:00+08:00");
        String mix = memory("mix", "fact", "用户在 Acme 公司做 Java 开发", "我在 Acme 公司做 Java 开发");
        event("ops", "the NEAR operator and column:filter syntax", "2025-03-05T10:00:00Z"); // raw
        return Map.of("book", book, "paris", paris, "mix", mix);
    }

    // ------------------------------------------------------------------ output shapes

    @Test
    @DisplayName("R3 R7 --json output: one line {query, results, warnings}; a memory result carries type, memory_id, "
            + "source_event_id, score, text, presentation, kind, basis, confidence, valid_at, invalid_at, time_label, "
            + "status, truncated")
    void jsonMemoryShape() {
        Map<String, String> ids = bilingualArchive();
        JsonNode r = recall("鲁迅");
        assertThat(names(r)).containsExactly("query", "results", "warnings");
        assertThat(r.get("query").asString()).isEqualTo("鲁迅");
        assertThat(r.get("warnings").isArray()).isTrue();
        assertThat(r.get("warnings").size()).isZero();
        List<JsonNode> items = results(r);
        assertThat(items).hasSize(1);
        JsonNode m = items.get(0);
        assertThat(names(m)).containsExactly("type", "memory_id", "source_event_id", "score", "text", "presentation",
                "kind", "basis", "confidence", "valid_at", "invalid_at", "time_label", "status", "truncated", "evidence");
        assertThat(m.get("type").asString()).isEqualTo("memory");
        assertThat(m.get("memory_id").asString()).isEqualTo(ids.get("book"));
        assertThat(m.get("source_event_id").asString()).isEqualTo("b1");
        assertThat(m.get("score").isNumber()).isTrue();
        assertThat(m.get("score").asDouble()).isGreaterThan(0);
        assertThat(m.get("text").asString()).isEqualTo("那本书的作者是鲁迅");
        assertThat(m.get("presentation").asString()).isEqualTo("full");
        assertThat(m.get("kind").asString()).isEqualTo("fact");
        assertThat(m.get("basis").asString()).isEqualTo("user_statement");
        assertThat(m.get("confidence").asDouble()).isEqualTo(1.0);
        assertThat(m.get("valid_at").asString()).isEqualTo("2025-03-01T02:00:00.000000Z");
        assertThat(m.get("invalid_at").isNull()).isTrue();
        assertThat(m.get("time_label").asString()).isEqualTo("2025-03-01T02:00:00.000000Z");
        assertThat(m.get("status").asString()).isEqualTo("current");
        assertThat(m.get("truncated").asBoolean()).isFalse();
        assertThat(m.get("evidence").asString()).isEqualTo("memory");
        assertThat(m.has("explain")).as("explain only with --explain").isFalse();
        assertThat(m.has("label")).isFalse();
        assertThat(m.has("category")).isFalse();
    }

    @Test
    @DisplayName("R7 --json raw fallback result: type raw_event, no memory_id, label raw_event, category, presentation "
            + "raw_event, no memory fields")
    void jsonRawShape() {
        bilingualArchive();
        eventAs("ref", "user", "reference", "独角兽手册第一章", "2025-03-06T10:00:00Z");
        JsonNode r = recall("北京");
        List<JsonNode> items = results(r);
        assertThat(items).hasSize(1);
        JsonNode raw = items.get(0);
        assertThat(names(raw)).containsExactly("type", "source_event_id", "score", "text", "presentation", "label",
                "category", "time_label", "status", "truncated", "evidence");
        assertThat(raw.get("type").asString()).isEqualTo("raw_event");
        assertThat(raw.get("label").asString()).isEqualTo("raw_event");
        assertThat(raw.get("presentation").asString()).isEqualTo("raw_event");
        assertThat(raw.get("category").asString()).isEqualTo("conversation");
        assertThat(raw.get("source_event_id").asString()).isEqualTo("bj");
        assertThat(raw.get("text").asString()).isEqualTo("我在北京大学读书");
        assertThat(raw.get("time_label").asString()).isEqualTo("2025-03-02T02:00:00.000000Z");
        assertThat(raw.get("status").asString()).isEqualTo("current");
        assertThat(raw.get("truncated").asBoolean()).isFalse();
        assertThat(raw.get("score").asDouble()).isGreaterThan(0);

        JsonNode ref = results(recall("独角兽")).get(0);
        assertThat(ref.get("type").asString()).isEqualTo("raw_event");
        assertThat(ref.get("category").asString()).isEqualTo("reference");
    }

    @Test
    @DisplayName("R3 R7 human output: numbered lines with kind, text, score, time, event, memory ID, basis, confidence; "
            + "raw results labeled raw_event with their category")
    void humanOutput() {
        Map<String, String> ids = bilingualArchive();
        CliRunner.Result r = cli.run("recall", "书");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.err()).isEmpty();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(r.out()).contains("[fact] 那本书的作者是鲁迅");
        assertThat(r.out()).contains("[raw_event, conversation] 我在北京大学读书");
        assertThat(lines.get(0)).matches(" 1\\. \\[.*");
        assertThat(lines.get(2)).matches(" 2\\. \\[.*");
        String meta = lines.stream().filter(l -> l.contains(ids.get("book"))).findFirst().orElseThrow();
        assertThat(meta).matches("    score \\d\\.\\d{3} · .*")
                .contains("2025-03-01T02:00:00.000000Z", "event b1", "user_statement", "confidence 1.0");
        String rawMeta = lines.stream().filter(l -> l.contains("event bj")).findFirst().orElseThrow();
        assertThat(rawMeta).doesNotContain("mem_");
        assertThat(r.out()).doesNotContain("lexical");
    }

    // ------------------------------------------------------------------ explain

    @Test
    @DisplayName("R3 --explain lists the six signals lexical, cosine, related, basis, confidence, freshness with "
            + "value/weight/contribution, and the contributions sum to the score")
    void explainSignals() {
        Map<String, String> ids = bilingualArchive();
        event("walk", "我喜欢散步", "2025-03-07T10:00:00+08:00");
        String walk = memoryIn(new String[0], "walk", "preference", "inference", "用户可能喜欢散步", "我喜欢散步",
                "--confidence", "0.6");
        // Before the link, the walk memory has no evidence for 鲁迅 (R6).
        assertThat(ids(recall("鲁迅"))).containsExactly(ids.get("book"));
        assertThat(cli.run("relate", ids.get("book"), walk).code()).isZero();

        JsonNode r = recall("鲁迅", "--explain");
        assertThat(ids(r)).containsExactly(ids.get("book"), walk);
        for (JsonNode item : r.get("results")) {
            JsonNode explain = item.get("explain");
            assertThat(explain).as(item.toString()).isNotNull();
            assertThat(names(explain)).containsExactly(SIGNALS.toArray(String[]::new));
            double sum = 0;
            for (String s : SIGNALS) {
                JsonNode signal = explain.get(s);
                assertThat(names(signal)).containsExactly("value", "weight", "contribution");
                // Coverage (lexical, context, and related, a linked match's coverage) can exceed 1 for a short
                // row; every other signal is in [0, 1].
                boolean coverage = s.equals("lexical") || s.equals("context") || s.equals("related");
                assertThat(signal.get("value").asDouble()).isBetween(0.0, coverage ? 3.0 : 1.0);
                assertThat(signal.get("contribution").asDouble())
                        .isCloseTo(signal.get("value").asDouble() * signal.get("weight").asDouble(), within(1e-5));
                sum += signal.get("contribution").asDouble();
            }
            assertThat(sum).as(item.toString()).isCloseTo(item.get("score").asDouble(), within(1e-5));
        }
        JsonNode book = item(r, ids.get("book")).get("explain");
        assertThat(book.get("lexical").get("value").asDouble()).isGreaterThan(0.5); // coverage of 鲁迅
        assertThat(book.get("basis").get("value").asDouble()).isEqualTo(1.0);
        assertThat(book.get("confidence").get("value").asDouble()).isEqualTo(1.0);
        assertThat(book.get("cosine").get("value").asDouble()).isZero();
        JsonNode linked = item(r, walk).get("explain");
        assertThat(linked.get("lexical").get("value").asDouble()).isZero();
        assertThat(linked.get("related").get("value").asDouble()).isGreaterThan(0);
        assertThat(linked.get("related").get("contribution").asDouble()).isGreaterThan(0);
        assertThat(linked.get("basis").get("value").asDouble()).as("inference").isEqualTo(0.5);
        assertThat(linked.get("confidence").get("value").asDouble()).isEqualTo(0.6);

        // Raw results explain their (fewer) signals too, and those also sum to the score.
        JsonNode raw = results(recall("北京", "--explain")).get(0);
        double rawSum = 0;
        for (String s : names(raw.get("explain"))) {
            rawSum += raw.get("explain").get(s).get("contribution").asDouble();
        }
        assertThat(rawSum).isCloseTo(raw.get("score").asDouble(), within(1e-5));

        // Human --explain: a line naming each signal as value×weight=contribution.
        CliRunner.Result human = cli.run("recall", "鲁迅", "--explain");
        assertThat(human.code()).as(human.toString()).isZero();
        String line = human.out().lines().filter(l -> l.contains("lexical ")).findFirst().orElseThrow();
        for (String s : SIGNALS) {
            assertThat(line).containsPattern(s + " \\d\\.\\d{3}×\\d+\\.\\d{2}=\\d\\.\\d{3}");
        }
    }

    // ------------------------------------------------------------------ languages

    @Test
    @DisplayName("R1 Chinese, English and mixed queries: 书 finds 本书, 北京 finds 我在北京大学读书, Paris and "
            + "a stemmed English form find the English memory, a mixed query finds the mixed memory")
    void languages() {
        Map<String, String> ids = bilingualArchive();
        assertThat(ids(recall("书"))).containsExactlyInAnyOrder(ids.get("book"), "bj");
        assertThat(ids(recall("北京"))).containsExactly("bj");
        assertThat(ids(recall("大学"))).containsExactly("bj");
        assertThat(ids(recall("鲁迅"))).containsExactly(ids.get("book"));
        assertThat(ids(recall("Paris"))).containsExactly(ids.get("paris"));
        assertThat(ids(recall("PARIS"))).containsExactly(ids.get("paris"));
        assertThat(ids(recall("living in paris"))).containsExactly(ids.get("paris"));
        assertThat(ids(recall("Java 开发"))).containsExactly(ids.get("mix"));
        assertThat(ids(recall("acme"))).containsExactly(ids.get("mix"));
        assertThat(ids(recall("鲁迅 Paris"))).containsExactlyInAnyOrder(ids.get("book"), ids.get("paris"));
    }

    // ------------------------------------------------------------------ literal queries

    @Test
    @DisplayName("R2 every FTS5 operator or quote character in a query is searched literally and exits 0")
    void operatorsAreLiteral() {
        Map<String, String> ids = bilingualArchive();
        List<String> operatorOnly = List.of("\"", "\"\"", "*", "AND", "OR", "NOT", "NEAR", "NEAR(", "NEAR()", ":", "-",
                "^", "(", ")", "()", "+", "'", "\\", "{", "}", "[", "]", "\"*\"", "AND OR NOT", "-- ;", "\" OR 1=1 --");
        for (String q : operatorOnly) {
            CliRunner.Result r = cli.run("--json", "recall", "--", q);
            assertThat(r.code()).as(q + "\n" + r).isZero();
            assertThat(r.jsonLines()).hasSize(1);
            assertThat(r.json().get("query").asString()).isEqualTo(q);
            CliRunner.Result human = cli.run("recall", "--", q);
            assertThat(human.code()).as(q + "\n" + human).isZero();
        }
        // Each operator next to a real term: the term is still found, the operator is not syntax.
        List<String> withTerm = List.of("\"书", "书\"", "书*", "书 AND", "AND 书", "书 AND 鲁迅", "书 OR", "NOT 书", "-书",
                "书 -鲁迅", "^书", "text:书", "content:书", "(书)", "(书", "书)", "NEAR(书 鲁迅, 2)", "NEAR(书", "{书}",
                "书 + 鲁迅", "\"书\" \"鲁迅\"", "'书'");
        for (String q : withTerm) {
            JsonNode r = recall("--", q);
            assertThat(r.get("query").asString()).isEqualTo(q);
            assertThat(ids(r)).as(q).contains(ids.get("book"));
        }
        // NEAR and column:filter are text: they find the raw event that contains those words.
        assertThat(ids(recall("NEAR("))).containsExactly("ops");
        assertThat(ids(recall("column:"))).containsExactly("ops");
        assertThat(ids(recall("filter*"))).containsExactly("ops");
    }

    @Test
    @DisplayName("R2 a query that begins with '-' is searched as text, not taken for an option (with or without --)")
    void leadingDashQuery() {
        Map<String, String> ids = bilingualArchive();
        // With the end-of-options marker, as a careful host would call it.
        for (String q : List.of("-书", "--书", "- 书", "-- 书", "-(书)")) {
            JsonNode r = recall("--", q);
            assertThat(r.get("query").asString()).isEqualTo(q);
            assertThat(ids(r)).as(q).contains(ids.get("book"));
        }
        // As a user types it: the text of a query is never an error (R2).
        for (String q : List.of("-书", "- 书", "-- ;")) {
            CliRunner.Result r = cli.run("--json", "recall", q);
            assertThat(r.code()).as(q + "\n" + r).isZero();
            assertThat(r.json().get("query").asString()).isEqualTo(q);
        }
    }

    // ------------------------------------------------------------------ shared words

    @Test
    @DisplayName("R4 shared words through the CLI: a statement that holds none of the question's words but names what "
            + "its best match is about comes back as shared_words; recall.context.shared=0 turns it off, and a value "
            + "outside [0, 1] is exit 2 naming the setting, never the value")
    void sharedWords() {
        event("place", "书法论坛的地点是广东深圳。", "2025-05-01T10:00:00+08:00");
        memory("place", "fact", "书法论坛的地点是广东深圳。", "书法论坛的地点是广东深圳。");
        event("who", "我和导师一起去了书法论坛。", "2025-05-01T11:00:00+08:00");
        String who = memory("who", "episode", "我和导师一起去了书法论坛。", "我和导师一起去了书法论坛。");
        event("other", "The chess summit is in Nanjing.", "2025-05-02T10:00:00+08:00");
        memory("other", "fact", "The chess summit is in Nanjing.", "The chess summit is in Nanjing.");
        String question = "那个地点是广东深圳的活动，其时间是什么？";
        JsonNode on = recall(question);
        assertThat(item(on, who).get("evidence").asString()).isEqualTo("shared_words");
        CliRunner.Result r = cli.env("JIYI_RECALL_CONTEXT_SHARED", "0").run("--json", "recall", question);
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(ids(r.jsonLines().getFirst())).isNotEmpty().doesNotContain(who);
        CliRunner.Result bad = cli.env("JIYI_RECALL_CONTEXT_SHARED", "1.5").run("--json", "recall", question);
        assertThat(bad.code()).as(bad.toString()).isEqualTo(2);
        assertThat(bad.err()).contains("recall.context.shared").doesNotContain("1.5");
    }

    // ------------------------------------------------------------------ no evidence

    @Test
    @DisplayName("R6 a query with no evidence prints an empty result list and exits 0; unrelated items are never "
            + "substituted")
    void noEvidence() {
        bilingualArchive();
        JsonNode r = recall("天气预报");
        assertThat(r.get("results").isArray()).isTrue();
        assertThat(r.get("results").size()).isZero();
        assertThat(results(recall("quantum chromodynamics"))).isEmpty();
        CliRunner.Result human = cli.run("recall", "天气预报");
        assertThat(human.code()).isZero();
        assertThat(human.out().strip()).isEqualTo("no evidence found for this query");
    }

    @Test
    @DisplayName("R6 a query sharing only 的/我/了/the/a with stored text returns nothing")
    void stopWordsOnly() {
        event("sw", "我看完了我的书 the book is a classic", "2025-03-01T10:00:00+08:00");
        memory("sw", "fact", "我看完了我的书 the book is a classic", "我看完了我的书 the book is a classic");
        event("sw2", "我的猫 the cat and a dog", "2025-03-02T10:00:00+08:00"); // raw
        for (String q : List.of("的", "我", "了", "the", "a", "的 我 了 the a", "the a", "THE A", "了 的")) {
            JsonNode r = recall(q);
            assertThat(results(r)).as(q).isEmpty();
        }
        // ... while a real shared word does find it.
        assertThat(results(recall("the book"))).hasSize(1);
    }

    @Test
    @DisplayName("R6 recall on a brand-new empty home returns nothing and exits 0")
    void emptyHome() {
        CliRunner fresh = new CliRunner(tmp.resolve("fresh"));
        CliRunner.Result r = fresh.run("--json", "recall", "书");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.json().get("results").size()).isZero();
        assertThat(r.json().get("query").asString()).isEqualTo("书");
        CliRunner.Result human = new CliRunner(tmp.resolve("fresh2")).run("recall", "anything at all");
        assertThat(human.code()).as(human.toString()).isZero();
        assertThat(human.out()).contains("no evidence found");
        Map<String, Long> counts = fresh.rowCounts();
        assertThat(counts.getOrDefault("events", 0L)).isZero();
        assertThat(counts.getOrDefault("memories", 0L)).isZero();
        CliRunner.Result batch = new CliRunner(tmp.resolve("fresh3")).runWithStdin(
                "{\"query\": \"书\", \"tag\": \"x\"}\n", "recall", "--batch", "-");
        assertThat(batch.code()).as(batch.toString()).isZero();
        assertThat(batch.json().get("results").size()).isZero();
    }

    // ------------------------------------------------------------------ raw fallback

    @Test
    @DisplayName("R7 raw fallback: events without memories come back labeled raw_event, capped at 2,000 characters "
            + "with \"truncated\": true; stored text is untouched; events with memories are not raw results")
    void rawFallbackCap() {
        String unit = "独角兽在草原上奔跑。"; // 10 characters
        String longText = unit.repeat(250); // 2,500 characters
        event("long", longText, "2025-03-01T10:00:00+08:00");
        String emoji = "麒麟" + "😀".repeat(2100); // supplementary characters: 2,102 code points
        event("emoji", emoji, "2025-03-01T11:00:00+08:00");
        String exact = "凤凰" + "羽".repeat(1998); // exactly 2,000 characters
        event("exact", exact, "2025-03-01T12:00:00+08:00");
        event("derived", "独角兽的照片", "2025-03-01T13:00:00+08:00");
        String derivedMemory = memory("derived", "episode", "用户拍了独角兽的照片", "独角兽的照片");

        JsonNode r = recall("独角兽", "--limit", "200");
        JsonNode raw = item(r, "long");
        assertThat(raw.get("type").asString()).isEqualTo("raw_event");
        assertThat(raw.get("label").asString()).isEqualTo("raw_event");
        assertThat(raw.get("truncated").asBoolean()).isTrue();
        assertThat(raw.get("text").asString()).hasSize(2000).isEqualTo(longText.substring(0, 2000));
        // The event with a derived memory comes back as that memory, never as raw text.
        assertThat(ids(r)).containsExactlyInAnyOrder("long", derivedMemory);
        assertThat(item(r, derivedMemory).get("type").asString()).isEqualTo("memory");

        JsonNode e = item(recall("麒麟"), "emoji");
        String shown = e.get("text").asString();
        assertThat(e.get("truncated").asBoolean()).isTrue();
        assertThat(shown.codePointCount(0, shown.length())).isEqualTo(2000);
        assertThat(emoji).startsWith(shown);
        assertThat(Character.isHighSurrogate(shown.charAt(shown.length() - 1))).as("no half pair").isFalse();

        JsonNode x = item(recall("凤凰"), "exact");
        assertThat(x.get("truncated").asBoolean()).isFalse();
        assertThat(x.get("text").asString()).isEqualTo(exact);

        // Human output flags the truncation.
        CliRunner.Result human = cli.run("recall", "独角兽");
        assertThat(human.out()).contains("[raw_event, conversation, truncated]");
        // The stored text is never altered by the cap.
        assertThat(cli.query("SELECT length(text) FROM events WHERE id = 'long'")).containsExactly("2500");
        assertThat(cli.query("SELECT text FROM events WHERE id = 'emoji'")).containsExactly(emoji);
    }

    @Test
    @DisplayName("R4 R7 a conversation kept as events only, on FTS5 and Lucene: the reply that answers the turn holding "
            + "the question's words comes back right after it, as a raw event, though it holds none of them (Chinese, English)")
    void rawEventsThroughTheirConversation() {
        String[][] turns = {{"ask", "assistant", "你报的陶艺课在哪里上？ Where is your pottery class?", "10:00:00"},
            {"answer", "user", "朝阳区的社区中心，每周六上午。 The community center, Saturday mornings.", "10:00:10"}};
        for (String[] t : turns) {
            CliRunner.Result r = cli.run("event", "submit", "--id", t[0], "--role", t[1], "--session", "pottery",
                    "--occurred-at", "2025-03-01T" + t[3] + "+08:00", "--text", t[2]);
            assertThat(r.code()).as(r.toString()).isZero();
        }
        for (String index : List.of("fts5", "lucene")) {
            for (String q : List.of("陶艺课", "pottery class")) {
                JsonNode r = recall(q, "--index", index);
                assertThat(ids(r)).as(index + " " + q).startsWith("ask", "answer");
                assertThat(item(r, "answer").get("type").asString()).isEqualTo("raw_event");
            }
        }
    }

    // ------------------------------------------------------------------ temporal facts

    @Test
    @DisplayName("T6 R8 an expired fact appears only with --as-of (before the change) or --include-history "
            + "(status expired); current recall shows only the current one")
    void expiredFacts() {
        event("f1", "我住在上海", "2024-01-10T09:00:00+08:00");
        String shanghai = memory("f1", "fact", "用户住在上海", "我住在上海", "--subject", "user", "--fact-key", "home_city");
        event("f2", "我搬家了，现在住在杭州", "2024-06-01T09:00:00+08:00");
        String hangzhou = memory("f2", "fact", "用户住在杭州", "现在住在杭州", "--subject", "user", "--fact-key",
                "home_city");

        // Current: only the new fact.
        JsonNode now = recall("住在");
        assertThat(ids(now)).containsExactly(hangzhou);
        assertThat(item(now, hangzhou).get("status").asString()).isEqualTo("current");
        // R9: the expired fact matches 上海, and leads to its timeline's current fact; never itself.
        JsonNode viaTimeline = recall("上海");
        assertThat(ids(viaTimeline)).containsExactly(hangzhou);
        assertThat(item(viaTimeline, hangzhou).get("evidence").asString()).isEqualTo("timeline");

        // As of a time before the change: the old fact is current, the new one does not exist yet.
        JsonNode before = recall("住在", "--as-of", "2024-03-01T00:00:00Z");
        assertThat(ids(before)).containsExactly(shanghai);
        JsonNode old = item(before, shanghai);
        assertThat(old.get("status").asString()).isEqualTo("current");
        assertThat(old.get("valid_at").asString()).isEqualTo("2024-01-10T01:00:00.000000Z");
        assertThat(old.get("invalid_at").asString()).isEqualTo("2024-06-01T01:00:00.000000Z");
        assertThat(ids(recall("上海", "--as-of", "2024-03-01T08:00:00+08:00"))).containsExactly(shanghai);
        // Half-open interval: at the exact change instant, the new fact holds.
        assertThat(ids(recall("住在", "--as-of", "2024-06-01T01:00:00Z"))).containsExactly(hangzhou);
        // After the change: only the new one again.
        assertThat(ids(recall("住在", "--as-of", "2024-07-01T00:00:00Z"))).containsExactly(hangzhou);

        // With history: both, the old one labeled expired.
        JsonNode history = recall("住在", "--include-history");
        assertThat(ids(history)).containsExactlyInAnyOrder(shanghai, hangzhou);
        assertThat(item(history, shanghai).get("status").asString()).isEqualTo("expired");
        assertThat(item(history, hangzhou).get("status").asString()).isEqualTo("current");
        JsonNode shanghaiHistory = recall("上海", "--include-history");
        assertThat(ids(shanghaiHistory)).containsExactlyInAnyOrder(shanghai, hangzhou); // R9: and the timeline's fact now
        assertThat(item(shanghaiHistory, hangzhou).get("evidence").asString()).isEqualTo("timeline");

        // Both together: as of before the change, the later fact is labeled future.
        JsonNode both = recall("住在", "--as-of", "2024-03-01T00:00:00Z", "--include-history");
        assertThat(item(both, shanghai).get("status").asString()).isEqualTo("current");
        assertThat(item(both, hangzhou).get("status").asString()).isEqualTo("future");

        // Human output labels the expired fact.
        CliRunner.Result human = cli.run("recall", "上海", "--include-history");
        assertThat(human.code()).isZero();
        assertThat(human.out()).contains("用户住在上海", "EXPIRED");

        // A zone ID is a valid way to give the offset.
        assertThat(ids(recall("住在", "--as-of", "2024-03-01T08:00:00+08:00[Asia/Shanghai]"))).containsExactly(shanghai);

        // A future fact: not in current recall, labeled future with history, current as of its time.
        event("job", "我下个月开始在腾讯上班", "2025-03-01T10:00:00+08:00");
        String job = memory("job", "fact", "用户在腾讯上班", "在腾讯上班", "--subject", "user", "--fact-key", "employer",
                "--valid-at", "2099-01-01T00:00:00Z");
        assertThat(ids(recall("腾讯"))).isEmpty();
        JsonNode future = recall("腾讯", "--include-history");
        assertThat(ids(future)).containsExactly(job);
        assertThat(item(future, job).get("status").asString()).isEqualTo("future");
        assertThat(ids(recall("腾讯", "--as-of", "2099-06-01T00:00:00Z"))).containsExactly(job);
        assertThat(item(recall("腾讯", "--as-of", "2099-06-01T00:00:00Z"), job).get("status").asString())
                .isEqualTo("current");
    }

    // ------------------------------------------------------------------ limit, modes

    @Test
    @DisplayName("R3 --limit is honoured (default 10, at most 200); results are best first")
    void limit() {
        StringBuilder events = new StringBuilder();
        for (int i = 1; i <= 12; i++) {
            events.append(String.format("{\"id\": \"c%02d\", \"role\": \"user\", \"text\": \"我喝了一杯咖啡，第%d杯\", "
                    + "\"session\": \"s-c%02d\", \"occurred_at\": \"2025-03-%02dT10:00:00+08:00\"}%n", i, i, i, i));
        }
        CliRunner.Result submitted = cli.runWithStdin(events.toString(), "event", "submit", "--batch", "-");
        assertThat(submitted.code()).as(submitted.toString()).isZero();
        StringBuilder memories = new StringBuilder();
        for (int i = 1; i <= 12; i++) {
            memories.append(String.format("{\"event\": \"c%02d\", \"kind\": \"episode\", \"basis\": \"user_statement\", "
                    + "\"text\": \"用户喝了咖啡\", \"quote\": \"我喝了一杯咖啡\"}%n", i));
        }
        CliRunner.Result added = cli.runWithStdin(memories.toString(), "--json", "memory", "add", "--batch", "-");
        assertThat(added.code()).as(added.toString()).isZero();

        assertThat(results(recall("咖啡"))).hasSize(10);
        assertThat(results(recall("咖啡", "--limit", "2"))).hasSize(2);
        assertThat(results(recall("咖啡", "--limit", "1"))).hasSize(1);
        assertThat(results(recall("咖啡", "--limit", "200"))).hasSize(12);
        List<JsonNode> all = results(recall("咖啡", "--limit", "12"));
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i - 1).get("score").asDouble()).isGreaterThanOrEqualTo(all.get(i).get("score").asDouble());
        }
        // The top 2 of a limited recall are the top 2 of the full one.
        assertThat(ids(recall("咖啡", "--limit", "2"))).isEqualTo(ids(recall("咖啡", "--limit", "12")).subList(0, 2));
        CliRunner.Result human = cli.run("recall", "咖啡", "--limit", "3");
        assertThat(human.out().lines().filter(l -> l.matches("\\s*\\d+\\. \\[.*"))).hasSize(3);
    }

    @Test
    @DisplayName("R3 --mode fast|semantic|deep and --index fts5 are accepted; semantic and deep warn that no vectors "
            + "exist yet")
    void modes() {
        Map<String, String> ids = bilingualArchive();
        assertThat(recall("鲁迅", "--mode", "fast").get("warnings").size()).isZero();
        assertThat(recall("鲁迅", "--index", "fts5").get("warnings").size()).isZero();
        for (String mode : List.of("semantic", "deep", "DEEP")) {
            JsonNode r = recall("鲁迅", "--mode", mode);
            assertThat(ids(r)).containsExactly(ids.get("book"));
            assertThat(r.get("warnings").size()).as(mode).isEqualTo(1);
        }
        CliRunner.Result human = cli.run("recall", "鲁迅", "--mode", "semantic");
        assertThat(human.code()).isZero();
        assertThat(human.err()).startsWith("warning: ");
    }

    // ------------------------------------------------------------------ forgetting presentation

    @Test
    @DisplayName("F2 old episodes show their authored gist or a labeled topic cue and, after 730 days, a decade time "
            + "label; facts stay detailed")
    void forgettingPresentation() {
        event("old1", "那年夏天我们去海边露营，晚上看到了流星雨。第二天下雨了。", "2015-07-01T20:00:00+08:00");
        String withGist = memory("old1", "episode", "那年夏天去海边露营看到了流星雨。第二天下雨了。", "我们去海边露营",
                "--gist", "海边露营看流星");
        event("old2", "海边的灯塔很漂亮。我拍了很多照片。", "2015-08-01T20:00:00+08:00");
        String cue = memory("old2", "observation", "海边的灯塔很漂亮。用户拍了很多照片。", "海边的灯塔很漂亮");
        event("old3", "我的生日是五月三日，在海边出生", "2015-09-01T20:00:00+08:00");
        String fact = memory("old3", "fact", "用户生日是五月三日，在海边出生", "我的生日是五月三日");
        String recent = Instant.now().minus(2, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS).toString();
        event("new1", "今天去海边散步了", recent);
        String fresh = memory("new1", "episode", "用户今天去海边散步", "今天去海边散步了");

        JsonNode r = recall("海边", "--limit", "20");
        JsonNode g = item(r, withGist);
        assertThat(g.get("presentation").asString()).isEqualTo("gist");
        assertThat(g.get("text").asString()).isEqualTo("海边露营看流星");
        assertThat(g.get("time_label").asString()).isEqualTo("2010s");
        JsonNode c = item(r, cue);
        assertThat(c.get("presentation").asString()).isEqualTo("topic_cue");
        assertThat(c.get("text").asString()).isEqualTo("海边的灯塔很漂亮");
        assertThat(c.get("time_label").asString()).isEqualTo("2010s");
        JsonNode f = item(r, fact);
        assertThat(f.get("presentation").asString()).isEqualTo("full");
        assertThat(f.get("text").asString()).isEqualTo("用户生日是五月三日，在海边出生");
        assertThat(f.get("time_label").asString()).isEqualTo("2015-09-01T12:00:00.000000Z");
        JsonNode n = item(r, fresh);
        assertThat(n.get("presentation").asString()).isEqualTo("full");
        assertThat(n.get("text").asString()).isEqualTo("用户今天去海边散步");
        assertThat(n.get("time_label").asString()).isNotEqualTo("2020s").endsWith("Z");

        // As of a time shortly after the old episode, it is fresh again: full text and an exact time.
        JsonNode then = recall("露营", "--as-of", "2015-07-10T00:00:00Z");
        assertThat(item(then, withGist).get("presentation").asString()).isEqualTo("full");
        assertThat(item(then, withGist).get("time_label").asString()).isEqualTo("2015-07-01T12:00:00.000000Z");

        CliRunner.Result human = cli.run("recall", "灯塔");
        assertThat(human.out()).contains("[observation, topic cue] 海边的灯塔很漂亮", "2010s");
    }

    // ------------------------------------------------------------------ scope

    @Test
    @DisplayName("S1 recall is isolated by --persona/--project: another scope's memories and raw events are never "
            + "returned")
    void scopeIsolation() {
        String[] aliceWork = {"--persona", "alice", "--project", "work"};
        event("w1", "项目代号是青龙", "2025-03-01T10:00:00+08:00", aliceWork);
        String qinglong = memoryIn(aliceWork, "w1", "fact", "user_statement", "项目代号青龙", "项目代号是青龙");
        event("w2", "青龙项目的会议纪要", "2025-03-02T10:00:00+08:00", aliceWork); // raw
        event("d1", "我家的狗叫青龙", "2025-03-03T10:00:00+08:00"); // default scope, raw

        assertThat(ids(recall(concat(aliceWork, "青龙")))).containsExactlyInAnyOrder(qinglong, "w2");
        assertThat(ids(recall("青龙"))).containsExactly("d1");
        assertThat(ids(recall("--persona", "alice", "--project", "home", "青龙"))).isEmpty();
        assertThat(ids(recall("--persona", "bob", "--project", "work", "青龙"))).isEmpty();
        assertThat(ids(recall("--persona", "alice", "青龙"))).as("alice/default is its own scope").isEmpty();
        // Global options after the verb work the same.
        CliRunner.Result after = cli.run("recall", "青龙", "--json", "--persona", "alice", "--project", "work");
        assertThat(after.code()).as(after.toString()).isZero();
        assertThat(ids(after.json())).containsExactlyInAnyOrder(qinglong, "w2");
    }

    // ------------------------------------------------------------------ batch

    private Map<String, String> batchArchive() {
        Map<String, String> ids = new java.util.HashMap<>(bilingualArchive());
        String[] aliceWork = {"--persona", "alice", "--project", "work"};
        event("w1", "项目代号是青龙", "2025-03-01T10:00:00+08:00", aliceWork);
        ids.put("qinglong", memoryIn(aliceWork, "w1", "fact", "user_statement", "项目代号青龙", "项目代号是青龙"));
        event("f1", "我住在上海", "2024-01-10T09:00:00+08:00");
        ids.put("shanghai", memory("f1", "fact", "用户住在上海", "我住在上海", "--subject", "user", "--fact-key",
                "home_city"));
        event("f2", "我搬家了，现在住在杭州", "2024-06-01T09:00:00+08:00");
        ids.put("hangzhou", memory("f2", "fact", "用户住在杭州", "现在住在杭州", "--subject", "user", "--fact-key",
                "home_city"));
        return ids;
    }

    private static final String BATCH = String.join("\n",
            "{\"tag\": \"a\", \"query\": \"书\"}",
            "",
            "{\"tag\": \"b\", \"query\": \"青龙\", \"persona\": \"alice\", \"project\": \"work\"}",
            "{\"query\": \"青龙\"}",
            "{\"tag\": \"c\", \"query\": \"书\", \"limit\": 1}",
            "{\"tag\": \"d\", \"query\": \"住在\", \"as_of\": \"2024-03-01T08:00:00+08:00\"}",
            "{\"tag\": \"e\", \"query\": \"住在\", \"include_history\": true}",
            "{\"tag\": \"f\", \"query\": \"鲁迅\", \"mode\": \"semantic\", \"index\": \"fts5\"}",
            "   ",
            "{\"tag\": \"g\", \"query\": \"天气预报\", \"persona\": null, \"limit\": null}",
            "{\"tag\": \"h\", \"query\": \"住在\", \"as_of\": \"2024-03-01T00:00:00Z\", \"include_history\": true, "
                    + "\"limit\": 5, \"mode\": \"fast\", \"persona\": \"default\", \"project\": \"default\"}") + "\n";

    private void checkBatchAnswers(CliRunner.Result r, Map<String, String> ids) {
        assertThat(r.code()).as(r.toString()).isZero();
        List<JsonNode> lines = r.jsonLines();
        assertThat(lines).as(r.toString()).hasSize(9);
        assertThat(lines).extracting(l -> l.has("tag") ? l.get("tag").asString() : null)
                .containsExactly("a", "b", null, "c", "d", "e", "f", "g", "h");
        for (JsonNode l : lines) {
            assertThat(names(l)).contains("query", "results", "warnings");
            assertThat(l.has("error")).isFalse();
        }
        assertThat(names(lines.get(0))).containsExactly("tag", "query", "results", "warnings");
        assertThat(names(lines.get(2))).containsExactly("query", "results", "warnings");
        assertThat(lines.get(0).get("query").asString()).isEqualTo("书");
        assertThat(ids(lines.get(0))).containsExactlyInAnyOrder(ids.get("book"), "bj");
        assertThat(ids(lines.get(1))).containsExactly(ids.get("qinglong"));
        assertThat(ids(lines.get(2))).as("default scope").isEmpty();
        assertThat(ids(lines.get(3))).hasSize(1);
        assertThat(ids(lines.get(4))).containsExactly(ids.get("shanghai"));
        assertThat(ids(lines.get(5))).containsExactlyInAnyOrder(ids.get("shanghai"), ids.get("hangzhou"));
        assertThat(item(lines.get(5), ids.get("shanghai")).get("status").asString()).isEqualTo("expired");
        assertThat(ids(lines.get(6))).containsExactly(ids.get("book"));
        assertThat(lines.get(6).get("warnings").size()).isEqualTo(1);
        assertThat(ids(lines.get(7))).isEmpty();
        assertThat(ids(lines.get(8))).containsExactlyInAnyOrder(ids.get("shanghai"), ids.get("hangzhou"));
        assertThat(item(lines.get(8), ids.get("hangzhou")).get("status").asString()).isEqualTo("future");
        // Every memory item has the full shape, as in single recall.
        JsonNode first = results(lines.get(0)).stream().filter(i -> i.get("type").asString().equals("memory"))
                .findFirst().orElseThrow();
        assertThat(names(first)).contains("memory_id", "source_event_id", "score", "text", "kind", "basis", "status");
    }

    @Test
    @DisplayName("R3 T6 recall --batch FILE answers each line in order, echoes tags, accepts per-line persona, project, "
            + "limit, as_of, include_history, mode and index")
    void batchFromFile() throws Exception {
        Map<String, String> ids = batchArchive();
        Path file = tmp.resolve("requests.jsonl");
        Files.writeString(file, BATCH, StandardCharsets.UTF_8);
        checkBatchAnswers(cli.run("recall", "--batch", file.toString()), ids);
        checkBatchAnswers(cli.run("--json", "recall", "--batch", file.toString()), ids);
    }

    @Test
    @DisplayName("R3 T6 recall --batch - reads the requests from stdin and answers them in order")
    void batchFromStdin() {
        Map<String, String> ids = batchArchive();
        checkBatchAnswers(cli.runWithStdin(BATCH, "recall", "--batch", "-"), ids);
        checkBatchAnswers(cli.runWithStdin(BATCH.replace("\n", "\r\n"), "--json", "recall", "--batch", "-"), ids);
        // Empty input: nothing to answer, exit 0.
        CliRunner.Result empty = cli.runWithStdin("", "recall", "--batch", "-");
        assertThat(empty.code()).as(empty.toString()).isZero();
        assertThat(empty.out()).isEmpty();
        // Global scope flags are the default for lines that do not name their own.
        CliRunner.Result scoped = cli.runWithStdin("{\"query\": \"青龙\"}\n{\"query\": \"青龙\", \"project\": \"home\"}\n",
                "--persona", "alice", "--project", "work", "recall", "--batch", "-");
        assertThat(scoped.code()).as(scoped.toString()).isZero();
        assertThat(ids(scoped.jsonLines().get(0))).containsExactly(ids.get("qinglong"));
        assertThat(ids(scoped.jsonLines().get(1))).isEmpty();
        // Command-line --limit is the default for lines without one.
        CliRunner.Result limited = cli.runWithStdin("{\"query\": \"书\"}\n{\"query\": \"书\", \"limit\": 5}\n",
                "recall", "--limit", "1", "--batch", "-");
        assertThat(limited.code()).as(limited.toString()).isZero();
        assertThat(ids(limited.jsonLines().get(0))).hasSize(1);
        assertThat(ids(limited.jsonLines().get(1))).hasSize(2);
    }

    @Test
    @DisplayName("R3 recall --batch: --explain adds the six signals to every memory result; line numbers count blank "
            + "lines; a line with trailing content after its object is rejected; the failure summary is on stderr")
    void batchDetails() {
        Map<String, String> ids = batchArchive();
        CliRunner.Result explained = cli.runWithStdin("{\"query\": \"鲁迅\", \"tag\": \"x\"}\n", "recall", "--batch", "-",
                "--explain");
        assertThat(explained.code()).as(explained.toString()).isZero();
        JsonNode item = results(explained.json()).get(0);
        assertThat(item.get("memory_id").asString()).isEqualTo(ids.get("book"));
        assertThat(names(item.get("explain"))).containsExactly(SIGNALS.toArray(String[]::new));

        CliRunner.Result r = cli.runWithStdin("\n\n{\"query\": 1}\n\n{\"query\": \"书\"} {\"query\": \"" + SECRET + "\"}\n"
                + "{\"query\": \"鲁迅\"}\n", "--json", "recall", "--batch", "-");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        List<JsonNode> out = r.jsonLines();
        assertThat(out).hasSize(3);
        assertThat(out.get(0).get("line").asInt()).isEqualTo(3);
        assertThat(out.get(0).get("message").asString()).contains("query");
        assertThat(out.get(1).get("line").asInt()).isEqualTo(5);
        assertThat(out.get(1).get("message").asString()).contains("line", "one JSON object");
        assertThat(ids(out.get(2))).containsExactly(ids.get("book"));
        assertThat(r.out()).doesNotContain(SECRET);
        JsonNode summary = Output.mapper().readTree(r.err().lines().filter(l -> !l.isBlank()).findFirst().orElseThrow());
        assertThat(summary.get("error").asString()).isEqualTo("invalid_input");
        assertThat(summary.get("exit_code").asInt()).isEqualTo(2);
        assertThat(summary.get("message").asString()).contains("2");
    }

    @Test
    @DisplayName("O7 R3 recall --batch: a bad line yields an error line in place {line, error: invalid_input, message} "
            + "naming the field without echoing the value; other lines are still answered; exit 2; nothing written")
    void batchBadLines() throws Exception {
        Map<String, String> ids = batchArchive();
        Map<String, Long> before = cli.rowCounts();
        List<String> lines = List.of(
                /* 1 */ "{\"tag\": \"ok1\", \"query\": \"书\"}",
                /* 2 */ "{\"tag\": \"limit-ten\", \"query\": \"书\", \"limit\": \"ten\"}",
                /* 3 */ "{\"query\": \"书\", \"limit\": \"" + SECRET + "\"}",
                /* 4 */ "{\"tag\": \"no-query\"}",
                /* 5 */ "{\"tag\": \"naive-as-of\", \"query\": \"书\", \"as_of\": \"2024-03-01T00:00:00\"}",
                /* 6 */ "{\"tag\": \"unknown\", \"query\": \"书\", \"secret\": \"" + SECRET + "\"}",
                /* 7 */ "{\"tag\": \"ok2\", \"query\": \"北京\"}",
                /* 8 */ SECRET + " is not JSON " + SECRET_ZH,
                /* 9 */ "{\"tag\": \"query-number\", \"query\": 42}",
                /* 10 */ "{\"tag\": \"history-string\", \"query\": \"书\", \"include_history\": \"yes\"}",
                /* 11 */ "{\"tag\": \"limit-0\", \"query\": \"书\", \"limit\": 0}",
                /* 12 */ "{\"tag\": \"limit-201\", \"query\": \"书\", \"limit\": 201}",
                /* 13 */ "{\"tag\": \"mode\", \"query\": \"书\", \"mode\": \"" + SECRET + "\"}",
                /* 14 */ "{\"tag\": \"lucene\", \"query\": \"鲁迅\", \"index\": \"lucene\"}",
                /* 15 */ "{\"tag\": \"index\", \"query\": \"书\", \"index\": \"" + SECRET + "\"}",
                /* 16 */ "{\"tag\": \"persona-number\", \"query\": \"书\", \"persona\": 7}",
                /* 17 */ "{\"tag\": \"secret-as-of\", \"query\": \"" + SECRET_ZH + "\", \"as_of\": \"" + SECRET + "\"}",
                /* 18 */ "{\"tag\": \"limit-float\", \"query\": \"书\", \"limit\": 2.5}",
                /* 19 */ "[\"" + SECRET + "\"]",
                /* 20 */ "{\"tag\": \"persona-space\", \"query\": \"书\", \"persona\": \"" + SECRET + " " + SECRET + "\"}",
                /* 21 */ "{\"tag\": \"query-nul\", \"query\": \"" + SECRET_ZH + "\\u0000\"}",
                /* 22 */ "{\"tag\": \"ok3\", \"query\": \"鲁迅\", \"limit\": 200}",
                /* 23 */ "{\"tag\": 5, \"query\": \"书\"}",
                /* 24 */ "{\"tag\": \"long-query\", \"query\": \"" + SECRET_ZH.repeat(5001) + "\"}");
        String input = String.join("\n", lines) + "\n";
        Path file = tmp.resolve("bad.jsonl");
        Files.writeString(file, input, StandardCharsets.UTF_8);

        for (CliRunner.Result r : List.of(cli.run("recall", "--batch", file.toString()),
                cli.runWithStdin(input, "--json", "recall", "--batch", "-"))) {
            assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
            List<JsonNode> out = r.jsonLines();
            assertThat(out).as(r.toString()).hasSize(lines.size());
            // Good lines are answered, in place.
            assertThat(out.get(0).get("tag").asString()).isEqualTo("ok1");
            assertThat(ids(out.get(0))).containsExactlyInAnyOrder(ids.get("book"), "bj");
            assertThat(out.get(6).get("tag").asString()).isEqualTo("ok2");
            assertThat(ids(out.get(6))).containsExactly("bj");
            assertThat(out.get(21).get("tag").asString()).isEqualTo("ok3");
            assertThat(ids(out.get(21))).containsExactly(ids.get("book"));
            assertThat(out.get(13).get("tag").asString()).isEqualTo("lucene");
            assertThat(ids(out.get(13))).as("L1 a line may name the Lucene index").containsExactly(ids.get("book"));
            // Bad lines: an error line in place, naming the field and the rule.
            Map<Integer, List<String>> expected = new java.util.LinkedHashMap<>();
            expected.put(2, List.of("limit", "integer"));
            expected.put(3, List.of("limit", "integer"));
            expected.put(4, List.of("query", "required"));
            expected.put(5, List.of("as_of", "offset"));
            expected.put(6, List.of("secret", "unknown field"));
            expected.put(8, List.of("line", "JSON object"));
            expected.put(9, List.of("query", "string"));
            expected.put(10, List.of("include_history", "true or false"));
            expected.put(11, List.of("limit", "between 1 and 200"));
            expected.put(12, List.of("limit", "between 1 and 200"));
            expected.put(13, List.of("mode", "fast, semantic, deep"));
            expected.put(15, List.of("index", "fts5 or lucene"));
            expected.put(16, List.of("persona", "string"));
            expected.put(17, List.of("as_of"));
            expected.put(18, List.of("limit", "integer"));
            expected.put(19, List.of("line", "JSON object"));
            expected.put(20, List.of("persona"));
            expected.put(21, List.of("query", "NUL"));
            expected.put(23, List.of("tag", "string"));
            expected.put(24, List.of("query", "20000"));
            for (Map.Entry<Integer, List<String>> e : expected.entrySet()) {
                int n = e.getKey();
                JsonNode err = out.get(n - 1);
                assertThat(err.get("line").asInt()).as(err.toString()).isEqualTo(n);
                assertThat(err.get("error").asString()).as(err.toString()).isEqualTo("invalid_input");
                assertThat(err.has("results")).isFalse();
                String message = err.get("message").asString();
                for (String part : e.getValue()) {
                    assertThat(message).as("line " + n).contains(part);
                }
                assertThat(message).as("line " + n).doesNotContain(SECRET).doesNotContain(SECRET_ZH)
                        .doesNotContain("ten\"").doesNotContain("2.5").doesNotContain("2024-03-01");
            }
            // Tags are echoed on error lines when the line got as far as naming one.
            assertThat(out.get(1).get("tag").asString()).isEqualTo("limit-ten");
            assertThat(out.get(3).get("tag").asString()).isEqualTo("no-query");
            assertThat(out.get(16).get("tag").asString()).isEqualTo("secret-as-of");
            assertThat(out.get(2).has("tag")).isFalse();
            // No secret anywhere in the output.
            assertThat(r.out()).doesNotContain(SECRET).doesNotContain(SECRET_ZH);
            assertThat(r.err()).doesNotContain(SECRET).doesNotContain(SECRET_ZH).isNotBlank();
        }
        assertThat(cli.rowCounts()).isEqualTo(before);
    }

    // ------------------------------------------------------------------ bad single-command input

    private void assertRejected(List<String> parts, String... args) {
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run(args);
        assertThat(r.code()).as(String.join(" ", args) + "\n" + r).isEqualTo(ExitCode.INVALID);
        assertThat(r.out()).as(r.toString()).isEmpty();
        for (String part : parts) {
            assertThat(r.err()).as(r.toString()).contains(part);
        }
        assertThat(r.err()).as(r.toString()).doesNotContain(SECRET).doesNotContain(SECRET_ZH);
        assertThat(cli.rowCounts()).isEqualTo(before);

        CliRunner.Result json = cli.run(concat(new String[] {"--json"}, args));
        assertThat(json.code()).as(json.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(json.out()).isEmpty();
        JsonNode err = Output.mapper().readTree(json.err().lines().filter(l -> !l.isBlank()).findFirst().orElseThrow());
        assertThat(err.get("error").asString()).isEqualTo("invalid_input");
        assertThat(err.get("exit_code").asInt()).isEqualTo(2);
        for (String part : parts) {
            assertThat(err.get("message").asString()).as(json.toString()).contains(part);
        }
        assertThat(json.err()).doesNotContain(SECRET).doesNotContain(SECRET_ZH);
        assertThat(cli.rowCounts()).isEqualTo(before);
    }

    @Test
    @DisplayName("O7 bad recall input exits 2, names the field/option and the rule, never echoes the value, and "
            + "changes nothing")
    void badSingleInput() throws Exception {
        bilingualArchive();
        Path file = tmp.resolve("one.jsonl");
        Files.writeString(file, "{\"query\": \"书\"}\n");
        assertRejected(List.of("limit", "between 1 and 200"), "recall", SECRET_ZH, "--limit", "0");
        assertRejected(List.of("limit", "between 1 and 200"), "recall", SECRET_ZH, "--limit", "201");
        assertRejected(List.of("limit", "between 1 and 200"), "recall", SECRET_ZH, "--limit", "-1");
        assertRejected(List.of("--limit", "integer"), "recall", SECRET_ZH, "--limit", SECRET);
        assertRejected(List.of("as_of", "offset"), "recall", SECRET_ZH, "--as-of", "2024-03-01T00:00:00");
        assertRejected(List.of("as_of", "offset"), "recall", SECRET_ZH, "--as-of", "2024-03-01");
        assertRejected(List.of("as_of"), "recall", SECRET_ZH, "--as-of", SECRET);
        assertRejected(List.of("--mode", "fast, semantic, deep"), "recall", SECRET_ZH, "--mode", "bogus");
        assertRejected(List.of("--mode", "fast, semantic, deep"), "recall", SECRET_ZH, "--mode", SECRET);
        assertRejected(List.of("index", "fts5 or lucene"), "recall", SECRET_ZH, "--index", "other");
        assertRejected(List.of("index", "fts5 or lucene"), "recall", SECRET_ZH, "--index", SECRET);
        assertRejected(List.of("query", "--batch"), "recall", SECRET_ZH, "--batch", file.toString());
        assertRejected(List.of("query", "--batch"), "recall");
        assertRejected(List.of("query", "20000"), "recall", SECRET_ZH.repeat(5001));
        assertRejected(List.of("batch"), "recall", "--batch", tmp.resolve(SECRET + ".jsonl").toString());
        assertRejected(List.of("persona"), "--persona", SECRET + " " + SECRET, "recall", SECRET_ZH);
        assertRejected(List.of("unknown option", "--secret"), "recall", SECRET_ZH, "--secret=" + SECRET);
        assertRejected(List.of("query", "Unicode"), "recall", SECRET_ZH + "\uD800");
    }

    @Test
    @DisplayName("O7 recall never writes: row counts of every table are unchanged by single and batch recalls")
    void recallNeverWrites() {
        batchArchive();
        Map<String, Long> before = cli.rowCounts();
        String changeLog = cli.query("SELECT max(rowid) FROM change_log").get(0);
        assertThat(recall("书").get("results").size()).isGreaterThan(0);
        recall("住在", "--include-history", "--explain");
        recall("住在", "--as-of", "2024-03-01T00:00:00Z");
        recall("--persona", "reader", "--project", "fresh", "书");
        assertThat(cli.run("recall", "北京").code()).isZero();
        assertThat(cli.runWithStdin(BATCH, "recall", "--batch", "-").code()).isZero();
        assertThat(cli.rowCounts()).isEqualTo(before);
        assertThat(cli.query("SELECT max(rowid) FROM change_log")).containsExactly(changeLog);
        assertThat(cli.query("SELECT count(*) FROM personas WHERE persona_id = 'reader'")).containsExactly("0");
    }

    @Test
    @DisplayName("R11 recall --dialogue FILE|- (a JSON array or one turn per line) and \"dialogue\" in --batch: the newest turn weighs most; bad dialogues exit 2 naming the field")
    void dialogue() throws Exception {
        event("d1", "我最近在学弹吉他，手指很疼", "2025-03-01T10:00:00+08:00");
        event("d2", "My brother moved to Toronto for work", "2025-03-02T10:00:00+08:00");
        String guitar = memory("d1", "episode", "我最近在学弹吉他，手指很疼", "我最近在学弹吉他");
        String toronto = memory("d2", "fact", "My brother moved to Toronto for work", "My brother moved to Toronto");
        Path array = tmp.resolve("dialogue.json");
        java.nio.file.Files.writeString(array, "[\"How is your brother doing in Toronto?\", {\"role\": \"user\", "
                + "\"text\": \"他挺好的。\"}, \"你最近吉他练得怎么样？\"]");
        JsonNode fromArray = recall("--dialogue", array.toString(), "--explain");
        assertThat(ids(fromArray)).contains(guitar, toronto);
        assertThat(fromArray.get("query").asString()).endsWith("你最近吉他练得怎么样？");
        Path lines = tmp.resolve("dialogue.txt");
        java.nio.file.Files.writeString(lines, "你最近吉他练得怎么样？\n\n还行。\nHow is your brother doing in Toronto?\n");
        JsonNode fromLines = recall("--dialogue", lines.toString());
        assertThat(ids(fromLines)).first().isEqualTo(toronto);
        CliRunner.Result stdin = cli.runWithStdin("How is your brother doing in Toronto?\n你最近吉他练得怎么样？\n", "--json",
                "recall", "--dialogue", "-");
        assertThat(stdin.code()).as(stdin.toString()).isZero();
        assertThat(ids(stdin.json())).isEqualTo(ids(fromArray));
        CliRunner.Result batch = cli.runWithStdin("{\"dialogue\": [\"How is your brother doing in Toronto?\", "
                + "\"你最近吉他练得怎么样？\"], \"tag\": \"a\"}\n{\"query\": \"x\", \"dialogue\": [\"y\"]}\n"
                + "{\"dialogue\": \"not an array\"}\n", "--json", "recall", "--batch", "-");
        assertThat(batch.code()).isEqualTo(2);
        List<JsonNode> out = batch.jsonLines();
        assertThat(ids(out.get(0))).isEqualTo(ids(fromArray));
        assertThat(out.get(1).get("message").asString()).contains("query");
        assertThat(out.get(2).get("message").asString()).contains("dialogue");
        // Bad input: nothing to recall, two queries at once, JSON that is not turns, a missing file.
        Path empty = tmp.resolve("empty.txt");
        java.nio.file.Files.writeString(empty, "\n \n");
        Path object = tmp.resolve("object.json");
        java.nio.file.Files.writeString(object, "[{\"speaker\": \"秘密的话\"}]");
        for (String[] bad : List.of(new String[] {"recall", "--dialogue", empty.toString()},
                new String[] {"recall", "书", "--dialogue", lines.toString()},
                new String[] {"recall", "--dialogue", object.toString()},
                new String[] {"recall", "--dialogue", tmp.resolve("missing.json").toString()})) {
            CliRunner.Result r = cli.run(bad);
            assertThat(r.code()).as(r.toString()).isEqualTo(2);
            assertThat(r.err()).containsAnyOf("dialogue", "query").doesNotContain("秘密的话");
        }
    }
}
