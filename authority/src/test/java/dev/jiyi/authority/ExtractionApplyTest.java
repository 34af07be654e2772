package dev.jiyi.authority;

import dev.jiyi.authority.index.TransactionalIndex;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.SESSION;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.dump;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.raw;
import static dev.jiyi.authority.AuthorityTestKit.reference;
import static dev.jiyi.authority.AuthorityTestKit.string;
import static dev.jiyi.authority.AuthorityTestKit.strings;
import static dev.jiyi.authority.AuthorityTestKit.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Extraction queueing and completion at the authority: the event commits pending before any model
 * work (E5), failures keep it pending with a sanitized reason (X2), each draft is checked against its
 * event (X3), a batch lands whole or not at all (X4), a second completion creates nothing (X5), and a
 * deletion takes the completion record with it (D1).
 */
class ExtractionApplyTest {

    @TempDir
    Path dir;

    /** A user turn with Chinese, English and full-width punctuation, for exact-quote checks. */
    private static final String USER_TEXT = "我上周搬到了杭州，新公司在西湖区。I moved to Hangzhou last week; "
            + "the new office is in Xihu. 周末喜欢爬山（hiking）。";
    /** An assistant turn. */
    private static final String ASSISTANT_TEXT = "太好了！Great news — 祝你在杭州一切顺利 😊 I'm happy for you.";

    private static final String EXTRACTOR = "http://127.0.0.1:8089/v1/chat/completions|qwen2.5-7b-instruct|prompt-v3";

    private static final Instant T2020 = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant T2021 = Instant.parse("2021-01-01T00:00:00Z");
    private static final Instant T2022 = Instant.parse("2022-01-01T00:00:00Z");

    private int counter;

    // ------------------------------------------------------------------ fixtures

    private Path db() {
        return dbFile(dir);
    }

    private static Authority openIndexed(Path dir) {
        return Authority.open(dbFile(dir), List.of(new TokenIndex()));
    }

    /** Submits a conversation event for extraction and returns it (pending). */
    private Event queued(Authority a, Scope scope, Role role, String text) {
        return a.submitForExtraction(event("ev-" + counter++, scope, role, text)).event();
    }

    private static ExtractionBatch.Proposed item(int index, MemoryDraft draft) {
        return new ExtractionBatch.Proposed(index, draft);
    }

    private static ExtractionBatch batch(String digest, List<ExtractionBatch.Proposed> proposed, List<Rejection> rejected) {
        return new ExtractionBatch(EXTRACTOR, digest, proposed, rejected);
    }

    private static ExtractionBatch batch(String digest, ExtractionBatch.Proposed... proposed) {
        return batch(digest, List.of(proposed), List.of());
    }

    /** A user-stated fact from {@code e} quoting {@code quote}. */
    private static MemoryDraft fact(Event e, String text, String quote) {
        return MemoryDraft.builder(e.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT).text(text).quote(quote).build();
    }

    /** What the extraction client does with a model item: build it, or record why its shape was refused. */
    private static void offer(int index, MemoryDraft.Builder builder, List<ExtractionBatch.Proposed> proposed,
                              List<Rejection> rejected) {
        try {
            proposed.add(item(index, builder.build()));
        } catch (InvalidInputException e) {
            rejected.add(Rejection.of(index, e));
        }
    }

    private static List<String> ids(List<Memory> memories) {
        return memories.stream().map(Memory::id).toList();
    }

    private long memoriesOf(Event e) throws SQLException {
        return count(db(), "SELECT count(*) FROM memories WHERE event_id = '" + e.id() + "'");
    }

    private String state(Event e) throws SQLException {
        return string(db(), "SELECT extraction_state FROM events WHERE id = '" + e.id() + "'");
    }

    private String error(Event e) throws SQLException {
        return string(db(), "SELECT extraction_error FROM events WHERE id = '" + e.id() + "'");
    }

    private long extractionRows() throws SQLException {
        return count(db(), "SELECT count(*) FROM extractions");
    }

    private List<String> ftsRows() throws SQLException {
        return strings(db(), "SELECT rowid FROM memories_fts ORDER BY rowid");
    }

    private List<String> memoryRows() throws SQLException {
        return strings(db(), "SELECT seq FROM memories ORDER BY seq");
    }

    private List<String> memoryInsertsLogged() throws SQLException {
        return strings(db(), "SELECT entity_id FROM change_log WHERE entity = 'memory' AND op = 'insert' ORDER BY seq");
    }

    /**
     * A stand-in for the FTS5 index: writes each memory's characters as tokens into
     * {@code memories_fts} (rowid = memory row) inside the authority's transaction, and removes them
     * with the FTS5 'delete' command.
     */
    static final class TokenIndex implements TransactionalIndex {

        private static String tokens(String text) {
            return text.codePoints().filter(Character::isLetterOrDigit).mapToObj(Character::toString)
                    .map(s -> s.toLowerCase(java.util.Locale.ROOT)).collect(Collectors.joining(" "));
        }

        @Override
        public void eventAdded(Sql tx, Event event) throws SQLException {
            write(tx.connection(), "INSERT INTO events_fts (rowid, tokens) VALUES (?, ?)", event.sequence(), event.text());
        }

        @Override
        public void eventRemoved(Sql tx, Event event) throws SQLException {
            write(tx.connection(), "INSERT INTO events_fts (events_fts, rowid, tokens) VALUES ('delete', ?, ?)", event.sequence(),
                    event.text());
        }

        @Override
        public void memoryAdded(Sql tx, Memory memory) throws SQLException {
            long rowId = memory.rowId();
            write(tx.connection(), "INSERT INTO memories_fts (rowid, tokens) VALUES (?, ?)", rowId, memory.text());
        }

        @Override
        public void memoryRemoved(Sql tx, Memory memory) throws SQLException {
            long rowId = memory.rowId();
            write(tx.connection(), "INSERT INTO memories_fts (memories_fts, rowid, tokens) VALUES ('delete', ?, ?)", rowId,
                    memory.text());
        }

        private static void write(Connection tx, String sql, long rowId, String text) throws SQLException {
            try (PreparedStatement ps = tx.prepareStatement(sql)) {
                ps.setLong(1, rowId);
                ps.setString(2, tokens(text));
                ps.executeUpdate();
            }
        }
    }

    // ------------------------------------------------------------------ E5: queued before any model work

    @Test
    @DisplayName("E5 submitForExtraction commits the event already pending: a second connection sees it before any model answers")
    void submitCommitsPending() throws Exception {
        Authority a = open(dir);
        try {
            SubmitResult r = a.submitForExtraction(event("e5-1", CJK_SCOPE, Role.USER, USER_TEXT));
            assertThat(r.created()).isTrue();
            assertThat(r.event().extraction()).isEqualTo(ExtractionState.PENDING);
            assertThat(r.event().extractionError()).isNull();
            assertThat(r.event().text()).isEqualTo(USER_TEXT);

            // The first authority is still open and never completes: as if killed while the model thinks.
            try (Connection c = raw(db()); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT extraction_state, text, persona_id, project_id FROM events "
                         + "WHERE id = 'e5-1'")) {
                assertThat(rs.next()).as("event row committed").isTrue();
                assertThat(rs.getString(1)).isEqualTo("pending");
                assertThat(rs.getString(2)).isEqualTo(USER_TEXT);
                assertThat(rs.getString(3)).isEqualTo("小明");
                assertThat(rs.getString(4)).isEqualTo("项目-甲");
            }
            try (Authority restarted = open(dir)) {
                assertThat(restarted.pendingExtractions(CJK_SCOPE, 0, 10)).extracting(Event::id).containsExactly("e5-1");
                assertThat(restarted.extraction(CJK_SCOPE, "e5-1")).isEmpty();
            }
            assertThat(count(db(), "SELECT count(*) FROM change_log WHERE entity = 'event' AND entity_id = 'e5-1'"))
                    .as("the insert and the queueing are logged").isEqualTo(2);
        } finally {
            a.close();
        }
    }

    @Test
    @DisplayName("E5 E6 reference and persona events submitted for extraction become skipped, never pending")
    void referenceAndPersonaSkipped() throws Exception {
        try (Authority a = open(dir)) {
            SubmitResult ref = a.submitForExtraction(reference("ref-1", ALICE_WORK,
                    "《杭州旅游指南》Hangzhou travel guide: 西湖十景 West Lake's ten views"));
            SubmitResult persona = a.submitForExtraction(new EventSubmission("per-1", ALICE_WORK, Role.SYSTEM,
                    "你是一个温和的助手 You are a gentle assistant", "test", Category.PERSONA, SESSION,
                    t("2024-05-01T10:00:00+08:00")));
            SubmitResult conv = a.submitForExtraction(event("conv-1", ALICE_WORK, Role.USER, USER_TEXT));

            assertThat(ref.event().extraction()).isEqualTo(ExtractionState.SKIPPED);
            assertThat(persona.event().extraction()).isEqualTo(ExtractionState.SKIPPED);
            assertThat(conv.event().extraction()).isEqualTo(ExtractionState.PENDING);
            assertThat(strings(db(), "SELECT id || '=' || extraction_state FROM events ORDER BY sequence"))
                    .containsExactly("ref-1=skipped", "per-1=skipped", "conv-1=pending");
            assertThat(a.pendingExtractions(ALICE_WORK, 0, 10)).extracting(Event::id).containsExactly("conv-1");

            // requesting it again, or re-submitting it, never makes reference material pending
            assertThat(a.requestExtraction(ALICE_WORK, "ref-1").extraction()).isEqualTo(ExtractionState.SKIPPED);
            assertThat(a.submitForExtraction(reference("ref-1", ALICE_WORK,
                    "《杭州旅游指南》Hangzhou travel guide: 西湖十景 West Lake's ten views")).event().extraction()).isEqualTo(ExtractionState.SKIPPED);
            a.markExtractionPending("per-1", "provider timeout");
            assertThat(strings(db(), "SELECT extraction_state FROM events WHERE id IN ('ref-1', 'per-1')"))
                    .containsOnly("skipped");
            assertThat(a.pendingExtractions(ALICE_WORK, 0, 10)).extracting(Event::id).containsExactly("conv-1");
        }
    }

    @Test
    @DisplayName("E5 X2 X5 identical re-submission returns created=false; a pending event stays pending, a done one stays done")
    void resubmission() throws Exception {
        try (Authority a = openIndexed(dir)) {
            EventSubmission pendingOne = event("re-1", ALICE_WORK, Role.USER, "我喜欢喝龙井茶 I like Longjing tea");
            EventSubmission doneOne = event("re-2", ALICE_WORK, Role.USER, USER_TEXT);
            Event first = a.submitForExtraction(pendingOne).event();
            Event second = a.submitForExtraction(doneOne).event();
            a.markExtractionPending(first.id(), "provider returned HTTP 503");
            Extraction done = a.applyExtraction(ALICE_WORK, second.id(),
                    batch("sha256:aa01", item(0, fact(second, "搬到杭州 moved to Hangzhou", "我上周搬到了杭州"))));
            Map<String, List<String>> before = dump(db());

            SubmitResult again1 = a.submitForExtraction(pendingOne);
            SubmitResult again2 = a.submitForExtraction(doneOne);

            assertThat(again1.created()).isFalse();
            assertThat(again2.created()).isFalse();
            assertThat(again1.event().sequence()).isEqualTo(first.sequence());
            assertThat(again1.event().extraction()).isEqualTo(ExtractionState.PENDING);
            assertThat(again1.event().extractionError()).isEqualTo("provider returned HTTP 503");
            assertThat(again2.event().sequence()).isEqualTo(second.sequence());
            assertThat(again2.event().extraction()).isEqualTo(ExtractionState.DONE);
            assertThat(dump(db())).as("nothing changed").isEqualTo(before);
            assertThat(a.pendingExtractions(ALICE_WORK, 0, 10)).extracting(Event::id).containsExactly("re-1");
            assertThat(a.extraction(ALICE_WORK, second.id()).orElseThrow().memories()).extracting(Memory::id)
                    .containsExactlyElementsOf(ids(done.memories()));
        }
    }

    @Test
    @DisplayName("E5 X2 an event stored without extraction is queued by re-submitting it for extraction or by requestExtraction")
    void plainEventQueuedLater() throws Exception {
        try (Authority a = open(dir)) {
            Event plain = a.submitEvent(event("plain-1", ALICE_HOME, Role.USER, "明天去上海出差 business trip tomorrow"))
                    .event();
            Event other = a.submitEvent(event("plain-2", ALICE_HOME, Role.ASSISTANT, "好的，一路顺风 have a good trip"))
                    .event();
            assertThat(plain.extraction()).isEqualTo(ExtractionState.NONE);
            assertThat(a.pendingExtractions(ALICE_HOME, 0, 10)).isEmpty();

            SubmitResult resubmitted = a.submitForExtraction(event("plain-1", ALICE_HOME, Role.USER,
                    "明天去上海出差 business trip tomorrow"));
            assertThat(resubmitted.created()).isFalse();
            assertThat(resubmitted.event().extraction()).isEqualTo(ExtractionState.PENDING);
            assertThat(state(plain)).isEqualTo("pending");

            assertThat(a.requestExtraction(ALICE_HOME, other.id()).extraction()).isEqualTo(ExtractionState.PENDING);
            assertThat(a.pendingExtractions(ALICE_HOME, 0, 10)).extracting(Event::id).containsExactly("plain-1", "plain-2");
            assertThatThrownBy(() -> a.requestExtraction(ALICE_WORK, other.id())).isInstanceOf(NotFoundException.class);
        }
    }

    @Test
    @DisplayName("E5 submitEventsForExtraction queues each stored event; a conflicting item keeps the ones before it, queued")
    void batchSubmission() throws Exception {
        try (Authority a = open(dir)) {
            a.submitEvent(event("b-0", BOB_WORK, Role.USER, "原来的文本 original text"));
            BatchResult<SubmitResult> r = a.submitEventsForExtraction(List.of(
                    event("b-1", BOB_WORK, Role.USER, "我养了一只猫 I have a cat"),
                    reference("b-2", BOB_WORK, "猫的品种大全 cat breeds handbook"),
                    event("b-3", BOB_WORK, Role.ASSISTANT, "猫很可爱 cats are cute 🐱"),
                    event("b-0", BOB_WORK, Role.USER, "改过的文本 changed text"),
                    event("b-4", BOB_WORK, Role.USER, "never stored 不会保存")));

            assertThat(r.failedAt()).isEqualTo(3);
            assertThat(r.error()).isInstanceOf(ConflictException.class);
            assertThat(r.committed()).extracting(s -> s.event().id() + "=" + s.event().extraction())
                    .containsExactly("b-1=pending", "b-2=skipped", "b-3=pending");
            assertThat(strings(db(), "SELECT id || '=' || extraction_state FROM events ORDER BY sequence"))
                    .containsExactly("b-0=none", "b-1=pending", "b-2=skipped", "b-3=pending");
            assertThat(a.pendingExtractions(BOB_WORK, 0, 10)).extracting(Event::id).containsExactly("b-1", "b-3");
        }
    }

    // ------------------------------------------------------------------ X3: each draft checked against its event

    @Test
    @DisplayName("X3 X4 a batch breaking each rule is partly rejected with the field and a reason; the good drafts land")
    void partlyRejected() throws Exception {
        Random random = SeededRandom.create("X3 partly rejected batch");
        try (Authority a = openIndexed(dir)) {
            Event user = queued(a, ALICE_WORK, Role.USER, USER_TEXT);
            Event neighbour = queued(a, ALICE_WORK, Role.USER, "我的猫叫咪咪 my cat is Mimi");
            List<ExtractionBatch.Proposed> proposed = new ArrayList<>();
            List<Rejection> rejected = new ArrayList<>();
            String nearMiss = "我上周搬到了杭州,新公司在西湖区"; // half-width comma where the event has "，"

            offer(0, MemoryDraft.builder(user.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("用户搬到了杭州 the user moved to Hangzhou").quote("我上周搬到了杭州")
                    .subject("用户").factKey("居住城市"), proposed, rejected);
            offer(1, MemoryDraft.builder(user.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("rejected-1 公司在西湖区").quote(nearMiss), proposed, rejected);
            offer(2, MemoryDraft.builder(user.id()).kind(Kind.OBSERVATION).basis(Basis.ASSISTANT_EXPRESSION)
                    .text("rejected-2 assistant observed a move").quote("I moved to Hangzhou"), proposed, rejected);
            offer(3, MemoryDraft.builder(user.id()).kind(Kind.EMOTION).basis(Basis.ASSISTANT_EXPRESSION)
                    .text("rejected-3 开心 happy").quote("周末喜欢爬山").emotion(new Emotion("开心", 0.8, 0.5)),
                    proposed, rejected);
            offer(4, MemoryDraft.builder(user.id()).kind(Kind.EPISODE).basis(Basis.INFERENCE)
                    .text("用户周末可能去爬山 the user probably hikes on weekends").quote("周末喜欢爬山（hiking）"),
                    proposed, rejected);
            offer(5, MemoryDraft.builder(user.id()).kind(Kind.FACT).basis(Basis.INFERENCE)
                    .text("rejected-5 inferred city").quote("杭州").subject("用户").factKey("居住城市"), proposed, rejected);
            offer(6, MemoryDraft.builder(user.id()).kind(Kind.GROWTH).basis(Basis.INFERENCE)
                    .text("rejected-6 更独立了 more independent").quote("搬到了杭州"), proposed, rejected);
            offer(7, MemoryDraft.builder(user.id()).kind(Kind.EMOTION).basis(Basis.USER_STATEMENT)
                    .text("rejected-7 兴奋 excited").quote("搬到了杭州").emotion(new Emotion("兴奋", 0.9, 0.9)),
                    proposed, rejected);
            offer(8, MemoryDraft.builder(user.id()).kind(Kind.PREFERENCE).basis(Basis.USER_STATEMENT)
                    .text("likes hiking on weekends 喜欢周末爬山").quote("the new office is in Xihu. 周末喜欢爬山"),
                    proposed, rejected);
            offer(9, MemoryDraft.builder(neighbour.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("rejected-9 猫叫咪咪").quote("我的猫叫咪咪"), proposed, rejected);

            assertThat(rejected).extracting(Rejection::index).containsExactly(5, 6, 7);
            Collections.shuffle(proposed, random);
            Collections.shuffle(rejected, random);

            Extraction x = a.applyExtraction(ALICE_WORK, user.id(), batch("sha256:x3", proposed, rejected));

            assertThat(x.duplicate()).isFalse();
            assertThat(x.event().extraction()).isEqualTo(ExtractionState.DONE);
            assertThat(x.memories()).extracting(Memory::text).containsExactlyInAnyOrder(
                    "用户搬到了杭州 the user moved to Hangzhou",
                    "用户周末可能去爬山 the user probably hikes on weekends",
                    "likes hiking on weekends 喜欢周末爬山");
            assertThat(x.rejected()).extracting(r -> r.index() + " " + r.field()).containsExactly(
                    "1 quote", "2 basis", "3 basis", "5 fact_key", "6 kind", "7 emotion", "9 event");
            assertThat(x.rejected()).allSatisfy(r -> {
                assertThat(r.rule()).as("a reason is given").isNotBlank();
                assertThat(r.rule()).as("the reason never echoes the item").doesNotContain("杭州", "rejected", "咪咪",
                        "hiking", nearMiss);
            });
            assertThat(strings(db(), "SELECT text FROM memories ORDER BY seq")).noneMatch(s -> s.startsWith("rejected"));
            assertThat(memoriesOf(neighbour)).as("a draft naming another event lands nowhere").isZero();
            assertThat(state(neighbour)).isEqualTo("pending");

            // What the extractions row keeps: IDs, and index/field/rule of the rejected; never text.
            String storedRejected = string(db(), "SELECT rejected FROM extractions WHERE event_id = '" + user.id() + "'");
            assertThat(storedRejected).contains("#1 quote: ", "#9 event: ").doesNotContain("杭州", "rejected-");
            assertThat(string(db(), "SELECT memory_ids FROM extractions WHERE event_id = '" + user.id() + "'"))
                    .isEqualTo("[" + x.memories().stream().map(m -> "\"" + m.id() + "\"").collect(Collectors.joining(","))
                            + "]");
            assertThat(string(db(), "SELECT extractor || '|' || digest FROM extractions")).isEqualTo(EXTRACTOR + "|sha256:x3");
        }
    }

    @Test
    @DisplayName("X3 a quote that nearly matches the Chinese text (half-/full-width punctuation, case, spacing, variant characters) is rejected on quote")
    void nearMissQuotes() throws Exception {
        List<String> nearMisses = List.of(
                "我上周搬到了杭州,新公司在西湖区",      // ASCII comma for the full-width "，"
                "周末喜欢爬山(hiking)",                // ASCII parentheses for "（）"
                "周末喜欢爬山（hiking）.",              // ASCII full stop for "。"
                "我上週搬到了杭州",                      // traditional 週 for 周
                "i moved to hangzhou",                 // case
                "Hangzhou last week;  the",            // doubled space
                "Ｉ moved to Hangzhou",                 // full-width Ｉ
                "我上周搬到了杭州，新公司在西湖区。 I moved", // inserted space
                "周末喜欢爬山（hiking）。！",            // runs past the end
                "我上周搬到了杭州\u200b");               // zero-width space
        List<String> exact = List.of(USER_TEXT, "我", "。", "last week; the new office", "Xihu. 周末");
        try (Authority a = openIndexed(dir)) {
            Event user = queued(a, CJK_SCOPE, Role.USER, USER_TEXT);
            List<ExtractionBatch.Proposed> proposed = new ArrayList<>();
            int index = 0;
            for (String q : exact) {
                proposed.add(item(index++, fact(user, "精确引用 exact quote " + index, q)));
            }
            for (String q : nearMisses) {
                proposed.add(item(index++, fact(user, "近似引用 near miss " + index, q)));
            }
            Extraction x = a.applyExtraction(CJK_SCOPE, user.id(), batch("sha256:near", proposed, List.of()));

            assertThat(x.memories()).extracting(Memory::quote).containsExactlyElementsOf(exact);
            assertThat(x.rejected()).hasSize(nearMisses.size()).allSatisfy(r -> {
                assertThat(r.field()).isEqualTo("quote");
                assertThat(r.rule()).contains("exact substring");
                assertThat(r.index()).isBetween(exact.size(), exact.size() + nearMisses.size() - 1);
                for (String q : nearMisses) {
                    assertThat(r.rule()).doesNotContain(q);
                }
            });
            assertThat(x.rejected()).extracting(Rejection::index).isSorted();
            assertThat(memoriesOf(user)).isEqualTo(exact.size());
        }
    }

    @Test
    @DisplayName("X3 on an assistant event: user_statement is rejected on basis; an assistant_expression with an emotion lands")
    void assistantEventRoles() throws Exception {
        try (Authority a = openIndexed(dir)) {
            Event assistant = queued(a, ALICE_WORK, Role.ASSISTANT, ASSISTANT_TEXT);
            Extraction x = a.applyExtraction(ALICE_WORK, assistant.id(), batch("sha256:asst",
                    item(0, MemoryDraft.builder(assistant.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                            .text("rejected-0 用户很开心").quote("太好了").build()),
                    item(1, MemoryDraft.builder(assistant.id()).kind(Kind.EMOTION).basis(Basis.ASSISTANT_EXPRESSION)
                            .text("助手为用户高兴 the assistant is happy for the user").quote("I'm happy for you")
                            .emotion(new Emotion("高兴 glad", 0.7, 0.4)).build()),
                    item(2, MemoryDraft.builder(assistant.id()).kind(Kind.PREFERENCE).basis(Basis.USER_STATEMENT)
                            .text("rejected-2 likes Hangzhou").quote("祝你在杭州一切顺利 😊")
                            .subject("用户").factKey("城市偏好").build()),
                    item(3, MemoryDraft.builder(assistant.id()).kind(Kind.OBSERVATION).basis(Basis.INFERENCE)
                            .text("对话气氛积极 the mood is upbeat").quote("😊").build())));

            assertThat(x.memories()).extracting(Memory::text).containsExactly(
                    "助手为用户高兴 the assistant is happy for the user", "对话气氛积极 the mood is upbeat");
            assertThat(x.memories().getFirst().emotion()).isEqualTo(new Emotion("高兴 glad", 0.7, 0.4));
            assertThat(x.rejected()).extracting(r -> r.index() + " " + r.field()).containsExactly("0 basis", "2 basis");
            assertThat(x.rejected()).allSatisfy(r -> assertThat(r.rule()).contains("user_statement", "user"));
            assertThat(count(db(), "SELECT count(*) FROM memories WHERE fact_key IS NOT NULL")).isZero();
        }
    }

    @Test
    @DisplayName("X3 pre-rejected items passed in the batch are reported back with the authority's, sorted by index, and survive a duplicate read")
    void preRejectedReported() throws Exception {
        try (Authority a = open(dir)) {
            Event user = queued(a, BOB_WORK, Role.USER, "我是素食者 I am vegetarian, 不吃肉。");
            List<Rejection> pre = List.of(
                    new Rejection(6, "confidence", "must be a number in [0, 1]"),
                    new Rejection(0, "kind", "is required"),
                    new Rejection(3, "回答.text", "必须是字符串 must be a \"string\": see\tthe schema\n第二行"));
            Extraction x = a.applyExtraction(BOB_WORK, user.id(), batch("sha256:pre", List.of(
                    item(5, fact(user, "素食者 vegetarian", "I am vegetarian")),
                    item(1, fact(user, "rejected 吃牛肉", "吃牛肉")),
                    item(4, fact(user, "不吃肉 eats no meat", "不吃肉"))), pre));

            assertThat(x.rejected()).containsExactly(
                    new Rejection(0, "kind", "is required"),
                    new Rejection(1, "quote", "must be an exact substring of the source event's text"),
                    new Rejection(3, "回答.text", "必须是字符串 must be a \"string\": see\tthe schema\n第二行"),
                    new Rejection(6, "confidence", "must be a number in [0, 1]"));
            assertThat(x.memories()).extracting(Memory::text).containsExactly("素食者 vegetarian", "不吃肉 eats no meat");

            Extraction again = a.extraction(BOB_WORK, user.id()).orElseThrow();
            assertThat(again.rejected()).as("the stored reasons read back exactly").isEqualTo(x.rejected());
            assertThat(ids(again.memories())).isEqualTo(ids(x.memories()));
        }
    }

    // ------------------------------------------------------------------ X4: all of the batch, or none

    @Test
    @DisplayName("X4 accepted items and the done state commit together; rejected items leave no memory, index row or change-log entry")
    void acceptedCommitTogether() throws Exception {
        try (Authority a = openIndexed(dir)) {
            Event user = queued(a, ALICE_HOME, Role.USER, USER_TEXT);
            a.markExtractionPending(user.id(), "model timed out after 60 s");
            long logBefore = count(db(), "SELECT max(seq) FROM change_log");
            List<String> insertsBefore = memoryInsertsLogged();

            Extraction x = a.applyExtraction(ALICE_HOME, user.id(), batch("sha256:x4",
                    item(0, fact(user, "搬到杭州 moved to Hangzhou", "我上周搬到了杭州")),
                    item(1, fact(user, "rejected-a 西湖", "西湖 区")),
                    item(2, MemoryDraft.builder(user.id()).kind(Kind.EPISODE).basis(Basis.ASSISTANT_EXPRESSION)
                            .text("rejected-b 爬山").quote("周末喜欢爬山").build()),
                    item(3, fact(user, "office in Xihu 办公室在西湖区", "the new office is in Xihu")),
                    item(4, MemoryDraft.builder(user.id()).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                            .text("rejected-c ends before it starts").quote("周末")
                            .invalidAt(T2020).build())));

            assertThat(x.rejected()).extracting(r -> r.index() + " " + r.field())
                    .containsExactly("1 quote", "2 basis", "4 invalid_at");
            // committed, as a second connection sees it
            assertThat(state(user)).isEqualTo("done");
            assertThat(error(user)).as("the failure reason is cleared on success").isNull();
            assertThat(x.event().extractionError()).isNull();
            assertThat(strings(db(), "SELECT id FROM memories WHERE event_id = '" + user.id() + "' ORDER BY seq"))
                    .containsExactlyElementsOf(ids(x.memories()));
            assertThat(count(db(), "SELECT count(*) FROM extractions WHERE event_id = '" + user.id() + "'")).isOne();
            assertThat(strings(db(), "SELECT text FROM memories")).noneMatch(s -> s.contains("rejected"));
            assertThat(ftsRows()).as("one index row per saved memory, none for the rejected").isEqualTo(memoryRows());
            assertThat(memoryInsertsLogged()).hasSize(insertsBefore.size() + 2)
                    .endsWith(ids(x.memories()).toArray(String[]::new));
            assertThat(strings(db(), "SELECT entity || ':' || entity_id || ':' || op FROM change_log WHERE seq > "
                    + logBefore + " ORDER BY seq")).containsExactly(
                    "memory:" + x.memories().get(0).id() + ":insert",
                    "memory:" + x.memories().get(1).id() + ":insert",
                    "event:" + user.id() + ":update");
            assertThat(a.pendingExtractions(ALICE_HOME, 0, 10)).isEmpty();
        }
    }

    @Test
    @DisplayName("X4 a storage failure on the 2nd of 3 good items rolls back the whole batch: no memory, no extractions row, event still pending")
    void storageFailureAllOrNone() throws Exception {
        try (Authority a = openIndexed(dir)) {
            Event user = queued(a, CJK_SCOPE, Role.USER, USER_TEXT);
            Event earlier = queued(a, CJK_SCOPE, Role.USER, "我住在北京 I live in Beijing");
            a.applyExtraction(CJK_SCOPE, earlier.id(), batch("sha256:earlier", item(0,
                    MemoryDraft.builder(earlier.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                            .text("住在北京 lives in Beijing").quote("我住在北京").subject("用户").factKey("居住城市")
                            .validAt(T2020).build())));
            a.markExtractionPending(user.id(), "HTTP 429 rate limited");
            try (Connection c = raw(db()); Statement s = c.createStatement()) {
                s.execute("CREATE TRIGGER boom BEFORE INSERT ON memories WHEN NEW.text = 'boom' "
                        + "BEGIN SELECT RAISE(ABORT, 'boom'); END");
            }
            Map<String, List<String>> before = dump(db());
            // the first item is a timeline member: its placement closes the Beijing fact before the failure
            ExtractionBatch b = batch("sha256:boom",
                    item(0, MemoryDraft.builder(user.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                            .text("住在杭州 lives in Hangzhou").quote("我上周搬到了杭州").subject("用户").factKey("居住城市")
                            .validAt(T2022).build()),
                    item(1, fact(user, "boom", "I moved to Hangzhou")),
                    item(2, fact(user, "办公室在西湖区 office in Xihu", "新公司在西湖区")));

            assertThatThrownBy(() -> a.applyExtraction(CJK_SCOPE, user.id(), b)).isInstanceOf(StorageException.class);

            assertThat(memoriesOf(user)).isZero();
            assertThat(count(db(), "SELECT count(*) FROM extractions WHERE event_id = '" + user.id() + "'")).isZero();
            assertThat(state(user)).isEqualTo("pending");
            assertThat(error(user)).isEqualTo("HTTP 429 rate limited");
            assertThat(a.extraction(CJK_SCOPE, user.id())).isEmpty();
            assertThat(a.pendingExtractions(CJK_SCOPE, 0, 10)).extracting(Event::id).containsExactly(user.id());
            assertThat(string(db(), "SELECT invalid_at FROM memories WHERE event_id = '" + earlier.id() + "'"))
                    .as("the closing done by the first item is rolled back too").isNull();
            assertThat(dump(db())).as("nothing of the batch remains").isEqualTo(before);

            // the retry, once storage works again, lands the whole batch
            try (Connection c = raw(db()); Statement s = c.createStatement()) {
                s.execute("DROP TRIGGER boom");
            }
            Extraction retried = a.applyExtraction(CJK_SCOPE, user.id(), b);
            assertThat(retried.duplicate()).isFalse();
            assertThat(retried.memories()).hasSize(3);
            assertThat(state(user)).isEqualTo("done");
            assertThat(ftsRows()).isEqualTo(memoryRows());
        }
    }

    // ------------------------------------------------------------------ X5: a second completion creates nothing

    @Test
    @DisplayName("X5 applying the same batch twice, or another batch after success, returns duplicate=true with the same IDs and creates nothing")
    void duplicateCompletion() throws Exception {
        try (Authority a = openIndexed(dir)) {
            Event user = queued(a, ALICE_WORK, Role.USER, USER_TEXT);
            ExtractionBatch first = batch("sha256:first",
                    item(0, fact(user, "搬到杭州 moved to Hangzhou", "我上周搬到了杭州")),
                    item(1, fact(user, "rejected 西湖", "西湖  区")),
                    item(2, fact(user, "周末爬山 hikes on weekends", "周末喜欢爬山")));
            Extraction x = a.applyExtraction(ALICE_WORK, user.id(), first);
            assertThat(x.duplicate()).isFalse();
            Map<String, List<String>> before = dump(db());
            long memories = count(db(), "SELECT count(*) FROM memories");
            long log = count(db(), "SELECT count(*) FROM change_log");
            List<String> fts = ftsRows();

            Extraction same = a.applyExtraction(ALICE_WORK, user.id(), first);
            Extraction other = a.applyExtraction(ALICE_WORK, user.id(), batch("sha256:second",
                    item(0, fact(user, "另一个答案 a different answer", "I moved to Hangzhou")),
                    item(1, fact(user, "第二条 second item", "新公司"))));
            Extraction read = a.extraction(ALICE_WORK, user.id()).orElseThrow();

            for (Extraction d : List.of(same, other, read)) {
                assertThat(d.duplicate()).isTrue();
                assertThat(ids(d.memories())).isEqualTo(ids(x.memories()));
                assertThat(d.rejected()).isEqualTo(x.rejected());
                assertThat(d.event().extraction()).isEqualTo(ExtractionState.DONE);
                assertThat(d.event().id()).isEqualTo(user.id());
            }
            assertThat(count(db(), "SELECT count(*) FROM memories")).isEqualTo(memories);
            assertThat(count(db(), "SELECT count(*) FROM change_log")).isEqualTo(log);
            assertThat(ftsRows()).isEqualTo(fts);
            assertThat(dump(db())).isEqualTo(before);
            assertThat(string(db(), "SELECT digest FROM extractions")).as("the first answer's record is kept")
                    .isEqualTo("sha256:first");

            // a retry after success: requeueing is refused quietly and nothing becomes pending
            a.markExtractionPending(user.id(), "late failure report");
            assertThat(a.requestExtraction(ALICE_WORK, user.id()).extraction()).isEqualTo(ExtractionState.DONE);
            assertThat(a.pendingExtractions(ALICE_WORK, 0, 10)).isEmpty();
            assertThat(dump(db())).isEqualTo(before);
        }
    }

    @Test
    @DisplayName("X5 the memories returned by an extraction are the stored ones: a timeline closing inside the batch is reflected")
    void returnedMemoriesMatchStored() throws Exception {
        try (Authority a = open(dir)) {
            Event user = queued(a, ALICE_WORK, Role.USER, "2020年我住在北京，2021年搬到上海 I lived in Beijing, then Shanghai");
            Extraction x = a.applyExtraction(ALICE_WORK, user.id(), batch("sha256:tl",
                    item(0, timeline(user, "北京 Beijing", "2020年我住在北京", T2020)),
                    item(1, timeline(user, "上海 Shanghai", "2021年搬到上海", T2021))));
            Extraction read = a.extraction(ALICE_WORK, user.id()).orElseThrow();

            assertThat(x.memories()).extracting(Memory::validity)
                    .as("validity returned by applyExtraction equals the stored validity")
                    .containsExactlyElementsOf(read.memories().stream().map(Memory::validity).toList());
        }
    }

    @Test
    @DisplayName("X5 two processes (own Authority each) applying concurrently end with exactly one set of memories")
    void concurrentCompletions() throws Exception {
        Random random = SeededRandom.create("X5 concurrent completions");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Authority a = openIndexed(dir); Authority b = openIndexed(dir)) {
            for (int round = 0; round < 6; round++) {
                Event user = queued(a, ALICE_WORK, Role.USER, "第" + round + "轮：我喜欢喝咖啡，也喜欢茶 round " + round
                        + ": I like coffee and tea");
                ExtractionBatch left = randomBatch(random, user, "left-" + round);
                ExtractionBatch right = randomBatch(random, user, "right-" + round);
                CountDownLatch start = new CountDownLatch(1);
                Callable<Extraction> fromA = () -> {
                    start.await();
                    return a.applyExtraction(ALICE_WORK, user.id(), left);
                };
                Callable<Extraction> fromB = () -> {
                    start.await();
                    return b.applyExtraction(ALICE_WORK, user.id(), right);
                };
                Future<Extraction> fa = pool.submit(fromA);
                Future<Extraction> fb = pool.submit(fromB);
                start.countDown();
                Extraction xa = fa.get(30, TimeUnit.SECONDS);
                Extraction xb = fb.get(30, TimeUnit.SECONDS);

                assertThat(List.of(xa.duplicate(), xb.duplicate())).as("round %d: exactly one winner", round)
                        .containsExactlyInAnyOrder(true, false);
                Extraction winner = xa.duplicate() ? xb : xa;
                ExtractionBatch won = winner == xa ? left : right;
                assertThat(ids(xa.memories())).as("round %d", round).isEqualTo(ids(xb.memories()));
                assertThat(winner.memories()).hasSize(won.proposed().size());
                assertThat(memoriesOf(user)).as("round %d: one set of memories", round).isEqualTo(won.proposed().size());
                assertThat(count(db(), "SELECT count(*) FROM extractions WHERE event_id = '" + user.id() + "'")).isOne();
                assertThat(string(db(), "SELECT digest FROM extractions WHERE event_id = '" + user.id() + "'"))
                        .isEqualTo(won.digest());
                assertThat(state(user)).isEqualTo("done");
            }
            assertThat(ftsRows()).isEqualTo(memoryRows());
            assertThat(memoryInsertsLogged()).hasSize(memoryRows().size());
        } finally {
            pool.shutdownNow();
        }
    }

    private static ExtractionBatch randomBatch(Random random, Event user, String digest) {
        List<String> quotes = List.of("我喜欢喝咖啡", "也喜欢茶", "I like coffee", "coffee and tea", "轮");
        int n = 1 + random.nextInt(4);
        List<ExtractionBatch.Proposed> proposed = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String q = quotes.get(random.nextInt(quotes.size()));
            proposed.add(item(i, MemoryDraft.builder(user.id()).kind(Kind.PREFERENCE).basis(Basis.USER_STATEMENT)
                    .text(digest + " 偏好 preference " + i).quote(q).build()));
        }
        return batch(digest, proposed, List.of());
    }

    // ------------------------------------------------------------------ X2: failures keep the event pending

    @Test
    @DisplayName("X2 markExtractionPending stores the sanitized reason, replaces it on the next failure, and success clears it")
    void markPendingStoresReason() throws Exception {
        try (Authority a = open(dir)) {
            Event queuedEvent = queued(a, CJK_SCOPE, Role.USER, "我对花生过敏 I'm allergic to peanuts");
            Event plain = a.submitEvent(event("never-queued", CJK_SCOPE, Role.USER, "我喜欢猫 I like cats")).event();

            a.markExtractionPending(queuedEvent.id(), "provider error: HTTP 500 (body omitted)");
            assertThat(a.event(CJK_SCOPE, queuedEvent.id()).orElseThrow().extractionError())
                    .isEqualTo("provider error: HTTP 500 (body omitted)");
            a.markExtractionPending(queuedEvent.id(), "提供方超时 provider timeout after 30 s");
            Event reread = a.event(CJK_SCOPE, queuedEvent.id()).orElseThrow();
            assertThat(reread.extraction()).isEqualTo(ExtractionState.PENDING);
            assertThat(reread.extractionError()).isEqualTo("提供方超时 provider timeout after 30 s");
            assertThat(error(queuedEvent)).isEqualTo("提供方超时 provider timeout after 30 s");

            a.markExtractionPending(plain.id(), "network unreachable");
            assertThat(state(plain)).as("a failed first attempt leaves a never-queued event pending").isEqualTo("pending");
            assertThat(a.pendingExtractions(CJK_SCOPE, 0, 10)).extracting(Event::id, Event::extractionError)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(queuedEvent.id(), "提供方超时 provider timeout after 30 s"),
                            org.assertj.core.groups.Tuple.tuple(plain.id(), "network unreachable"));

            Extraction x = a.applyExtraction(CJK_SCOPE, queuedEvent.id(), batch("sha256:ok",
                    item(0, fact(queuedEvent, "花生过敏 peanut allergy", "我对花生过敏"))));
            assertThat(x.event().extractionError()).isNull();
            assertThat(error(queuedEvent)).isNull();
        }
    }

    @Test
    @DisplayName("X2 markExtractionPending does not reopen an event already done; an unknown event is NotFound and changes nothing")
    void markPendingDoesNotReopen() throws Exception {
        try (Authority a = open(dir)) {
            Event user = queued(a, ALICE_WORK, Role.USER, USER_TEXT);
            a.applyExtraction(ALICE_WORK, user.id(), batch("sha256:done", item(0, fact(user, "杭州 Hangzhou", "杭州"))));
            Map<String, List<String>> before = dump(db());

            a.markExtractionPending(user.id(), "a slower worker's timeout");
            assertThat(state(user)).isEqualTo("done");
            assertThat(error(user)).isNull();
            assertThat(dump(db())).isEqualTo(before);

            assertThatThrownBy(() -> a.markExtractionPending("no-such-event", "timeout"))
                    .isInstanceOf(NotFoundException.class).hasMessageContaining("no-such-event");
            assertThat(dump(db())).isEqualTo(before);
            // no transaction was left open by the failure
            Event next = queued(a, ALICE_WORK, Role.USER, "still writable 仍可写入");
            assertThat(state(next)).isEqualTo("pending");
        }
    }

    @Test
    @DisplayName("X2 pendingExtractions pages in sequence order within its scope only (seeded interleaving)")
    void pendingPagesInScope() throws Exception {
        Random random = SeededRandom.create("X2 pending pages");
        List<Scope> scopes = List.of(ALICE_WORK, ALICE_HOME, BOB_WORK, CJK_SCOPE);
        Map<Scope, List<String>> expected = new java.util.HashMap<>();
        scopes.forEach(s -> expected.put(s, new ArrayList<>()));
        try (Authority a = open(dir)) {
            for (int i = 0; i < 60; i++) {
                Scope scope = scopes.get(random.nextInt(scopes.size()));
                String text = SeededRandom.mixedText(random, 30) + " 第" + i + "条 item " + i;
                String id = "p-" + i;
                switch (random.nextInt(5)) {
                    case 0 -> a.submitEvent(event(id, scope, Role.USER, text)); // none
                    case 1 -> a.submitForExtraction(reference(id, scope, text)); // skipped
                    case 2 -> { // done
                        Event e = a.submitForExtraction(event(id, scope, Role.USER, text)).event();
                        a.applyExtraction(scope, id, batch("sha256:" + i, List.of(), List.of()));
                        assertThat(state(e)).isEqualTo("done");
                    }
                    case 3 -> { // failed once, pending
                        a.submitEvent(event(id, scope, Role.ASSISTANT, text));
                        a.markExtractionPending(id, "timeout " + i);
                        expected.get(scope).add(id);
                    }
                    default -> {
                        a.submitForExtraction(event(id, scope, Role.USER, text));
                        expected.get(scope).add(id);
                    }
                }
            }
            for (Scope scope : scopes) {
                List<String> seen = new ArrayList<>();
                long after = 0;
                while (true) {
                    int limit = 1 + random.nextInt(4);
                    List<Event> page = a.pendingExtractions(scope, after, limit);
                    assertThat(page.size()).isLessThanOrEqualTo(limit);
                    assertThat(page).allSatisfy(e -> {
                        assertThat(e.scope()).isEqualTo(scope);
                        assertThat(e.extraction()).isEqualTo(ExtractionState.PENDING);
                    });
                    assertThat(page).extracting(Event::sequence).isSorted().allMatch(seq -> seq > 0);
                    if (page.isEmpty()) {
                        break;
                    }
                    assertThat(page.getFirst().sequence()).isGreaterThan(after);
                    page.forEach(e -> seen.add(e.id()));
                    after = page.getLast().sequence();
                }
                assertThat(seen).as("pending of %s", scope).containsExactlyElementsOf(expected.get(scope));
            }
            assertThat(a.pendingExtractions(ALICE_WORK, 0, 0)).isEmpty();
            assertInvalid(() -> a.pendingExtractions(ALICE_WORK, 0, -1), "limit");
        }
    }

    // ------------------------------------------------------------------ T4 inside one answer

    private static MemoryDraft timeline(Event e, String text, String quote, Instant validAt) {
        return MemoryDraft.builder(e.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT).text(text).quote(quote)
                .subject("用户 user").factKey("居住城市 city").validAt(validAt).build();
    }

    @Test
    @DisplayName("T4 X4 two timeline members in one answer, in either order, end with the earlier closed at the later's start")
    void timelineInOneBatch() throws Exception {
        try (Authority a = open(dir)) {
            for (boolean laterFirst : List.of(false, true)) {
                Scope scope = laterFirst ? ALICE_HOME : ALICE_WORK;
                Event before = queued(a, scope, Role.USER, "2020年起我住在北京 since 2020 I live in Beijing");
                a.applyExtraction(scope, before.id(), batch("sha256:b",
                        item(0, timeline(before, "北京 Beijing", "我住在北京", T2020))));
                Event user = queued(a, scope, Role.USER, "2021年我搬到上海，2022年又搬到杭州 Shanghai in 2021, Hangzhou in 2022");
                MemoryDraft shanghai = timeline(user, "上海 Shanghai", "2021年我搬到上海", T2021);
                MemoryDraft hangzhou = timeline(user, "杭州 Hangzhou", "2022年又搬到杭州", T2022);
                Extraction x = a.applyExtraction(scope, user.id(), batch("sha256:t",
                        laterFirst ? List.of(item(0, hangzhou), item(1, shanghai)) : List.of(item(0, shanghai), item(1, hangzhou)),
                        List.of()));
                assertThat(x.rejected()).isEmpty();

                Map<String, Validity> stored = strings(db(), "SELECT id FROM memories WHERE persona_id = '"
                        + scope.personaId() + "' AND project_id = '" + scope.projectId() + "'").stream()
                        .map(id -> a.memory(scope, id).orElseThrow())
                        .collect(Collectors.toMap(Memory::text, Memory::validity));
                assertThat(stored).as("laterFirst=%s", laterFirst).containsOnly(
                        Map.entry("北京 Beijing", new Validity(T2020, T2021)),
                        Map.entry("上海 Shanghai", new Validity(T2021, T2022)),
                        Map.entry("杭州 Hangzhou", new Validity(T2022, null)));
            }
        }
    }

    // ------------------------------------------------------------------ D1: deletion takes the record

    @Test
    @DisplayName("D1 deleting an extracted event removes its extractions row; re-submitting the ID creates a fresh pending event")
    void deleteEventRemovesExtraction() throws Exception {
        try (Authority a = openIndexed(dir)) {
            EventSubmission s = event("d1-ev", ALICE_WORK, Role.USER, USER_TEXT);
            Event user = a.submitForExtraction(s).event();
            Event kept = queued(a, ALICE_WORK, Role.USER, "另一件事 another matter");
            a.applyExtraction(ALICE_WORK, kept.id(), batch("sha256:kept", item(0, fact(kept, "另一件事", "另一件事"))));
            Extraction x = a.applyExtraction(ALICE_WORK, user.id(), batch("sha256:d1",
                    item(0, fact(user, "搬到杭州 moved to Hangzhou", "我上周搬到了杭州")),
                    item(1, fact(user, "Xihu office 西湖办公室", "the new office is in Xihu"))));

            Deletion d = a.deleteEvent(ALICE_WORK, user.id());
            assertThat(d.memoryIds()).containsExactlyInAnyOrderElementsOf(ids(x.memories()));
            assertThat(strings(db(), "SELECT event_id FROM extractions")).containsExactly(kept.id());
            assertThatThrownBy(() -> a.extraction(ALICE_WORK, user.id())).isInstanceOf(NotFoundException.class);
            assertThat(a.doctor().healthy()).isTrue();

            SubmitResult again = a.submitForExtraction(s);
            assertThat(again.created()).isTrue();
            assertThat(again.event().extraction()).isEqualTo(ExtractionState.PENDING);
            assertThat(again.event().sequence()).isGreaterThan(kept.sequence());
            assertThat(a.extraction(ALICE_WORK, user.id())).isEmpty();
            assertThat(a.pendingExtractions(ALICE_WORK, 0, 10)).extracting(Event::id).containsExactly(user.id());

            Extraction fresh = a.applyExtraction(ALICE_WORK, user.id(), batch("sha256:d1-again",
                    item(0, fact(again.event(), "爬山 hiking", "周末喜欢爬山"))));
            assertThat(fresh.duplicate()).isFalse();
            assertThat(fresh.memories()).extracting(Memory::text).containsExactly("爬山 hiking");
            assertThat(ids(fresh.memories())).doesNotContainAnyElementsOf(ids(x.memories()));
            assertThat(ftsRows()).isEqualTo(memoryRows());
        }
    }

    @Test
    @DisplayName("D1 deleting one memory of an extraction removes the event, its co-derived memories and its extractions row")
    void deleteMemoryRemovesExtraction() throws Exception {
        try (Authority a = openIndexed(dir)) {
            EventSubmission s = event("d1-mem", CJK_SCOPE, Role.USER, USER_TEXT);
            Event user = a.submitForExtraction(s).event();
            Extraction x = a.applyExtraction(CJK_SCOPE, user.id(), batch("sha256:d1m",
                    item(0, fact(user, "搬到杭州 moved to Hangzhou", "我上周搬到了杭州")),
                    item(1, fact(user, "Xihu office 西湖办公室", "the new office is in Xihu"))));

            a.deleteMemory(CJK_SCOPE, x.memories().get(1).id());

            assertThat(extractionRows()).isZero();
            assertThat(count(db(), "SELECT count(*) FROM memories")).isZero();
            assertThat(count(db(), "SELECT count(*) FROM events")).isZero();
            assertThat(ftsRows()).isEmpty();
            SubmitResult again = a.submitForExtraction(s);
            assertThat(again.created()).isTrue();
            assertThat(again.event().extraction()).isEqualTo(ExtractionState.PENDING);
            assertThat(again.event().sequence()).isGreaterThan(user.sequence());
            assertThat(a.extraction(CJK_SCOPE, user.id())).isEmpty();
        }
    }

    // ------------------------------------------------------------------ what applyExtraction refuses

    @Test
    @DisplayName("X4 an unknown event or one of another scope is NotFound and changes nothing")
    void unknownOrOtherScope() throws Exception {
        try (Authority a = open(dir)) {
            Event user = queued(a, ALICE_WORK, Role.USER, USER_TEXT);
            ExtractionBatch b = batch("sha256:nf", item(0, fact(user, "杭州 Hangzhou", "杭州")));
            Map<String, List<String>> before = dump(db());

            assertThatThrownBy(() -> a.applyExtraction(ALICE_WORK, "ev-missing", b)).isInstanceOf(NotFoundException.class)
                    .hasMessageContaining("ev-missing");
            assertThatThrownBy(() -> a.applyExtraction(ALICE_HOME, user.id(), b)).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> a.applyExtraction(BOB_WORK, user.id(), b)).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> a.extraction(ALICE_HOME, user.id())).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> a.extraction(ALICE_WORK, "ev-missing")).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> a.requestExtraction(BOB_WORK, user.id())).isInstanceOf(NotFoundException.class);
            assertInvalid(() -> a.applyExtraction(ALICE_WORK, "has space 空格", b), "event", "空格");
            assertThat(dump(db())).isEqualTo(before);

            // after a completion the other scope still cannot see it
            a.applyExtraction(ALICE_WORK, user.id(), b);
            assertThatThrownBy(() -> a.applyExtraction(ALICE_HOME, user.id(), b)).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> a.extraction(ALICE_HOME, user.id())).isInstanceOf(NotFoundException.class);
        }
    }

    @Test
    @DisplayName("X3 a draft naming a different event is rejected on field event, even when that event is in the same scope")
    void draftForOtherEvent() throws Exception {
        try (Authority a = open(dir)) {
            Event user = queued(a, ALICE_WORK, Role.USER, USER_TEXT);
            Event other = queued(a, ALICE_WORK, Role.USER, USER_TEXT);
            Event elsewhere = queued(a, BOB_WORK, Role.USER, USER_TEXT);
            Extraction x = a.applyExtraction(ALICE_WORK, user.id(), batch("sha256:ev",
                    item(0, fact(other, "别的事件 other event", "杭州")),
                    item(1, fact(user, "本事件 this event", "杭州")),
                    item(2, fact(elsewhere, "别的范围 other scope", "杭州"))));

            assertThat(x.rejected()).extracting(r -> r.index() + " " + r.field()).containsExactly("0 event", "2 event");
            assertThat(x.memories()).extracting(Memory::text).containsExactly("本事件 this event");
            assertThat(memoriesOf(other)).isZero();
            assertThat(memoriesOf(elsewhere)).isZero();
            assertThat(state(other)).isEqualTo("pending");
            assertThat(state(elsewhere)).isEqualTo("pending");
        }
    }

    @Test
    @DisplayName("E6 X3 applying an extraction to a reference event is invalid input on event and changes nothing")
    void referenceEventRefused() throws Exception {
        try (Authority a = open(dir)) {
            Event ref = a.submitForExtraction(reference("ref-x", ALICE_WORK, "西湖龙井的产地介绍 about Longjing tea")).event();
            Map<String, List<String>> before = dump(db());

            assertInvalid(() -> a.applyExtraction(ALICE_WORK, ref.id(), batch("sha256:ref",
                    item(0, fact(ref, "龙井 Longjing", "西湖龙井")))), "event", "西湖龙井");
            assertInvalid(() -> a.applyExtraction(ALICE_WORK, ref.id(), batch("sha256:ref", List.of(), List.of())),
                    "event");
            assertThat(dump(db())).isEqualTo(before);
            assertThat(state(ref)).isEqualTo("skipped");
            assertThat(extractionRows()).isZero();
        }
    }
}
