package dev.jiyi.authority;

import dev.jiyi.authority.index.ChangeLog;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.raw;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventTest {

    @TempDir
    Path dir;

    private static final String[] TEXTS = {
            "我明天要去上海出差，记得提醒我带充电器。",
            "I'm moving to Berlin next month.",
            "混合 mixed 文本 text: 北京大学 Peking University 😀🚀",
            "  leading and trailing spaces  ",
            "line one\nline two\r\nline three\ttabbed",
            "全角　空格和标点：「引号」，。！",
            "👨‍👩‍👧‍👦 family emoji, 🇨🇳 flag, e\u0301 decomposed, é composed",
            "\uFEFFbyte order mark at the start",
            "SQL-ish ' \" ; -- DROP TABLE events; %_ \\ backslash",
            "\u200Bzero width\u200D joiners",
    };

    @Test
    @DisplayName("E1 every stored field of an event round-trips and the text is never altered")
    void fieldsRoundTrip() {
        try (Authority a = open(dir)) {
            Instant at = t("2024-05-01T10:00:00.123456+08:00");
            EventSubmission s = new EventSubmission("evt-中文-1", CJK_SCOPE, Role.ASSISTANT, TEXTS[2], "mcp:claude",
                    Category.CORRECTION, "会话-7", at);
            Instant before = Times.now();
            SubmitResult r = a.submitEvent(s);
            Instant after = Times.now();
            assertThat(r.created()).isTrue();
            Event e = r.event();
            assertThat(e.id()).isEqualTo("evt-中文-1");
            assertThat(e.scope()).isEqualTo(CJK_SCOPE);
            assertThat(e.role()).isEqualTo(Role.ASSISTANT);
            assertThat(e.text()).isEqualTo(TEXTS[2]);
            assertThat(e.source()).isEqualTo("mcp:claude");
            assertThat(e.category()).isEqualTo(Category.CORRECTION);
            assertThat(e.sessionId()).isEqualTo("会话-7");
            assertThat(e.occurredAt()).isEqualTo(Instant.parse("2024-05-01T02:00:00.123456Z"));
            assertThat(e.ingestedAt()).isBetween(before, after);
            assertThat(e.sequence()).isPositive();
            assertThat(e.amended()).isFalse();

            assertThat(a.event(CJK_SCOPE, "evt-中文-1")).contains(e);
        }
        // And after reopening the file.
        try (Authority a = open(dir)) {
            Event e = a.event(CJK_SCOPE, "evt-中文-1").orElseThrow();
            assertThat(e.text()).isEqualTo(TEXTS[2]);
            assertThat(e.occurredAt()).isEqualTo(Instant.parse("2024-05-01T02:00:00.123456Z"));
        }
    }

    @Test
    @DisplayName("E1 text is never altered: whitespace, emoji, CJK, control-like and SQL-like characters survive exactly")
    void textNeverAltered() throws Exception {
        try (Authority a = open(dir)) {
            for (int i = 0; i < TEXTS.length; i++) {
                Event e = submit(a, event("t" + i, ALICE_WORK, Role.USER, TEXTS[i]));
                assertThat(e.text()).isEqualTo(TEXTS[i]);
                assertThat(a.event(ALICE_WORK, "t" + i).orElseThrow().text()).isEqualTo(TEXTS[i]);
            }
        }
        // The bytes in the file are the text itself, not a normalized or trimmed copy.
        try (Connection c = raw(dbFile(dir));
             PreparedStatement ps = c.prepareStatement("SELECT text FROM events WHERE id = ?")) {
            for (int i = 0; i < TEXTS.length; i++) {
                ps.setString(1, "t" + i);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo(TEXTS[i]);
                }
            }
        }
    }

    @Test
    @DisplayName("E1 random mixed Chinese/English/emoji texts round-trip exactly (seeded property)")
    void randomTextsRoundTrip() {
        Random random = SeededRandom.create("E1 random texts round-trip");
        try (Authority a = open(dir)) {
            List<String> texts = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                String text = SeededRandom.mixedText(random, 300);
                if (text.isEmpty()) {
                    text = "空";
                }
                texts.add(text);
                submit(a, event("r" + i, ALICE_WORK, Role.USER, text));
            }
            List<Event> stored = a.events(ALICE_WORK, 0, 1000);
            assertThat(stored).extracting(Event::text).containsExactlyElementsOf(texts);
        }
    }

    @Test
    @DisplayName("E1 the text limit is inclusive: a text of exactly the maximum length is stored unchanged")
    void maxLengthText() {
        try (Authority a = open(dir)) {
            String text = "长".repeat(Limits.MAX_EVENT_TEXT);
            Event e = submit(a, event("long", ALICE_WORK, Role.USER, text));
            assertThat(a.event(ALICE_WORK, "long").orElseThrow().text()).isEqualTo(text);
            assertThat(e.text()).hasSize(Limits.MAX_EVENT_TEXT);
        }
    }

    @Test
    @DisplayName("E1 text with an unpaired surrogate is rejected or stored unaltered, never silently changed")
    void unpairedSurrogate() {
        String text = "broken \uD83D pair 半个表情";
        try (Authority a = open(dir)) {
            try {
                a.submitEvent(event("sur", ALICE_WORK, Role.USER, text));
            } catch (InvalidInputException rejected) {
                assertThat(rejected.field()).isEqualTo("text");
                assertThat(rejected.getMessage()).doesNotContain("broken");
                return;
            }
            String stored = a.event(ALICE_WORK, "sur").orElseThrow().text();
            assertThat(escape(stored)).as("stored text, escaped").isEqualTo(escape(text));
        }
    }

    /** Non-ASCII characters as backslash-u escapes, so that an unpaired surrogate shows up readably in a failure. */
    private static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c < 0x80) {
                sb.append(c);
            } else {
                sb.append(String.format("\\u%04X", (int) c));
            }
        }
        return sb.toString();
    }

    @Test
    @DisplayName("E1 the sequence is database-wide and strictly increasing across scopes, and never reused")
    void sequenceIncreases() {
        Random random = SeededRandom.create("E1 sequence increases");
        List<Scope> scopes = List.of(ALICE_WORK, ALICE_HOME, BOB_WORK, CJK_SCOPE);
        long last = 0;
        try (Authority a = open(dir)) {
            for (int i = 0; i < 40; i++) {
                Scope s = scopes.get(random.nextInt(scopes.size()));
                Event e = submit(a, event("seq-" + i, s, Role.USER, "事件 " + i));
                assertThat(e.sequence()).isGreaterThan(last);
                last = e.sequence();
            }
        }
        try (Authority a = open(dir)) {
            Event e = submit(a, event("after-reopen", ALICE_WORK, Role.USER, "重开后 after reopen"));
            assertThat(e.sequence()).isGreaterThan(last);
        }
    }

    @Test
    @DisplayName("E1 events of a scope list in sequence order, paged by sequence and limit")
    void eventsListInOrder() {
        try (Authority a = open(dir)) {
            List<Event> mine = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                mine.add(submit(a, event("w" + i, ALICE_WORK, Role.USER, "工作 " + i)));
                submit(a, event("h" + i, ALICE_HOME, Role.USER, "家 " + i));
            }
            assertThat(a.events(ALICE_WORK, 0, 100)).containsExactlyElementsOf(mine);
            assertThat(a.events(ALICE_WORK, 0, 3)).containsExactlyElementsOf(mine.subList(0, 3));
            assertThat(a.events(ALICE_WORK, mine.get(4).sequence(), 3)).containsExactlyElementsOf(mine.subList(5, 8));
            assertThat(a.events(ALICE_WORK, mine.get(9).sequence(), 3)).isEmpty();
        }
    }

    @Test
    @DisplayName("E1 an event submitted without a time happens at ingestion; all times are UTC in the file")
    void omittedTimeIsNow() throws Exception {
        try (Authority a = open(dir)) {
            Instant before = Times.now();
            Event e = submit(a, event("now", ALICE_WORK, Role.SYSTEM, "系统消息 system message", null));
            Instant after = Times.now();
            assertThat(e.occurredAt()).isBetween(before, after);
            assertThat(e.ingestedAt()).isBetween(before, after);
        }
        assertThat(AuthorityTestKit.strings(dbFile(dir), "SELECT occurred_at FROM events UNION ALL SELECT ingested_at FROM events"))
                .allSatisfy(s -> assertThat(s).endsWith("Z"));
    }

    @Test
    @DisplayName("E2 re-submitting the same ID with the same payload and scope returns the existing event")
    void idempotentResubmission() throws Exception {
        try (Authority a = open(dir)) {
            EventSubmission s = event("dup", ALICE_WORK, Role.USER, "我叫李雷 My name is Li Lei",
                    t("2024-05-01T10:00:00+08:00"));
            SubmitResult first = a.submitEvent(s);
            long changes = a.changesAfter(0, 1000).size();
            SubmitResult second = a.submitEvent(s);
            SubmitResult third = a.submitEvent(event("dup", ALICE_WORK, Role.USER, "我叫李雷 My name is Li Lei",
                    t("2024-05-01T02:00:00Z")));
            assertThat(first.created()).isTrue();
            assertThat(second.created()).isFalse();
            assertThat(third.created()).isFalse();
            assertThat(second.event()).isEqualTo(first.event());
            assertThat(third.event()).isEqualTo(first.event());
            assertThat(a.changesAfter(0, 1000)).hasSize((int) changes);
            assertThat(a.events(ALICE_WORK, 0, 10)).containsExactly(first.event());
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM events")).isEqualTo(1);
    }

    @Test
    @DisplayName("E2 a re-submission with a different payload or scope is a conflict and nothing changes")
    void conflictingResubmission() throws Exception {
        Instant at = t("2024-05-01T10:00:00+08:00");
        String text = "我住在杭州 I live in Hangzhou";
        List<EventSubmission> conflicting = List.of(
                new EventSubmission("c1", ALICE_WORK, Role.USER, text + " ", "test", Category.CONVERSATION, "s1", at),
                new EventSubmission("c1", ALICE_WORK, Role.USER, "我住在杭州 I live in hangzhou", "test",
                        Category.CONVERSATION, "s1", at),
                new EventSubmission("c1", ALICE_WORK, Role.ASSISTANT, text, "test", Category.CONVERSATION, "s1", at),
                new EventSubmission("c1", ALICE_WORK, Role.USER, text, "other-source", Category.CONVERSATION, "s1", at),
                new EventSubmission("c1", ALICE_WORK, Role.USER, text, "test", Category.REFERENCE, "s1", at),
                new EventSubmission("c1", ALICE_WORK, Role.USER, text, "test", Category.CONVERSATION, "s2", at),
                new EventSubmission("c1", ALICE_WORK, Role.USER, text, "test", Category.CONVERSATION, "s1",
                        at.plusSeconds(1)),
                new EventSubmission("c1", ALICE_HOME, Role.USER, text, "test", Category.CONVERSATION, "s1", at),
                new EventSubmission("c1", BOB_WORK, Role.USER, text, "test", Category.CONVERSATION, "s1", at));
        try (Authority a = open(dir)) {
            Event original = a.submitEvent(new EventSubmission("c1", ALICE_WORK, Role.USER, text, "test",
                    Category.CONVERSATION, "s1", at)).event();
            List<ChangeLog.Entry> changes = a.changesAfter(0, 1000);
            for (EventSubmission s : conflicting) {
                assertThatThrownBy(() -> a.submitEvent(s)).as("conflict for %s", s)
                        .isInstanceOf(ConflictException.class)
                        .satisfies(ex -> assertThat(ex.getMessage()).doesNotContain("Hangzhou", "杭州"));
                assertThat(a.event(ALICE_WORK, "c1")).contains(original);
            }
            assertThat(a.changesAfter(0, 1000)).isEqualTo(changes);
            assertThat(a.events(ALICE_HOME, 0, 10)).isEmpty();
            assertThat(a.events(BOB_WORK, 0, 10)).isEmpty();
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM events")).isEqualTo(1);
    }

    @Test
    @DisplayName("E3 a re-submission that omits the timestamp reuses the original occurrence time")
    void omittedTimestampReusesOriginal() {
        try (Authority a = open(dir)) {
            Instant at = t("2023-12-31T23:30:00-05:00");
            Event original = submit(a, event("e3", ALICE_WORK, Role.USER, "新年快乐 Happy new year", at));
            SubmitResult again = a.submitEvent(event("e3", ALICE_WORK, Role.USER, "新年快乐 Happy new year", null));
            assertThat(again.created()).isFalse();
            assertThat(again.event()).isEqualTo(original);
            assertThat(again.event().occurredAt()).isEqualTo(Instant.parse("2024-01-01T04:30:00Z"));
        }
    }

    @Test
    @DisplayName("E3 an event first stored without a time keeps its ingestion time on timeless re-submission")
    void omittedTimestampTwice() throws Exception {
        try (Authority a = open(dir)) {
            Event original = submit(a, event("e3b", ALICE_WORK, Role.USER, "没有时间 no time", null));
            Thread.sleep(5);
            SubmitResult again = a.submitEvent(event("e3b", ALICE_WORK, Role.USER, "没有时间 no time", null));
            assertThat(again.created()).isFalse();
            assertThat(again.event().occurredAt()).isEqualTo(original.occurredAt());
            // Omitting the time does not excuse a different payload.
            assertThatThrownBy(() -> a.submitEvent(event("e3b", ALICE_WORK, Role.USER, "没有时间 other", null)))
                    .isInstanceOf(ConflictException.class);
        }
    }

    @Test
    @DisplayName("E5 an acknowledged event is committed: another connection sees it before any further work")
    void acknowledgedEventIsCommitted() throws Exception {
        try (Authority a = open(dir)) {
            submit(a, event("durable", ALICE_WORK, Role.USER, "已确认 acknowledged"));
            // While the authority is still open, a separate connection reads the committed row.
            assertThat(AuthorityTestKit.string(dbFile(dir), "SELECT text FROM events WHERE id = 'durable'"))
                    .isEqualTo("已确认 acknowledged");
        }
    }

    @Test
    @DisplayName("E6 reference and persona events are archived and fed to the index as searchable sources")
    void referenceEventsAreArchivedAndIndexed() throws Exception {
        AuthorityTestKit.RecordingIndex index = new AuthorityTestKit.RecordingIndex();
        try (Authority a = open(dir, index)) {
            Event ref = submit(a, AuthorityTestKit.reference("ref-1", ALICE_WORK, "《红楼梦》第一回 Dream of the Red Chamber"));
            Event persona = submit(a, new EventSubmission("per-1", ALICE_WORK, Role.USER, "人设材料 persona material",
                    "test", Category.PERSONA, "s1", t("2024-05-01T10:00:00Z")));
            assertThat(a.event(ALICE_WORK, "ref-1")).contains(ref);
            assertThat(a.event(ALICE_WORK, "per-1")).contains(persona);
            assertThat(ref.category()).isEqualTo(Category.REFERENCE);
            assertThat(persona.category()).isEqualTo(Category.PERSONA);
        }
        assertThat(AuthorityTestKit.RecordingIndex.committed(dbFile(dir))).containsExactly("event:ref-1", "event:per-1");
    }

    @Test
    @DisplayName("E5 a failing derived index aborts the whole event write: nothing is stored or logged")
    void indexFailureAbortsWrite() throws Exception {
        AuthorityTestKit.RecordingIndex index = new AuthorityTestKit.RecordingIndex();
        index.failOnEventText = "FAIL";
        try (Authority a = open(dir, index)) {
            submit(a, event("ok", ALICE_WORK, Role.USER, "好的 fine"));
            int changes = a.changesAfter(0, 100).size();
            assertThatThrownBy(() -> a.submitEvent(event("bad", ALICE_WORK, Role.USER, "请 FAIL 吧")))
                    .isInstanceOf(JiyiException.class);
            assertThat(a.event(ALICE_WORK, "bad")).isEmpty();
            assertThat(a.changesAfter(0, 100)).hasSize(changes);
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM events")).isEqualTo(1);
        assertThat(AuthorityTestKit.RecordingIndex.committed(dbFile(dir))).containsExactly("event:ok");
    }

    @Test
    @DisplayName("E2 batch: a rejected item leaves earlier items committed and nothing of later ones (failedAt)")
    void batchStopsAtRejectedItem() throws Exception {
        AuthorityTestKit.RecordingIndex index = new AuthorityTestKit.RecordingIndex();
        try (Authority a = open(dir, index)) {
            submit(a, event("existing", ALICE_WORK, Role.USER, "原来的 original"));
            List<EventSubmission> batch = List.of(
                    event("b0", ALICE_WORK, Role.USER, "第一条 first"),
                    event("b1", BOB_WORK, Role.ASSISTANT, "second 第二条"),
                    event("existing", ALICE_WORK, Role.USER, "改过的 changed"),
                    event("b3", ALICE_WORK, Role.USER, "第四条 fourth"));
            BatchResult<SubmitResult> r = a.submitEvents(batch);
            assertThat(r.failed()).isTrue();
            assertThat(r.failedAt()).isEqualTo(2);
            assertThat(r.error()).isInstanceOf(ConflictException.class);
            assertThat(r.committed()).extracting(x -> x.event().id()).containsExactly("b0", "b1");
            assertThat(r.committed()).allSatisfy(x -> assertThat(x.created()).isTrue());
            assertThat(a.event(ALICE_WORK, "b0")).contains(r.committed().get(0).event());
            assertThat(a.event(BOB_WORK, "b1")).contains(r.committed().get(1).event());
            assertThat(a.event(ALICE_WORK, "b3")).isEmpty();
            assertThat(a.event(ALICE_WORK, "existing").orElseThrow().text()).isEqualTo("原来的 original");
            assertThat(a.changesAfter(0, 100)).extracting(ChangeLog.Entry::entityId)
                    .containsExactly("existing", "b0", "b1");
            assertThat(r.committed().get(0).event().sequence()).isLessThan(r.committed().get(1).event().sequence());
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM events")).isEqualTo(3);
        assertThat(AuthorityTestKit.RecordingIndex.committed(dbFile(dir)))
                .containsExactly("event:existing", "event:b0", "event:b1");
    }

    @Test
    @DisplayName("E2 batch: a duplicate ID inside one batch is idempotent when equal and a conflict when not")
    void batchWithInternalDuplicates() {
        try (Authority a = open(dir)) {
            EventSubmission x = event("x", ALICE_WORK, Role.USER, "同一个 same");
            BatchResult<SubmitResult> ok = a.submitEvents(List.of(x, x));
            assertThat(ok.failed()).isFalse();
            assertThat(ok.failedAt()).isEqualTo(-1);
            assertThat(ok.error()).isNull();
            assertThat(ok.committed()).extracting(SubmitResult::created).containsExactly(true, false);
            assertThat(ok.committed().get(1).event()).isEqualTo(ok.committed().get(0).event());

            BatchResult<SubmitResult> bad = a.submitEvents(List.of(event("y", ALICE_WORK, Role.USER, "一 one"),
                    event("y", ALICE_WORK, Role.USER, "二 two")));
            assertThat(bad.failedAt()).isEqualTo(1);
            assertThat(bad.committed()).extracting(r -> r.event().text()).containsExactly("一 one");
            assertThat(a.event(ALICE_WORK, "y").orElseThrow().text()).isEqualTo("一 one");
        }
    }

    @Test
    @DisplayName("E2 batch: a rejected first item commits nothing; an empty batch succeeds with nothing")
    void batchFirstItemRejected() throws Exception {
        try (Authority a = open(dir)) {
            submit(a, event("z", ALICE_WORK, Role.USER, "原文 original"));
            BatchResult<SubmitResult> r = a.submitEvents(List.of(event("z", ALICE_WORK, Role.USER, "不同 different"),
                    event("z2", ALICE_WORK, Role.USER, "later")));
            assertThat(r.failedAt()).isZero();
            assertThat(r.committed()).isEmpty();
            BatchResult<SubmitResult> empty = a.submitEvents(List.of());
            assertThat(empty.failed()).isFalse();
            assertThat(empty.committed()).isEmpty();
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM events")).isEqualTo(1);
    }

    @Test
    @DisplayName("O7 event submission rejects bad input naming the field, never echoing the value")
    void badInput() {
        Instant at = t("2024-05-01T10:00:00Z");
        assertInvalid(() -> new EventSubmission("bad id 坏", ALICE_WORK, Role.USER, "x", null, null, null, at), "id",
                "bad id 坏");
        assertInvalid(() -> new EventSubmission("", ALICE_WORK, Role.USER, "x", null, null, null, at), "id");
        assertInvalid(() -> new EventSubmission(null, ALICE_WORK, Role.USER, "x", null, null, null, at), "id");
        assertInvalid(() -> new EventSubmission("i".repeat(Ids.MAX_ID_LENGTH + 1), ALICE_WORK, Role.USER, "x", null,
                null, null, at), "id", "iiiiiiiiii");
        assertInvalid(() -> new EventSubmission("ok", null, Role.USER, "x", null, null, null, at), "scope");
        assertInvalid(() -> new EventSubmission("ok", ALICE_WORK, null, "x", null, null, null, at), "role");
        assertInvalid(() -> new EventSubmission("ok", ALICE_WORK, Role.USER, "", null, null, null, at), "text");
        assertInvalid(() -> new EventSubmission("ok", ALICE_WORK, Role.USER, null, null, null, null, at), "text");
        assertInvalid(() -> new EventSubmission("ok", ALICE_WORK, Role.USER, "秘密\u0000secret", null, null, null, at),
                "text", "秘密", "secret");
        String tooLong = "密".repeat(Limits.MAX_EVENT_TEXT + 1);
        assertInvalid(() -> new EventSubmission("ok", ALICE_WORK, Role.USER, tooLong, null, null, null, at), "text",
                "密密密");
        assertInvalid(() -> new EventSubmission("ok", ALICE_WORK, Role.USER, "x", "   ", null, null, at), "source");
        assertInvalid(() -> new EventSubmission("ok", ALICE_WORK, Role.USER, "x", "来源".repeat(101), null, null, at),
                "source", "来源来源");
        assertInvalid(() -> new EventSubmission("ok", ALICE_WORK, Role.USER, "x", null, null, "bad session 会话", at),
                "session", "bad session 会话");
        assertInvalid(() -> Role.parse("role", "管理员-admin"), "role", "管理员-admin");
        assertInvalid(() -> Category.parse("category", "diary-日记"), "category", "diary-日记");
    }

    @Test
    @DisplayName("E1 omitted source, category and session take the explicit defaults")
    void defaults() {
        EventSubmission s = new EventSubmission("d", ALICE_WORK, Role.USER, "默认 defaults", null, null, null, null);
        assertThat(s.source()).isEqualTo(EventSubmission.DEFAULT_SOURCE);
        assertThat(s.category()).isEqualTo(Category.CONVERSATION);
        assertThat(s.sessionId()).isEqualTo(EventSubmission.DEFAULT_SESSION);
        try (Authority a = open(dir)) {
            Event e = submit(a, s);
            assertThat(e.source()).isEqualTo("cli");
            assertThat(e.sessionId()).isEqualTo("default");
            assertThat(e.category()).isEqualTo(Category.CONVERSATION);
        }
    }

    @Test
    @DisplayName("O7 listing and marking events reject bad input: negative limit, unknown event")
    void listingBadInput() throws Exception {
        try (Authority a = open(dir)) {
            for (int i = 0; i < 3; i++) {
                submit(a, event("l" + i, ALICE_WORK, Role.USER, "列表 " + i));
            }
            assertThat(a.events(ALICE_WORK, 0, 0)).isEmpty();
            assertInvalid(() -> a.events(ALICE_WORK, 0, -1), "limit");
            assertThatThrownBy(() -> a.markExtractionPending("no-such-event", "provider timeout"))
                    .isInstanceOf(NotFoundException.class);
        }
        assertThat(count(dbFile(dir), "SELECT count(*) FROM events WHERE extraction_state = 'pending'")).isZero();
    }
}
