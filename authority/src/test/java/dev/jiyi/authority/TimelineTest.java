package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.t;
import static dev.jiyi.authority.AuthorityTestKit.timelineFact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TimelineTest {

    @TempDir
    Path dir;

    private static final Instant T2020 = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant T2021 = Instant.parse("2021-01-01T00:00:00Z");
    private static final Instant T2022 = Instant.parse("2022-01-01T00:00:00Z");
    private static final Instant T2023 = Instant.parse("2023-01-01T00:00:00Z");

    private int counter;

    private Event userEvent(Authority a, Scope scope, String text, Instant at) {
        return submit(a, event("ev-" + counter++, scope, Role.USER, text, at));
    }

    private Memory fact(Authority a, Scope scope, String subject, String key, Instant validAt) {
        Event e = userEvent(a, scope, subject + " 的 " + key + " 变了 changed", validAt);
        return a.addMemory(scope, timelineFact(e, subject, key, validAt));
    }

    private static List<Long> otherTimes(Authority a, Scope scope, Instant at) {
        return a.read(s -> s.otherTimeFacts(scope, at));
    }

    private static Validity validity(Authority a, Scope scope, Memory m) {
        return a.memory(scope, m.id()).orElseThrow().validity();
    }

    @Test
    @DisplayName("T4 a new fact closes the previous interval at its own start")
    void newFactClosesPrevious() {
        try (Authority a = open(dir)) {
            Memory beijing = fact(a, ALICE_WORK, "我", "住址", T2020);
            assertThat(beijing.validity()).isEqualTo(Validity.from(T2020));
            Memory shanghai = fact(a, ALICE_WORK, "我", "住址", T2022);
            assertThat(validity(a, ALICE_WORK, beijing)).isEqualTo(new Validity(T2020, T2022));
            assertThat(validity(a, ALICE_WORK, shanghai)).isEqualTo(Validity.from(T2022));
            assertThat(shanghai.validity()).isEqualTo(Validity.from(T2022));
        }
    }

    @Test
    @DisplayName("T2 T4 unknown validity starts at the source event's occurrence time and closes the previous fact there")
    void unknownValidityStartsAtEvent() {
        try (Authority a = open(dir)) {
            Memory first = fact(a, ALICE_WORK, "user", "job", T2020);
            Event e = userEvent(a, ALICE_WORK, "I now work as a teacher 我现在是老师", t("2021-06-01T08:00:00+08:00"));
            Memory second = a.addMemory(ALICE_WORK, MemoryDraft.builder(e.id()).kind(Kind.FACT)
                    .basis(Basis.USER_STATEMENT).text("teacher").quote("老师").subject("user").factKey("job").build());
            assertThat(second.validity().validAt()).isEqualTo(e.occurredAt());
            assertThat(second.validity().validAt()).isEqualTo(Instant.parse("2021-06-01T00:00:00Z"));
            assertThat(validity(a, ALICE_WORK, first).invalidAt()).isEqualTo(e.occurredAt());
        }
    }

    @Test
    @DisplayName("T4 a late historical insert is placed by validity: closes its predecessor and is closed at its successor")
    void lateHistoricalInsert() {
        try (Authority a = open(dir)) {
            Memory first = fact(a, ALICE_WORK, "小红", "公司", T2020);
            Memory third = fact(a, ALICE_WORK, "小红", "公司", T2023);
            Memory middle = fact(a, ALICE_WORK, "小红", "公司", T2021);
            assertThat(validity(a, ALICE_WORK, first)).isEqualTo(new Validity(T2020, T2021));
            assertThat(middle.validity()).isEqualTo(new Validity(T2021, T2023));
            assertThat(validity(a, ALICE_WORK, middle)).isEqualTo(new Validity(T2021, T2023));
            assertThat(validity(a, ALICE_WORK, third)).isEqualTo(Validity.from(T2023));
        }
    }

    @Test
    @DisplayName("T4 a historical insert before every member is closed at the first member's start")
    void insertBeforeAll() {
        try (Authority a = open(dir)) {
            Memory later = fact(a, ALICE_WORK, "Bob", "team", T2022);
            Memory earliest = fact(a, ALICE_WORK, "Bob", "team", T2020);
            assertThat(earliest.validity()).isEqualTo(new Validity(T2020, T2022));
            assertThat(validity(a, ALICE_WORK, later)).isEqualTo(Validity.from(T2022));
        }
    }

    @Test
    @DisplayName("T3 intervals are half-open: at the boundary only the newer fact is valid")
    void halfOpen() {
        try (Authority a = open(dir)) {
            Memory old = fact(a, ALICE_WORK, "me", "phone", T2020);
            Memory now = fact(a, ALICE_WORK, "me", "phone", T2022);
            Validity oldV = validity(a, ALICE_WORK, old);
            Validity newV = validity(a, ALICE_WORK, now);
            assertThat(oldV.contains(T2020)).isTrue();
            assertThat(oldV.contains(T2022.minusNanos(1000))).isTrue();
            assertThat(oldV.contains(T2022)).isFalse();
            assertThat(newV.contains(T2022)).isTrue();
            assertThat(newV.contains(T2020)).isFalse();
            assertThat(newV.contains(Instant.parse("2999-01-01T00:00:00Z"))).isTrue();
        }
    }

    @Test
    @DisplayName("T5 equal start times are ordered by insertion: the later insert is current, deterministically")
    void equalStartsByInsertion() {
        try (Authority a = open(dir)) {
            Memory first = fact(a, ALICE_WORK, "猫", "名字", T2021);
            Memory second = fact(a, ALICE_WORK, "猫", "名字", T2021);
            Memory third = fact(a, ALICE_WORK, "猫", "名字", T2021);
            assertThat(validity(a, ALICE_WORK, first)).isEqualTo(new Validity(T2021, T2021));
            assertThat(validity(a, ALICE_WORK, second)).isEqualTo(new Validity(T2021, T2021));
            assertThat(validity(a, ALICE_WORK, third)).isEqualTo(Validity.from(T2021));
            // A later-starting fact then closes the current one only.
            Memory fourth = fact(a, ALICE_WORK, "猫", "名字", T2022);
            assertThat(validity(a, ALICE_WORK, third)).isEqualTo(new Validity(T2021, T2022));
            assertThat(validity(a, ALICE_WORK, fourth)).isEqualTo(Validity.from(T2022));
            // An earlier insert with an equal start to an existing member goes after it (insertion order).
            Memory fifth = fact(a, ALICE_WORK, "猫", "名字", T2021);
            assertThat(validity(a, ALICE_WORK, third)).isEqualTo(new Validity(T2021, T2021));
            assertThat(validity(a, ALICE_WORK, fifth)).isEqualTo(new Validity(T2021, T2022));
        }
    }

    @Test
    @DisplayName("T4 T5 any insertion order yields the same gap-free timeline ordered by (start, insertion) (seeded property)")
    void timelinePartitionProperty() {
        Random random = SeededRandom.create("T4 T5 timeline partition property");
        try (Authority a = open(dir)) {
            for (int round = 0; round < 15; round++) {
                String key = "key-" + round;
                int n = 2 + random.nextInt(9);
                List<Instant> starts = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    // Few distinct values so that ties are common.
                    starts.add(T2020.plusSeconds(86_400L * random.nextInt(6)));
                }
                Collections.shuffle(starts, random);
                List<Memory> inserted = new ArrayList<>();
                for (Instant start : starts) {
                    inserted.add(fact(a, ALICE_WORK, "随机", key, start));
                }
                // Expected order: by start, then insertion order (stable sort keeps insertion order).
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    order.add(i);
                }
                order.sort((x, y) -> starts.get(x).compareTo(starts.get(y)));
                for (int k = 0; k < n; k++) {
                    Memory m = inserted.get(order.get(k));
                    Validity v = validity(a, ALICE_WORK, m);
                    assertThat(v.validAt()).isEqualTo(starts.get(order.get(k)));
                    if (k == n - 1) {
                        assertThat(v.invalidAt()).as("round %d: last member is open", round).isNull();
                    } else {
                        assertThat(v.invalidAt()).as("round %d member %d closes at its successor's start", round, k)
                                .isEqualTo(starts.get(order.get(k + 1)));
                    }
                }
                // At any instant at most one member is valid.
                for (int d = -1; d < 8; d++) {
                    Instant probe = T2020.plusSeconds(86_400L * d + 3600);
                    long valid = inserted.stream().filter(m -> validity(a, ALICE_WORK, m).contains(probe)).count();
                    assertThat(valid).isLessThanOrEqualTo(1);
                }
            }
        }
    }

    @Test
    @DisplayName("T1 only facts with the same subject and fact key share a timeline")
    void subjectAndKeyIdentifyTimeline() {
        try (Authority a = open(dir)) {
            Memory city = fact(a, ALICE_WORK, "alice", "city", T2020);
            Memory otherKey = fact(a, ALICE_WORK, "alice", "job", T2022);
            Memory otherSubject = fact(a, ALICE_WORK, "bob", "city", T2022);
            assertThat(validity(a, ALICE_WORK, city).open()).isTrue();
            assertThat(validity(a, ALICE_WORK, otherKey).open()).isTrue();
            assertThat(validity(a, ALICE_WORK, otherSubject).open()).isTrue();
        }
    }

    @Test
    @DisplayName("T1 S1 a timeline belongs to one scope: the same subject and key elsewhere does not close it")
    void timelineIsScoped() {
        try (Authority a = open(dir)) {
            Memory work = fact(a, ALICE_WORK, "alice", "city", T2020);
            fact(a, ALICE_HOME, "alice", "city", T2022);
            fact(a, BOB_WORK, "alice", "city", T2023);
            assertThat(validity(a, ALICE_WORK, work).open()).isTrue();
        }
    }

    @Test
    @DisplayName("T1 a fact without a fact key does not join or close a timeline")
    void noFactKeyNoTimeline() {
        try (Authority a = open(dir)) {
            Memory keyed = fact(a, ALICE_WORK, "alice", "city", T2020);
            Event e = userEvent(a, ALICE_WORK, "我住在西安 I live in Xi'an", T2022);
            Memory unkeyed = a.addMemory(ALICE_WORK, MemoryDraft.builder(e.id()).kind(Kind.FACT)
                    .basis(Basis.USER_STATEMENT).text("lives in Xi'an").quote("西安").subject("alice").build());
            assertThat(validity(a, ALICE_WORK, keyed).open()).isTrue();
            assertThat(unkeyed.validity().open()).isTrue();
        }
    }

    @Test
    @DisplayName("T1 only user-stated facts and preferences join a timeline: other kinds or bases with a fact key are rejected or ignored")
    void onlyUserStatedFactsAndPreferences() {
        try (Authority a = open(dir)) {
            Memory keyed = fact(a, ALICE_WORK, "alice", "city", T2020);
            Event user = userEvent(a, ALICE_WORK, "我去了成都旅游 trip to Chengdu", T2022);
            Event assistant = submit(a, event("asst", ALICE_WORK, Role.ASSISTANT, "你住在成都吗？ Chengdu?", T2022));
            List<MemoryDraft.Builder> outsiders = new ArrayList<>();
            for (Kind kind : List.of(Kind.EPISODE, Kind.OBSERVATION, Kind.EMOTION, Kind.AGREEMENT, Kind.GROWTH)) {
                outsiders.add(MemoryDraft.builder(user.id()).kind(kind).basis(Basis.USER_STATEMENT).text("x")
                        .quote("成都").subject("alice").factKey("city"));
            }
            outsiders.add(MemoryDraft.builder(assistant.id()).kind(Kind.FACT).basis(Basis.ASSISTANT_EXPRESSION)
                    .text("x").quote("成都").subject("alice").factKey("city"));
            outsiders.add(MemoryDraft.builder(user.id()).kind(Kind.FACT).basis(Basis.INFERENCE).text("x").quote("成都")
                    .subject("alice").factKey("city"));
            for (MemoryDraft.Builder b : outsiders) {
                try {
                    a.addMemory(ALICE_WORK, b.build());
                } catch (InvalidInputException rejected) {
                    assertThat(rejected.field()).isIn("fact_key", "kind", "basis");
                }
                assertThat(validity(a, ALICE_WORK, keyed).open()).as("timeline untouched").isTrue();
            }
            // A user-stated preference with the key does take part.
            Memory pref = a.addMemory(ALICE_WORK, MemoryDraft.builder(user.id()).kind(Kind.PREFERENCE)
                    .basis(Basis.USER_STATEMENT).text("偏好成都").quote("成都").subject("alice").factKey("city").build());
            assertThat(validity(a, ALICE_WORK, keyed).invalidAt()).isEqualTo(pref.validity().validAt());
        }
    }

    @Test
    @DisplayName("T1 a fact key without a subject is rejected (the subject identifies the timeline)")
    void factKeyNeedsSubject() {
        assertThatThrownBy(() -> MemoryDraft.builder("e").kind(Kind.FACT).basis(Basis.USER_STATEMENT).text("x")
                .quote("x").factKey("city").build()).isInstanceOfSatisfying(InvalidInputException.class,
                        e -> assertThat(e.field()).isEqualTo("subject"));
    }

    @Test
    @DisplayName("T4 an explicitly closed historical fact is not reopened or extended by later members")
    void explicitIntervalKept() {
        try (Authority a = open(dir)) {
            Event e = userEvent(a, ALICE_WORK, "2020年我在深圳 in Shenzhen in 2020", T2020);
            Memory closed = a.addMemory(ALICE_WORK, MemoryDraft.builder(e.id()).kind(Kind.FACT)
                    .basis(Basis.USER_STATEMENT).text("Shenzhen 2020").quote("深圳").subject("me").factKey("city")
                    .validAt(T2020).invalidAt(T2021).build());
            Memory later = fact(a, ALICE_WORK, "me", "city", T2022);
            assertThat(validity(a, ALICE_WORK, closed)).isEqualTo(new Validity(T2020, T2021));
            assertThat(validity(a, ALICE_WORK, later)).isEqualTo(Validity.from(T2022));
        }
    }

    @Test
    @DisplayName("T4 E4 a fact dated after year 9999 is rejected or still ordered chronologically on the timeline")
    void farFutureStaysOrdered() {
        Instant farFuture = Instant.parse("+10000-01-01T00:00:00Z");
        try (Authority a = open(dir)) {
            Memory now = fact(a, ALICE_WORK, "星", "位置", T2020);
            Memory far;
            try {
                far = fact(a, ALICE_WORK, "星", "位置", farFuture);
            } catch (InvalidInputException rejected) {
                return;
            }
            Memory middle = fact(a, ALICE_WORK, "星", "位置", T2022);
            assertThat(validity(a, ALICE_WORK, now)).isEqualTo(new Validity(T2020, T2022));
            assertThat(validity(a, ALICE_WORK, middle)).isEqualTo(new Validity(T2022, farFuture));
            assertThat(validity(a, ALICE_WORK, far)).isEqualTo(Validity.from(farFuture));
        }
    }

    @Test
    @DisplayName("R9 T4 the facts of other times: the superseded and future facts of the scope's timelines, never a current, revoked, unkeyed or other scope's one")
    void factsOfOtherTimes() {
        try (Authority a = open(dir)) {
            Memory beijing = fact(a, ALICE_WORK, "我", "住址", T2020);
            Memory shanghai = fact(a, ALICE_WORK, "我", "住址", T2021);
            Memory shenzhen = fact(a, ALICE_WORK, "我", "住址", T2023); // not valid yet in 2022
            Memory phone = fact(a, ALICE_WORK, "me", "phone", T2020); // alone on its timeline: current
            Memory acme = fact(a, ALICE_WORK, "user", "employer", T2020);
            Memory globex = fact(a, ALICE_WORK, "user", "employer", T2021);
            // A superseded fact corrected: the mistaken one is revoked, the corrected one takes its place.
            Memory acmeCorrected = a.correctMemory(ALICE_WORK, acme.id(),
                    new CorrectionDraft("Acme Robotics 工业机器人", null, null)).corrected();
            Event trip = userEvent(a, ALICE_WORK, "2020年去了日本 went to Japan", T2020);
            a.addMemory(ALICE_WORK, MemoryDraft.builder(trip.id()).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                    .text("去了日本 went to Japan").quote("去了日本").validAt(T2020).invalidAt(T2021).build()); // expired, no timeline
            Memory bobOld = fact(a, BOB_WORK, "我", "住址", T2020);
            fact(a, BOB_WORK, "我", "住址", T2021);
            fact(a, ALICE_HOME, "我", "住址", T2020);

            assertThat(otherTimes(a, ALICE_WORK, T2022))
                    .containsExactly(beijing.rowId(), shenzhen.rowId(), acmeCorrected.rowId());
            assertThat(otherTimes(a, ALICE_WORK, T2020))
                    .as("in 2020 the later facts are the other times")
                    .containsExactly(shanghai.rowId(), shenzhen.rowId(), globex.rowId());
            assertThat(otherTimes(a, ALICE_WORK, T2023)).as("half-open: shanghai closed at 2023")
                    .containsExactly(beijing.rowId(), shanghai.rowId(), acmeCorrected.rowId());
            assertThat(otherTimes(a, BOB_WORK, T2022)).containsExactly(bobOld.rowId());
            assertThat(otherTimes(a, ALICE_HOME, T2022)).isEmpty();
            assertThat(otherTimes(a, new Scope("nobody", "nothing"), T2022)).isEmpty();
            assertThat(phone.validity().contains(T2022)).isTrue();
        }
    }

    @Test
    @DisplayName("R9 T4 the facts of other times are listed again once the change log moves: a write here, in another scope, by another connection, a deletion")
    void factsOfOtherTimesFollowTheLog() throws Exception {
        Path file = dir.resolve("jiyi.db");
        try (Authority a = open(dir)) {
            Memory beijing = fact(a, ALICE_WORK, "我", "住址", T2020);
            Memory shanghai = fact(a, ALICE_WORK, "我", "住址", T2021);
            assertThat(otherTimes(a, ALICE_WORK, T2022)).containsExactly(beijing.rowId());
            assertThat(otherTimes(a, ALICE_WORK, T2020)).as("the same list at another time").containsExactly(shanghai.rowId());

            // A change the log does not see (no jiyi write makes one) shows that the list is kept:
            // beijing reopened behind the authority's back is still listed until the log moves.
            try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file);
                 java.sql.Statement st = c.createStatement()) {
                st.execute("PRAGMA busy_timeout = 5000");
                st.execute("UPDATE memories SET invalid_at = NULL WHERE seq = " + beijing.rowId());
            }
            assertThat(otherTimes(a, ALICE_WORK, T2022)).as("kept while the log stands").containsExactly(beijing.rowId());
            userEvent(a, BOB_WORK, "别的范围 another scope", T2022); // any write moves the log
            assertThat(otherTimes(a, ALICE_WORK, T2022)).as("read again after a write elsewhere").isEmpty();

            // Another connection (a second process) supersedes a fact: listed at once.
            Memory moscow;
            try (Authority other = open(dir)) {
                Event e = submit(other, event("ev-other", ALICE_WORK, Role.USER, "搬到了莫斯科 moved to Moscow", T2023));
                moscow = other.addMemory(ALICE_WORK, timelineFact(e, "我", "住址", T2023));
            }
            assertThat(otherTimes(a, ALICE_WORK, T2022)).as("moscow is not valid yet in 2022").containsExactly(moscow.rowId());
            assertThat(otherTimes(a, ALICE_WORK, T2023.plusSeconds(1))).as("in 2023 shanghai is closed by moscow")
                    .containsExactly(shanghai.rowId());

            a.deleteMemory(ALICE_WORK, shanghai.id());
            assertThat(otherTimes(a, ALICE_WORK, T2023.plusSeconds(1))).as("a deleted fact is gone").isEmpty();
            assertThat(otherTimes(a, ALICE_WORK, T2022)).as("moscow still to come").containsExactly(moscow.rowId());
        }
    }

    @Test
    @DisplayName("R9 T4 an archive imported into an open home (no change-log entry) has its facts of other times listed at once")
    void factsOfOtherTimesAfterAnImport() throws Exception {
        Path source = dir.resolve("source");
        Path archive = dir.resolve("home.jsonl");
        String beijingId;
        try (Authority a = open(source)) {
            beijingId = fact(a, ALICE_WORK, "我", "住址 home", T2020).id();
            fact(a, ALICE_WORK, "我", "住址 home", T2021);
            a.archives().export(archive, dev.jiyi.authority.archive.ArchiveFormat.JSONL, null, PhaseProgress.NONE);
        }
        try (Authority b = open(dir.resolve("target"))) {
            assertThat(otherTimes(b, ALICE_WORK, T2022)).as("an empty home, its empty list kept").isEmpty();
            try (java.io.InputStream in = java.nio.file.Files.newInputStream(archive)) {
                b.archives().importFrom(in, PhaseProgress.NONE);
            }
            long beijing = b.memory(ALICE_WORK, beijingId).orElseThrow().rowId();
            assertThat(otherTimes(b, ALICE_WORK, T2022)).as("the imported superseded fact").containsExactly(beijing);
        }
    }
}
