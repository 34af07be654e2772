package dev.jiyi.authority;

import dev.jiyi.authority.index.ChangeLog;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.t;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;

class MemoryDerivationTest {

    @TempDir
    Path dir;

    private static final String USER_TEXT = "我叫王芳，今年三十岁，住在成都。My name is Wang Fang, I'm 30 and live in Chengdu. 😀";
    private static final String ASSISTANT_TEXT = "好的！很高兴认识你 😊 Nice to meet you, Wang Fang.";
    private static final String SYSTEM_TEXT = "System: the user prefers short answers. 用户偏好简短回答。";

    private Event user;
    private Event assistant;
    private Event system;

    private Authority openWithEvents() {
        Authority a = open(dir);
        user = submit(a, event("u1", ALICE_WORK, Role.USER, USER_TEXT));
        assistant = submit(a, event("a1", ALICE_WORK, Role.ASSISTANT, ASSISTANT_TEXT));
        system = submit(a, event("sys1", ALICE_WORK, Role.SYSTEM, SYSTEM_TEXT));
        return a;
    }

    private long memoryCount() throws Exception {
        return count(dbFile(dir), "SELECT count(*) FROM memories");
    }

    @Test
    @DisplayName("M1 a memory stores every field and reads back equal, also after reopening")
    void allFieldsRoundTrip() {
        Memory stored;
        try (Authority a = openWithEvents()) {
            Instant validAt = t("2024-04-01T00:00:00+08:00");
            Instant invalidAt = t("2025-04-01T00:00:00+08:00");
            MemoryDraft d = MemoryDraft.builder("u1").kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("王芳住在成都 Wang Fang lives in Chengdu").quote("住在成都")
                    .subject("王芳").factKey("city").validAt(validAt).invalidAt(invalidAt).confidence(0.85)
                    .gist("住成都").cue("photo:IMG_0042.jpg").cue("label: \"家\" \\ home\n 🏠").build();
            stored = a.addMemory(ALICE_WORK, d);
            assertThat(stored.id()).startsWith("mem_");
            assertThat(stored.scope()).isEqualTo(ALICE_WORK);
            assertThat(stored.eventId()).isEqualTo("u1");
            assertThat(stored.kind()).isEqualTo(Kind.FACT);
            assertThat(stored.basis()).isEqualTo(Basis.USER_STATEMENT);
            assertThat(stored.text()).isEqualTo("王芳住在成都 Wang Fang lives in Chengdu");
            assertThat(stored.quote()).isEqualTo("住在成都");
            assertThat(stored.confidence()).isEqualTo(0.85);
            assertThat(stored.subject()).isEqualTo("王芳");
            assertThat(stored.factKey()).isEqualTo("city");
            assertThat(stored.validity()).isEqualTo(new Validity(Instant.parse("2024-03-31T16:00:00Z"),
                    Instant.parse("2025-03-31T16:00:00Z")));
            assertThat(stored.revokedAt()).isNull();
            assertThat(stored.revoked()).isFalse();
            assertThat(stored.emotion()).isNull();
            assertThat(stored.gist()).isEqualTo("住成都");
            assertThat(stored.cueKeys()).containsExactly("photo:IMG_0042.jpg", "label: \"家\" \\ home\n 🏠");
            assertThat(stored.createdAt()).isNotNull();
            assertThat(a.memory(ALICE_WORK, stored.id())).contains(stored);
        }
        try (Authority a = open(dir)) {
            assertThat(a.memory(ALICE_WORK, stored.id())).contains(stored);
        }
    }

    @Test
    @DisplayName("M1 an assistant-expressed emotion (label, valence, arousal) round-trips")
    void emotionRoundTrip() {
        try (Authority a = openWithEvents()) {
            Memory m = a.addMemory(ALICE_WORK, MemoryDraft.builder("a1").kind(Kind.EMOTION)
                    .basis(Basis.ASSISTANT_EXPRESSION).text("助手很高兴 the assistant is glad").quote("很高兴认识你 😊")
                    .emotion(new Emotion("高兴 glad", 0.8, 0.4)).build());
            assertThat(m.emotion()).isEqualTo(new Emotion("高兴 glad", 0.8, 0.4));
            assertThat(a.memory(ALICE_WORK, m.id()).orElseThrow().emotion()).isEqualTo(new Emotion("高兴 glad", 0.8, 0.4));
            Memory edge = a.addMemory(ALICE_WORK, MemoryDraft.builder("a1").kind(Kind.EMOTION)
                    .basis(Basis.ASSISTANT_EXPRESSION).text("edge").quote("Nice")
                    .emotion(new Emotion("flat", -1.0, 0.0)).confidence(0.0).build());
            assertThat(a.memory(ALICE_WORK, edge.id())).contains(edge);
        }
    }

    @Test
    @DisplayName("M1 every kind can be derived, defaults apply: confidence 1, no gist, no cues, valid from the event (T2)")
    void everyKindAndDefaults() {
        try (Authority a = openWithEvents()) {
            for (Kind kind : Kind.values()) {
                Memory m = a.addMemory(ALICE_WORK, MemoryDraft.builder("u1").kind(kind).basis(Basis.USER_STATEMENT)
                        .text(kind.code() + " 记忆").quote("成都").build());
                assertThat(m.kind()).isEqualTo(kind);
                assertThat(m.confidence()).isEqualTo(1.0);
                assertThat(m.gist()).isNull();
                assertThat(m.cueKeys()).isEmpty();
                assertThat(m.validity()).isEqualTo(Validity.from(user.occurredAt()));
                assertThat(a.memory(ALICE_WORK, m.id())).contains(m);
            }
        }
    }

    @Test
    @DisplayName("M1 random cue keys with quotes, backslashes, control characters and CJK round-trip (seeded property)")
    void cueKeysRoundTrip() {
        Random random = SeededRandom.create("M1 cue keys round-trip");
        try (Authority a = openWithEvents()) {
            for (int i = 0; i < 40; i++) {
                List<String> cues = new ArrayList<>();
                int n = random.nextInt(Limits.MAX_CUES + 1);
                for (int j = 0; j < n; j++) {
                    String cue = SeededRandom.mixedText(random, 40) + (char) ('\u0001' + random.nextInt(30))
                            + "\\\"" + j;
                    cues.add(cue.length() > Limits.MAX_LABEL ? cue.substring(0, Limits.MAX_LABEL) : cue);
                }
                Memory m = a.addMemory(ALICE_WORK, MemoryDraft.builder("u1").kind(Kind.EPISODE)
                        .basis(Basis.INFERENCE).text("cue test " + i).quote("王芳").cues(cues).build());
                assertThat(a.memory(ALICE_WORK, m.id()).orElseThrow().cueKeys()).containsExactlyElementsOf(cues);
            }
        }
    }

    @Test
    @DisplayName("M1 memory text, quote and gist are stored exactly: whitespace, emoji and CJK untouched")
    void memoryTextUnaltered() {
        try (Authority a = open(dir)) {
            String text = "  行首空格\t制表符\n换行 😀 e\u0301  ";
            Event e = submit(a, event("w", ALICE_WORK, Role.USER, "原文：" + text + "结束"));
            Memory m = a.addMemory(ALICE_WORK, MemoryDraft.builder("w").kind(Kind.OBSERVATION)
                    .basis(Basis.USER_STATEMENT).text(text).quote(text).gist(" 要点 gist ").build());
            Memory back = a.memory(ALICE_WORK, m.id()).orElseThrow();
            assertThat(back.text()).isEqualTo(text);
            assertThat(back.quote()).isEqualTo(text);
            assertThat(back.gist()).isEqualTo(" 要点 gist ");
            assertThat(a.event(ALICE_WORK, e.id()).orElseThrow().text()).isEqualTo("原文：" + text + "结束");
        }
    }

    @Test
    @DisplayName("M2 X3 the quote must be an exact substring of the source event text")
    void quoteMustBeExactSubstring() throws Exception {
        try (Authority a = openWithEvents()) {
            // Accepted: exact substrings, CJK, English, emoji, the whole text.
            for (String quote : List.of("住在成都", "I'm 30", "😀", USER_TEXT, "。My")) {
                a.addMemory(ALICE_WORK, userFact(user, "ok").quote(quote).build());
            }
            long before = memoryCount();
            // Rejected: near misses.
            for (String quote : List.of("住在北京", "i'm 30", "I'm  30", "住在成都.", "我叫王芳,今年", "Wang  Fang",
                    "My name is Wang Fang, I'm 30 and live in Chengdu.😀", "e\u0301", "ＷＡＮＧ",
                    USER_TEXT + " ")) {
                assertInvalid(() -> a.addMemory(ALICE_WORK, userFact(user, "bad").quote(quote).build()), "quote", quote);
            }
            // A quote from a different event is not a substring of this one.
            assertInvalid(() -> a.addMemory(ALICE_WORK, userFact(user, "bad").quote("Nice to meet you").build()),
                    "quote", "Nice to meet you");
            assertThat(memoryCount()).isEqualTo(before);
        }
    }

    @Test
    @DisplayName("M2 X3 random exact substrings are accepted and random non-substrings rejected (seeded property)")
    void quotePropertyCheck() throws Exception {
        Random random = SeededRandom.create("M2 quote property");
        try (Authority a = open(dir)) {
            int accepted = 0;
            for (int i = 0; i < 60; i++) {
                String text = SeededRandom.mixedText(random, 200) + "锚" + i;
                Event e = submit(a, event("q" + i, ALICE_WORK, Role.USER, text));
                int[] cps = text.codePoints().toArray();
                int from = random.nextInt(cps.length);
                int to = from + 1 + random.nextInt(cps.length - from);
                String quote = new String(cps, from, to - from);
                if (!quote.isBlank()) {
                    a.addMemory(ALICE_WORK, userFact(e, "m" + i).quote(quote).build());
                    accepted++;
                }
                String other = quote.isBlank() ? "不存在的引文" + i : quote + "不存在" + i;
                if (!text.contains(other)) {
                    String q = other;
                    assertInvalid(() -> a.addMemory(ALICE_WORK, userFact(e, "x").quote(q).build()), "quote");
                }
            }
            assertThat(memoryCount()).isEqualTo(accepted);
        }
    }

    @Test
    @DisplayName("M2 X3 basis user_statement requires a user event")
    void userStatementNeedsUserEvent() throws Exception {
        try (Authority a = openWithEvents()) {
            assertInvalid(() -> a.addMemory(ALICE_WORK, MemoryDraft.builder("a1").kind(Kind.FACT)
                    .basis(Basis.USER_STATEMENT).text("x").quote("Nice").build()), "basis", "Nice");
            assertInvalid(() -> a.addMemory(ALICE_WORK, MemoryDraft.builder("sys1").kind(Kind.PREFERENCE)
                    .basis(Basis.USER_STATEMENT).text("x").quote("简短").build()), "basis", "简短");
            assertThat(a.addMemory(ALICE_WORK, MemoryDraft.builder("u1").kind(Kind.FACT)
                    .basis(Basis.USER_STATEMENT).text("x").quote("成都").build()).basis()).isEqualTo(Basis.USER_STATEMENT);
            assertThat(memoryCount()).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("M2 X3 basis assistant_expression requires an assistant event")
    void assistantExpressionNeedsAssistantEvent() throws Exception {
        try (Authority a = openWithEvents()) {
            assertInvalid(() -> a.addMemory(ALICE_WORK, MemoryDraft.builder("u1").kind(Kind.AGREEMENT)
                    .basis(Basis.ASSISTANT_EXPRESSION).text("x").quote("成都").build()), "basis");
            assertInvalid(() -> a.addMemory(ALICE_WORK, MemoryDraft.builder("sys1").kind(Kind.AGREEMENT)
                    .basis(Basis.ASSISTANT_EXPRESSION).text("x").quote("简短").build()), "basis");
            a.addMemory(ALICE_WORK, MemoryDraft.builder("a1").kind(Kind.AGREEMENT)
                    .basis(Basis.ASSISTANT_EXPRESSION).text("约定 agreement").quote("Nice to meet you").build());
            assertThat(memoryCount()).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("M2 X3 an inference may come from any role but never carries a fact key nor becomes growth")
    void inferenceRules() throws Exception {
        try (Authority a = openWithEvents()) {
            for (Event e : List.of(user, assistant, system)) {
                String quote = e.text().substring(0, 4);
                a.addMemory(ALICE_WORK, MemoryDraft.builder(e.id()).kind(Kind.OBSERVATION).basis(Basis.INFERENCE)
                        .text("推断 inferred").quote(quote).confidence(0.4).build());
            }
            assertInvalid(() -> MemoryDraft.builder("u1").kind(Kind.FACT).basis(Basis.INFERENCE).text("x")
                    .quote("成都").subject("王芳").factKey("city").build(), "fact_key");
            assertInvalid(() -> MemoryDraft.builder("u1").kind(Kind.PREFERENCE).basis(Basis.INFERENCE).text("x")
                    .quote("成都").subject("王芳").factKey("food").build(), "fact_key");
            assertInvalid(() -> MemoryDraft.builder("u1").kind(Kind.GROWTH).basis(Basis.INFERENCE).text("x")
                    .quote("成都").build(), "kind");
            // Growth from a user statement or an assistant expression is allowed.
            a.addMemory(ALICE_WORK, MemoryDraft.builder("u1").kind(Kind.GROWTH).basis(Basis.USER_STATEMENT)
                    .text("成长 growth").quote("成都").build());
            a.addMemory(ALICE_WORK, MemoryDraft.builder("a1").kind(Kind.GROWTH).basis(Basis.ASSISTANT_EXPRESSION)
                    .text("成长 growth").quote("Nice").build());
            assertThat(memoryCount()).isEqualTo(5);
        }
    }

    @Test
    @DisplayName("M2 X3 an expressed emotion comes only from an assistant expression")
    void emotionOnlyFromAssistantExpression() throws Exception {
        Emotion joy = new Emotion("开心 joy", 0.7, 0.6);
        try (Authority a = openWithEvents()) {
            assertInvalid(() -> MemoryDraft.builder("u1").kind(Kind.EMOTION).basis(Basis.USER_STATEMENT).text("x")
                    .quote("成都").emotion(joy).build(), "emotion", "开心 joy");
            assertInvalid(() -> MemoryDraft.builder("a1").kind(Kind.EMOTION).basis(Basis.INFERENCE).text("x")
                    .quote("Nice").emotion(joy).build(), "emotion", "开心 joy");
            // A user's own emotion, without an expressed role emotion, is a normal memory.
            a.addMemory(ALICE_WORK, MemoryDraft.builder("u1").kind(Kind.EMOTION).basis(Basis.USER_STATEMENT)
                    .text("用户很开心").quote("😀").build());
            a.addMemory(ALICE_WORK, MemoryDraft.builder("a1").kind(Kind.EMOTION).basis(Basis.ASSISTANT_EXPRESSION)
                    .text("助手开心").quote("😊").emotion(joy).build());
            assertThat(memoryCount()).isEqualTo(2);
        }
    }

    @Test
    @DisplayName("E6 M2 reference and persona events are never derived into memories")
    void referenceAndPersonaEventsRejected() throws Exception {
        try (Authority a = open(dir)) {
            submit(a, AuthorityTestKit.reference("ref", ALICE_WORK, "《论语》：学而时习之 Learning with practice"));
            submit(a, new EventSubmission("per", ALICE_WORK, Role.USER, "人设：温柔 persona: gentle", "test",
                    Category.PERSONA, "s1", t("2024-05-01T10:00:00Z")));
            submit(a, new EventSubmission("cor", ALICE_WORK, Role.USER, "更正：我住在重庆 correction: Chongqing", "test",
                    Category.CORRECTION, "s1", t("2024-05-01T10:00:00Z")));
            for (Basis basis : List.of(Basis.USER_STATEMENT, Basis.INFERENCE)) {
                assertInvalid(() -> a.addMemory(ALICE_WORK, MemoryDraft.builder("ref").kind(Kind.EPISODE).basis(basis)
                        .text("x").quote("学而时习之").build()), "event", "学而时习之");
                assertInvalid(() -> a.addMemory(ALICE_WORK, MemoryDraft.builder("per").kind(Kind.PREFERENCE)
                        .basis(basis).text("x").quote("温柔").build()), "event", "温柔");
            }
            // Correction events are derivable.
            a.addMemory(ALICE_WORK, MemoryDraft.builder("cor").kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("住在重庆").quote("我住在重庆").build());
        }
        assertThat(memoryCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("M2 a memory must come from an existing event of the same scope")
    void eventMustExistInScope() throws Exception {
        try (Authority a = openWithEvents()) {
            assertInvalid(() -> a.addMemory(ALICE_WORK, MemoryDraft.builder("ghost").kind(Kind.FACT)
                    .basis(Basis.INFERENCE).text("x").quote("成都").build()), "event");
            assertInvalid(() -> a.addMemory(ALICE_HOME, userFact(user, "x").build()), "event");
            assertInvalid(() -> a.addMemory(BOB_WORK, userFact(user, "x").build()), "event");
        }
        assertThat(memoryCount()).isZero();
    }

    @Test
    @DisplayName("M2 X3 schema rules: required fields, limits, confidence in [0, 1], emotion ranges, interval order")
    void schemaRules() {
        String secret = "机密内容-secret-value";
        assertInvalid(() -> MemoryDraft.builder("bad id").kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("y")
                .build(), "event", "bad id");
        assertInvalid(() -> MemoryDraft.builder(null).kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("y")
                .build(), "event");
        assertInvalid(() -> MemoryDraft.builder("e").basis(Basis.INFERENCE).text("x").quote("y").build(), "kind");
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).text("x").quote("y").build(), "basis");
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).quote("y").build(), "text");
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text(" \n　").quote("y")
                .build(), "text");
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text("x").build(), "quote");
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("  ")
                .build(), "quote");
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE)
                .text(secret.repeat(200)).quote("y").build(), "text", secret);
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text("x")
                .quote(secret.repeat(200)).build(), "quote", secret);
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text(secret + "\u0000")
                .quote("y").build(), "text", secret);
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("y")
                .gist(secret.repeat(20)).build(), "gist", secret);
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("y")
                .gist("   ").build(), "gist");
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.USER_STATEMENT).text("x").quote("y")
                .subject(secret.repeat(20)).build(), "subject", secret);
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.USER_STATEMENT).text("x").quote("y")
                .subject("s").factKey(secret.repeat(20)).build(), "fact_key", secret);
        for (double bad : new double[] {-0.01, 1.01, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("y")
                    .confidence(bad).build(), "confidence", Double.toString(bad));
        }
        assertInvalid(() -> new Emotion(" ", 0, 0), "emotion_label");
        assertInvalid(() -> new Emotion("x", -1.5, 0), "valence", "-1.5");
        assertInvalid(() -> new Emotion("x", Double.NaN, 0), "valence");
        assertInvalid(() -> new Emotion("x", 0, 1.5), "arousal", "1.5");
        assertInvalid(() -> new Emotion("x", 0, -0.1), "arousal", "-0.1");
        List<String> tooMany = new ArrayList<>();
        for (int i = 0; i <= Limits.MAX_CUES; i++) {
            tooMany.add("cue" + i);
        }
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("y")
                .cues(tooMany).build(), "cue");
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("y")
                .cue("ok").cue(" ").build(), "cue[1]");
        assertInvalid(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("y")
                .validAt(t("2024-05-02T00:00:00Z")).invalidAt(t("2024-05-01T00:00:00Z")).build(), "invalid_at");
        assertInvalid(() -> Kind.parse("kind", "记忆-memory"), "kind", "记忆-memory");
        assertInvalid(() -> Basis.parse("basis", "hearsay-传闻"), "basis", "hearsay-传闻");
    }

    @Test
    @DisplayName("M2 an invalid_at before the source event's time (default valid_at) is rejected")
    void invalidAtBeforeDefaultStart() throws Exception {
        try (Authority a = openWithEvents()) {
            assertInvalid(() -> a.addMemory(ALICE_WORK, userFact(user, "x")
                    .invalidAt(user.occurredAt().minusSeconds(60)).build()), "invalid_at");
        }
        assertThat(memoryCount()).isZero();
    }

    @Test
    @DisplayName("M2 batch: a rejected derivation leaves earlier ones committed and nothing of later ones")
    void batchStopsAtRejectedItem() throws Exception {
        AuthorityTestKit.RecordingIndex index = new AuthorityTestKit.RecordingIndex();
        try (Authority a = open(dir, index)) {
            Event u = submit(a, event("u1", ALICE_WORK, Role.USER, USER_TEXT));
            Event b = submit(a, event("b1", BOB_WORK, Role.USER, "Bob 喜欢跑步 likes running"));
            List<Derivation> batch = List.of(
                    new Derivation(ALICE_WORK, userFact(u, "王芳30岁").quote("今年三十岁").build()),
                    new Derivation(BOB_WORK, userFact(b, "Bob runs").quote("likes running").build()),
                    new Derivation(ALICE_WORK, userFact(u, "bad quote").quote("住在上海").build()),
                    new Derivation(ALICE_WORK, userFact(u, "never tried").quote("成都").build()));
            BatchResult<Memory> r = a.addMemories(batch);
            assertThat(r.failed()).isTrue();
            assertThat(r.failedAt()).isEqualTo(2);
            assertThat(r.error()).isInstanceOfSatisfying(InvalidInputException.class,
                    e -> assertThat(e.field()).isEqualTo("quote"));
            assertThat(r.committed()).extracting(Memory::text).containsExactly("王芳30岁", "Bob runs");
            assertThat(a.memory(ALICE_WORK, r.committed().get(0).id())).contains(r.committed().get(0));
            assertThat(a.memory(BOB_WORK, r.committed().get(1).id())).contains(r.committed().get(1));
            assertThat(a.changesAfter(0, 100)).filteredOn(c -> c.entity() == ChangeLog.Entity.MEMORY)
                    .extracting(ChangeLog.Entry::entityId)
                    .containsExactly(r.committed().get(0).id(), r.committed().get(1).id());
        }
        assertThat(AuthorityTestKit.strings(dbFile(dir), "SELECT text FROM memories ORDER BY seq"))
                .containsExactly("王芳30岁", "Bob runs");
        assertThat(AuthorityTestKit.RecordingIndex.committed(dbFile(dir))).filteredOn(s -> s.startsWith("memory:"))
                .hasSize(2);
    }

    @Test
    @DisplayName("M2 batch: all accepted derivations succeed together; a rejected first item commits nothing")
    void batchAllOrFirst() throws Exception {
        try (Authority a = openWithEvents()) {
            BatchResult<Memory> ok = a.addMemories(List.of(
                    new Derivation(ALICE_WORK, userFact(user, "一").quote("王芳").build()),
                    new Derivation(ALICE_WORK, MemoryDraft.builder("a1").kind(Kind.AGREEMENT)
                            .basis(Basis.ASSISTANT_EXPRESSION).text("二").quote("Nice").build())));
            assertThat(ok.failed()).isFalse();
            assertThat(ok.failedAt()).isEqualTo(-1);
            assertThat(ok.committed()).hasSize(2);

            BatchResult<Memory> bad = a.addMemories(List.of(
                    new Derivation(ALICE_WORK, MemoryDraft.builder("a1").kind(Kind.FACT)
                            .basis(Basis.USER_STATEMENT).text("wrong role").quote("Nice").build()),
                    new Derivation(ALICE_WORK, userFact(user, "三").quote("王芳").build())));
            assertThat(bad.failedAt()).isZero();
            assertThat(bad.committed()).isEmpty();
            assertThat(bad.error()).isInstanceOf(InvalidInputException.class);
            assertThat(memoryCount()).isEqualTo(2);
        }
    }

    @Test
    @DisplayName("M2 batch: a timeline closed by a committed item stays closed, later rejected items change nothing")
    void batchTimelineConsistency() throws Exception {
        try (Authority a = openWithEvents()) {
            Memory p = a.addMemory(ALICE_WORK, AuthorityTestKit.timelineFact(user, "王芳", "city",
                    t("2020-01-01T00:00:00Z")));
            BatchResult<Memory> r = a.addMemories(List.of(
                    new Derivation(ALICE_WORK, AuthorityTestKit.timelineFact(user, "王芳", "city",
                            t("2022-01-01T00:00:00Z"))),
                    new Derivation(ALICE_WORK, MemoryDraft.builder("ghost").kind(Kind.FACT).basis(Basis.INFERENCE)
                            .text("x").quote("x").build()),
                    new Derivation(ALICE_WORK, AuthorityTestKit.timelineFact(user, "王芳", "city",
                            t("2023-01-01T00:00:00Z")))));
            assertThat(r.failedAt()).isEqualTo(1);
            Memory committed = r.committed().get(0);
            assertThat(a.memory(ALICE_WORK, p.id()).orElseThrow().validity().invalidAt())
                    .isEqualTo(t("2022-01-01T00:00:00Z"));
            assertThat(a.memory(ALICE_WORK, committed.id()).orElseThrow().validity().open()).isTrue();
            assertThat(memoryCount()).isEqualTo(2);
        }
    }
}
