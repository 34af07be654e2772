package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acceptance: bad input for every command gets exit code 2 and a message that names the field and
 * the rule but not the value (O7), and changes nothing: row counts before = after. For JSON-lines
 * batches, the lines before the bad one stay committed and the error names the bad line's number.
 *
 * <p>Every bad value carries a distinctive marker ({@value #SECRET} or {@value #CN_SECRET}) where
 * the value is free text, so that "never echoes the input" is checked on stdout and stderr alike.
 */
class BadInputTest {

    /** Distinctive markers put into bad input; no output may contain them. */
    static final String SECRET = "SECRET-VALUE-42";
    static final String CN_SECRET = "机密内容";

    static final String USER_TEXT = "我每天早上喝绿茶 green tea，周末去 Hangzhou 西湖散步。";
    static final String ASSISTANT_TEXT = "好的，我记住了 you love 绿茶。我很开心 I am glad to help。";
    static final String REFERENCE_TEXT = "参考资料 reference: 西湖 West Lake 位于杭州 Hangzhou。";
    static final String OTHER_PROJECT_TEXT = "另一个项目 another project: 咖啡 coffee 记录。";
    static final String SECOND_SESSION_TEXT = "第二个会话 second session: 明天开会 meeting tomorrow。";

    /** Text that looks like FTS5 query syntax; it is text, never an error (R2 applies to input too). */
    static final String FTS_LOOKING = "他说 \"AND NEAR( 绿茶* OR -咖啡 ^x:y ) NOT 北京";

    @TempDir
    Path home;

    @TempDir
    Path files;

    CliRunner cli;

    long seqU1;
    long seqA1;
    long seqRef1;
    long seqO1;
    long seqU2;
    /** A memory of the default scope, derived from u1. */
    String memoryDefault;
    /** A second memory of the default scope, derived from a1. */
    String memoryDefault2;
    /** A memory of persona default / project other, derived from o1. */
    String memoryOther;

    /**
     * Fixture in the default scope (persona default, project default), session s1 unless noted:
     * u1 user, a1 assistant, ref1 reference (user), u2 user in session s2; and o1 user in project
     * other, session s1. Two memories in the default scope, one in project other, persona v1+v2.
     */
    @BeforeEach
    void seed() {
        cli = new CliRunner(home);
        seqU1 = submit("--id", "u1", "--role", "user", "--text", USER_TEXT, "--session", "s1",
                "--occurred-at", "2024-05-01T08:00:00+08:00");
        seqA1 = submit("--id", "a1", "--role", "assistant", "--text", ASSISTANT_TEXT, "--session", "s1",
                "--occurred-at", "2024-05-01T08:00:05+08:00");
        seqRef1 = submit("--id", "ref1", "--role", "user", "--category", "reference", "--text", REFERENCE_TEXT,
                "--session", "s1", "--occurred-at", "2024-05-01T08:01:00+08:00");
        seqO1 = submit("--project", "other", "--id", "o1", "--role", "user", "--text", OTHER_PROJECT_TEXT,
                "--session", "s1", "--occurred-at", "2024-05-01T09:00:00Z");
        seqU2 = submit("--id", "u2", "--role", "user", "--text", SECOND_SESSION_TEXT, "--session", "s2",
                "--occurred-at", "2024-05-02T10:00:00+08:00");
        memoryDefault = addMemory("--event", "u1", "--kind", "preference", "--basis", "user_statement",
                "--text", "用户喜欢绿茶 likes green tea", "--quote", "绿茶");
        memoryDefault2 = addMemory("--event", "a1", "--kind", "emotion", "--basis", "assistant_expression",
                "--text", "助手很开心 the assistant was glad", "--quote", "我很开心",
                "--emotion-label", "开心 glad", "--valence", "0.7", "--arousal", "0.4");
        memoryOther = addMemory("--project", "other", "--event", "o1", "--kind", "fact", "--basis", "user_statement",
                "--text", "另一个项目记录咖啡 coffee", "--quote", "咖啡");
        ok("persona", "edit", "--text", "温柔耐心 gentle and patient，说中文也说 English。");
        assertThat(cli.rowCounts()).containsEntry("events", 5L).containsEntry("memories", 3L)
                .containsEntry("personas", 2L);
    }

    // ====================================================================== persona

    @ParameterizedTest(name = "--version {0}")
    @ValueSource(strings = {"0", "-1"})
    @DisplayName("O7 persona show: a version below 1 is invalid input (exit 2), and reading it initializes nothing")
    void personaShowVersionBelowOne(String version) {
        rejected("version", "", "persona", "show", "--persona", "fresh_persona", "--version", version);
    }

    @Test
    @DisplayName("O7 persona show: a non-integer --version names the option and the integer rule")
    void personaShowVersionNotInteger() {
        rejected("--version", "must be an integer", "persona", "show", "--version", SECRET);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"persona", "project"})
    @DisplayName("O7 persona show: a scope ID with whitespace names the scope field, not the value")
    void personaShowScopeWithWhitespace(String field) {
        rejected(field, "whitespace", "--" + field, CN_SECRET + " " + SECRET, "persona", "show");
    }

    @Test
    @DisplayName("O7 persona history: a persona ID with whitespace is rejected and initializes nothing")
    void personaHistoryPersonaWithWhitespace() {
        rejected("persona", "whitespace", "--persona", CN_SECRET + "\t" + SECRET, "persona", "history");
    }

    @Test
    @DisplayName("O7 persona history: an unknown option is exit 2 and its value is not echoed")
    void personaHistoryUnknownOption() {
        rejected("--limit", "unknown option", "persona", "history", "--limit", SECRET);
    }

    @Test
    @DisplayName("O7 persona edit: --file over 50,000 characters names text and the size rule, not the content")
    void personaEditOversizedFile() throws IOException {
        Path file = files.resolve("persona.txt");
        Files.writeString(file, SECRET + CN_SECRET + "温柔 gentle ".repeat(5_000), StandardCharsets.UTF_8);
        assertThat(Files.readString(file).length()).isGreaterThan(50_000);
        rejected("text", "at most 50000 characters", "persona", "edit", "--file", file.toString());
    }

    @Test
    @DisplayName("O7 persona edit: a huge --file (over 4 bytes per allowed character) is refused before reading")
    void personaEditHugeFile() throws IOException {
        Path file = files.resolve("huge-persona.txt");
        Files.writeString(file, (CN_SECRET + SECRET).repeat(20_000), StandardCharsets.UTF_8);
        rejected("text", "at most 50000 characters", "persona", "edit", "--file", file.toString());
    }

    @Test
    @DisplayName("O7 persona edit: exactly 50,000 characters is accepted (the limit is the limit)")
    void personaEditAtLimitAccepted() throws IOException {
        Path file = files.resolve("persona-50000.txt");
        String text = "温柔 gentle ".repeat(5_000);
        assertThat(text).hasSize(50_000);
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run("persona", "edit", "--file", file.toString());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(cli.rowCounts().get("personas")).isEqualTo(before.get("personas") + 1);
    }

    @Test
    @DisplayName("O7 persona edit: oversized Chinese text on stdin (--file -) names the size rule, not a UTF-8 error")
    void personaEditOversizedStdin() {
        // 1 + 210,000 bytes: more than the 200,001 bytes read from stdin, and cut inside a character.
        String text = "a" + CN_SECRET.repeat(17_500);
        rejectedWithStdin(text, "text", "at most 50000 characters", "persona", "edit", "--file", "-");
    }

    @ParameterizedTest(name = "--text \"{0}\"")
    @ValueSource(strings = {"", "   ", "\n\t"})
    @DisplayName("O7 persona edit: empty or blank text names text and the blank rule")
    void personaEditBlank(String text) {
        rejected("text", "must not be blank", "persona", "edit", "--text", text);
    }

    @Test
    @DisplayName("O7 persona edit: a missing --file names text and the file rule, not the path")
    void personaEditMissingFile() {
        rejected("text", "does not exist", "persona", "edit", "--file",
                files.resolve(CN_SECRET + "-" + SECRET + ".txt").toString());
    }

    @Test
    @DisplayName("O7 persona edit: a --file that is not UTF-8 names the encoding rule")
    void personaEditNotUtf8() throws IOException {
        Path file = files.resolve("latin1.txt");
        Files.write(file, new byte[]{'S', 'E', 'C', (byte) 0xC3, (byte) 0x28, (byte) 0xFF, 'x'});
        rejected("text", "UTF-8", "persona", "edit", "--file", file.toString());
    }

    @Test
    @DisplayName("O7 persona edit: a --file with a NUL character names text and the NUL rule")
    void personaEditNulInFile() throws IOException {
        Path file = files.resolve("nul.txt");
        Files.writeString(file, "人设 persona\0" + SECRET, StandardCharsets.UTF_8);
        rejected("text", "NUL", "persona", "edit", "--file", file.toString());
    }

    @Test
    @DisplayName("O7 persona edit: --text and --file together are exit 2 and neither value is echoed")
    void personaEditTextAndFile() {
        rejected("--text", "mutually exclusive", "persona", "edit", "--text", CN_SECRET + SECRET,
                "--file", files.resolve(SECRET + ".txt").toString());
    }

    @ParameterizedTest(name = "--to {0}")
    @ValueSource(strings = {"0", "-3"})
    @DisplayName("O7 persona rollback: a version below 1 names to and the rule")
    void personaRollbackBelowOne(String to) {
        rejected("to", "at least 1", "persona", "rollback", "--to", to);
    }

    @Test
    @DisplayName("O7 persona rollback: a non-integer --to names the option and the integer rule")
    void personaRollbackNotInteger() {
        rejected("--to", "must be an integer", "persona", "rollback", "--to", CN_SECRET);
    }

    @Test
    @DisplayName("O7 persona rollback: a persona ID with whitespace is rejected")
    void personaRollbackPersonaWithWhitespace() {
        rejected("persona", "whitespace", "--persona", SECRET + " x", "persona", "rollback", "--to", "1");
    }

    // ====================================================================== event submit (single)

    static Stream<Arguments> badTimes() {
        return Stream.of(
                Arguments.of("2024-05-01T10:00:00", "must include a UTC offset or zone"),
                Arguments.of("2019-07-13T04:59:31.123456", "must include a UTC offset or zone"),
                Arguments.of("2019-07-13", "must include a UTC offset or zone"),
                Arguments.of(SECRET, "must be an ISO-8601 time with an offset"),
                Arguments.of(CN_SECRET + "昨天下午", "must be an ISO-8601 time with an offset"),
                Arguments.of("2019-02-30T10:00:00+08:00", "must be an ISO-8601 time with an offset"),
                Arguments.of("1562993971", "must be an ISO-8601 time with an offset"),
                Arguments.of("", "is required"),
                Arguments.of("   ", "is required"));
    }

    @ParameterizedTest(name = "--occurred-at {0}")
    @MethodSource("badTimes")
    @DisplayName("E4 O7 event submit: a time without offset, or garbage, names occurred_at and the rule, not the value")
    void eventSubmitBadTime(String time, String rule) {
        CliRunner.Result r = rejected("occurred_at", rule, "event", "submit", "--id", "t1", "--role", "user",
                "--text", "今天 today 下雨了", "--occurred-at", time);
        assertNoEcho(r, time);
    }

    @Test
    @DisplayName("O7 event submit: an unknown role names --role and the allowed values, not the value")
    void eventSubmitUnknownRole() {
        rejected("--role", "must be one of user, assistant, system", "event", "submit", "--id", "t1",
                "--role", SECRET, "--text", "你好 hello");
    }

    @Test
    @DisplayName("O7 event submit: an unknown category names --category and the allowed values")
    void eventSubmitUnknownCategory() {
        rejected("--category", "must be one of conversation, reference, persona, correction", "event", "submit",
                "--id", "t1", "--role", "user", "--category", CN_SECRET, "--text", "你好 hello");
    }

    @Test
    @DisplayName("O7 event submit: --text over 200,000 characters names text and the size rule")
    void eventSubmitOversizedText() {
        String text = SECRET + "长文本 long text ".repeat(14_286);
        assertThat(text.length()).isGreaterThan(200_000);
        rejected("text", "at most 200000 characters", "event", "submit", "--id", "t1", "--role", "user",
                "--text", text);
    }

    @Test
    @DisplayName("O7 event submit: --file over 200,000 characters names text and the size rule")
    void eventSubmitOversizedFile() throws IOException {
        Path file = files.resolve("event.txt");
        Files.writeString(file, CN_SECRET + "长文本 long text ".repeat(14_286), StandardCharsets.UTF_8);
        rejected("text", "at most 200000 characters", "event", "submit", "--id", "t1", "--role", "user",
                "--file", file.toString());
    }

    @Test
    @DisplayName("O7 event submit: exactly 200,000 characters is accepted (the limit is the limit)")
    void eventSubmitAtLimitAccepted() {
        String text = "长文本 long text ".repeat(14_285) + "0123456789";
        assertThat(text).hasSize(200_000);
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run("event", "submit", "--id", "t200k", "--role", "user", "--text", text);
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(cli.rowCounts().get("events")).isEqualTo(before.get("events") + 1);
    }

    @Test
    @DisplayName("O7 event submit: empty text names text and the rule")
    void eventSubmitEmptyText() {
        rejected("text", "must not be empty", "event", "submit", "--id", "t1", "--role", "user", "--text", "");
    }

    @Test
    @DisplayName("O7 event submit: neither --text nor --file names text and the rule")
    void eventSubmitNoText() {
        rejected("text", "give exactly one of --text or --file", "event", "submit", "--id", "t1", "--role", "user");
    }

    @ParameterizedTest(name = "id with {0}")
    @ValueSource(strings = {" ", "\t", "\n", "\u3000"})
    @DisplayName("O7 event submit: an ID with whitespace names id and the rule, not the ID")
    void eventSubmitIdWithWhitespace(String space) {
        rejected("id", "must not contain whitespace", "event", "submit", "--id", CN_SECRET + space + SECRET,
                "--role", "user", "--text", "你好 hello");
    }

    @Test
    @DisplayName("O7 event submit: an ID over 200 characters names id and the length rule")
    void eventSubmitIdTooLong() {
        rejected("id", "at most 200 characters", "event", "submit", "--id", SECRET + "x".repeat(200),
                "--role", "user", "--text", "你好 hello");
    }

    @Test
    @DisplayName("O7 event submit: oversized Chinese text on stdin (--file -) names the size rule, not a UTF-8 error")
    void eventSubmitOversizedStdin() {
        // 1 + 810,000 bytes: more than the 800,001 bytes read from stdin, and cut inside a character.
        String text = "a" + CN_SECRET.repeat(67_500);
        rejectedWithStdin(text, "text", "at most 200000 characters", "event", "submit", "--id", "t1",
                "--role", "user", "--file", "-");
    }

    @Test
    @DisplayName("O7 event submit: a --file with a NUL character names text and the NUL rule")
    void eventSubmitNulInFile() throws IOException {
        Path file = files.resolve("nul.txt");
        Files.writeString(file, CN_SECRET + "\0" + SECRET, StandardCharsets.UTF_8);
        rejected("text", "NUL", "event", "submit", "--id", "t1", "--role", "user", "--file", file.toString());
    }

    @Test
    @DisplayName("O7 event submit: a session ID with whitespace names session")
    void eventSubmitSessionWithWhitespace() {
        rejected("session", "must not contain whitespace", "event", "submit", "--id", "t1", "--role", "user",
                "--text", "你好 hello", "--session", SECRET + " " + CN_SECRET);
    }

    @Test
    @DisplayName("O7 event submit: a blank source names source")
    void eventSubmitBlankSource() {
        rejected("source", "must not be blank", "event", "submit", "--id", "t1", "--role", "user",
                "--text", "你好 hello", "--source", "  ");
    }

    @Test
    @DisplayName("O7 event submit: a missing --role names the option")
    void eventSubmitMissingRole() {
        rejected("--role", "Missing required", "event", "submit", "--id", "t1", "--text", CN_SECRET + SECRET);
    }

    @Test
    @DisplayName("O7 event submit: --text together with --batch is exit 2 and echoes neither value")
    void eventSubmitTextAndBatch() {
        rejected("--batch", "", "event", "submit", "--id", "t1", "--role", "user", "--text", CN_SECRET + SECRET,
                "--batch", files.resolve(SECRET + ".jsonl").toString());
    }

    @Test
    @DisplayName("O7 event submit: a re-submission with bad input is rejected before the idempotency check")
    void eventSubmitResubmissionWithBadTime() {
        rejected("occurred_at", "offset", "event", "submit", "--id", "u1", "--role", "user", "--text", USER_TEXT,
                "--session", "s1", "--occurred-at", "2024-05-01T08:00:00");
    }

    // ====================================================================== event submit --batch

    static String eventLine(String id, Object... overrides) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("role", "user");
        m.put("text", "批量 " + id + " batch line 你好 hello");
        m.put("session", "s1");
        m.put("occurred_at", "2024-05-03T09:00:00+08:00");
        return json(m, overrides);
    }

    static Stream<Arguments> badEventLines() {
        return Stream.of(
                Arguments.of("role is a number", eventLine("b3", "role", 1), "role", "must be a string"),
                Arguments.of("unknown role", eventLine("b3", "role", SECRET), "role", "must be one of"),
                Arguments.of("text is a number", eventLine("b3", "text", 5), "text", "must be a string"),
                Arguments.of("text is an array", eventLine("b3", "text", List.of(SECRET)), "text", "must be a string"),
                Arguments.of("time without offset", eventLine("b3", "occurred_at", "2024-05-01T10:00:00"),
                        "occurred_at", "must include a UTC offset or zone"),
                Arguments.of("garbage time", eventLine("b3", "occurred_at", CN_SECRET + SECRET),
                        "occurred_at", "must be an ISO-8601 time"),
                Arguments.of("time is a number", eventLine("b3", "occurred_at", 1714550400),
                        "occurred_at", "must be a string"),
                Arguments.of("missing time", eventLine("b3", "occurred_at", null), "occurred_at", "is required"),
                Arguments.of("missing session", eventLine("b3", "session", null), "session", "is required"),
                Arguments.of("unknown field", eventLine("b3", "colour", CN_SECRET + SECRET), "colour", "unknown field"),
                Arguments.of("unknown category", eventLine("b3", "category", SECRET), "category", "must be one of"),
                Arguments.of("ID with whitespace", eventLine(CN_SECRET + " " + SECRET), "id", "whitespace"),
                Arguments.of("session with whitespace", eventLine("b3", "session", SECRET + " s"), "session",
                        "whitespace"),
                Arguments.of("persona with whitespace", eventLine("b3", "persona", SECRET + " p"), "persona",
                        "whitespace"),
                Arguments.of("empty text", eventLine("b3", "text", ""), "text", "must not be empty"),
                Arguments.of("oversized text",
                        eventLine("b3", "text", SECRET + "长文本 long text ".repeat(14_286)),
                        "text", "at most 200000 characters"),
                Arguments.of("not JSON", SECRET + " " + CN_SECRET + " {\"id\": ", "line", "must be one JSON object"),
                Arguments.of("JSON array", "[\"" + SECRET + "\"]", "line", "must be one JSON object"),
                Arguments.of("JSON string", "\"" + CN_SECRET + "\"", "line", "must be one JSON object"),
                Arguments.of("JSON null", "null", "line", "must be one JSON object"),
                Arguments.of("conflicting re-submission", eventLine("u1", "text", CN_SECRET + SECRET), "", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badEventLines")
    @DisplayName("E4 O7 event submit --batch: a bad line 3 names the line, field and rule; lines 1-2 stay committed, nothing else changes")
    void eventBatchBadLine(String label, String badLine, String field, String rule) throws IOException {
        Path batch = writeLines("events.jsonl", eventLine("b1"),
                eventLine("b2", "role", "assistant", "text", "收到 received 第二行"), badLine, eventLine("b4"));
        boolean conflict = label.startsWith("conflicting");
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run("event", "submit", "--batch", batch.toString());
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(r.code()).as(r.toString()).isEqualTo(conflict ? ExitCode.CONFLICT : ExitCode.INVALID);
        soft.assertThat(r.err()).as(r.toString()).contains("line 3").contains(field).contains(rule)
                .contains("2 line(s) before it committed");
        soft.assertThat(r.out()).as(r.toString()).contains("submitted 2 event(s)");
        soft.assertThat(cli.query("SELECT id FROM events WHERE id LIKE 'b%' ORDER BY id"))
                .containsExactly("b1", "b2");
        soft.assertThat(cli.rowCounts()).isEqualTo(plus(before, "events", 2, "events_fts", 2, "change_log", 2));
        soft.assertThat(cli.query("SELECT text FROM events WHERE id = 'u1'")).containsExactly(USER_TEXT);
        noEcho(soft, r, SECRET, CN_SECRET);
        soft.assertAll();
    }

    @Test
    @DisplayName("O7 event submit --batch: a bad first line commits nothing at all")
    void eventBatchBadFirstLine() throws IOException {
        Path batch = writeLines("events.jsonl", eventLine("b1", "text", 5), eventLine("b2"));
        CliRunner.Result r = rejected("text", "must be a string", "event", "submit", "--batch", batch.toString());
        assertThat(r.err()).contains("line 1").contains("0 line(s) before it committed");
    }

    @Test
    @DisplayName("O7 event submit --batch: blank lines count in the line number that is reported")
    void eventBatchBlankLinesCounted() throws IOException {
        Path batch = writeLines("events.jsonl", eventLine("b1"), "", "   ", eventLine("b4", "role", SECRET));
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run("event", "submit", "--batch", batch.toString());
        assertThat(r.code()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("line 4").contains("role").contains("1 line(s) before it committed");
        assertThat(cli.rowCounts()).isEqualTo(plus(before, "events", 1, "events_fts", 1, "change_log", 1));
        assertNoEcho(r, SECRET);
    }

    @Test
    @DisplayName("O7 event submit --batch -: a bad line on stdin is reported by number; the line before it stays committed")
    void eventBatchStdin() {
        String stdin = eventLine("b1") + "\n" + eventLine("b2", "occurred_at", "2024-05-01T10:00:00") + "\n";
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.runWithStdin(stdin, "event", "submit", "--batch", "-");
        assertThat(r.code()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("line 2").contains("occurred_at").contains("offset");
        assertThat(cli.rowCounts()).isEqualTo(plus(before, "events", 1, "events_fts", 1, "change_log", 1));
    }

    @Test
    @DisplayName("O7 event submit --batch: a line that is not UTF-8 is reported by its own number; earlier lines stay committed")
    void eventBatchNotUtf8() throws IOException {
        Path batch = files.resolve("latin1.jsonl");
        byte[] good = (eventLine("b1") + "\n" + eventLine("b2") + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] bad = {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xC3, (byte) 0x28, (byte) 0xFF, '"', '}', '\n'};
        byte[] all = Arrays.copyOf(good, good.length + bad.length);
        System.arraycopy(bad, 0, all, good.length, bad.length);
        Files.write(batch, all);
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run("event", "submit", "--batch", batch.toString());
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(r.code()).as(r.toString()).isEqualTo(2);
        soft.assertThat(r.err()).as(r.toString()).contains("line 3").contains("UTF-8")
                .contains("2 line(s) before it committed");
        soft.assertThat(cli.rowCounts()).isEqualTo(plus(before, "events", 2, "events_fts", 2, "change_log", 2));
        soft.assertAll();
    }

    @Test
    @DisplayName("O7 event submit --batch: a missing file names batch and the rule, not the path")
    void eventBatchMissingFile() {
        rejected("batch", "does not exist", "event", "submit", "--batch",
                files.resolve(CN_SECRET + SECRET + ".jsonl").toString());
    }

    @Test
    @DisplayName("E5 X2 event submit --batch --extract without an extraction endpoint commits every line pending and exits 5")
    void eventBatchWithExtract() throws IOException {
        Path batch = writeLines("events.jsonl", eventLine("b1"), eventLine("b2"));
        CliRunner.Result r = cli.run("event", "submit", "--batch", batch.toString(), "--extract");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.PROVIDER);
        assertThat(r.err()).contains("JIYI_EXTRACT_URL");
        assertThat(cli.query("SELECT id || ':' || extraction_state FROM events WHERE id LIKE 'b%' ORDER BY sequence"))
                .containsExactly("b1:pending", "b2:pending");
    }

    @ParameterizedTest(name = "--chunk-size {0}")
    @ValueSource(strings = {"0", "-5"})
    @DisplayName("O7 event submit --batch: a chunk size below 1 names chunk_size")
    void eventBatchBadChunkSize(String size) throws IOException {
        Path batch = writeLines("events.jsonl", eventLine("b1"));
        rejected("chunk_size", "at least 1", "event", "submit", "--batch", batch.toString(), "--chunk-size", size);
    }

    // ====================================================================== memory add (single)

    /** A valid {@code memory add} on u1, with flags replaced or added by {@code overrides} (flag, value pairs). */
    static String[] memoryAdd(String... overrides) {
        List<String[]> base = new ArrayList<>(List.of(
                new String[]{"--event", "u1"}, new String[]{"--kind", "fact"},
                new String[]{"--basis", "user_statement"}, new String[]{"--text", "用户每天早上喝绿茶 drinks green tea"},
                new String[]{"--quote", "绿茶 green tea"}));
        List<String> extra = new ArrayList<>();
        outer:
        for (int i = 0; i < overrides.length; i += 2) {
            for (String[] pair : base) {
                if (pair[0].equals(overrides[i])) {
                    pair[1] = overrides[i + 1];
                    continue outer;
                }
            }
            extra.add(overrides[i]);
            extra.add(overrides[i + 1]);
        }
        List<String> args = new ArrayList<>(List.of("memory", "add"));
        base.forEach(p -> args.addAll(Arrays.asList(p)));
        args.addAll(extra);
        return args.toArray(String[]::new);
    }

    static Stream<Arguments> badMemoryAdds() {
        String[] cues33 = new String[66];
        for (int i = 0; i < 33; i++) {
            cues33[2 * i] = "--cue";
            cues33[2 * i + 1] = "cue" + i;
        }
        return Stream.of(
                Arguments.of("unknown event", memoryAdd("--event", SECRET + "-missing"), "event",
                        "must refer to an existing event in the same scope"),
                Arguments.of("event of another project", memoryAdd("--event", "o1", "--quote", "咖啡"), "event",
                        "must refer to an existing event in the same scope"),
                Arguments.of("event ID with whitespace", memoryAdd("--event", CN_SECRET + " " + SECRET), "event",
                        "whitespace"),
                Arguments.of("quote not in the event", memoryAdd("--quote", CN_SECRET + " " + SECRET + " 不在原文中"),
                        "quote", "must be an exact substring of the source event's text"),
                Arguments.of("quote from another event of the scope", memoryAdd("--quote", "我很开心"), "quote",
                        "exact substring"),
                Arguments.of("quote differs in case", memoryAdd("--quote", "绿茶 Green Tea"), "quote",
                        "exact substring"),
                Arguments.of("quote over 2,000 characters", memoryAdd("--quote", SECRET + "引".repeat(2_000)),
                        "quote", "at most 2000 characters"),
                Arguments.of("unknown kind", memoryAdd("--kind", SECRET), "--kind",
                        "must be one of fact, preference, episode, observation, emotion, agreement, growth"),
                Arguments.of("unknown basis", memoryAdd("--basis", CN_SECRET), "--basis",
                        "must be one of user_statement, assistant_expression, inference"),
                Arguments.of("text over 2,000 characters", memoryAdd("--text", CN_SECRET + "记忆 memory ".repeat(200)),
                        "text", "at most 2000 characters"),
                Arguments.of("empty text", memoryAdd("--text", ""), "text", "must not be blank"),
                Arguments.of("blank text", memoryAdd("--text", " \u3000 "), "text", "must not be blank"),
                Arguments.of("empty quote", memoryAdd("--quote", ""), "quote", "must not be blank"),
                Arguments.of("inference with a fact key",
                        memoryAdd("--basis", "inference", "--subject", "用户 user", "--fact-key", SECRET), "fact_key",
                        "an inference must not carry a single-valued fact key"),
                Arguments.of("growth from inference", memoryAdd("--basis", "inference", "--kind", "growth",
                        "--text", CN_SECRET + " 用户成长了 grew"), "kind", "an inference must not become growth"),
                Arguments.of("fact key without subject", memoryAdd("--fact-key", "drink"), "subject",
                        "is required with fact_key"),
                Arguments.of("fact key on an episode", memoryAdd("--kind", "episode", "--subject", "用户",
                        "--fact-key", "drink"), "fact_key", "only user_statement facts and preferences"),
                Arguments.of("emotion on a user_statement", memoryAdd("--emotion-label", CN_SECRET + SECRET,
                        "--valence", "0.5", "--arousal", "0.5"), "emotion", "must come from an assistant_expression"),
                Arguments.of("emotion label without valence and arousal",
                        memoryAdd("--event", "a1", "--basis", "assistant_expression", "--quote", "我很开心",
                                "--emotion-label", SECRET), "emotion", "give all three or none"),
                Arguments.of("valence out of range", memoryAdd("--event", "a1", "--basis", "assistant_expression",
                        "--quote", "我很开心", "--emotion-label", "开心", "--valence", "5", "--arousal", "0.5"),
                        "valence", "in [-1, 1]"),
                Arguments.of("arousal out of range", memoryAdd("--event", "a1", "--basis", "assistant_expression",
                        "--quote", "我很开心", "--emotion-label", "开心", "--valence", "0.5", "--arousal", "-0.1"),
                        "arousal", "in [0, 1]"),
                Arguments.of("user_statement on an assistant event", memoryAdd("--event", "a1", "--quote", "绿茶"),
                        "basis", "user_statement requires a user event"),
                Arguments.of("assistant_expression on a user event", memoryAdd("--basis", "assistant_expression"),
                        "basis", "assistant_expression requires a assistant event"),
                Arguments.of("valid-at without offset", memoryAdd("--valid-at", "2024-05-01T10:00:00"), "valid_at",
                        "must include a UTC offset or zone"),
                Arguments.of("garbage invalid-at", memoryAdd("--invalid-at", CN_SECRET), "invalid_at",
                        "must be an ISO-8601 time"),
                Arguments.of("invalid-at before valid-at", memoryAdd("--valid-at", "2024-05-02T00:00:00Z",
                        "--invalid-at", "2024-05-01T00:00:00Z"), "invalid_at", "must not be before valid_at"),
                Arguments.of("confidence above 1", memoryAdd("--confidence", "1.5"), "confidence",
                        "must be a number in [0, 1]"),
                Arguments.of("confidence NaN", memoryAdd("--confidence", "NaN"), "confidence", "in [0, 1]"),
                Arguments.of("confidence negative", memoryAdd("--confidence", "-0.01"), "confidence", "in [0, 1]"),
                Arguments.of("confidence not a number", memoryAdd("--confidence", "high" + SECRET), "--confidence",
                        "must be a number"),
                Arguments.of("valence not a number", memoryAdd("--valence", CN_SECRET), "--valence", "must be a number"),
                Arguments.of("gist over 300 characters", memoryAdd("--gist", SECRET + "要点".repeat(150)), "gist",
                        "at most 300 characters"),
                Arguments.of("blank cue", memoryAdd("--cue", "照片 photo", "--cue", " "), "cue[1]", "must not be blank"),
                Arguments.of("33 cues", concat(memoryAdd(), cues33), "cue", "at most 32 entries"),
                Arguments.of("subject with only spaces", memoryAdd("--subject", "   "), "subject", "must not be blank"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badMemoryAdds")
    @DisplayName("M2 X3 O7 memory add: bad input gets exit 2, names the field and rule but not the value, changes nothing")
    void memoryAddBadInput(String label, String[] args, String field, String rule) {
        rejected(field, rule, args);
    }

    @Test
    @DisplayName("E6 X3 memory add: deriving from a reference event is rejected, naming event")
    void memoryAddFromReferenceEvent() {
        rejected("event", "reference and persona events are sources only", memoryAdd("--event", "ref1",
                "--quote", "西湖 West Lake", "--text", CN_SECRET + " 西湖在杭州"));
    }

    @Test
    @DisplayName("E6 X3 memory add: deriving from a persona-category event is rejected, naming event")
    void memoryAddFromPersonaEvent() {
        ok("event", "submit", "--id", "p1", "--role", "user", "--category", "persona",
                "--text", "人设材料 persona material: 说话温柔 speak gently");
        rejected("event", "reference and persona events are sources only", memoryAdd("--event", "p1",
                "--quote", "说话温柔", "--text", SECRET));
    }

    @Test
    @DisplayName("M2 X3 memory add: the valid form of the fixture command is accepted (control)")
    void memoryAddControl() {
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run(memoryAdd());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(cli.rowCounts()).isEqualTo(plus(before, "memories", 1, "memories_fts", 1, "change_log", 1));
    }

    // ====================================================================== memory add --batch

    static String memoryLine(Object... overrides) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("event", "u1");
        m.put("kind", "fact");
        m.put("basis", "user_statement");
        m.put("text", "用户周末去西湖散步 walks by West Lake");
        m.put("quote", "西湖散步");
        return json(m, overrides);
    }

    static Stream<Arguments> badMemoryLines() {
        String emotionOk = "我很开心";
        return Stream.of(
                Arguments.of("text is a number", memoryLine("text", 5), "text", "must be a string"),
                Arguments.of("cues is a string", memoryLine("cues", CN_SECRET + SECRET), "cues",
                        "must be an array of strings"),
                Arguments.of("cues holds a number", memoryLine("cues", List.of("照片 photo", 5)), "cues[1]",
                        "must be a string"),
                Arguments.of("confidence is a string", memoryLine("confidence", "high " + SECRET), "confidence",
                        "must be a number"),
                Arguments.of("confidence out of range", memoryLine("confidence", 7), "confidence", "in [0, 1]"),
                Arguments.of("valence is a string", memoryLine("event", "a1", "basis", "assistant_expression",
                        "quote", emotionOk, "emotion_label", "开心", "valence", "high", "arousal", 0.3),
                        "valence", "must be a number"),
                Arguments.of("kind is a number", memoryLine("kind", 1), "kind", "must be a string"),
                Arguments.of("unknown kind", memoryLine("kind", SECRET), "kind", "must be one of"),
                Arguments.of("unknown basis", memoryLine("basis", CN_SECRET), "basis", "must be one of"),
                Arguments.of("event is an object", memoryLine("event", Map.of("id", "u1")), "event", "must be a string"),
                Arguments.of("missing quote", memoryLine("quote", null), "quote", "is required"),
                Arguments.of("unknown event", memoryLine("event", SECRET), "event", "must refer to an existing event"),
                Arguments.of("event of another project", memoryLine("event", "o1", "quote", "咖啡"), "event",
                        "must refer to an existing event in the same scope"),
                Arguments.of("line in project other naming a default-scope event",
                        memoryLine("project", "other"), "event", "must refer to an existing event in the same scope"),
                Arguments.of("quote not in the event", memoryLine("quote", CN_SECRET + SECRET), "quote",
                        "must be an exact substring"),
                Arguments.of("inference with a fact key", memoryLine("basis", "inference", "subject", "用户",
                        "fact_key", "walk"), "fact_key", "an inference must not carry"),
                Arguments.of("growth from inference", memoryLine("basis", "inference", "kind", "growth"), "kind",
                        "an inference must not become growth"),
                Arguments.of("emotion on a user_statement", memoryLine("emotion_label", CN_SECRET, "valence", 0.2,
                        "arousal", 0.2), "emotion", "must come from an assistant_expression"),
                Arguments.of("user_statement on an assistant event", memoryLine("event", "a1", "quote", emotionOk),
                        "basis", "user_statement requires a user event"),
                Arguments.of("derivation from a reference event (E6)", memoryLine("event", "ref1", "quote", "西湖"),
                        "event", "reference and persona events are sources only"),
                Arguments.of("valid_at without offset", memoryLine("valid_at", "2024-05-01T10:00:00"), "valid_at",
                        "must include a UTC offset or zone"),
                Arguments.of("unknown field", memoryLine("importance", SECRET), "importance", "unknown field"),
                Arguments.of("not JSON", "{event: u1, text: " + CN_SECRET + SECRET, "line", "must be one JSON object"),
                Arguments.of("oversized text", memoryLine("text", SECRET + "记".repeat(2_001)), "text",
                        "at most 2000 characters"),
                Arguments.of("empty text", memoryLine("text", ""), "text", "must not be blank"),
                Arguments.of("event ID with whitespace", memoryLine("event", SECRET + " u1"), "event", "whitespace"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badMemoryLines")
    @DisplayName("M2 X3 O7 memory add --batch: a bad line 3 names the line, field and rule; lines 1-2 stay committed, nothing else changes")
    void memoryBatchBadLine(String label, String badLine, String field, String rule) throws IOException {
        assertMemoryBatchStopsAtLine3(badLine, field, rule);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badMemoryLines")
    @DisplayName("M2 X3 O7 memory add --batch --chunk-size 1: the same bad line 3 after two committed chunks")
    void memoryBatchBadLineChunkOfOne(String label, String badLine, String field, String rule) throws IOException {
        assertMemoryBatchStopsAtLine3(badLine, field, rule, "--chunk-size", "1");
    }

    private void assertMemoryBatchStopsAtLine3(String badLine, String field, String rule, String... extra)
            throws IOException {
        Path batch = writeLines("memories.jsonl",
                memoryLine("gist", "西湖散步 gist", "cues", List.of("照片:west-lake.jpg", "散步")),
                memoryLine("event", "a1", "kind", "emotion", "basis", "assistant_expression", "quote", "我很开心",
                        "text", "助手很开心 glad", "emotion_label", "开心", "valence", 0.6, "arousal", 0.3,
                        "confidence", 0.8),
                badLine,
                memoryLine("text", "第四行不应提交 line four must not commit"));
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run(concat(new String[]{"memory", "add", "--batch", batch.toString()}, extra));
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(r.code()).as(r.toString()).isEqualTo(2);
        soft.assertThat(r.err()).as(r.toString()).contains("line 3").contains(field).contains(rule)
                .contains("2 line(s) before it committed");
        soft.assertThat(r.out()).as(r.toString()).contains("derived 2 memories");
        soft.assertThat(cli.rowCounts()).isEqualTo(plus(before, "memories", 2, "memories_fts", 2, "change_log", 2));
        soft.assertThat(cli.query("SELECT count(*) FROM memories WHERE text LIKE '第四行%'")).containsExactly("0");
        noEcho(soft, r, SECRET, CN_SECRET);
        soft.assertAll();
    }

    @Test
    @DisplayName("M2 O7 memory add --batch: a bad first line commits nothing at all")
    void memoryBatchBadFirstLine() throws IOException {
        Path batch = writeLines("memories.jsonl", memoryLine("quote", SECRET), memoryLine());
        CliRunner.Result r = rejected("quote", "exact substring", "memory", "add", "--batch", batch.toString());
        assertThat(r.err()).contains("line 1").contains("0 line(s) before it committed");
    }

    @Test
    @DisplayName("M2 O7 memory add --batch: a missing file names batch and the rule, not the path")
    void memoryBatchMissingFile() {
        rejected("batch", "does not exist", "memory", "add", "--batch",
                files.resolve(CN_SECRET + "-" + SECRET + ".jsonl").toString());
    }

    @Test
    @DisplayName("M2 O7 memory add: --batch together with single flags is exit 2 and echoes no value")
    void memoryAddBatchAndFlags() {
        String[] args = concat(memoryAdd("--text", CN_SECRET + SECRET), new String[]{"--batch",
                files.resolve(SECRET + ".jsonl").toString()});
        rejected("--batch", "", args);
    }

    // ====================================================================== memory read

    @ParameterizedTest(name = "--page {0}")
    @ValueSource(strings = {"0", "-1", "-2147483648"})
    @DisplayName("O7 memory read: a page below 1 names page and the rule")
    void memoryReadPageBelowOne(String page) {
        rejected("page", "must be at least 1", "memory", "read", memoryDefault, "--page", page);
    }

    @ParameterizedTest(name = "--page {0}")
    @ValueSource(strings = {"abc", "1.5", "二", "99999999999", SECRET})
    @DisplayName("O7 memory read: a non-integer page names --page and the integer rule, not the value")
    void memoryReadPageNotInteger(String page) {
        CliRunner.Result r = rejected("--page", "must be an integer", "memory", "read", memoryDefault, "--page", page);
        assertNoEcho(r, page);
    }

    @Test
    @DisplayName("O7 memory read: a page after the last names page and the rule")
    void memoryReadPageAfterLast() {
        rejected("page", "must be at most the total page count", "memory", "read", memoryDefault, "--page", "2");
    }

    @Test
    @DisplayName("O7 memory read: a page size below 1 names page_size")
    void memoryReadPageSizeZero() {
        rejected("page_size", "must be at least 1", "memory", "read", memoryDefault, "--page-size", "0");
    }

    @Test
    @DisplayName("O7 memory read: a memory ID with whitespace is invalid input (exit 2) and is not echoed")
    void memoryReadIdWithWhitespace() {
        rejected("", "whitespace", "memory", "read", CN_SECRET + " " + SECRET);
    }

    @Test
    @DisplayName("O7 memory read: a missing ID names the parameter")
    void memoryReadMissingId() {
        rejected("ID", "Missing required parameter", "memory", "read", "--page", "1");
    }

    // ====================================================================== relate

    @Test
    @DisplayName("M3 O7 relate: a cross-scope link is rejected, names b and the same-scope rule")
    void relateCrossScope() {
        rejected("b", "cross-scope links are rejected", "relate", memoryDefault, memoryOther);
    }

    @Test
    @DisplayName("M3 O7 relate: a memory of another scope as A is rejected, names a")
    void relateCrossScopeFirst() {
        rejected("a", "must be a memory of the requested scope", "relate", memoryOther, memoryDefault);
    }

    @Test
    @DisplayName("M3 O7 relate: linking from project other to a default-scope memory is rejected too")
    void relateCrossScopeFromOther() {
        rejected("b", "cross-scope", "--project", "other", "relate", memoryOther, memoryDefault);
    }

    @Test
    @DisplayName("M3 O7 relate: a memory related to itself names b and the rule")
    void relateSelf() {
        rejected("b", "must differ from a", "relate", memoryDefault, memoryDefault);
    }

    @Test
    @DisplayName("M3 O7 relate: an unknown memory names the field and rule")
    void relateUnknown() {
        rejected("b", "must refer to an existing memory", "relate", memoryDefault, SECRET);
    }

    @ParameterizedTest(name = "bad {0}")
    @ValueSource(strings = {"a", "b"})
    @DisplayName("M3 O7 relate: a memory ID with whitespace names the position, not the ID")
    void relateIdWithWhitespace(String which) {
        String bad = CN_SECRET + " " + SECRET;
        if (which.equals("a")) {
            rejected("a", "whitespace", "relate", bad, memoryDefault2);
        } else {
            rejected("b", "whitespace", "relate", memoryDefault, bad);
        }
    }

    @Test
    @DisplayName("M3 O7 relate: a third argument is exit 2 and not echoed")
    void relateExtraArgument() {
        rejected("", "unexpected argument", "relate", memoryDefault, memoryDefault2, CN_SECRET + SECRET);
    }

    @Test
    @DisplayName("M3 relate: two memories of the same scope link fine (control)")
    void relateControl() {
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run("relate", memoryDefault, memoryDefault2);
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(cli.rowCounts()).isEqualTo(plus(before, "relations", 1, "change_log", 1));
    }

    // ====================================================================== memory correct

    @Test
    @DisplayName("C1 O7 memory correct: blank, missing or oversized --text names text and the rule, and changes nothing")
    void memoryCorrectBadText() {
        rejected("text", "must not be blank", "memory", "correct", memoryDefault, "--text", "  \t ");
        rejected("--text", "Missing required", "memory", "correct", memoryDefault);
        rejected("text", "at most 2000 characters", "memory", "correct", memoryDefault,
                "--text", CN_SECRET + SECRET + "绿茶".repeat(1_000));
    }

    @Test
    @DisplayName("C1 O7 memory correct: a --quote that is not part of the corrected text names quote and the rule")
    void memoryCorrectQuoteNotInText() {
        rejected("quote", "exact substring of the corrected text", "memory", "correct", memoryDefault,
                "--text", "用户其实喜欢红茶 likes black tea", "--quote", CN_SECRET + SECRET);
        rejected("quote", "must not be blank", "memory", "correct", memoryDefault,
                "--text", "用户其实喜欢红茶 likes black tea", "--quote", " ");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badTimes")
    @DisplayName("C2 E4 O7 memory correct: a --valid-at without offset, or garbage, names valid_at and the rule")
    void memoryCorrectBadValidAt(String value, String rule) {
        rejected("valid_at", rule, "memory", "correct", memoryDefault, "--text", "用户其实喜欢红茶 black tea",
                "--valid-at", value);
    }

    @Test
    @DisplayName("C1 O7 memory correct: an ID with whitespace is invalid input (exit 2)")
    void memoryCorrectIdWithWhitespace() {
        rejected("id", "whitespace", "memory", "correct", CN_SECRET + " " + SECRET, "--text", "红茶 black tea");
    }

    @Test
    @DisplayName("C1 S1 memory correct: an unknown memory, or one of another scope, is not found (exit 1) and nothing changes")
    void memoryCorrectUnknownOrOtherScope() {
        for (String[] args : List.of(
                new String[]{"memory", "correct", "mem_UNKNOWN", "--text", "红茶 " + SECRET},
                new String[]{"memory", "correct", memoryOther, "--text", "红茶 " + SECRET},
                new String[]{"--project", "other", "memory", "correct", memoryDefault, "--text", "红茶 " + SECRET})) {
            Map<String, Long> before = cli.rowCounts();
            CliRunner.Result r = cli.run(args);
            assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.NOT_FOUND);
            assertThat(r.err()).contains("memory").contains("not found");
            assertNoEcho(r, SECRET);
            assertThat(cli.rowCounts()).isEqualTo(before);
        }
    }

    @Test
    @DisplayName("C1 memory correct: correcting a memory already revoked by a correction is a conflict (exit 3) and changes nothing")
    void memoryCorrectRevoked() {
        ok("memory", "correct", memoryDefault, "--text", "用户其实喜欢红茶 likes black tea");
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run("memory", "correct", memoryDefault, "--text", "用户喜欢白茶 " + SECRET);
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.CONFLICT);
        assertThat(r.err()).contains("already revoked");
        assertNoEcho(r, SECRET);
        assertThat(cli.rowCounts()).isEqualTo(before);
    }

    // ====================================================================== delete

    @Test
    @DisplayName("D1 O7 delete: neither or both of --event and --memory is invalid input (exit 2) and deletes nothing")
    void deleteTargetRequiredAndExclusive() {
        rejected("--event", "Missing required", "delete");
        rejected("--event", "mutually exclusive", "delete", "--event", "u1", "--memory", memoryDefault);
    }

    @Test
    @DisplayName("D1 O7 delete: an ID with whitespace names the field, not the value")
    void deleteIdWithWhitespace() {
        rejected("event", "whitespace", "delete", "--event", CN_SECRET + " " + SECRET);
        rejected("memory", "whitespace", "delete", "--memory", CN_SECRET + "\t" + SECRET);
    }

    @Test
    @DisplayName("D1 S1 delete: an unknown ID, or one of another scope, is not found (exit 1) and deletes nothing")
    void deleteUnknownOrOtherScope() {
        for (String[] args : List.of(new String[]{"delete", "--event", "nope"}, new String[]{"delete", "--memory", "mem_nope"},
                new String[]{"delete", "--event", "o1"}, new String[]{"delete", "--memory", memoryOther},
                new String[]{"--project", "other", "delete", "--event", "u1"})) {
            Map<String, Long> before = cli.rowCounts();
            CliRunner.Result r = cli.run(args);
            assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.NOT_FOUND);
            assertThat(r.err()).contains("not found");
            assertThat(cli.rowCounts()).isEqualTo(before);
        }
    }

    // ====================================================================== checkpoint save / show

    private String[] checkpointSave(String... overrides) {
        List<String[]> base = new ArrayList<>(List.of(new String[]{"--session", "s1"},
                new String[]{"--goal", "整理绿茶笔记 organize tea notes"}, new String[]{"--covered-seq", Long.toString(seqA1)}));
        List<String> extra = new ArrayList<>();
        outer:
        for (int i = 0; i < overrides.length; i += 2) {
            for (String[] pair : base) {
                if (pair[0].equals(overrides[i])) {
                    pair[1] = overrides[i + 1];
                    continue outer;
                }
            }
            extra.add(overrides[i]);
            extra.add(overrides[i + 1]);
        }
        List<String> args = new ArrayList<>(List.of("checkpoint", "save"));
        base.forEach(p -> args.addAll(Arrays.asList(p)));
        args.addAll(extra);
        return args.toArray(String[]::new);
    }

    @Test
    @DisplayName("K1 O7 checkpoint save: a covered sequence of another session is rejected, naming covered_seq")
    void checkpointOtherSession() {
        rejected("covered_seq", "must be the sequence of an event in the same scope and session",
                checkpointSave("--covered-seq", Long.toString(seqU2), "--goal", CN_SECRET + SECRET));
    }

    @Test
    @DisplayName("K1 O7 checkpoint save: a covered sequence of another scope (same session name) is rejected")
    void checkpointOtherScope() {
        rejected("covered_seq", "same scope and session", checkpointSave("--covered-seq", Long.toString(seqO1)));
    }

    @Test
    @DisplayName("K1 O7 checkpoint save: in project other, a default-scope sequence is rejected")
    void checkpointOtherScopeReverse() {
        rejected("covered_seq", "same scope and session",
                concat(new String[]{"--project", "other"}, checkpointSave("--covered-seq", Long.toString(seqU1))));
    }

    @Test
    @DisplayName("K1 O7 checkpoint save: a covered sequence that no event has is rejected")
    void checkpointUnknownSequence() {
        rejected("covered_seq", "same scope and session", checkpointSave("--covered-seq", "999"));
    }

    @ParameterizedTest(name = "--covered-seq {0}")
    @ValueSource(strings = {"0", "-1"})
    @DisplayName("K1 O7 checkpoint save: a covered sequence below 1 names covered_seq")
    void checkpointNonPositiveSequence(String seq) {
        rejected("covered_seq", "must be a positive event sequence", checkpointSave("--covered-seq", seq));
    }

    @ParameterizedTest(name = "--covered-seq {0}")
    @ValueSource(strings = {"abc", "1.0", "三", SECRET})
    @DisplayName("K1 O7 checkpoint save: a non-integer covered sequence names the option and the integer rule")
    void checkpointSequenceNotInteger(String seq) {
        CliRunner.Result r = rejected("--covered-seq", "must be an integer", checkpointSave("--covered-seq", seq));
        assertNoEcho(r, seq);
    }

    static Stream<Arguments> badCheckpointFields() {
        return Stream.of(
                Arguments.of("blank goal", new String[]{"--goal", "  "}, "goal", "must not be blank"),
                Arguments.of("goal over 4,000 characters", new String[]{"--goal", SECRET + "目标".repeat(2_000)},
                        "goal", "at most 4000 characters"),
                Arguments.of("blank done step", new String[]{"--done", "读完 read", "--done", ""}, "done[1]",
                        "must not be blank"),
                Arguments.of("blank next", new String[]{"--next", " "}, "next", "must not be blank"),
                Arguments.of("constraint over 4,000 characters",
                        new String[]{"--constraint", CN_SECRET + "约".repeat(4_000)}, "constraints[0]", "at most 4000"),
                Arguments.of("session with whitespace", new String[]{"--session", CN_SECRET + " " + SECRET},
                        "session", "whitespace"),
                Arguments.of("missing goal", new String[]{"--goal", null}, "--goal", "Missing required"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCheckpointFields")
    @DisplayName("K1 O7 checkpoint save: bad fields name the field and rule, not the value, and change nothing")
    void checkpointBadField(String label, String[] overrides, String field, String rule) {
        String[] args = checkpointSave(overrides);
        List<String> list = new ArrayList<>(Arrays.asList(args));
        int nullAt = list.indexOf(null);
        if (nullAt > 0) {
            list.remove(nullAt);
            list.remove(nullAt - 1);
        }
        rejected(field, rule, list.toArray(String[]::new));
    }

    @Test
    @DisplayName("K1 O7 checkpoint save: 101 pending steps name pending and the item limit")
    void checkpointTooManyPending() {
        List<String> extra = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            extra.add("--pending");
            extra.add("步骤 step " + i);
        }
        rejected("pending", "at most 100 items", concat(checkpointSave(), extra.toArray(String[]::new)));
    }

    @Test
    @DisplayName("K1 checkpoint save: the fixture checkpoint is accepted (control)")
    void checkpointControl() {
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run(checkpointSave());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(cli.rowCounts()).isEqualTo(plus(before, "checkpoints", 1, "change_log", 1));
    }

    @Test
    @DisplayName("K1 O7 checkpoint show: a session ID with whitespace names session")
    void checkpointShowSessionWithWhitespace() {
        ok(checkpointSave());
        rejected("session", "whitespace", "checkpoint", "show", "--session", CN_SECRET + " " + SECRET);
    }

    @Test
    @DisplayName("K1 O7 checkpoint show: a project ID with whitespace names project")
    void checkpointShowProjectWithWhitespace() {
        rejected("project", "whitespace", "--project", SECRET + " x", "checkpoint", "show");
    }

    @Test
    @DisplayName("K1 O7 checkpoint show: an unknown option is exit 2")
    void checkpointShowUnknownOption() {
        rejected("--goal", "unknown option", "checkpoint", "show", "--goal", SECRET);
    }

    // ====================================================================== doctor

    @Test
    @DisplayName("O7 doctor: an unknown option is exit 2 and changes nothing")
    void doctorUnknownOption() {
        rejected("--repair", "unknown option", "doctor", "--repair");
    }

    @Test
    @DisplayName("O7 doctor: an unknown option written --name=value does not echo the value")
    void doctorUnknownOptionWithValue() {
        rejected("--fix", "unknown option", "doctor", "--fix=" + SECRET);
    }

    @Test
    @DisplayName("O7 doctor: a stray argument is exit 2 and not echoed")
    void doctorStrayArgument() {
        rejected("", "unexpected argument", "doctor", CN_SECRET + SECRET);
    }

    // ====================================================================== FTS-looking text is text

    @Test
    @DisplayName("O7 FTS syntax in values (\"AND NEAR( * ^ : -) is accepted as text by every writing command")
    void ftsLookingTextAccepted() throws IOException {
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result e = ok("--json", "event", "submit", "--id", "fts1", "--role", "user", "--text", FTS_LOOKING,
                "--session", "s1", "--occurred-at", "2024-05-04T10:00:00+08:00");
        long seq = e.json().get("event").get("sequence").asLong();
        ok("memory", "add", "--event", "fts1", "--kind", "observation", "--basis", "user_statement",
                "--text", "用户写了 \"AND NEAR( 这样的文字", "--quote", "\"AND NEAR(", "--gist", "NEAR(a b) OR *",
                "--cue", "\"*\"", "--subject", "col:umn");
        ok("persona", "edit", "--text", "人设 \"AND NEAR( persona ^ -x");
        ok("checkpoint", "save", "--session", "s1", "--goal", "目标 \"AND NEAR( goal", "--done", "OR *",
                "--covered-seq", Long.toString(seq));
        Path events = writeLines("fts-events.jsonl", eventLine("fts2", "text", FTS_LOOKING + " 第二"));
        ok("event", "submit", "--batch", events.toString());
        Path memories = writeLines("fts-memories.jsonl", memoryLine("event", "fts2", "quote", "\"AND NEAR(",
                "text", "批量 \"AND NEAR( text", "cues", List.of("NEAR(", "\"")));
        ok("memory", "add", "--batch", memories.toString());
        assertThat(cli.rowCounts()).isEqualTo(plus(before, "events", 2, "events_fts", 2, "memories", 2,
                "memories_fts", 2, "personas", 1, "checkpoints", 1, "change_log", 6));
        assertThat(cli.query("SELECT text FROM events WHERE id = 'fts1'")).containsExactly(FTS_LOOKING);
    }

    // ====================================================================== --json error shape

    @Test
    @DisplayName("E4 O7 --json: a validation error is one JSON object on stderr {error, exit_code, message}, stdout empty")
    void jsonErrorShapeForValidation() {
        CliRunner.Result r = rejected("occurred_at", "offset", "--json", "event", "submit", "--id", "t1",
                "--role", "user", "--text", CN_SECRET, "--occurred-at", "2024-05-01T10:00:00");
        assertJsonError(r, "occurred_at");
        assertThat(r.out()).isEmpty();
    }

    @Test
    @DisplayName("O7 --json: a picocli conversion error has the same JSON shape")
    void jsonErrorShapeForConversion() {
        CliRunner.Result r = rejected("--kind", "must be one of", concat(new String[]{"--json"},
                memoryAdd("--kind", SECRET)));
        assertJsonError(r, "--kind");
        assertThat(r.out()).isEmpty();
    }

    @Test
    @DisplayName("O7 --json: --json given after the subcommand also gives a JSON error")
    void jsonErrorAfterSubcommand() {
        CliRunner.Result r = rejected("--role", "must be one of", "event", "submit", "--json", "--id", "t1",
                "--role", SECRET, "--text", "你好");
        assertJsonError(r, "--role");
    }

    @Test
    @DisplayName("O7 --json: --json given last, after the bad option, still gives a JSON error")
    void jsonErrorWhenJsonFlagIsLast() {
        CliRunner.Result r = rejected("--role", "must be one of", "event", "submit", "--id", "t1",
                "--role", SECRET, "--text", "你好", "--json");
        assertJsonError(r, "--role");
    }

    @Test
    @DisplayName("X3 O7 --json memory add --batch: acks for lines 1-2, a summary with failed_line 3, one JSON error")
    void jsonBatchErrorShape() throws IOException {
        Path batch = writeLines("memories.jsonl", memoryLine(), memoryLine("text", "第二条 second"),
                memoryLine("quote", CN_SECRET + SECRET));
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run("--json", "memory", "add", "--batch", batch.toString());
        assertThat(r.code()).as(r.toString()).isEqualTo(2);
        List<JsonNode> out = r.jsonLines();
        assertThat(out).hasSize(3);
        assertThat(out.get(0).get("line").asInt()).isEqualTo(1);
        assertThat(out.get(0).get("status").asString()).isEqualTo("created");
        assertThat(out.get(1).get("line").asInt()).isEqualTo(2);
        JsonNode summary = out.get(2).get("summary");
        assertThat(summary.get("committed").asInt()).isEqualTo(2);
        assertThat(summary.get("failed_line").asInt()).isEqualTo(3);
        assertJsonError(r, "quote");
        assertThat(errorJson(r).get("message").asString()).contains("line 3");
        assertThat(cli.rowCounts()).isEqualTo(plus(before, "memories", 2, "memories_fts", 2, "change_log", 2));
        assertNoEcho(r, SECRET, CN_SECRET);
    }

    @Test
    @DisplayName("E4 O7 --json event submit --batch: summary names created/existing/failed_line, error is JSON")
    void jsonEventBatchErrorShape() throws IOException {
        Path batch = writeLines("events.jsonl", eventLine("u1", "text", USER_TEXT, "occurred_at",
                "2024-05-01T08:00:00+08:00"), eventLine("b2"), eventLine("b3", "occurred_at", "2024-05-01T10:00:00"));
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.run("--json", "event", "submit", "--batch", batch.toString());
        assertThat(r.code()).as(r.toString()).isEqualTo(2);
        List<JsonNode> out = r.jsonLines();
        assertThat(out.get(0).get("status").asString()).isEqualTo("existing");
        assertThat(out.get(1).get("status").asString()).isEqualTo("created");
        JsonNode summary = out.get(out.size() - 1).get("summary");
        assertThat(summary.get("committed").asInt()).isEqualTo(2);
        assertThat(summary.get("created").asInt()).isEqualTo(1);
        assertThat(summary.get("existing").asInt()).isEqualTo(1);
        assertThat(summary.get("failed_line").asInt()).isEqualTo(3);
        assertJsonError(r, "occurred_at");
        assertThat(cli.rowCounts()).isEqualTo(plus(before, "events", 1, "events_fts", 1, "change_log", 1));
    }

    // ====================================================================== helpers

    /** Runs a command expected to be rejected as invalid input; checks exit 2, field, rule, no echo, no change. */
    private CliRunner.Result rejected(String field, String rule, String... args) {
        return rejectedWithStdin("", field, rule, args);
    }

    private CliRunner.Result rejectedWithStdin(String stdin, String field, String rule, String... args) {
        Map<String, Long> before = cli.rowCounts();
        CliRunner.Result r = cli.runWithStdin(stdin, args);
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(r.code()).as("exit code\n" + brief(r)).isEqualTo(ExitCode.INVALID);
        soft.assertThat(r.err()).as("stderr names the field and the rule\n" + brief(r)).contains(field).contains(rule);
        noEcho(soft, r, SECRET, CN_SECRET);
        soft.assertThat(cli.rowCounts()).as("row counts after a rejected command").isEqualTo(before);
        soft.assertAll();
        return r;
    }

    private static void noEcho(SoftAssertions soft, CliRunner.Result r, String... values) {
        for (String v : values) {
            if (v.isBlank()) {
                continue;
            }
            soft.assertThat(r.err()).as("stderr must not echo the input value\n" + brief(r)).doesNotContain(v);
            soft.assertThat(r.out()).as("stdout must not echo the input value\n" + brief(r)).doesNotContain(v);
        }
    }

    private static void assertNoEcho(CliRunner.Result r, String... values) {
        SoftAssertions soft = new SoftAssertions();
        noEcho(soft, r, values);
        soft.assertAll();
    }

    private static String brief(CliRunner.Result r) {
        String s = r.toString();
        return s.length() > 2_000 ? s.substring(0, 2_000) + "…(" + s.length() + " chars)" : s;
    }

    private static JsonNode errorJson(CliRunner.Result r) {
        List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).as("stderr is exactly one JSON line\n" + brief(r)).hasSize(1);
        return Output.mapper().readTree(lines.get(0));
    }

    private static void assertJsonError(CliRunner.Result r, String field) {
        JsonNode e = errorJson(r);
        assertThat(e.propertyNames()).containsExactly("error", "exit_code", "message");
        assertThat(e.get("error").asString()).isEqualTo("invalid_input");
        assertThat(e.get("exit_code").asInt()).isEqualTo(2);
        assertThat(e.get("message").asString()).contains(field);
    }

    private long submit(String... args) {
        CliRunner.Result r = ok(concat(new String[]{"--json", "event", "submit"}, args));
        return r.json().get("event").get("sequence").asLong();
    }

    private String addMemory(String... args) {
        CliRunner.Result r = ok(concat(new String[]{"--json", "memory", "add"}, args));
        return r.json().get("memory").get("id").asString();
    }

    private CliRunner.Result ok(String... args) {
        CliRunner.Result r = cli.run(args);
        assertThat(r.code()).as(brief(r)).isZero();
        return r;
    }

    private Path writeLines(String name, String... lines) throws IOException {
        Path file = files.resolve(name);
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return file;
    }

    /** {@code base} with {@code overrides} (name, value pairs; a null value removes the field), as one JSON line. */
    static String json(Map<String, Object> base, Object... overrides) {
        Map<String, Object> m = new LinkedHashMap<>(base);
        for (int i = 0; i < overrides.length; i += 2) {
            if (overrides[i + 1] == null) {
                m.remove((String) overrides[i]);
            } else {
                m.put((String) overrides[i], overrides[i + 1]);
            }
        }
        return Output.mapper().writeValueAsString(m);
    }

    static String[] concat(String[] a, String... b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** {@code counts} with {@code deltas} (table, delta pairs) added. */
    static Map<String, Long> plus(Map<String, Long> counts, Object... deltas) {
        Map<String, Long> out = new LinkedHashMap<>(counts);
        for (int i = 0; i < deltas.length; i += 2) {
            out.merge((String) deltas[i], ((Integer) deltas[i + 1]).longValue(), Long::sum);
        }
        return out;
    }
}
