package dev.jiyi.authority;

import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.TransactionalIndex;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.dump;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.invalidatedAt;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.strings;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.timelineFact;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Correction (C1, C2), the authority facts behind C3 (amended source, revoked memory kept for audit),
 * the placement of a corrected fact on its timeline (T4, T5) and checkpoint invalidation (D3).
 */
class CorrectionTest {

    @TempDir
    Path dir;

    private static final Instant T2020 = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant T2021 = Instant.parse("2021-01-01T00:00:00Z");
    private static final Instant T2022 = Instant.parse("2022-01-01T00:00:00Z");
    private static final Instant T2023 = Instant.parse("2023-01-01T00:00:00Z");
    private static final Instant T2024 = Instant.parse("2024-01-01T00:00:00Z");
    private static final Instant T2025 = Instant.parse("2025-01-01T00:00:00Z");

    private int counter;

    // ------------------------------------------------------------------ fixtures

    private Event say(Authority a, Scope scope, Role role, String text, Instant at) {
        return submit(a, event("ev-" + counter++, scope, role, text, at));
    }

    private Event sayIn(Authority a, Scope scope, String session, String text) {
        return submit(a, new EventSubmission("ev-" + counter++, scope, Role.USER, text, "test", Category.CONVERSATION,
                session, Instant.parse("2024-05-01T02:00:00Z")));
    }

    /** A timeline member of (subject, key) valid from {@code validAt}, from its own user event. */
    private Memory fact(Authority a, Scope scope, String subject, String key, Instant validAt) {
        Event e = say(a, scope, Role.USER, subject + " 的 " + key + " 是这样 is so since " + validAt, validAt);
        return a.addMemory(scope, timelineFact(e, subject, key, validAt));
    }

    /** A non-timeline episode with an explicit interval, to isolate C2 from T4. */
    private Memory episode(Authority a, Scope scope, String text, Instant validAt, Instant invalidAt) {
        Event e = say(a, scope, Role.USER, text, validAt);
        return a.addMemory(scope, userFact(e, text).kind(Kind.EPISODE).validAt(validAt).invalidAt(invalidAt).build());
    }

    private static Memory reload(Authority a, Scope scope, Memory m) {
        return a.memory(scope, m.id()).orElseThrow();
    }

    private static Validity validity(Authority a, Scope scope, Memory m) {
        return reload(a, scope, m).validity();
    }

    private static CorrectionDraft draft(String text) {
        return new CorrectionDraft(text, null, null);
    }

    private static Checkpoint checkpoint(Authority a, Scope scope, Event covered) {
        return a.saveCheckpoint(scope, new CheckpointDraft(covered.sessionId(), "完成迁移 finish the migration",
                List.of("备份 backup"), List.of("校验 verify"), List.of(), "运行 doctor", covered.sequence()));
    }

    private Path db() {
        return dbFile(dir);
    }

    // ------------------------------------------------------------------ C1: what a correction creates

    @Test
    @DisplayName("C1 a correction creates a stored explicit-correction event: category correction, the mistaken source's role, its own session, jiyi's source")
    void correctionEvent() {
        try (Authority a = open(dir)) {
            Event original = say(a, ALICE_WORK, Role.USER, "我住在北京 I live in Beijing", T2020);
            Memory mistaken = a.addMemory(ALICE_WORK, userFact(original, "住在北京 lives in Beijing").build());

            Correction c = a.correctMemory(ALICE_WORK, mistaken.id(), draft("我住在南京，不是北京 I live in Nanjing"));

            Event ev = c.event();
            assertThat(ev.id()).startsWith("corr_").isNotEqualTo(original.id());
            assertThat(ev.category()).isEqualTo(Category.CORRECTION);
            assertThat(ev.role()).isEqualTo(Role.USER);
            assertThat(ev.source()).isEqualTo(Authority.CORRECTION_SOURCE);
            assertThat(ev.sessionId()).isEqualTo(ev.id()).isNotEqualTo(original.sessionId());
            assertThat(ev.text()).isEqualTo("我住在南京，不是北京 I live in Nanjing");
            assertThat(ev.scope()).isEqualTo(ALICE_WORK);
            assertThat(ev.sequence()).isGreaterThan(original.sequence());
            assertThat(ev.amended()).isFalse();
            assertThat(a.event(ALICE_WORK, ev.id())).contains(ev);
            assertThat(a.events(ALICE_WORK, 0, 100)).extracting(Event::id).containsExactly(original.id(), ev.id());
            assertThat(c.corrected().eventId()).isEqualTo(ev.id());

            // A second correction gets another event in another session.
            Correction again = a.correctMemory(ALICE_WORK, c.corrected().id(), draft("南京市鼓楼区 Gulou, Nanjing"));
            assertThat(again.event().id()).isNotEqualTo(ev.id());
            assertThat(again.event().sessionId()).isEqualTo(again.event().id()).isNotEqualTo(ev.sessionId());
        }
    }

    @Test
    @DisplayName("C1 the mistaken memory is revoked but kept unchanged for audit; the memories co-derived with it are untouched")
    void mistakenRevokedSiblingsUntouched() {
        try (Authority a = open(dir)) {
            Event original = say(a, ALICE_WORK, Role.USER, "我叫小李，我养了一只猫 I'm Xiao Li and I have a cat", T2020);
            Memory mistaken = a.addMemory(ALICE_WORK, userFact(original, "养了一只狗 has a dog").quote("我养了一只猫").build());
            Memory sibling = a.addMemory(ALICE_WORK, userFact(original, "名字是小李 name is Xiao Li").quote("我叫小李").build());
            Memory unrelated = a.addMemory(ALICE_WORK, userFact(say(a, ALICE_WORK, Role.USER, "今天下雨 rain", T2021),
                    "下雨").build());

            Correction c = a.correctMemory(ALICE_WORK, mistaken.id(), new CorrectionDraft("养了一只猫 has a cat", "猫", null));

            Memory stored = reload(a, ALICE_WORK, mistaken);
            assertThat(stored.revoked()).isTrue();
            assertThat(stored.revokedAt()).isNotNull();
            assertThat(c.revoked()).isEqualTo(stored);
            assertThat(stored).usingRecursiveComparison().ignoringFields("revokedAt").isEqualTo(mistaken);
            assertThat(reload(a, ALICE_WORK, sibling)).isEqualTo(sibling);
            assertThat(reload(a, ALICE_WORK, unrelated)).isEqualTo(unrelated);
            assertThat(c.corrected().revoked()).isFalse();
            assertThat(reload(a, ALICE_WORK, c.corrected())).isEqualTo(c.corrected());
        }
    }

    @Test
    @DisplayName("C1 the corrected memory copies kind, basis, confidence, subject, fact key and emotion; it drops gist and cues")
    void correctedCopiesAndDrops() {
        try (Authority a = open(dir)) {
            // A user preference on a timeline, with a gist and cues.
            Event userEvent = say(a, ALICE_WORK, Role.USER, "我最喜欢的颜色是蓝色 my favourite colour is blue", T2020);
            Memory pref = a.addMemory(ALICE_WORK, MemoryDraft.builder(userEvent.id()).kind(Kind.PREFERENCE)
                    .basis(Basis.USER_STATEMENT).text("最喜欢蓝色 likes blue").quote("蓝色").confidence(0.42)
                    .subject("我").factKey("最喜欢的颜色").gist("颜色偏好 colour preference")
                    .cue("photo:IMG_0042.jpg").cue("标签:蓝").build());
            Correction p = a.correctMemory(ALICE_WORK, pref.id(),
                    new CorrectionDraft("最喜欢绿色 likes green", "绿色", null));
            Memory cp = p.corrected();
            assertThat(cp.kind()).isEqualTo(Kind.PREFERENCE);
            assertThat(cp.basis()).isEqualTo(Basis.USER_STATEMENT);
            assertThat(cp.confidence()).isEqualTo(0.42);
            assertThat(cp.subject()).isEqualTo("我");
            assertThat(cp.factKey()).isEqualTo("最喜欢的颜色");
            assertThat(cp.emotion()).isNull();
            assertThat(cp.gist()).isNull();
            assertThat(cp.cueKeys()).isEmpty();
            assertThat(cp.text()).isEqualTo("最喜欢绿色 likes green");
            assertThat(cp.quote()).isEqualTo("绿色");
            assertThat(cp.scope()).isEqualTo(ALICE_WORK);
            assertThat(cp.id()).isNotEqualTo(pref.id());
            assertThat(reload(a, ALICE_WORK, cp)).isEqualTo(cp);

            // An assistant-expressed emotion: the correction event is an assistant event, the emotion is kept.
            Emotion worried = new Emotion("担心 worried", -0.4, 0.6);
            Event asst = say(a, ALICE_WORK, Role.ASSISTANT, "我有点担心你的进度 I'm a bit worried about your progress", T2021);
            Memory feeling = a.addMemory(ALICE_WORK, MemoryDraft.builder(asst.id()).kind(Kind.EMOTION)
                    .basis(Basis.ASSISTANT_EXPRESSION).text("助手担心进度").quote("担心").confidence(0.9)
                    .emotion(worried).gist("担心 gist").cue("text:进度").build());
            Correction e = a.correctMemory(ALICE_WORK, feeling.id(), draft("助手其实担心的是截止日期 worried about the deadline"));
            assertThat(e.event().role()).isEqualTo(Role.ASSISTANT);
            assertThat(e.corrected().kind()).isEqualTo(Kind.EMOTION);
            assertThat(e.corrected().basis()).isEqualTo(Basis.ASSISTANT_EXPRESSION);
            assertThat(e.corrected().confidence()).isEqualTo(0.9);
            assertThat(e.corrected().emotion()).isEqualTo(worried);
            assertThat(e.corrected().subject()).isNull();
            assertThat(e.corrected().factKey()).isNull();
            assertThat(e.corrected().gist()).isNull();
            assertThat(e.corrected().cueKeys()).isEmpty();
            assertThat(e.corrected().quote()).isEqualTo("助手其实担心的是截止日期 worried about the deadline");

            // An inference from a system event: the correction event is a system event.
            Event sys = say(a, ALICE_WORK, Role.SYSTEM, "session started in Shanghai 会话在上海开始", T2022);
            Memory guess = a.addMemory(ALICE_WORK, MemoryDraft.builder(sys.id()).kind(Kind.OBSERVATION)
                    .basis(Basis.INFERENCE).text("user is in Shanghai").quote("Shanghai").confidence(0.3).build());
            Correction g = a.correctMemory(ALICE_WORK, guess.id(), draft("user is in Hangzhou 用户在杭州"));
            assertThat(g.event().role()).isEqualTo(Role.SYSTEM);
            assertThat(g.corrected().basis()).isEqualTo(Basis.INFERENCE);
            assertThat(g.corrected().kind()).isEqualTo(Kind.OBSERVATION);
            assertThat(g.corrected().confidence()).isEqualTo(0.3);
        }
    }

    @Test
    @DisplayName("C1 M3 a corrects relation runs from the corrected memory to the mistaken one and is stored")
    void correctsRelation() throws Exception {
        try (Authority a = open(dir)) {
            Event original = say(a, ALICE_WORK, Role.USER, "my dentist is Dr. Wang 我的牙医是王医生", T2020);
            Memory mistaken = a.addMemory(ALICE_WORK, userFact(original, "dentist Dr. Wang").build());
            Correction c = a.correctMemory(ALICE_WORK, mistaken.id(), draft("my dentist is Dr. Huang 黄医生"));

            assertThat(c.relation().type()).isEqualTo(RelationType.CORRECTS);
            assertThat(c.relation().fromId()).isEqualTo(c.corrected().id());
            assertThat(c.relation().toId()).isEqualTo(mistaken.id());
            assertThat(strings(db(), "SELECT from_id || '>' || to_id || ':' || type || ':' || persona_id || '/' || project_id "
                    + "FROM relations")).containsExactly(c.corrected().id() + ">" + mistaken.id() + ":corrects:alice/work");
            assertThat(a.readMemory(ALICE_WORK, mistaken.id(), 1, Authority.DEFAULT_PAGE_SIZE).relations())
                    .containsExactly(c.relation());
            assertThat(a.readMemory(ALICE_WORK, c.corrected().id(), 1, Authority.DEFAULT_PAGE_SIZE).relations())
                    .containsExactly(c.relation());
        }
    }

    @Test
    @DisplayName("C1 C3 the old source event is marked amended with its text unchanged; both events count as derived, so neither raw text stands in for a memory")
    void oldEventAmended() {
        Event original;
        Correction c;
        try (Authority a = open(dir)) {
            original = say(a, ALICE_WORK, Role.USER, "会议改到周三了 the meeting moved to Wednesday", T2020);
            Memory mistaken = a.addMemory(ALICE_WORK, userFact(original, "会议在周二 meeting on Tuesday").build());
            Event untouched = say(a, ALICE_WORK, Role.USER, "别的事 something else", T2021);
            a.addMemory(ALICE_WORK, userFact(untouched, "别的事").build());
            assertThat(original.amended()).isFalse();

            c = a.correctMemory(ALICE_WORK, mistaken.id(), draft("会议在周三 meeting on Wednesday"));

            Event stored = a.event(ALICE_WORK, original.id()).orElseThrow();
            assertThat(stored.amended()).isTrue();
            assertThat(stored.text()).isEqualTo(original.text());
            assertThat(stored).usingRecursiveComparison().ignoringFields("amended").isEqualTo(original);
            assertThat(a.event(ALICE_WORK, untouched.id()).orElseThrow().amended()).isFalse();
            assertThat(a.event(ALICE_WORK, c.event().id()).orElseThrow().amended()).isFalse();
            assertThat(a.readMemory(ALICE_WORK, mistaken.id(), 1, 100).source().amended()).isTrue();

            List<RawEventRow> rows = a.read(snap -> snap.rawEvents(ALICE_WORK, List.of(original.sequence(), c.event().sequence())));
            assertThat(rows).extracting(r -> r.event().id()).containsExactly(original.id(), c.event().id());
            assertThat(rows).allSatisfy(r -> assertThat(r.derived()).isTrue());
            assertThat(rows.get(0).event().amended()).isTrue();
        }
        // Durable: the flag and the revocation survive reopening.
        try (Authority a = open(dir)) {
            assertThat(a.event(ALICE_WORK, original.id()).orElseThrow().amended()).isTrue();
            assertThat(a.memory(ALICE_WORK, c.revoked().id()).orElseThrow().revoked()).isTrue();
            assertThat(a.memory(ALICE_WORK, c.corrected().id())).contains(c.corrected());
        }
    }

    @Test
    @DisplayName("C1 L2 a correction appends change-log entries for each write, IDs only, never text")
    void correctionChangeLog() {
        try (Authority a = open(dir)) {
            Event original = say(a, ALICE_WORK, Role.USER, "我的生日是五月一日 birthday May 1st", T2020);
            Memory mistaken = a.addMemory(ALICE_WORK, userFact(original, "生日五月二日").build());
            Checkpoint cp = checkpoint(a, ALICE_WORK, original);
            long before = a.changesAfter(0, 1000).getLast().seq();

            String secretText = "生日是五月一日 birthday-secret-May-1";
            Correction c = a.correctMemory(ALICE_WORK, mistaken.id(), draft(secretText));

            List<ChangeLog.Entry> log = a.changesAfter(before, 1000);
            assertThat(log).extracting(e -> e.entity() + ":" + e.op() + ":" + e.entityId()).containsExactlyInAnyOrder(
                    "event:insert:" + c.event().id(),
                    "memory:update:" + mistaken.id(),
                    "memory:insert:" + c.corrected().id(),
                    "relation:insert:" + c.corrected().id() + "->" + mistaken.id(),
                    "event:update:" + original.id(),
                    "checkpoint:update:" + cp.id());
            assertThat(log).allSatisfy(e -> {
                assertThat(e.personaId()).isEqualTo("alice");
                assertThat(e.projectId()).isEqualTo("work");
                assertThat(e.entityId()).doesNotContain("生日").doesNotContain("secret");
            });
        }
    }

    @Test
    @DisplayName("C1 the attached index is fed the correction event and the corrected memory in the same transaction")
    void indexSeesCorrection() throws Exception {
        AuthorityTestKit.RecordingIndex index = new AuthorityTestKit.RecordingIndex();
        try (Authority a = open(dir, index)) {
            Event original = say(a, ALICE_WORK, Role.USER, "I like jazz 我喜欢爵士乐", T2020);
            Memory mistaken = a.addMemory(ALICE_WORK, userFact(original, "likes rock").build());
            Correction c = a.correctMemory(ALICE_WORK, mistaken.id(), draft("likes jazz 喜欢爵士乐"));
            assertThat(AuthorityTestKit.RecordingIndex.committed(db())).containsExactly(
                    "event:" + original.id(), "memory:" + mistaken.id(),
                    "event:" + c.event().id(), "memory:" + c.corrected().id());
        }
    }

    @Test
    @DisplayName("C1 D3 a correction is one transaction: an index failure on the corrected memory leaves no event, revocation, amendment, relation or invalidation")
    void correctionIsAtomic() throws Exception {
        final class FailOnMemoryText implements TransactionalIndex {
            final List<String> calls = new ArrayList<>();

            @Override
            public void eventAdded(Sql tx, Event event) {
                calls.add("event");
            }

            @Override
            public void eventRemoved(Sql tx, Event event) {
            }

            @Override
            public void memoryAdded(Sql tx, Memory memory) throws SQLException {
                calls.add("memory");
                if (memory.text().contains("索引失败")) {
                    throw new SQLException("index write failed");
                }
            }

            @Override
            public void memoryRemoved(Sql tx, Memory memory) {
            }
        }
        FailOnMemoryText index = new FailOnMemoryText();
        try (Authority a = open(dir, index)) {
            Event original = say(a, ALICE_WORK, Role.USER, "我在学德语 learning German", T2020);
            Memory mistaken = a.addMemory(ALICE_WORK, userFact(original, "学法语 learning French").build());
            Checkpoint cp = checkpoint(a, ALICE_WORK, original);
            Map<String, List<String>> before = dump(db());
            index.calls.clear();

            assertThatThrownBy(() -> a.correctMemory(ALICE_WORK, mistaken.id(), draft("学德语 索引失败 German")))
                    .isInstanceOf(StorageException.class);
            // The failure happened after the event was inserted: the rollback is what undid it.
            assertThat(index.calls).containsExactly("event", "memory");
            assertThat(dump(db())).isEqualTo(before);
            assertThat(reload(a, ALICE_WORK, mistaken).revoked()).isFalse();
            assertThat(a.event(ALICE_WORK, original.id()).orElseThrow().amended()).isFalse();
            assertThat(a.latestCheckpoint(ALICE_WORK, null)).map(Checkpoint::id).contains(cp.id());

            // The same correction then succeeds.
            Correction c = a.correctMemory(ALICE_WORK, mistaken.id(), draft("学德语 learning German"));
            assertThat(reload(a, ALICE_WORK, mistaken).revoked()).isTrue();
            assertThat(c.checkpointsInvalidated()).isEqualTo(1);
            assertThat(a.doctor().healthy()).isTrue();
        }
    }

    // ------------------------------------------------------------------ C1 lineage in memory read

    @Test
    @DisplayName("C1 M4 memory read shows the lineage of two successive corrections in both directions, nearest first; related links are not lineage")
    void lineageAcrossTwoCorrections() {
        try (Authority a = open(dir)) {
            Event original = say(a, CJK_SCOPE, Role.USER, "我的车是红色的 my car is red", T2020);
            Memory m0 = a.addMemory(CJK_SCOPE, userFact(original, "车是蓝色 car is blue").build());
            Event other = say(a, CJK_SCOPE, Role.USER, "车停在车库 the car is in the garage", T2020);
            Memory neighbour = a.addMemory(CJK_SCOPE, userFact(other, "车在车库").build());
            a.relate(CJK_SCOPE, m0.id(), neighbour.id());

            Correction first = a.correctMemory(CJK_SCOPE, m0.id(), draft("车是绿色 car is green"));
            Memory m1 = first.corrected();
            Correction second = a.correctMemory(CJK_SCOPE, m1.id(), draft("车是红色 car is red"));
            Memory m2 = second.corrected();

            MemoryView v0 = a.readMemory(CJK_SCOPE, m0.id(), 1, Authority.DEFAULT_PAGE_SIZE);
            MemoryView v1 = a.readMemory(CJK_SCOPE, m1.id(), 1, Authority.DEFAULT_PAGE_SIZE);
            MemoryView v2 = a.readMemory(CJK_SCOPE, m2.id(), 1, Authority.DEFAULT_PAGE_SIZE);

            assertThat(v0.corrects()).isEmpty();
            assertThat(v0.correctedBy()).extracting(Memory::id).containsExactly(m1.id(), m2.id());
            assertThat(v1.corrects()).extracting(Memory::id).containsExactly(m0.id());
            assertThat(v1.correctedBy()).extracting(Memory::id).containsExactly(m2.id());
            assertThat(v2.corrects()).extracting(Memory::id).containsExactly(m1.id(), m0.id());
            assertThat(v2.correctedBy()).isEmpty();
            // Lineage entries carry the stored state: both earlier ones revoked, the newest not.
            assertThat(v2.corrects()).allSatisfy(m -> assertThat(m.revoked()).isTrue());
            assertThat(v0.correctedBy().get(1).revoked()).isFalse();
            assertThat(v0.memory().revoked()).isTrue();
            assertThat(v1.memory().revoked()).isTrue();
            assertThat(v2.memory().revoked()).isFalse();
            // The middle one has both edges; the related neighbour is not in any lineage.
            assertThat(v1.relations()).extracting(r -> r.fromId() + ">" + r.toId() + ":" + r.type())
                    .containsExactlyInAnyOrder(m1.id() + ">" + m0.id() + ":CORRECTS", m2.id() + ">" + m1.id() + ":CORRECTS");
            assertThat(v0.relations()).hasSize(2);
            MemoryView vn = a.readMemory(CJK_SCOPE, neighbour.id(), 1, Authority.DEFAULT_PAGE_SIZE);
            assertThat(vn.corrects()).isEmpty();
            assertThat(vn.correctedBy()).isEmpty();
            // Each correction amends the event it corrected: the first correction event is amended now.
            assertThat(a.event(CJK_SCOPE, first.event().id()).orElseThrow().amended()).isTrue();
            assertThat(a.event(CJK_SCOPE, second.event().id()).orElseThrow().amended()).isFalse();
            assertThat(a.event(CJK_SCOPE, original.id()).orElseThrow().amended()).isTrue();
            assertThat(second.revoked().id()).isEqualTo(m1.id());
        }
    }

    // ------------------------------------------------------------------ C2: validity of the corrected memory

    @Test
    @DisplayName("C2 a correction without valid_at keeps the mistaken memory's start, not the correction event's time")
    void keepsStart() {
        try (Authority a = open(dir)) {
            Event e = say(a, ALICE_WORK, Role.USER, "2019年我在杭州工作 worked in Hangzhou in 2019",
                    Instant.parse("2019-03-04T05:06:07.123456Z"));
            // Unknown validity: starts at the source event's occurrence time (T2).
            Memory implicit = a.addMemory(ALICE_WORK, userFact(e, "在杭州工作").kind(Kind.EPISODE).build());
            Memory explicit = episode(a, ALICE_WORK, "去过西安 visited Xi'an", T2021, null);

            Correction c1 = a.correctMemory(ALICE_WORK, implicit.id(), draft("在苏州工作 worked in Suzhou"));
            Correction c2 = a.correctMemory(ALICE_WORK, explicit.id(), draft("去过成都 visited Chengdu"));

            assertThat(c1.corrected().validity()).isEqualTo(Validity.from(Instant.parse("2019-03-04T05:06:07.123456Z")));
            assertThat(c2.corrected().validity()).isEqualTo(Validity.from(T2021));
            assertThat(c1.event().occurredAt()).isAfter(T2024);
            assertThat(validity(a, ALICE_WORK, c1.corrected())).isEqualTo(c1.corrected().validity());
        }
    }

    @Test
    @DisplayName("C2 a correction with valid_at starts at the given time")
    void givenStart() {
        try (Authority a = open(dir)) {
            Memory m = episode(a, ALICE_WORK, "搬家了 moved house", T2021, null);
            Instant start = Instant.parse("2020-06-15T08:30:00Z");
            Correction c = a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft("早半年就搬了 moved half a year earlier",
                    null, start));
            assertThat(c.corrected().validity()).isEqualTo(Validity.from(start));
            assertThat(validity(a, ALICE_WORK, c.corrected())).isEqualTo(Validity.from(start));
            assertThat(c.revoked().validity()).isEqualTo(m.validity());
        }
    }

    @Test
    @DisplayName("C2 T3 the mistaken end is kept when it is after the new start and dropped when the new start is at or after it")
    void endKeptOrDropped() {
        try (Authority a = open(dir)) {
            Memory keepBoth = episode(a, ALICE_WORK, "在深圳实习 internship in Shenzhen", T2020, T2022);
            Memory laterStart = episode(a, ALICE_WORK, "在广州实习 internship in Guangzhou", T2020, T2022);
            Memory atEnd = episode(a, ALICE_WORK, "在厦门实习 internship in Xiamen", T2020, T2022);
            Memory afterEnd = episode(a, ALICE_WORK, "在青岛实习 internship in Qingdao", T2020, T2022);

            assertThat(a.correctMemory(ALICE_WORK, keepBoth.id(), draft("在深圳读书 studied in Shenzhen"))
                    .corrected().validity()).isEqualTo(new Validity(T2020, T2022));
            assertThat(a.correctMemory(ALICE_WORK, laterStart.id(), new CorrectionDraft("在广州读书", null, T2021))
                    .corrected().validity()).isEqualTo(new Validity(T2021, T2022));
            assertThat(a.correctMemory(ALICE_WORK, atEnd.id(), new CorrectionDraft("在厦门读书", null, T2022))
                    .corrected().validity()).isEqualTo(Validity.from(T2022));
            assertThat(a.correctMemory(ALICE_WORK, afterEnd.id(), new CorrectionDraft("在青岛读书", null, T2023))
                    .corrected().validity()).isEqualTo(Validity.from(T2023));
        }
    }

    // ------------------------------------------------------------------ T4: a corrected timeline member

    @Test
    @DisplayName("T4 C2 a corrected middle member without valid_at keeps its place: its start, closed at its successor; neighbours unchanged")
    void correctedMiddleKeepsPlace() {
        try (Authority a = open(dir)) {
            Memory first = fact(a, ALICE_WORK, "我", "公司", T2020);
            Memory middle = fact(a, ALICE_WORK, "我", "公司", T2022);
            Memory last = fact(a, ALICE_WORK, "我", "公司", T2024);
            assertThat(validity(a, ALICE_WORK, middle)).isEqualTo(new Validity(T2022, T2024));

            Correction c = a.correctMemory(ALICE_WORK, middle.id(), draft("我在腾讯 I worked at Tencent"));

            assertThat(c.corrected().validity()).isEqualTo(new Validity(T2022, T2024));
            assertThat(validity(a, ALICE_WORK, first)).isEqualTo(new Validity(T2020, T2022));
            assertThat(validity(a, ALICE_WORK, last)).isEqualTo(Validity.from(T2024));
            assertThat(c.revoked().validity()).isEqualTo(new Validity(T2022, T2024));
        }
    }

    @Test
    @DisplayName("T4 C2 a corrected member with an earlier valid_at closes its predecessor at the new start and is closed at its successor")
    void correctedEarlierStart() {
        try (Authority a = open(dir)) {
            Memory first = fact(a, ALICE_WORK, "小红", "城市", T2020);
            Memory middle = fact(a, ALICE_WORK, "小红", "城市", T2022);
            Memory last = fact(a, ALICE_WORK, "小红", "城市", T2024);

            Correction c = a.correctMemory(ALICE_WORK, middle.id(), new CorrectionDraft("小红2021年搬到上海", "上海", T2021));

            assertThat(validity(a, ALICE_WORK, first)).isEqualTo(new Validity(T2020, T2021));
            assertThat(c.corrected().validity()).isEqualTo(new Validity(T2021, T2024));
            assertThat(validity(a, ALICE_WORK, c.corrected())).isEqualTo(new Validity(T2021, T2024));
            assertThat(validity(a, ALICE_WORK, last)).isEqualTo(Validity.from(T2024));
        }
    }

    @Test
    @DisplayName("T4 C2 a corrected member moved past its successor closes that successor and is current; the closing the mistaken "
            + "member caused is undone, so its predecessor runs to the next member and no instant is left without a fact")
    void correctedMovedPastSuccessor() {
        try (Authority a = open(dir)) {
            Memory first = fact(a, ALICE_WORK, "Bob", "team", T2020);
            Memory middle = fact(a, ALICE_WORK, "Bob", "team", T2022);
            Memory last = fact(a, ALICE_WORK, "Bob", "team", T2024);

            Correction c = a.correctMemory(ALICE_WORK, middle.id(), new CorrectionDraft("Bob joined infra in 2025", null, T2025));

            assertThat(validity(a, ALICE_WORK, last)).isEqualTo(new Validity(T2024, T2025));
            assertThat(c.corrected().validity()).isEqualTo(Validity.from(T2025));
            assertThat(validity(a, ALICE_WORK, first)).isEqualTo(new Validity(T2020, T2024));
            // From the first start on, exactly one live member is valid at any instant.
            for (Instant probe : List.of(T2020, T2021, T2023, T2024, T2025, Instant.parse("2030-01-01T00:00:00Z"))) {
                long valid = List.of(first, last, c.corrected()).stream()
                        .filter(m -> validity(a, ALICE_WORK, m).contains(probe)).count();
                assertThat(valid).as("live members valid at %s", probe).isEqualTo(1);
            }
        }
    }

    @Test
    @DisplayName("T4 R8 the revoked member takes no part in the timeline: a later fact closes the corrected member and leaves the revoked one as it was")
    void revokedTakesNoPart() {
        try (Authority a = open(dir)) {
            Memory wrong = fact(a, ALICE_WORK, "me", "phone", T2020);
            Correction c = a.correctMemory(ALICE_WORK, wrong.id(), draft("my phone is a Pixel 我用Pixel"));
            assertThat(c.corrected().validity()).isEqualTo(Validity.from(T2020));
            Memory later = fact(a, ALICE_WORK, "me", "phone", T2023);

            assertThat(validity(a, ALICE_WORK, c.corrected())).isEqualTo(new Validity(T2020, T2023));
            assertThat(validity(a, ALICE_WORK, later)).isEqualTo(Validity.from(T2023));
            Memory revoked = reload(a, ALICE_WORK, wrong);
            assertThat(revoked.revoked()).isTrue();
            assertThat(revoked.validity()).isEqualTo(Validity.from(T2020));
        }
    }

    // ------------------------------------------------------------------ T5: deterministic ties

    @Test
    @DisplayName("T5 equal starts are ordered by the source event's sequence, not by the order memories were derived in")
    void tieBySourceSequence() {
        try (Authority a = open(dir)) {
            Event early = say(a, ALICE_WORK, Role.USER, "猫叫咪咪 the cat is Mimi", T2020);
            Event late = say(a, ALICE_WORK, Role.USER, "猫叫团团 the cat is Tuantuan", T2020);
            // Extraction of the later event finishes first.
            Memory fromLate = a.addMemory(ALICE_WORK, timelineFact(late, "猫", "名字", T2021));
            Memory fromEarly = a.addMemory(ALICE_WORK, timelineFact(early, "猫", "名字", T2021));

            assertThat(validity(a, ALICE_WORK, fromEarly)).isEqualTo(new Validity(T2021, T2021));
            assertThat(validity(a, ALICE_WORK, fromLate)).isEqualTo(Validity.from(T2021));
            assertThat(fromEarly.validity()).isEqualTo(new Validity(T2021, T2021));
        }
    }

    @Test
    @DisplayName("T5 memories of one event with equal starts are ordered by memory ID, whatever order they were derived in")
    void tieByMemoryId() {
        try (Authority a = open(dir)) {
            for (int round = 0; round < 6; round++) {
                Event e = say(a, ALICE_WORK, Role.USER, "我的爱好是跑步和游泳 running and swimming " + round, T2020);
                String key = "爱好-" + round;
                Memory x = a.addMemory(ALICE_WORK, timelineFact(e, "我", key, T2022));
                Memory y = a.addMemory(ALICE_WORK, timelineFact(e, "我", key, T2022));
                Memory low = x.id().compareTo(y.id()) < 0 ? x : y;
                Memory high = low == x ? y : x;
                assertThat(validity(a, ALICE_WORK, low)).as("round %d", round).isEqualTo(new Validity(T2022, T2022));
                assertThat(validity(a, ALICE_WORK, high)).as("round %d", round).isEqualTo(Validity.from(T2022));
            }
        }
    }

    @Test
    @DisplayName("T5 T4 for events submitted in one order, any derivation order yields the same timeline ordered by (start, event sequence, ID) (seeded property)")
    void derivationOrderProperty() {
        Random random = SeededRandom.create("T5 derivation order property");
        try (Authority a = open(dir)) {
            for (int round = 0; round < 12; round++) {
                String key = "key-" + round;
                int n = 2 + random.nextInt(7);
                List<Event> events = new ArrayList<>();
                List<Integer> perEvent = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    events.add(say(a, ALICE_WORK, Role.USER, "第" + i + "条 statement " + i + " 住址 address", T2020));
                    perEvent.add(random.nextInt(4) == 0 ? 2 : 1);
                }
                record Job(int event, Instant start) {
                }
                List<Job> jobs = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    for (int k = 0; k < perEvent.get(i); k++) {
                        Instant start = T2020.plusSeconds(86_400L * random.nextInt(3)); // ties are common
                        jobs.add(new Job(i, start));
                    }
                }
                java.util.Collections.shuffle(jobs, random);
                record Placed(Memory memory, long sequence) {
                }
                List<Placed> placed = new ArrayList<>();
                for (Job job : jobs) {
                    Event e = events.get(job.event());
                    placed.add(new Placed(a.addMemory(ALICE_WORK, timelineFact(e, "随机", key, job.start())), e.sequence()));
                }
                placed.sort(Comparator.<Placed, Instant>comparing(p -> p.memory().validity().validAt())
                        .thenComparingLong(Placed::sequence).thenComparing(p -> p.memory().id()));
                for (int k = 0; k < placed.size(); k++) {
                    Memory m = placed.get(k).memory();
                    Validity v = validity(a, ALICE_WORK, m);
                    Instant expectedEnd = k == placed.size() - 1 ? null
                            : placed.get(k + 1).memory().validity().validAt();
                    assertThat(v).as("round %d member %d of %d", round, k, placed.size())
                            .isEqualTo(new Validity(m.validity().validAt(), expectedEnd));
                }
            }
        }
    }

    @Test
    @DisplayName("T5 C2 a corrected member with the same start as another member goes after it: its correction event is inserted later")
    void correctionTieGoesLast() {
        try (Authority a = open(dir)) {
            Memory a2021 = fact(a, ALICE_WORK, "我", "职位", T2021);
            Memory b2022 = fact(a, ALICE_WORK, "我", "职位", T2022);
            assertThat(validity(a, ALICE_WORK, a2021)).isEqualTo(new Validity(T2021, T2022));

            Correction c = a.correctMemory(ALICE_WORK, b2022.id(), new CorrectionDraft("升职是2021年 promoted in 2021", null, T2021));

            assertThat(validity(a, ALICE_WORK, a2021)).isEqualTo(new Validity(T2021, T2021));
            assertThat(c.corrected().validity()).isEqualTo(Validity.from(T2021));
        }
    }

    // ------------------------------------------------------------------ D3: checkpoints

    @Test
    @DisplayName("D3 K1 a correction invalidates every valid checkpoint of the scope, in every session, and none of another scope")
    void correctionInvalidatesScopeCheckpoints() throws Exception {
        try (Authority a = open(dir)) {
            Event s1 = sayIn(a, ALICE_WORK, "会话一", "部署服务 deploy the service");
            Event s2 = sayIn(a, ALICE_WORK, "session-2", "写文档 write docs");
            Event home = sayIn(a, ALICE_HOME, "会话一", "买菜 groceries");
            Event bob = sayIn(a, BOB_WORK, "会话一", "bob's task 任务");
            Memory mistaken = a.addMemory(ALICE_WORK, userFact(s1, "部署到测试环境 deploy to staging").build());
            Checkpoint cp1 = checkpoint(a, ALICE_WORK, s1);
            Checkpoint cp2 = checkpoint(a, ALICE_WORK, s2);
            Checkpoint cp3 = checkpoint(a, ALICE_WORK, s2);
            Checkpoint cpHome = checkpoint(a, ALICE_HOME, home);
            Checkpoint cpBob = checkpoint(a, BOB_WORK, bob);

            Correction c = a.correctMemory(ALICE_WORK, mistaken.id(), draft("部署到生产环境 deploy to production"));

            assertThat(c.checkpointsInvalidated()).isEqualTo(3);
            for (Checkpoint cp : List.of(cp1, cp2, cp3)) {
                assertThat(invalidatedAt(db(), cp.id())).as("checkpoint %d", cp.id()).isNotNull();
            }
            assertThat(a.latestCheckpoint(ALICE_WORK, null)).isEmpty();
            assertThat(a.latestCheckpoint(ALICE_WORK, "会话一")).isEmpty();
            assertThat(a.latestCheckpoint(ALICE_WORK, "session-2")).isEmpty();
            assertThat(invalidatedAt(db(), cpHome.id())).isNull();
            assertThat(invalidatedAt(db(), cpBob.id())).isNull();
            assertThat(a.latestCheckpoint(ALICE_HOME, "会话一")).contains(cpHome);
            assertThat(a.latestCheckpoint(BOB_WORK, null)).contains(cpBob);
            // Invalidated, not removed: the host's record stays.
            assertThat(count(db(), "SELECT count(*) FROM checkpoints")).isEqualTo(5);
        }
    }

    @Test
    @DisplayName("D3 an invalidated checkpoint keeps its first invalidation time and is not counted again; a checkpoint saved after the correction is valid")
    void invalidationOnce() throws Exception {
        try (Authority a = open(dir)) {
            Event e = sayIn(a, ALICE_WORK, "s", "重构代码 refactor the code");
            Memory m = a.addMemory(ALICE_WORK, userFact(e, "重构模块A").build());
            Checkpoint old = checkpoint(a, ALICE_WORK, e);
            Correction first = a.correctMemory(ALICE_WORK, m.id(), draft("重构模块B refactor module B"));
            assertThat(first.checkpointsInvalidated()).isEqualTo(1);
            String firstTime = invalidatedAt(db(), old.id());
            assertThat(firstTime).isNotNull();

            Checkpoint fresh = checkpoint(a, ALICE_WORK, e);
            assertThat(a.latestCheckpoint(ALICE_WORK, "s")).contains(fresh);
            Thread.sleep(5);
            Correction second = a.correctMemory(ALICE_WORK, first.corrected().id(), draft("重构模块C refactor module C"));
            assertThat(second.checkpointsInvalidated()).isEqualTo(1);
            assertThat(invalidatedAt(db(), old.id())).isEqualTo(firstTime);
            assertThat(invalidatedAt(db(), fresh.id())).isNotNull().isNotEqualTo(firstTime);
            assertThat(a.latestCheckpoint(ALICE_WORK, null)).isEmpty();

            Correction third = a.correctMemory(ALICE_WORK, second.corrected().id(), draft("重构模块D"));
            assertThat(third.checkpointsInvalidated()).isZero();
        }
    }

    // ------------------------------------------------------------------ refusals: nothing changes

    @Test
    @DisplayName("C1 correcting an already revoked memory is a conflict and changes nothing")
    void correctingRevokedConflicts() throws Exception {
        try (Authority a = open(dir)) {
            Event e = say(a, ALICE_WORK, Role.USER, "我对花生过敏 allergic to peanuts", T2020);
            Memory m = a.addMemory(ALICE_WORK, userFact(e, "对芒果过敏").build());
            Correction c = a.correctMemory(ALICE_WORK, m.id(), draft("对花生过敏 allergic to peanuts"));
            checkpoint(a, ALICE_WORK, e);
            Map<String, List<String>> before = dump(db());

            assertThatThrownBy(() -> a.correctMemory(ALICE_WORK, m.id(), draft("对虾过敏 allergic to shrimp")))
                    .isInstanceOf(ConflictException.class)
                    .hasMessageNotContaining("对虾过敏");
            assertThat(dump(db())).isEqualTo(before);
            assertThat(a.latestCheckpoint(ALICE_WORK, null)).isPresent();
            // The replacement can still be corrected.
            Correction next = a.correctMemory(ALICE_WORK, c.corrected().id(), draft("对花生和虾过敏"));
            assertThat(next.revoked().id()).isEqualTo(c.corrected().id());
        }
    }

    @Test
    @DisplayName("C1 S1 unknown memory IDs, event IDs and memories of another scope are not found and change nothing")
    void notFound() throws Exception {
        try (Authority a = open(dir)) {
            Event mine = say(a, ALICE_WORK, Role.USER, "my cat is called 小白", T2020);
            Memory m = a.addMemory(ALICE_WORK, userFact(mine, "cat 小白").build());
            Event homeEvent = say(a, ALICE_HOME, Role.USER, "家里的猫叫小黑 home cat", T2020);
            Memory home = a.addMemory(ALICE_HOME, userFact(homeEvent, "猫叫小黑").build());
            Event bobEvent = say(a, BOB_WORK, Role.USER, "bob's cat 小花", T2020);
            Memory bob = a.addMemory(BOB_WORK, userFact(bobEvent, "bob cat").build());
            checkpoint(a, ALICE_WORK, mine);
            Map<String, List<String>> before = dump(db());

            for (String id : List.of("mem_01HZZZZZZZZZZZZZZZZZZZZZZZ", home.id(), bob.id(), mine.id(), "记忆-不存在")) {
                assertThatThrownBy(() -> a.correctMemory(ALICE_WORK, id, draft("更正 correction")))
                        .as("id %s", id).isInstanceOf(NotFoundException.class);
            }
            // The same memory is also not found from a scope it does not belong to.
            assertThatThrownBy(() -> a.correctMemory(ALICE_HOME, m.id(), draft("x"))).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> a.correctMemory(new Scope("bob", "home"), bob.id(), draft("x")))
                    .isInstanceOf(NotFoundException.class);
            assertThat(dump(db())).isEqualTo(before);
            assertThat(reload(a, ALICE_HOME, home).revoked()).isFalse();
        }
    }

    @Test
    @DisplayName("C1 O7 bad correction drafts are rejected naming the field and the rule, never echoing the value, and change nothing")
    void badDrafts() throws Exception {
        try (Authority a = open(dir)) {
            Event e = say(a, ALICE_WORK, Role.USER, "我每天喝三杯咖啡 three coffees a day", T2020);
            Memory m = a.addMemory(ALICE_WORK, userFact(e, "每天两杯咖啡").build());
            checkpoint(a, ALICE_WORK, e);
            Map<String, List<String>> before = dump(db());
            String secret = "机密内容-secret-value";

            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft(null, null, null)), "text");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft("", null, null)), "text");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft(" \t\n　", null, null)), "text");
            String oversize = (secret + "咖啡").repeat(200).substring(0, Limits.MAX_MEMORY_TEXT + 1);
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft(oversize, null, null)),
                    "text", secret);
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft(secret + "\u0000", null, null)),
                    "text", secret);
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft(secret + "\uD800", null, null)),
                    "text", secret);
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(),
                    new CorrectionDraft("每天三杯咖啡 three a day", secret, null)), "quote", secret);
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(),
                    new CorrectionDraft("每天三杯咖啡 three a day", "四杯", null)), "quote", "四杯");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft("每天三杯咖啡", "  ", null)),
                    "quote");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft(oversize.substring(0, 2000),
                    oversize, null)), "quote", secret);
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft("每天三杯咖啡", null,
                    Instant.parse("+10000-01-01T00:00:00Z"))), "valid_at");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft("每天三杯咖啡", null,
                    Instant.parse("0001-01-01T00:00:00Z").minusSeconds(1))), "valid_at");
            assertThatThrownBy(() -> a.correctMemory(ALICE_WORK, m.id(), null))
                    .isInstanceOfAny(NullPointerException.class, InvalidInputException.class);

            assertThat(dump(db())).isEqualTo(before);
            assertThat(reload(a, ALICE_WORK, m).revoked()).isFalse();

            // The limits are inclusive: exactly 2,000 characters is accepted.
            String max = oversize.substring(0, Limits.MAX_MEMORY_TEXT);
            Correction c = a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft(max, max, null));
            assertThat(c.corrected().text()).isEqualTo(max).hasSize(2_000);
            assertThat(c.event().text()).isEqualTo(max);
        }
    }

    @Test
    @DisplayName("C1 O7 null, empty, whitespace and malformed memory IDs are rejected naming the field and change nothing")
    void badIds() throws Exception {
        try (Authority a = open(dir)) {
            Event e = say(a, ALICE_WORK, Role.USER, "你好 hello", T2020);
            a.addMemory(ALICE_WORK, userFact(e, "打招呼 greeting").build());
            Map<String, List<String>> before = dump(db());
            assertInvalid(() -> a.correctMemory(ALICE_WORK, null, draft("x")), "id");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, "", draft("x")), "id");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, "   ", draft("x")), "id");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, "mem 坏的 id", draft("x")), "id", "mem 坏的 id");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, "mem_\u0007bell", draft("x")), "id", "bell");
            assertInvalid(() -> a.correctMemory(ALICE_WORK, "m".repeat(Ids.MAX_ID_LENGTH + 1), draft("x")), "id",
                    "m".repeat(Ids.MAX_ID_LENGTH + 1));
            assertThat(dump(db())).isEqualTo(before);
        }
    }
}
