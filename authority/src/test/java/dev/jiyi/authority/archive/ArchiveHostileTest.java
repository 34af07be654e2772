package dev.jiyi.authority.archive;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.AuthorityTestKit;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.ConflictException;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.DoctorReport;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.ExtractionBatch;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.PhaseProgress;
import dev.jiyi.authority.RefusedException;
import dev.jiyi.authority.Rejection;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.internal.JsonStrings;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

/**
 * O4 (with O7 for its messages): import refuses a hostile or damaged archive whole. Every case
 * takes the valid archive of a rich source database, breaks one rule, and imports it into a fresh
 * empty database: the import must throw the domain error naming the line or field and the rule and
 * never the offending value, leave every table empty, and leave the database able to take the valid
 * archive right after (nothing half-committed, no transaction or lock left behind).
 */
class ArchiveHostileTest {

    private static final Scope WORK = new Scope("alice", "work");
    private static final Scope HOME = new Scope("alice", "home");
    /** The tables an archive holds, in archive order. */
    private static final List<String> ARCHIVED = List.of("personas", "events", "memories", "relations", "checkpoints",
            "extractions", "capture_cursors");
    /** Marks every string the fuzz invents: no error message may ever contain it (O7). */
    private static final String MARK = "ZQX";

    /** The valid archive, JSONL and JSON, and their lines (header first, no line ends). */
    private static String jsonl;
    private static String json;
    private static List<String> lines;
    private static List<String> jsonLines;
    /** The rows per table the source export reported. */
    private static Map<String, Long> sourceCounts;
    private static String guangzhouId;
    private static String shenzhenId;
    private static String teaId;
    private static String catsId;

    @TempDir
    Path dir;
    private int dbs;

    // ------------------------------------------------------------------ the source archive

    @BeforeAll
    static void buildSourceArchive(@TempDir Path source) throws IOException {
        try (Authority a = Authority.open(source.resolve("source.db"), List.of())) {
            a.editPersona("alice", "温柔而直接 gentle but direct");
            Event w1 = a.submitEvent(new EventSubmission("ev-w1", WORK, Role.USER, "我住在广州，I love tea", "test",
                    Category.CONVERSATION, "s1", Instant.parse("2024-05-01T02:00:00Z"))).event();
            Event w2 = a.submitEvent(new EventSubmission("ev-w2", WORK, Role.USER, "I moved in June，现在住在深圳", "test",
                    Category.CONVERSATION, "s1", Instant.parse("2024-06-01T02:00:00Z"))).event();
            Event w3 = a.submitEvent(new EventSubmission("ev-w3", WORK, Role.ASSISTANT, "好的，记住了 noted 😊", "test",
                    Category.CONVERSATION, "s1", Instant.parse("2024-06-01T02:01:00Z"))).event();
            a.submitEvent(new EventSubmission("ev-w4", WORK, Role.USER, "另一个会话 another session", "test",
                    Category.CONVERSATION, "s2", Instant.parse("2024-06-02T02:00:00Z")));
            Event h1 = a.submitEvent(new EventSubmission("ev-h1", HOME, Role.USER, "Home: 我喜欢猫 and cats", "test",
                    Category.CONVERSATION, "s-home", Instant.parse("2024-05-03T02:00:00Z"))).event();
            a.submitEvent(new EventSubmission("ev-ref", HOME, Role.USER, "参考资料 reference notes\n第二行 line two", "test",
                    Category.REFERENCE, "s-home", Instant.parse("2024-05-03T03:00:00Z")));

            // A fact timeline: Shenzhen closes Guangzhou (closed_by set, invalid_at at Shenzhen's start).
            guangzhouId = a.addMemory(WORK, MemoryDraft.builder(w1.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("住在广州 lives in Guangzhou").quote("我住在广州").subject("alice").factKey("city")
                    .validAt(w1.occurredAt()).cue("广州").cue("city").gist("城市 city").build()).id();
            shenzhenId = a.addMemory(WORK, MemoryDraft.builder(w2.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("住在深圳 lives in Shenzhen").quote("现在住在深圳").subject("alice").factKey("city")
                    .validAt(w2.occurredAt()).build()).id();
            teaId = a.addMemory(WORK, MemoryDraft.builder(w1.id()).kind(Kind.PREFERENCE).basis(Basis.USER_STATEMENT)
                    .text("loves tea 喜欢茶").quote("I love tea").confidence(0.75).build()).id();
            a.addMemory(WORK, MemoryDraft.builder(w3.id()).kind(Kind.EMOTION).basis(Basis.ASSISTANT_EXPRESSION)
                    .text("开心 glad to help").quote("记住了").emotion(new Emotion("开心 glad", 0.6, 0.3)).build());
            catsId = a.addMemory(HOME, MemoryDraft.builder(h1.id()).kind(Kind.PREFERENCE).basis(Basis.USER_STATEMENT)
                    .text("喜欢猫 likes cats").quote("我喜欢猫").build()).id();
            a.relate(WORK, shenzhenId, teaId);
            a.correctMemory(WORK, teaId, new CorrectionDraft("喜欢绿茶 loves green tea", "绿茶", null));
            a.saveCheckpoint(WORK, new CheckpointDraft("s1", "记住住址 remember the city", List.of("问了 asked"),
                    List.of("确认 confirm"), List.of("别忘了 don't forget"), "下一步 next", w3.sequence()));

            Event x1 = a.submitForExtraction(new EventSubmission("ev-x1", HOME, Role.USER, "我每天早上跑步 I run every morning",
                    "test", Category.CONVERSATION, "s-home", Instant.parse("2024-05-04T02:00:00Z"))).event();
            a.applyExtraction(HOME, x1.id(), new ExtractionBatch("test-extractor|v1", "sha256:ab12",
                    List.of(new ExtractionBatch.Proposed(0, MemoryDraft.builder(x1.id()).kind(Kind.FACT)
                            .basis(Basis.USER_STATEMENT).text("每天跑步 runs every morning").quote("我每天早上跑步").build())),
                    List.of(new Rejection(1, "quote", "must be an exact substring of its event's text"))));

            a.advanceCapture(WORK, "inst-1", 0, "pos-42", java.time.Instant.parse("2024-06-01T01:00:00Z"), List.of(), List.of());

            sourceCounts = a.archives().export(source.resolve("a.jsonl"), ArchiveFormat.JSONL, null, PhaseProgress.NONE).rows().byName();
            a.archives().export(source.resolve("a.json"), ArchiveFormat.JSON, null, PhaseProgress.NONE);
        }
        jsonl = Files.readString(source.resolve("a.jsonl"), StandardCharsets.UTF_8);
        json = Files.readString(source.resolve("a.json"), StandardCharsets.UTF_8);
        // The same bytes on every run, so that a fuzz case number replays exactly: generated IDs and the
        // times of "now" are renamed to fixed ones in the same order (export orders relations by ID).
        Map<String, String> renames = new LinkedHashMap<>();
        java.util.regex.Matcher ids = java.util.regex.Pattern.compile("(mem|corr)_[0-9A-Z]{26}").matcher(jsonl);
        java.util.TreeSet<String> generated = new java.util.TreeSet<>();
        while (ids.find()) {
            generated.add(ids.group());
        }
        for (String generatedId : generated) {
            renames.put(generatedId, generatedId.substring(0, generatedId.indexOf('_') + 1)
                    + String.format("%026d", renames.size() + 1));
        }
        java.util.regex.Matcher times = java.util.regex.Pattern
                .compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z").matcher(jsonl);
        java.util.TreeSet<String> nows = new java.util.TreeSet<>();
        while (times.find()) {
            if (!times.group().startsWith("2024-")) {
                nows.add(times.group());
            }
        }
        int t = 0;
        for (String now : nows) {
            renames.put(now, String.format("2025-01-01T00:%02d:%02d.000000Z", t / 60, t % 60));
            t++;
        }
        for (Map.Entry<String, String> r : renames.entrySet()) {
            jsonl = jsonl.replace(r.getKey(), r.getValue());
            json = json.replace(r.getKey(), r.getValue());
        }
        guangzhouId = renames.get(guangzhouId);
        shenzhenId = renames.get(shenzhenId);
        teaId = renames.get(teaId);
        catsId = renames.get(catsId);
        lines = List.of(jsonl.split("\n"));
        jsonLines = List.of(json.split("\n"));
        // The fixture holds what the cases below need.
        assertThat(sourceCounts).containsExactlyEntriesOf(orderedCounts(2, 8, 7, 2, 1, 1, 1));
        assertThat(lines).hasSize(1 + 22);
        assertThat(line(find("memories", id(guangzhouId)))).contains("\"closed_by\":\"" + shenzhenId + "\"");
    }

    private static Map<String, Long> orderedCounts(long... n) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < ARCHIVED.size(); i++) {
            m.put(ARCHIVED.get(i), n[i]);
        }
        return m;
    }

    // ------------------------------------------------------------------ the unmutated archive

    @Test
    @DisplayName("O4 baseline: the unmutated archive, JSONL or JSON, even fed one byte at a time, imports whole; "
            + "doctor is healthy and a re-export is byte-identical")
    void unmutatedArchiveImports() throws Exception {
        for (String archive : List.of(jsonl, json)) {
            Path db = newDb();
            try (Authority a = Authority.open(db, List.of())) {
                ArchiveReport r = a.archives().importFrom(new ByteArrayInputStream(utf8(archive)), PhaseProgress.NONE);
                assertThat(r.rows().byName()).isEqualTo(sourceCounts);
                assertThat(r.version()).isEqualTo(1);
                assertThat(r.bytes()).isEqualTo(utf8(archive).length);
                assertThat(archived(a.tableCounts().byName())).isEqualTo(sourceCounts);
                assertThat(a.doctor().problems()).isEmpty();
                Path again = dir.resolve("again-" + dbs + (archive == json ? ".json" : ".jsonl"));
                a.archives().export(again, archive == json ? ArchiveFormat.JSON : ArchiveFormat.JSONL, null, PhaseProgress.NONE);
                assertThat(Files.readString(again, StandardCharsets.UTF_8)).isEqualTo(archive);
            }
        }
        try (Authority a = Authority.open(newDb(), List.of())) {
            ArchiveReport r = a.archives().importFrom(new Trickle(utf8(jsonl)), PhaseProgress.NONE);
            assertThat(r.rows().byName()).isEqualTo(sourceCounts);
            assertThat(a.doctor().problems()).isEmpty();
        }
    }

    // ------------------------------------------------------------------ truncation

    @Test
    @DisplayName("O4 a JSONL archive cut in the middle of a row line is refused (as truncated where the parser sees "
            + "the end), at every cut point, and leaves nothing behind")
    void truncatedInTheMiddleOfARow() throws Exception {
        int at = find("memories", id(guangzhouId));
        String before = String.join("\n", lines.subList(0, at)) + "\n";
        String row = line(at);

        // Cut inside the memory's text: the parser meets the end inside a string.
        int inText = row.indexOf("住在广州 lives") + 3;
        invalid(utf8(before + row.substring(0, inText)), "archive", "truncated", "住在广");
        // Cut inside a field name, just after a colon, and just before the closing brace.
        invalid(utf8(before + row.substring(0, row.indexOf(",\"quote\"") + 4)), "archive", "truncated", "我住在广州");
        invalid(utf8(before + row.substring(0, row.indexOf(",\"quote\"") + 9)), "archive", "truncated", "我住在广州");
        invalid(utf8(before + row.substring(0, row.length() - 1)), "archive", "truncated", "我住在广州");
        // Cut just after a comma, or inside a literal (nul|l): Jackson reports these as broken JSON rather than
        // as an unexpected end, so the error names the line and "must be valid JSON"; either is a fair refusal.
        String rowLine = "line " + (at + 1);
        assertThat(refused(utf8(before + row.substring(0, row.indexOf(",\"quote\"") + 1)), InvalidInputException.class,
                "我住在广州")).hasMessageFindingMatch("^(archive: ends in the middle of a row: it is truncated|"
                + rowLine + ": must be valid JSON)$");
        assertThat(refused(utf8(before + row.substring(0, row.length() - 3)), InvalidInputException.class, "我住在广州"))
                .hasMessageFindingMatch("^(archive: ends in the middle of a row: it is truncated|" + rowLine
                        + ": must be valid JSON)$");

        // Every other cut point of the line: always refused (as truncated, or as broken JSON or UTF-8 where
        // the cut falls inside a literal or a character), never anything else, into the same database.
        byte[] all = utf8(before + row + "\n");
        int from = utf8(before).length;
        Path db = newDb();
        Map<String, Integer> rules = new TreeMap<>();
        try (Authority a = Authority.open(db, List.of())) {
            List<String> counters = counters(db);
            for (int cut = from + 1; cut < all.length - 1; cut += 5) {
                byte[] cutArchive = Arrays.copyOf(all, cut);
                Throwable thrown = catchThrowable(() -> a.archives().importFrom(new ByteArrayInputStream(cutArchive), PhaseProgress.NONE));
                assertThat(thrown).as("cut at byte " + cut).isInstanceOf(InvalidInputException.class);
                InvalidInputException e = (InvalidInputException) thrown;
                assertThat(e.getMessage()).as("cut at byte " + cut).doesNotContain("住在广州").doesNotContain(guangzhouId);
                rules.merge(e.rule(), 1, Integer::sum);
                assertEmpty(a, db, counters);
            }
            assertValidImport(a);
        }
        assertThat(rules.keySet()).as("rules that fired").contains("ends in the middle of a row: it is truncated");
    }

    @Test
    @DisplayName("O4 a JSONL archive cut exactly at a line boundary is refused by the header's counts: rows are missing")
    void truncatedAtALineBoundary() throws Exception {
        // Everything after the memories is gone: the first table short of rows is named.
        int relations = find("relations", shenzhenId);
        invalid(utf8(String.join("\n", lines.subList(0, relations)) + "\n"), "header.counts.relations",
                "announces 2 rows where the archive holds 0: it is truncated or altered", "pos-42");
        // Only the very last line is gone.
        invalid(utf8(String.join("\n", lines.subList(0, lines.size() - 1)) + "\n"), "header.counts.capture_cursors",
                "announces 1 rows where the archive holds 0", "pos-42", "inst-1");
        // Only the header is left.
        invalid(utf8(lines.getFirst() + "\n"), "header.counts.personas", "it is truncated or altered");
    }

    @Test
    @DisplayName("O4 a JSON archive missing its closing ]} (or only its closing }) is refused as truncated")
    void truncatedJsonDocument() throws Exception {
        assertThat(json).endsWith("\n]}\n");
        String withoutClose = json.substring(0, json.length() - "\n]}\n".length());
        invalid(utf8(withoutClose), "archive", "truncated", "pos-42");
        invalid(utf8(withoutClose + "\n"), "archive", "truncated", "pos-42");
        invalid(utf8(json.substring(0, json.length() - "}\n".length())), "archive", "truncated", "pos-42");
        // Cut inside the rows array, after a row's comma (Jackson: broken JSON on that line, see above).
        int relations = findIn(jsonLines, "relations", shenzhenId);
        int cut = json.indexOf(",\n{\"table\":\"relations\"") + 1;
        assertThat(refused(utf8(json.substring(0, cut)), InvalidInputException.class, shenzhenId))
                .hasMessageFindingMatch("^(archive: ends in the middle of a row: it is truncated|line " + relations
                        + ": must be valid JSON)$");
    }

    // ------------------------------------------------------------------ the header

    @Test
    @DisplayName("O4 a header with another format name is refused naming header.format, never the name it holds")
    void wrongFormatName() throws Exception {
        for (List<String> archive : List.of(lines, jsonLines)) {
            invalid(utf8(join(replaceFirst(archive, 0, "\"format\":\"jiyi-archive\"", "\"format\":\"evil-格式-archive\""))),
                    "header.format", "must be jiyi-archive: this is not a jiyi archive", "evil-格式");
            invalid(utf8(join(replaceFirst(archive, 0, "\"format\":\"jiyi-archive\"", "\"format\":7"))),
                    "header.format", "must be jiyi-archive");
            invalid(utf8(join(replaceFirst(archive, 0, "\"format\":\"jiyi-archive\",", ""))),
                    "header.format", "must be jiyi-archive");
        }
    }

    @Test
    @DisplayName("O4 a header version 0, negative, fractional, a string or missing is refused naming header.version")
    void badVersion() throws Exception {
        for (List<String> archive : List.of(lines, jsonLines)) {
            for (String version : List.of("0", "-3", "1.5", "\"v-壹-1\"", "\"1\"", "null", "false", "{}")) {
                invalid(utf8(join(replaceFirst(archive, 0, "\"version\":1", "\"version\":" + version))),
                        "header.version", "must be a format version, a whole number from 1", "v-壹");
            }
            invalid(utf8(join(replaceFirst(archive, 0, "\"version\":1,", ""))),
                    "header.version", "must be a format version");
        }
    }

    @Test
    @DisplayName("O4 a header whose format or version holds an array or an object is refused naming that field")
    void headerFieldHoldingAContainer() throws Exception {
        // FAILS (production bug, messages only): ArchiveImport.header (ArchiveImport.java:151-152) reads "format"
        // and "version" without p.skipChildren() when their value is an array or object, so the parser reads on
        // inside it: "version":[1] is refused as "line 1: must be the archive's header, a JSON object", and
        // "format":{"format":"jiyi-archive"} takes the nested field as the header's own and ends the header at the
        // nested '}', refused as "header.version: must be a format version..." although version is 1. Both archives
        // are refused (nothing is imported); only the field and rule named are wrong.
        invalid(utf8(join(replaceFirst(lines, 0, "\"version\":1", "\"version\":[1]"))),
                "header.version", "must be a format version, a whole number from 1");
        invalid(utf8(join(replaceFirst(lines, 0, "\"format\":\"jiyi-archive\"", "\"format\":[\"jiyi-archive\"]"))),
                "header.format", "must be jiyi-archive");
        invalid(utf8(join(replaceFirst(lines, 0, "\"format\":\"jiyi-archive\"", "\"format\":{\"format\":\"jiyi-archive\"}"))),
                "header.format", "must be jiyi-archive");
    }

    @Test
    @DisplayName("O4 a header of a newer format version (2) is refused (RefusedException), the home left empty")
    void newerVersion() throws Exception {
        for (List<String> archive : List.of(lines, jsonLines)) {
            JiyiException e = refused(utf8(join(replaceFirst(archive, 0, "\"version\":1", "\"version\":2"))),
                    RefusedException.class);
            assertThat(e).hasMessageContaining("newer").hasMessageContaining("up to 1");
            refused(utf8(join(replaceFirst(archive, 0, "\"version\":1", "\"version\":9000"))), RefusedException.class);
        }
    }

    // ------------------------------------------------------------------ references

    @Test
    @DisplayName("O4 a memory whose quote is not in its event's text is refused naming its line and memories.quote")
    void quoteNotInEvent() throws Exception {
        int at = find("memories", id(teaId));
        List<String> broken = with(lines, at, set(line(at), "quote", "\"I love 秘密咖啡 coffee\""));
        invalid(utf8(join(broken)), lineField(at, "memories.quote"), "must be an exact substring of its event's text",
                "秘密咖啡", "I love");
        // The same in a JSON archive (rows there are on the same lines: the header holds "rows":[ on line 1).
        int jsonAt = findIn(jsonLines, "memories", id(teaId));
        List<String> brokenJson = with(jsonLines, jsonAt, set(jsonLines.get(jsonAt), "quote", "\"I love 秘密咖啡 coffee\""));
        invalid(utf8(join(brokenJson)), lineField(jsonAt, "memories.quote"), "must be an exact substring", "秘密咖啡");
    }

    @Test
    @DisplayName("O4 a memory must keep the write path's rules: no fact key on an inference, an emotion whole, one current value per "
            + "timeline; extraction rejections in their stored form; counters within 2^53")
    void writePathRules() throws Exception {
        int tea = find("memories", id(teaId));
        invalid(utf8(join(with(lines, tea, set(set(line(tea), "basis", "\"inference\""), "fact_key", "\"drink\"")))),
                lineField(tea, "memories.fact_key"), "", "drink");
        invalid(utf8(join(with(lines, tea, set(line(tea), "emotion_label", "\"秘密心情\"")))),
                lineField(tea, "memories.emotion_label"), "must come with valence and arousal", "秘密心情");
        // Guangzhou no longer closed: two current cities on one timeline.
        int gz = find("memories", id(guangzhouId));
        assertThat(line(gz)).contains("\"closed_by\":");
        List<String> open = with(lines, gz, set(set(set(line(gz), "invalid_at", "null"), "closed_by", "null"),
                "stated_invalid_at", "null"));
        InvalidInputException e = invalid(utf8(join(open)), "memories.invalid_at", "one current value per subject and key");
        assertThat(e).isNotNull();
        if (lines.stream().anyMatch(l -> l.startsWith("{\"table\":\"extractions\""))) {
            int x = find("extractions", "\"rejected\":");
            invalid(utf8(join(with(lines, x, set(line(x), "rejected", "[\"garbage\"]")))),
                    lineField(x, "extractions.rejected"), "must hold rejections", "garbage");
        }
        String header = lines.getFirst();
        String huge = header.replaceFirst("\"events\":\\d+", "\"events\":9223372036854775807");
        invalid(utf8(join(with(lines, 0, huge))), "header.sequences.events", "at most 9007199254740992");
    }

    @Test
    @DisplayName("O4 a relation whose to_id is a memory of another scope (the relation's own persona and project kept) "
            + "is refused naming relations.to_id")
    void relationAcrossScopes() throws Exception {
        int at = find("relations", shenzhenId);
        assertThat(line(at)).contains("\"project_id\":\"work\"");
        List<String> broken = with(lines, at, set(line(at), "to_id", quote(catsId)));
        invalid(utf8(join(broken)), lineField(at, "relations.to_id"), "must be a memory of the relation's own scope",
                catsId, "home");
        // The other end, too.
        List<String> brokenFrom = with(lines, at, set(line(at), "from_id", quote(catsId)));
        invalid(utf8(join(brokenFrom)), lineField(at, "relations.from_id"), "must be a memory of the relation's own scope",
                catsId);
    }

    @Test
    @DisplayName("O4 a checkpoint whose covered_seq is an event of another session (or another scope) is refused "
            + "naming checkpoints.covered_seq")
    void checkpointOfAnotherSession() throws Exception {
        int at = find("checkpoints", "记住住址");
        String w4 = raw(line(find("events", "\"id\":\"ev-w4\"")), "sequence");
        String h1 = raw(line(find("events", "\"id\":\"ev-h1\"")), "sequence");
        invalid(utf8(join(with(lines, at, set(line(at), "covered_seq", w4)))), lineField(at, "checkpoints.covered_seq"),
                "must be an event of the checkpoint's own scope and session", "s2", "ev-w4");
        invalid(utf8(join(with(lines, at, set(line(at), "covered_seq", h1)))), lineField(at, "checkpoints.covered_seq"),
                "must be an event of the checkpoint's own scope and session", "s-home", "ev-h1");
        invalid(utf8(join(with(lines, at, set(line(at), "covered_seq", "999")))), lineField(at, "checkpoints.covered_seq"),
                "must be the sequence of an event earlier in the archive");
    }

    @Test
    @DisplayName("O4 a naive timestamp (no offset) in occurred_at is refused naming events.occurred_at, not the time")
    void naiveTimestamp() throws Exception {
        int at = find("events", "\"id\":\"ev-w2\"");
        invalid(utf8(join(with(lines, at, set(line(at), "occurred_at", quote("2031-07-19T13:37:42.123456"))))),
                lineField(at, "events.occurred_at"), "must include a UTC offset or zone", "2031-07-19", "13:37");
        invalid(utf8(join(with(lines, at, set(line(at), "occurred_at", quote("2031-07-19 13:37:42"))))),
                lineField(at, "events.occurred_at"), "with an offset", "2031-07-19", "13:37");
        invalid(utf8(join(with(lines, at, set(line(at), "occurred_at", quote("2031-07-19"))))),
                lineField(at, "events.occurred_at"), "must include a UTC offset or zone, and a time of day", "2031-07-19");
        // The same in a memory's valid_at, and a naive time among offset ones in a checkpoint.
        int tea = find("memories", id(teaId));
        invalid(utf8(join(with(lines, tea, set(line(tea), "valid_at", quote("2031-07-19T13:37:42"))))),
                lineField(tea, "memories.valid_at"), "must include a UTC offset or zone", "2031-07-19");
        int cp = find("checkpoints", "记住住址");
        invalid(utf8(join(with(lines, cp, set(line(cp), "created_at", quote("2031-07-19T13:37:42"))))),
                lineField(cp, "checkpoints.created_at"), "must include a UTC offset or zone", "2031-07-19");
    }

    @Test
    @DisplayName("O4 duplicate keys: an event repeated with another sequence but the same id, one with the same sequence "
            + "but another id, and a memory repeated with another seq are refused naming the line")
    void duplicateIds() throws Exception {
        int w4 = find("events", "\"id\":\"ev-w4\"");
        int firstMemory = find("memories", id(guangzhouId));
        // Same id, a new sequence: counts and counters fixed, so only the key rule can fire.
        List<String> sameId = new ArrayList<>(lines);
        sameId.add(firstMemory, set(line(w4), "sequence", "77"));
        sameId = recount(sameId);
        sameId.set(0, set(sameId.getFirst(), "sequences", "{\"events\":77,\"memories\":7,\"checkpoints\":1}"));
        invalid(utf8(join(sameId)), "line " + (firstMemory + 1) + ": events",
                "must not repeat the ID or key of an earlier row", "ev-w4", "77");

        // Same sequence, another id.
        List<String> sameSequence = new ArrayList<>(lines);
        sameSequence.add(firstMemory, set(line(w4), "id", "\"ev-影子-twin\""));
        invalid(utf8(join(recount(sameSequence))), "line " + (firstMemory + 1) + ": events",
                "must not repeat the ID or key of an earlier row", "ev-影子", "ev-w4");

        // A memory repeated under a new seq: same id.
        int cats = find("memories", id(catsId));
        List<String> sameMemory = new ArrayList<>(lines);
        sameMemory.add(cats + 1, set(line(cats), "seq", "66"));
        sameMemory = recount(sameMemory);
        sameMemory.set(0, set(sameMemory.getFirst(), "sequences", "{\"events\":8,\"memories\":66,\"checkpoints\":1}"));
        invalid(utf8(join(sameMemory)), "line " + (cats + 2) + ": memories",
                "must not repeat the ID or key of an earlier row", catsId);
    }

    @Test
    @DisplayName("O4 a memory whose event is missing (its event line removed, counts fixed) is refused naming "
            + "memories.event_id")
    void memoryWithoutItsEvent() throws Exception {
        int h1 = find("events", "\"id\":\"ev-h1\"");
        List<String> broken = new ArrayList<>(lines);
        broken.remove(h1);
        broken = recount(broken);
        int cats = findIn(broken, "memories", id(catsId));
        invalid(utf8(join(broken)), lineField(cats, "memories.event_id"),
                "must be the ID of an event earlier in the archive", "ev-h1", "我喜欢猫");
    }

    // ------------------------------------------------------------------ bytes and lines

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @DisplayName("O4 a 50 MB row line (an event text of 50 MB, or 50 MB between values; JSONL or JSON) is refused by "
            + "the value or the line limit without reading it whole or running out of memory")
    void fiftyMegabyteLine() throws Exception {
        long fifty = 50L * 1024 * 1024;
        for (List<String> archive : List.of(lines, jsonLines)) {
            int at = findIn(archive, "events", "\"id\":\"ev-w2\"");
            String row = archive.get(at);
            String marker = "\"text\":\"";
            int textStart = row.indexOf(marker) + marker.length();
            int textEnd = row.indexOf("\",\"occurred_at\"");
            String head = String.join("\n", archive.subList(0, at)) + "\n" + row.substring(0, textStart);
            String tail = row.substring(textEnd) + "\n" + String.join("\n", archive.subList(at + 1, archive.size())) + "\n";
            // 50 MB in one text value: refused by the limit on a value, as soon as it passes it
            Huge[] stream = new Huge[1];
            InvalidInputException e = invalid(() -> stream[0] = new Huge(utf8(head), utf8("巨"), fifty, utf8(tail)),
                    "line " + (at + 1), "holds a value beyond the limits of an archive", "巨巨巨");
            assertThat(e).isNotNull();
            assertThat(stream[0].served).as("bytes read before the refusal").isLessThan(16L * 1024 * 1024);
            // 50 MB of a line between its values: refused by the line limit
            String before = String.join("\n", archive.subList(0, at)) + "\n" + row.substring(0, textStart - marker.length());
            String after = row.substring(textStart - marker.length()) + "\n"
                    + String.join("\n", archive.subList(at + 1, archive.size())) + "\n";
            InvalidInputException spaces = invalid(() -> stream[0] = new Huge(utf8(before), utf8(" "), fifty, utf8(after)),
                    "line " + (at + 1), "must be at most " + ArchiveInput.MAX_LINE + " characters: an archive line holds one row");
            assertThat(spaces).isNotNull();
            assertThat(stream[0].served).as("bytes read before the refusal").isLessThan(16L * 1024 * 1024);
        }
    }

    @Test
    @DisplayName("O4 bytes that are not UTF-8 (0xC3 0x28, a lone 0xFF, a cut sequence) inside a text value are refused "
            + "naming their line, also past the first 64 KB and when fed one byte at a time")
    void invalidUtf8() throws Exception {
        int at = find("events", "\"id\":\"ev-w2\"");
        for (byte[] bad : List.of(new byte[] {(byte) 0xC3, 0x28}, new byte[] {(byte) 0xFF}, new byte[] {(byte) 0xE5, (byte) 0xB7})) {
            byte[] archive = spliceIntoText(lines, at, "现在住在", bad);
            invalid(archive, "line " + (at + 1), "must be UTF-8 text", "现在住在", "深圳");
            invalidStream(() -> new Trickle(archive), "line " + (at + 1), "must be UTF-8 text", "现在住在");
        }
        // Far into the file: a valid 150,000-character event text first, then the bad bytes two lines on.
        int w4 = find("events", "\"id\":\"ev-w4\"");
        List<String> big = with(lines, w4, set(line(w4), "text", quote("长".repeat(150_000))));
        int h1 = find("events", "\"id\":\"ev-h1\"");
        byte[] archive = spliceIntoText(big, h1, "我喜欢", new byte[] {(byte) 0xC3, 0x28});
        assertThat(archive.length).isGreaterThan(3 * 65_536);
        invalid(archive, "line " + (h1 + 1), "must be UTF-8 text", "我喜欢", "长长长");
        invalidStream(() -> new Trickle(archive), "line " + (h1 + 1), "must be UTF-8 text", "我喜欢");
    }

    // ------------------------------------------------------------------ the shape of a row

    @Test
    @DisplayName("O4 a row with a field that is not one of its columns is refused naming the line and table")
    void unknownField() throws Exception {
        int at = find("memories", id(teaId));
        String row = line(at);
        String extra = row.substring(0, row.length() - 1) + ",\"mood_秘密\":\"秘密值 secret\"}";
        invalid(utf8(join(with(lines, at, extra))), lineField(at, "memories"), "holds a field that is not one of its columns",
                "秘密值", "mood_秘密");
    }

    @Test
    @DisplayName("O4 a row missing a column (even a nullable one) is refused naming the line and the column")
    void missingColumn() throws Exception {
        int at = find("memories", id(teaId));
        invalid(utf8(join(with(lines, at, remove(line(at), "gist")))), lineField(at, "memories.gist"),
                "is required (null where there is no value)", "I love tea");
        int w1 = find("events", "\"id\":\"ev-w1\"");
        invalid(utf8(join(with(lines, w1, remove(line(w1), "text")))), lineField(w1, "events.text"), "is required",
                "我住在广州");
    }

    @Test
    @DisplayName("O4 a value of the wrong JSON type (a number, a boolean, a list where a string belongs; a string where a "
            + "number belongs) is refused naming the line and the column")
    void wrongJsonType() throws Exception {
        int w1 = find("events", "\"id\":\"ev-w1\"");
        invalid(utf8(join(with(lines, w1, set(line(w1), "text", "31415926")))), lineField(w1, "events.text"),
                "must be a string", "31415926");
        invalid(utf8(join(with(lines, w1, set(line(w1), "source", "true")))), lineField(w1, "events.source"),
                "must be a string");
        invalid(utf8(join(with(lines, w1, set(line(w1), "id", "[\"ev-列表\"]")))), lineField(w1, "events.id"),
                "must be a string", "ev-列表");
        invalid(utf8(join(with(lines, w1, set(line(w1), "sequence", "\"1\"")))), lineField(w1, "events.sequence"),
                "must be a whole number from 1 to ");
        invalid(utf8(join(with(lines, w1, set(line(w1), "amended", "\"yes-是的\"")))), lineField(w1, "events.amended"),
                "must be true or false", "yes-是的");
        int tea = find("memories", id(teaId));
        invalid(utf8(join(with(lines, tea, set(line(tea), "confidence", "\"0.75-高\"")))), lineField(tea, "memories.confidence"),
                "must be a number from 0.0 to 1.0", "0.75-高");
        invalid(utf8(join(with(lines, tea, set(line(tea), "cue_keys", "\"茶-cue\"")))), lineField(tea, "memories.cue_keys"),
                "must be an array", "茶-cue");
    }

    @Test
    @DisplayName("O4 a nested object as a row value (or inside a list) is refused naming the line")
    void nestedObject() throws Exception {
        int at = find("memories", id(teaId));
        invalid(utf8(join(with(lines, at, set(line(at), "subject", "{\"x\":\"嵌套秘密\"}")))), "line " + (at + 1),
                "a row has no nested objects", "嵌套秘密");
        invalid(utf8(join(with(lines, at, set(line(at), "cue_keys", "[\"ok\",{\"x\":\"嵌套秘密\"}]")))), "line " + (at + 1),
                "must hold lists of strings only", "嵌套秘密");
        invalid(utf8(join(with(lines, at, set(line(at), "cue_keys", "[\"ok\",[\"嵌套秘密\"]]")))), "line " + (at + 1),
                "must hold lists of strings only", "嵌套秘密");
    }

    @Test
    @DisplayName("O4 a value beyond the parser's limits (a 60-digit number, a 300-character field name, arrays nested "
            + "deeper than a row can) is refused naming the line")
    void beyondParserLimits() throws Exception {
        // These go through Jackson's StreamReadConstraints (ArchiveImport.run's StreamConstraintsException branch).
        // FAILS (production bug): ArchiveImport.java:82 calls e.getLocation().getLineNr(), but Jackson 3.3's
        // StreamReadConstraints throws StreamConstraintsException without a location, so every one of these
        // archives makes the import throw a NullPointerException instead of an InvalidInputException (the
        // transaction still rolls back). The catch of JacksonException just below guards against a null location.
        int w1 = find("events", "\"id\":\"ev-w1\"");
        invalid(utf8(join(with(lines, w1, set(line(w1), "sequence", "1" + "0".repeat(59))))), "line " + (w1 + 1),
                "holds a value beyond the limits of an archive");
        int tea0 = find("memories", id(teaId));
        invalid(utf8(join(with(lines, tea0, set(line(tea0), "confidence", "0." + "7".repeat(60))))), "line " + (tea0 + 1),
                "holds a value beyond the limits of an archive");
        String row = line(w1);
        String longName = row.substring(0, row.length() - 1) + ",\"" + "名".repeat(300) + "\":1}";
        invalid(utf8(join(with(lines, w1, longName))), "line " + (w1 + 1), "holds a value beyond the limits of an archive",
                "名名名");
        // Nesting deeper than an archive has, in a header field that is skipped over (a row's list refuses
        // a nested array itself, before the parser's depth limit).
        invalid(utf8(join(replaceFirst(lines, 0, "\"scope\":null", "\"scope\":null,\"x\":[[[[[[\"深\"]]]]]]"))),
                "line 1", "beyond the limits of an archive", "深");
        int tea = find("memories", id(teaId));
        invalid(utf8(join(with(lines, tea, set(line(tea), "cue_keys", "[[[[[[\"深\"]]]]]]")))), "line " + (tea + 1),
                "must hold lists of strings only", "深");
    }

    @Test
    @DisplayName("O4 rows out of table order are refused: a memory before its event (the reference rule), and a "
            + "persona row after the events (the table order rule)")
    void rowsOutOfTableOrder() throws Exception {
        // The cats memory moved up, right after the personas: its event has not arrived yet.
        int cats = find("memories", id(catsId));
        List<String> memoryFirst = new ArrayList<>(lines);
        String moved = memoryFirst.remove(cats);
        int firstEvent = find("events", "\"id\":\"ev-w1\"");
        memoryFirst.add(firstEvent, moved);
        invalid(utf8(join(memoryFirst)), lineField(firstEvent, "memories.event_id"),
                "must be the ID of an event earlier in the archive", "ev-h1");

        // A persona version moved after the events.
        int persona = find("personas", "\"version\":2");
        List<String> personaLate = new ArrayList<>(lines);
        String p = personaLate.remove(persona);
        int afterEvents = find("memories", id(guangzhouId)) - 1;
        personaLate.add(afterEvents, p);
        invalid(utf8(join(personaLate)), lineField(afterEvents, "table"),
                "must not go back to an earlier table: rows come table by table, in archive order", "温柔");
    }

    // ------------------------------------------------------------------ the destination

    @Test
    @DisplayName("O4 an import into a home that is not empty is refused (RefusedException) and the home's own rows, "
            + "change log and counters are untouched")
    void nonEmptyDestination() throws Exception {
        // A home with events and memories of its own.
        Path db = newDb();
        try (Authority a = Authority.open(db, List.of())) {
            Event own = a.submitEvent(new EventSubmission("own-1", WORK, Role.USER, "我自己的数据 my own data", "test",
                    Category.CONVERSATION, "s1", Instant.parse("2025-01-01T00:00:00Z"))).event();
            a.addMemory(WORK, MemoryDraft.builder(own.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("自己的 own").quote("我自己的数据").build());
        }
        Map<String, List<String>> before = AuthorityTestKit.dump(db);
        try (Authority a = Authority.open(db, List.of())) {
            Throwable thrown = catchThrowable(() -> a.archives().importFrom(new ByteArrayInputStream(utf8(jsonl)), PhaseProgress.NONE));
            assertThat(thrown).isInstanceOf(RefusedException.class).hasMessageContaining("not empty")
                    .hasMessageNotContaining("我自己的数据").hasMessageNotContaining("own-1");
            // Every row of every table (change log and AUTOINCREMENT counters included) as it was.
            assertThat(AuthorityTestKit.dump(db)).isEqualTo(before);
            // Still writable through the same connection: no transaction or lock was left open.
            a.submitEvent(new EventSubmission("own-2", WORK, Role.USER, "还能写 still writable", "test",
                    Category.CONVERSATION, "s1", Instant.parse("2025-01-02T00:00:00Z")));
            assertThat(a.tableCounts().byName()).containsEntry("events", 2L).containsEntry("memories", 1L);
        }

        // Homes holding only a persona version, or only a capture cursor, are not empty either.
        Path personaOnly = newDb();
        try (Authority a = Authority.open(personaOnly, List.of())) {
            a.editPersona("bob", "只有人设 persona only");
        }
        Map<String, List<String>> personaBefore = AuthorityTestKit.dump(personaOnly);
        try (Authority a = Authority.open(personaOnly, List.of())) {
            assertThat(catchThrowable(() -> a.archives().importFrom(new ByteArrayInputStream(utf8(jsonl)), PhaseProgress.NONE)))
                    .isInstanceOf(RefusedException.class).hasMessageContaining("not empty").hasMessageNotContaining("只有人设");
        }
        assertThat(AuthorityTestKit.dump(personaOnly)).isEqualTo(personaBefore);

        Path cursorOnly = newDb();
        try (Authority a = Authority.open(cursorOnly, List.of())) {
            a.advanceCapture(HOME, "inst-only", 0, "pos-only", java.time.Instant.parse("2024-06-01T01:00:00Z"), List.of(), List.of());
        }
        Map<String, List<String>> cursorBefore = AuthorityTestKit.dump(cursorOnly);
        try (Authority a = Authority.open(cursorOnly, List.of())) {
            assertThat(catchThrowable(() -> a.archives().importFrom(new ByteArrayInputStream(utf8(jsonl)), PhaseProgress.NONE)))
                    .isInstanceOf(RefusedException.class).hasMessageContaining("not empty").hasMessageNotContaining("pos-only");
        }
        assertThat(AuthorityTestKit.dump(cursorOnly)).isEqualTo(cursorBefore);
    }

    // ------------------------------------------------------------------ what jiyi itself writes

    @Test
    @DisplayName("O4 O3 an event whose text is only whitespace, which submitEvent accepts, exports and imports again")
    void whitespaceOnlyEventTextRoundTrips() throws Exception {
        // EventSubmission accepts any non-empty text (it checks isEmpty, not isBlank); the archive must carry it.
        Path source = newDb();
        Path file = dir.resolve("blank.jsonl");
        try (Authority a = Authority.open(source, List.of())) {
            a.submitEvent(new EventSubmission("ev-blank", WORK, Role.USER, " \n\t ", "test", Category.CONVERSATION, "s1",
                    Instant.parse("2024-05-01T02:00:00Z")));
            a.archives().export(file, ArchiveFormat.JSONL, null, PhaseProgress.NONE);
        }
        try (Authority a = Authority.open(newDb(), List.of())) {
            Throwable thrown = catchThrowable(() -> a.archives().importFrom(Files.newInputStream(file), PhaseProgress.NONE));
            // FAILS (production bug): ArchiveImport checks events.text as ArchiveTable.Type.TEXT, i.e.
            // Limits.requireText (non-blank), where EventSubmission only requires non-empty text: an archive
            // that jiyi exported from its own data is refused with "line 2: events.text: is required and must
            // not be blank".
            assertThat(thrown).as("importing jiyi's own export of a whitespace-only event").isNull();
            assertThat(a.tableCounts().byName()).containsEntry("events", 1L);
        }
    }

    @Test
    @DisplayName("O4 O3 the longest event row jiyi writes (200,000 characters that each escape to six) exports and "
            + "imports again: the line limit leaves room for it")
    void longestEventRowRoundTrips() throws Exception {
        Path source = newDb();
        Path file = dir.resolve("longest-event.jsonl");
        String text = "\u0001".repeat(Limits.MAX_EVENT_TEXT);
        try (Authority a = Authority.open(source, List.of())) {
            a.submitEvent(new EventSubmission("ev-long", WORK, Role.USER, text, "test", Category.CONVERSATION, "s1",
                    Instant.parse("2024-05-01T02:00:00Z")));
            a.archives().export(file, ArchiveFormat.JSONL, null, PhaseProgress.NONE);
        }
        try (Authority a = Authority.open(newDb(), List.of()); InputStream in = Files.newInputStream(file)) {
            ArchiveReport r = a.archives().importFrom(in, PhaseProgress.NONE);
            assertThat(r.rows().byName()).containsEntry("events", 1L);
            assertThat(a.event(WORK, "ev-long").orElseThrow().text()).isEqualTo(text);
        }
    }

    @Test
    @DisplayName("O4 O3 a checkpoint at its limits (goal, next action and 3 x 100 items of 4,000 characters, with quotes "
            + "and line breaks), which saveCheckpoint accepts, exports and imports again")
    void largestCheckpointRoundTrips() throws Exception {
        Path source = newDb();
        Path file = dir.resolve("largest-checkpoint.jsonl");
        // 4,000 characters, a quarter of them escaped in JSON ("\"" and "\n" take two characters).
        String item = "引号\"第\n".repeat(Limits.MAX_CHECKPOINT_TEXT / 5);
        assertThat(item).hasSize(Limits.MAX_CHECKPOINT_TEXT);
        List<String> items = java.util.Collections.nCopies(Limits.MAX_CHECKPOINT_ITEMS, item);
        try (Authority a = Authority.open(source, List.of())) {
            Event e = a.submitEvent(new EventSubmission("ev-cp", WORK, Role.USER, "检查点 checkpoint", "test",
                    Category.CONVERSATION, "s1", Instant.parse("2024-05-01T02:00:00Z"))).event();
            a.saveCheckpoint(WORK, new CheckpointDraft("s1", item, items, items, items, item, e.sequence()));
            a.archives().export(file, ArchiveFormat.JSONL, null, PhaseProgress.NONE);
        }
        try (Authority a = Authority.open(newDb(), List.of()); InputStream in = Files.newInputStream(file)) {
            Throwable thrown = catchThrowable(() -> a.archives().importFrom(in, PhaseProgress.NONE));
            // FAILS (production bug): ArchiveInput.MAX_LINE (ArchiveInput.java:23) is sized for the longest event
            // text only (6 x 200,000 + 100,000 = 1,300,000 characters), but a checkpoint row may hold
            // 302 texts of 4,000 characters (1,208,000) before escaping; with quotes or line breaks (two characters
            // each in JSON, six for other control characters) the exported line is longer than MAX_LINE, so import
            // refuses jiyi's own archive: "line 3: must be at most 1300000 characters: an archive line holds one row".
            assertThat(thrown).as("importing jiyi's own export of a checkpoint it accepted").isNull();
            assertThat(a.tableCounts().byName()).containsEntry("checkpoints", 1L);
        }
    }

    // ------------------------------------------------------------------ seeded fuzz

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    @DisplayName("O4 seeded fuzz (Random 20261202): 2000 mutated archives each import whole (counts as reported, doctor "
            + "healthy, re-export importable) or are refused with a domain error that leaves every table empty")
    void seededFuzz() throws Exception {
        // The seed and the number of cases can be changed to explore further (-Djiyi.archive.fuzz.seed=...).
        Random random = new Random(Long.getLong("jiyi.archive.fuzz.seed", 20261202L));
        Path template = dir.resolve("template.db");
        try (Authority a = Authority.open(template, List.of())) {
            assertThat(a.tableCounts().byName().values()).allMatch(n -> n == 0L);
        }
        assertThat(dir.resolve("template.db-wal")).doesNotExist();
        List<String> emptyCounters = counters(template);
        int cases = Integer.getInteger("jiyi.archive.fuzz.cases", 2000);
        List<String> failures = new ArrayList<>();
        Map<String, Integer> causes = new TreeMap<>();
        Map<String, Integer> outcomes = new TreeMap<>();
        long started = System.nanoTime();
        for (int n = 0; n < cases; n++) {
            boolean fromJson = n % 5 == 4;
            StringBuilder what = new StringBuilder(fromJson ? "json" : "jsonl");
            byte[] archive = mutate(random, fromJson ? jsonLines : lines, what);
            Path db = dir.resolve("fuzz-" + n + ".db");
            Files.copy(template, db);
            // Every seventh case arrives one byte per read, so characters and lines split across reads.
            boolean trickle = n % 7 == 3;
            if (trickle) {
                what.append("; fed one byte at a time");
            }
            String outcome;
            try {
                outcome = fuzzOne(db, trickle ? () -> new Trickle(archive) : () -> new ByteArrayInputStream(archive), n,
                        emptyCounters);
            } catch (Throwable t) {
                outcome = "FAILED";
                failures.add("case " + n + " [" + what + "]: " + describe(t));
                causes.merge(t.getClass().getName() + (t.getStackTrace().length > 0 ? " at " + t.getStackTrace()[0] : ""),
                        1, Integer::sum);
            }
            if (outcome.startsWith("FAILED:")) {
                failures.add("case " + n + " [" + what + "]: " + outcome.substring(7));
                causes.merge(outcome.substring(7).replaceAll("\\d+", "N").replaceAll("\\(.*", ""), 1, Integer::sum);
                outcome = "FAILED";
            }
            outcomes.merge(outcome, 1, Integer::sum);
            for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
                Files.deleteIfExists(dir.resolve("fuzz-" + n + ".db" + suffix));
            }
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        System.out.println("[fuzz] " + cases + " cases in " + seconds + " s: " + outcomes);
        assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(cases);
        // FAILS today (production bug, see beyondParserLimits): 43 of the 2000 cases (a 51-digit number or a
        // 250-character field name inserted somewhere) make the import throw the NullPointerException of
        // ArchiveImport.java:82 instead of an InvalidInputException. No other contract break was found, here or in
        // 30,000 further cases with other seeds (-Djiyi.archive.fuzz.seed=1|2 -Djiyi.archive.fuzz.cases=15000).
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + cases + " mutated archives broke the import contract; by cause: " + causes
                    + "\n  " + String.join("\n  ", failures));
        }
    }

    /** Imports one mutated archive; returns the outcome's name, or FAILED: and why. */
    private String fuzzOne(Path db, Supplier<InputStream> archive, int n, List<String> emptyCounters) throws Exception {
        try (Authority a = Authority.open(db, List.of())) {
            ArchiveReport report;
            try {
                report = a.archives().importFrom(archive.get(), PhaseProgress.NONE);
            } catch (InvalidInputException | RefusedException | ConflictException e) {
                Map<String, Long> counts = a.tableCounts().byName();
                if (counts.values().stream().anyMatch(c -> c != 0L)) {
                    return "FAILED: refused (" + e.getMessage() + ") but left rows behind: " + counts;
                }
                if (!counters(db).equals(emptyCounters)) {
                    return "FAILED: refused (" + e.getMessage() + ") but left AUTOINCREMENT counters " + counters(db);
                }
                if (e.getMessage().contains(MARK)) {
                    return "FAILED: the message echoes the input (O7): " + e.getMessage();
                }
                return "refused: " + e.getClass().getSimpleName() + " "
                        + (e instanceof InvalidInputException i ? i.rule().replaceAll("\\d+", "N") : "");
            }
            Map<String, Long> counts = archived(a.tableCounts().byName());
            if (!counts.equals(report.rows().byName())) {
                return "FAILED: imported, but the report says " + report.rows().byName() + " where the tables hold " + counts;
            }
            DoctorReport doctor = a.doctor();
            if (!doctor.healthy()) {
                return "FAILED: imported, but doctor finds " + doctor.problems();
            }
            // What import accepted, export writes and import accepts again.
            Path again = dir.resolve("fuzz-" + n + ".jsonl");
            a.archives().export(again, ArchiveFormat.JSONL, null, PhaseProgress.NONE);
            Path second = dir.resolve("fuzz-" + n + "-again.db");
            try (Authority b = Authority.open(second, List.of()); InputStream in = Files.newInputStream(again)) {
                ArchiveReport r = b.archives().importFrom(in, PhaseProgress.NONE);
                if (!r.rows().equals(report.rows())) {
                    return "FAILED: the re-export imports with other counts " + r.rows().byName();
                }
            } catch (JiyiException e) {
                return "FAILED: imported, but its own re-export is refused: " + e.getMessage();
            } finally {
                Files.deleteIfExists(again);
                for (String suffix : List.of("", "-wal", "-shm")) {
                    Files.deleteIfExists(dir.resolve("fuzz-" + n + "-again.db" + suffix));
                }
            }
            return "imported";
        }
    }

    private static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder(t.getClass().getName()).append(": ").append(t.getMessage());
        StackTraceElement[] trace = t.getStackTrace();
        for (int i = 0; i < Math.min(2, trace.length); i++) {
            sb.append(" @ ").append(trace[i]);
        }
        if (t.getCause() != null) {
            sb.append(" caused by ").append(t.getCause());
        }
        return sb.toString();
    }

    /** One to three mutations of the valid archive's lines, then perhaps one of its bytes; {@code what} tells which. */
    private static byte[] mutate(Random random, List<String> valid, StringBuilder what) {
        List<String> ls = new ArrayList<>(valid);
        int lineMutations = random.nextInt(4); // 0..3
        boolean byteMutation = lineMutations == 0 || random.nextInt(3) == 0;
        for (int k = 0; k < lineMutations; k++) {
            int kind = random.nextInt(6);
            try {
                switch (kind) {
                    case 0 -> {
                        int i = 1 + random.nextInt(ls.size() - 1);
                        ls.remove(i);
                        what.append("; delete line ").append(i + 1);
                    }
                    case 1 -> {
                        int i = random.nextInt(ls.size());
                        int j = 1 + random.nextInt(ls.size());
                        ls.add(j, ls.get(i));
                        what.append("; duplicate line ").append(i + 1).append(" as line ").append(j + 1);
                    }
                    case 2 -> {
                        int i = random.nextInt(ls.size());
                        int j = random.nextInt(ls.size());
                        String li = ls.get(i);
                        ls.set(i, ls.get(j));
                        ls.set(j, li);
                        what.append("; swap lines ").append(i + 1).append(" and ").append(j + 1);
                    }
                    case 3 -> {
                        int i = random.nextInt(ls.size());
                        List<int[]> members = members(ls.get(i));
                        int[] m = members.get(random.nextInt(members.size()));
                        String name = ls.get(i).substring(m[0], m[1]);
                        String value = randomValue(random, ls, name);
                        ls.set(i, ls.get(i).substring(0, m[2]) + value + ls.get(i).substring(m[3]));
                        what.append("; line ").append(i + 1).append(' ').append(name).append(" := ").append(shorten(value));
                    }
                    case 4 -> {
                        int i = random.nextInt(ls.size());
                        String l = ls.get(i);
                        List<Integer> digits = new ArrayList<>();
                        for (int c = 0; c < l.length(); c++) {
                            if (Character.isDigit(l.charAt(c)) && l.charAt(c) < 128) {
                                digits.add(c);
                            }
                        }
                        int c = digits.get(random.nextInt(digits.size()));
                        char d = (char) ('0' + (l.charAt(c) - '0' + 1 + random.nextInt(9)) % 10);
                        ls.set(i, l.substring(0, c) + d + l.substring(c + 1));
                        what.append("; line ").append(i + 1).append(" char ").append(c).append(" digit -> ").append(d);
                    }
                    default -> {
                        int i = 1 + random.nextInt(ls.size());
                        String garbage = garbage(random);
                        ls.add(i, garbage);
                        what.append("; insert line ").append(i + 1).append(": ").append(shorten(garbage));
                    }
                }
            } catch (RuntimeException e) {
                what.append("; (mutation ").append(kind).append(" not applicable)");
            }
        }
        if (lineMutations > 0 && random.nextBoolean()) {
            try {
                ls = recount(ls);
                what.append("; header counts fixed");
            } catch (RuntimeException e) {
                what.append("; (header counts not fixable)");
            }
        }
        byte[] bytes = utf8(join(ls));
        if (!byteMutation) {
            return bytes;
        }
        int at = random.nextInt(bytes.length);
        switch (random.nextInt(4)) {
            case 0 -> {
                what.append("; truncate at byte ").append(at);
                return Arrays.copyOf(bytes, at);
            }
            case 1 -> {
                int bit = random.nextInt(8);
                bytes[at] ^= (byte) (1 << bit);
                what.append("; flip bit ").append(bit).append(" of byte ").append(at);
                return bytes;
            }
            case 2 -> {
                byte b = (byte) random.nextInt(256);
                what.append("; byte ").append(at).append(" := 0x").append(Integer.toHexString(b & 0xFF));
                bytes[at] = b;
                return bytes;
            }
            default -> {
                byte[] garbage = random.nextBoolean() ? utf8(garbage(random)) : randomBytes(random);
                what.append("; insert ").append(garbage.length).append(" garbage bytes at ").append(at);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.write(bytes, 0, at);
                out.write(garbage, 0, garbage.length);
                out.write(bytes, at, bytes.length - at);
                return out.toByteArray();
            }
        }
    }

    private static byte[] randomBytes(Random random) {
        byte[] b = new byte[1 + random.nextInt(12)];
        random.nextBytes(b);
        return b;
    }

    private static String garbage(Random random) {
        return switch (random.nextInt(12)) {
            case 0 -> "{\"table\":\"events\"}";
            case 1 -> "]}";
            case 2 -> "{";
            case 3 -> "\"" + MARK + "\\";
            case 4 -> "{\"table\":\"memories\",\"seq\":1,\"" + MARK + "\":2}";
            case 5 -> "null";
            case 6 -> "[[[[[[[[\"" + MARK + "\"]]]]]]]]";
            case 7 -> "{\"a\":{\"b\":{\"c\":{\"d\":{\"" + MARK + "\":1}}}}}";
            case 8 -> "1" + "0".repeat(50);
            case 9 -> "{\"" + MARK + "名".repeat(250) + "\":1}";
            case 10 -> quote(MARK + SeededRandom.mixedText(random, 40));
            default -> "{\"format\":\"jiyi-archive\",\"version\":1,\"scope\":null}";
        };
    }

    /** A random replacement for a field's value: another type, an edge value, another row's value of the same field. */
    private static String randomValue(Random random, List<String> ls, String name) {
        return switch (random.nextInt(20)) {
            case 0 -> "null";
            case 1 -> "true";
            case 2 -> "0";
            case 3 -> "-1";
            case 4 -> Integer.toString(1 + random.nextInt(12));
            case 5 -> "1.5";
            case 6 -> "1e999";
            case 7 -> "9223372036854775807";
            case 8 -> "9223372036854775808";
            case 9 -> "\"\"";
            case 10 -> "\"   \"";
            case 11 -> quote(MARK + SeededRandom.mixedText(random, 30));
            case 12 -> "[]";
            case 13 -> "[\"" + MARK + "a\"]";
            case 14 -> "{\"" + MARK + "\":1}";
            case 15 -> "\"2024-05-01T10:00:00\"";
            case 16 -> "\"" + MARK + "\\u0000\"";
            case 17 -> "\"" + MARK + "\\ud800\"";
            default -> {
                // The same field of another line: IDs, references, times and numbers that exist, in the wrong place.
                List<String> others = new ArrayList<>();
                for (String l : ls) {
                    try {
                        for (int[] m : members(l)) {
                            if (l.substring(m[0], m[1]).equals(name)) {
                                others.add(l.substring(m[2], m[3]));
                            }
                        }
                    } catch (RuntimeException e) {
                        // a line broken by an earlier mutation
                    }
                }
                yield others.isEmpty() ? "null" : others.get(random.nextInt(others.size()));
            }
        };
    }

    private static String shorten(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "...(" + s.length() + " chars)";
    }

    // ------------------------------------------------------------------ refusal, emptiness, recovery

    private Path newDb() {
        return dir.resolve("dest-" + (dbs++) + ".db");
    }

    /** Imports {@code archive} into a fresh database, expecting an InvalidInputException naming {@code field} and the rule. */
    private InvalidInputException invalid(byte[] archive, String field, String rule, String... secrets) throws Exception {
        return invalid(() -> new ByteArrayInputStream(archive), field, rule, secrets);
    }

    private InvalidInputException invalidStream(Supplier<InputStream> archive, String field, String rule, String... secrets)
            throws Exception {
        return invalid(archive, field, rule, secrets);
    }

    private InvalidInputException invalid(Supplier<InputStream> archive, String field, String rule, String... secrets)
            throws Exception {
        InvalidInputException e = (InvalidInputException) refused(archive, InvalidInputException.class, secrets);
        assertThat(e.field()).as("the field or line the error names (%s)", e.getMessage()).isEqualTo(field);
        assertThat(e.rule()).as("the rule the error names (%s)", e.getMessage()).contains(rule);
        assertThat(e.getMessage()).startsWith(field + ": ");
        return e;
    }

    private JiyiException refused(byte[] archive, Class<? extends JiyiException> type, String... secrets) throws Exception {
        return refused(() -> new ByteArrayInputStream(archive), type, secrets);
    }

    /**
     * Imports into a fresh empty database and expects {@code type}, a message without any of
     * {@code secrets}, every table empty afterwards, and the same database then taking the valid
     * archive whole.
     */
    private JiyiException refused(Supplier<InputStream> archive, Class<? extends JiyiException> type, String... secrets)
            throws Exception {
        Path db = newDb();
        try (Authority a = Authority.open(db, List.of())) {
            List<String> counters = counters(db);
            assertEmpty(a, db, counters);
            Throwable thrown = catchThrowable(() -> a.archives().importFrom(archive.get(), PhaseProgress.NONE));
            assertThat(thrown).as("what the import threw").isInstanceOf(type);
            for (String secret : secrets) {
                assertThat(thrown.getMessage()).as("the message must not hold the offending value (O7)").doesNotContain(secret);
            }
            assertEmpty(a, db, counters);
            assertValidImport(a);
            return (JiyiException) thrown;
        }
    }

    /** Every table count is 0 and the AUTOINCREMENT counters are as {@code counters} (those of the empty home). */
    private static void assertEmpty(Authority a, Path db, List<String> counters) throws SQLException {
        assertThat(a.tableCounts().byName()).as("every table count after a refused import")
                .allSatisfy((table, n) -> assertThat(n).as(table).isZero());
        assertThat(counters(db)).as("AUTOINCREMENT counters after a refused import").isEqualTo(counters);
    }

    private static List<String> counters(Path db) throws SQLException {
        return AuthorityTestKit.strings(db, "SELECT name || '=' || seq FROM sqlite_sequence ORDER BY name");
    }

    /** The database takes the valid archive whole: the refused import left no transaction, lock or row behind. */
    private static void assertValidImport(Authority a) {
        ArchiveReport r = a.archives().importFrom(new ByteArrayInputStream(utf8(jsonl)), PhaseProgress.NONE);
        assertThat(r.rows().byName()).isEqualTo(sourceCounts);
        assertThat(archived(a.tableCounts().byName())).isEqualTo(sourceCounts);
        assertThat(a.doctor().problems()).isEmpty();
    }

    private static Map<String, Long> archived(Map<String, Long> tableCounts) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String t : ARCHIVED) {
            out.put(t, tableCounts.get(t));
        }
        return out;
    }

    // ------------------------------------------------------------------ archive text surgery

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String join(List<String> ls) {
        return String.join("\n", ls) + "\n";
    }

    private static String line(int index) {
        return lines.get(index);
    }

    /** "line N: field" for the row at {@code index} (the header is line 1). */
    private static String lineField(int index, String field) {
        return "line " + (index + 1) + ": " + field;
    }

    /** What a row's own id field reads as. */
    private static String id(String id) {
        return "\"id\":\"" + id + "\"";
    }

    private static int find(String table, String contains) {
        return findIn(lines, table, contains);
    }

    /** The index of the one row of {@code table} holding {@code contains}. */
    private static int findIn(List<String> ls, String table, String contains) {
        int found = -1;
        for (int i = 1; i < ls.size(); i++) {
            if (ls.get(i).startsWith("{\"table\":\"" + table + "\"") && ls.get(i).contains(contains)) {
                assertThat(found).as("one row of " + table + " holding " + contains).isEqualTo(-1);
                found = i;
            }
        }
        assertThat(found).as("a row of " + table + " holding " + contains).isPositive();
        return found;
    }

    private static List<String> with(List<String> ls, int index, String replacement) {
        List<String> out = new ArrayList<>(ls);
        out.set(index, replacement);
        return out;
    }

    private static List<String> replaceFirst(List<String> ls, int index, String from, String to) {
        assertThat(ls.get(index)).contains(from);
        return with(ls, index, ls.get(index).replace(from, to));
    }

    /** The lines with a text's bytes spliced: {@code bad} inserted after {@code after} in line {@code index}. */
    private static byte[] spliceIntoText(List<String> ls, int index, String after, byte[] bad) {
        String l = ls.get(index);
        int cut = l.indexOf(after) + after.length();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(utf8(String.join("\n", ls.subList(0, index)) + "\n" + l.substring(0, cut)));
        out.writeBytes(bad);
        out.writeBytes(utf8(l.substring(cut) + "\n" + String.join("\n", ls.subList(index + 1, ls.size())) + "\n"));
        return out.toByteArray();
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder();
        JsonStrings.quote(sb, s);
        return sb.toString();
    }

    /** The raw JSON value of a top-level field. */
    private static String raw(String object, String name) {
        for (int[] m : members(object)) {
            if (object.substring(m[0], m[1]).equals("\"" + name + "\"")) {
                return object.substring(m[2], m[3]);
            }
        }
        throw new IllegalArgumentException("no field " + name);
    }

    /** The object with a top-level field's value replaced by {@code rawValue} (JSON text). */
    private static String set(String object, String name, String rawValue) {
        for (int[] m : members(object)) {
            if (object.substring(m[0], m[1]).equals("\"" + name + "\"")) {
                return object.substring(0, m[2]) + rawValue + object.substring(m[3]);
            }
        }
        throw new IllegalArgumentException("no field " + name);
    }

    /** The object without a top-level field (not the first). */
    private static String remove(String object, String name) {
        for (int[] m : members(object)) {
            if (object.substring(m[0], m[1]).equals("\"" + name + "\"")) {
                assertThat(object.charAt(m[0] - 1)).isEqualTo(',');
                return object.substring(0, m[0] - 1) + object.substring(m[3]);
            }
        }
        throw new IllegalArgumentException("no field " + name);
    }

    /**
     * The top-level members of a compact JSON object as written by export (no whitespace): for each,
     * where its quoted name starts and ends and where its value starts and ends.
     */
    private static List<int[]> members(String object) {
        List<int[]> out = new ArrayList<>();
        int i = object.indexOf('{');
        if (i < 0) {
            throw new IllegalArgumentException("not an object");
        }
        i++;
        while (i < object.length() && object.charAt(i) != '}') {
            if (object.charAt(i) == ',') {
                i++;
            }
            int nameStart = i;
            int nameEnd;
            int valueEnd;
            try {
                nameEnd = skipValue(object, i);
                if (nameEnd >= object.length() || object.charAt(nameEnd) != ':') {
                    throw new IllegalArgumentException("not a member");
                }
                valueEnd = skipValue(object, nameEnd + 1);
            } catch (IllegalArgumentException e) {
                if (out.isEmpty()) {
                    throw e;
                }
                break; // the JSON header's "rows":[ stays open on its line
            }
            out.add(new int[] {nameStart, nameEnd, nameEnd + 1, valueEnd});
            i = valueEnd;
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no members");
        }
        return out;
    }

    private static int skipValue(String s, int i) {
        if (i >= s.length()) {
            throw new IllegalArgumentException("ends early");
        }
        char c = s.charAt(i);
        if (c == '"') {
            i++;
            while (i < s.length() && s.charAt(i) != '"') {
                i += s.charAt(i) == '\\' ? 2 : 1;
            }
            if (i >= s.length()) {
                throw new IllegalArgumentException("unterminated string");
            }
            return i + 1;
        }
        if (c == '{' || c == '[') {
            int depth = 0;
            while (i < s.length()) {
                c = s.charAt(i);
                if (c == '"') {
                    i = skipValue(s, i);
                    continue;
                }
                if (c == '{' || c == '[') {
                    depth++;
                } else if (c == '}' || c == ']') {
                    depth--;
                }
                i++;
                if (depth == 0) {
                    return i;
                }
            }
            throw new IllegalArgumentException("unterminated");
        }
        while (i < s.length() && ",}]".indexOf(s.charAt(i)) < 0) {
            i++;
        }
        return i;
    }

    /** The lines with the header's counts set to the rows they hold. */
    private static List<String> recount(List<String> ls) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String t : ARCHIVED) {
            counts.put(t, 0L);
        }
        for (int i = 1; i < ls.size(); i++) {
            for (String t : ARCHIVED) {
                if (ls.get(i).startsWith("{\"table\":\"" + t + "\"")) {
                    counts.merge(t, 1L, Long::sum);
                }
            }
        }
        StringBuilder obj = new StringBuilder("{");
        counts.forEach((t, n) -> obj.append(obj.length() > 1 ? "," : "").append('"').append(t).append("\":").append(n));
        obj.append('}');
        return with(ls, 0, set(ls.getFirst(), "counts", obj.toString()));
    }

    // ------------------------------------------------------------------ streams

    /** A head, {@code fillerBytes} of a repeated unit, and a tail, generated as read: never held whole. */
    private static final class Huge extends InputStream {
        private final byte[] head;
        private final byte[] unit;
        private final long fillerBytes;
        private final byte[] tail;
        long served;

        Huge(byte[] head, byte[] unit, long fillerBytes, byte[] tail) {
            this.head = head;
            this.unit = unit;
            this.fillerBytes = fillerBytes - fillerBytes % unit.length;
            this.tail = tail;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            long total = head.length + fillerBytes + tail.length;
            if (served >= total) {
                return -1;
            }
            int n = 0;
            while (n < len && served < total) {
                long p = served;
                if (p < head.length) {
                    b[off + n] = head[(int) p];
                } else if (p < head.length + fillerBytes) {
                    b[off + n] = unit[(int) ((p - head.length) % unit.length)];
                } else {
                    b[off + n] = tail[(int) (p - head.length - fillerBytes)];
                }
                n++;
                served++;
            }
            return n;
        }
    }

    /** The bytes one at a time: every read returns at most one byte. */
    private static final class Trickle extends InputStream {
        private final byte[] bytes;
        private int at;

        Trickle(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public int read() {
            return at < bytes.length ? bytes[at++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            int c = read();
            if (c < 0) {
                return -1;
            }
            b[off] = (byte) c;
            return 1;
        }
    }
}
