package dev.jiyi.ranking;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.Validity;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.fts5.Fts5Index;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fact-timeline property of T2-T6 over random sets of user-stated facts on one subject + fact
 * key, with few distinct start times so that ties are common. The events are submitted in one
 * order (the conversation happened once) and the memories are derived in a random interleaving
 * (extractions finish out of order): two archives built with different interleavings must hold the
 * same timeline, and recall {@code as_of} any instant must return exactly the fact valid then.
 */
class TimelinePropertyTest {

    private static final Instant BASE = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant NOW = Instant.parse("2026-06-01T00:00:00Z");
    private static final Scope SCOPE = new Scope("alice", "life");

    @TempDir
    Path dir;

    /** One generated fact: its start (null: unknown, T2) and its source event's occurrence time. */
    private record Fact(int index, Instant validAt, Instant occurredAt) {
        Instant start() {
            return validAt != null ? validAt : occurredAt;
        }

        String text() {
            return "我住的城市换成了第" + index + "号城 I moved to city number " + index;
        }
    }

    /** What a timeline member looked like in one archive: which fact, and its interval. */
    private record Member(int fact, Validity validity) {
    }

    @Test
    @DisplayName("T2 T3 T4 T5 T6 any facts in any derivation order: intervals never overlap, cover time from the earliest start "
            + "without gaps, are ordered by (start, insertion), as_of returns exactly the fact valid then, and two orders "
            + "give the same timeline (seeded property)")
    void timelineProperty() {
        Random random = SeededRandom.create("T4 T5 timeline property across derivation orders");
        for (int round = 0; round < 25; round++) {
            int n = 1 + random.nextInt(9);
            List<Fact> facts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Instant occurred = day(random.nextInt(5));
                // A third have unknown validity: they start at their event's occurrence (T2).
                Instant validAt = random.nextInt(3) == 0 ? null : day(random.nextInt(5));
                facts.add(new Fact(i, validAt, occurred));
            }
            List<Member> first = build(round, "a", facts, random);
            List<Member> second = build(round, "b", facts, random);
            assertThat(second).as("round %d: the timeline does not depend on the derivation order", round)
                    .isEqualTo(first);
        }
    }

    private static Instant day(int d) {
        return BASE.plusSeconds(86_400L * 365 * d);
    }

    /** Builds one archive with a random derivation interleaving, checks it, returns its timeline. */
    private List<Member> build(int round, String name, List<Fact> facts, Random random) {
        Path home = dir.resolve(round + name);
        Fts5Index index = new Fts5Index();
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of(index))) {
            // Events in fact order; each memory derived at a random moment after its event.
            List<Integer> pending = new ArrayList<>();
            List<String> memoryIds = new ArrayList<>(java.util.Collections.nCopies(facts.size(), (String) null));
            int nextEvent = 0;
            while (nextEvent < facts.size() || !pending.isEmpty()) {
                boolean submit = nextEvent < facts.size() && (pending.isEmpty() || random.nextBoolean());
                if (submit) {
                    Fact f = facts.get(nextEvent);
                    a.submitEvent(new EventSubmission("e" + f.index(), SCOPE, Role.USER, f.text(), "test",
                            Category.CONVERSATION, "s" + f.index(), f.occurredAt()));
                    pending.add(nextEvent);
                    nextEvent++;
                } else {
                    Fact f = facts.get(pending.remove(random.nextInt(pending.size())));
                    Memory m = a.addMemory(SCOPE, MemoryDraft.builder("e" + f.index()).kind(Kind.FACT)
                            .basis(Basis.USER_STATEMENT).text(f.text()).quote(f.text())
                            .subject("我").factKey("城市 city").validAt(f.validAt()).build());
                    memoryIds.set(f.index(), m.id());
                }
            }

            // Expected order: by start, then by insertion of the evidence (event order), T5.
            List<Fact> ordered = new ArrayList<>(facts);
            ordered.sort(Comparator.comparing(Fact::start).thenComparing(Fact::index));
            List<Member> timeline = new ArrayList<>();
            for (int k = 0; k < ordered.size(); k++) {
                Fact f = ordered.get(k);
                Validity v = a.memory(SCOPE, memoryIds.get(f.index())).orElseThrow().validity();
                assertThat(v.validAt()).as("round %d %s fact %d starts at its start", round, name, f.index())
                        .isEqualTo(f.start());
                Instant expectedEnd = k + 1 < ordered.size() ? ordered.get(k + 1).start() : null;
                assertThat(v.invalidAt()).as("round %d %s fact %d ends where its successor starts", round, name, f.index())
                        .isEqualTo(expectedEnd);
                timeline.add(new Member(f.index(), v));
            }

            // Probe every start, just before and after it, and between: exactly one valid fact from the
            // earliest start on (no gap, no overlap), none before; recall as_of agrees.
            Recall recall = new Recall(a, new RecallIndex(index, new ExactVectorScan()), RecallConfig.DEFAULT, Clock.fixed(NOW, ZoneOffset.UTC));
            TreeSet<Instant> probes = new TreeSet<>();
            for (Fact f : facts) {
                probes.add(f.start());
                probes.add(f.start().minusSeconds(1));
                probes.add(f.start().plusSeconds(86_400 * 100));
            }
            Instant earliest = ordered.getFirst().start();
            for (Instant t : probes) {
                List<Member> valid = timeline.stream().filter(m -> m.validity().contains(t)).toList();
                List<String> recalled = recall.recall(new RecallRequest(SCOPE, "城市", RecallMode.FAST, 50, t, false))
                        .items().stream().map(RecalledItem::memoryId).toList();
                if (t.isBefore(earliest)) {
                    assertThat(valid).as("round %d %s: nothing is valid before the earliest start", round, name).isEmpty();
                    assertThat(recalled).as("round %d %s: as_of before the earliest start", round, name).isEmpty();
                } else {
                    assertThat(valid).as("round %d %s: exactly one fact valid at %s", round, name, t).hasSize(1);
                    assertThat(recalled).as("round %d %s: as_of %s returns exactly the valid fact", round, name, t)
                            .containsExactly(memoryIds.get(valid.getFirst().fact()));
                }
            }
            // Current recall (T6): only the last member, which is open.
            List<String> current = recall.recall(new RecallRequest(SCOPE, "city", RecallMode.FAST, 50, null, false))
                    .items().stream().map(RecalledItem::memoryId).toList();
            assertThat(current).containsExactly(memoryIds.get(ordered.getLast().index()));
            // History (T6): every member, whatever its interval.
            List<String> history = recall.recall(new RecallRequest(SCOPE, "city", RecallMode.FAST, 50, null, true))
                    .items().stream().map(RecalledItem::memoryId).toList();
            assertThat(history).containsExactlyInAnyOrderElementsOf(memoryIds);
            return timeline;
        }
    }

    @Test
    @DisplayName("T4 T5 facts stated in any order: with distinct starts every order gives the same timeline; among equal "
            + "starts the fact whose evidence arrived last is the current one (seeded property)")
    void statementOrderProperty() {
        Random random = SeededRandom.create("T4 T5 timeline property across statement orders");
        for (int round = 0; round < 20; round++) {
            int n = 2 + random.nextInt(7);
            List<Instant> distinct = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                distinct.add(day(i).plusSeconds(random.nextInt(1_000)));
            }
            List<Integer> first = shuffled(n, random);
            List<Integer> second = shuffled(n, random);
            assertThat(stated(round + "x", distinct, second)).as("round %d: distinct starts, two statement orders", round)
                    .isEqualTo(stated(round + "y", distinct, first));

            // All starts equal: the last statement wins, the others hold [t, t).
            Instant t = day(2);
            List<Instant> equal = java.util.Collections.nCopies(n, t);
            List<Validity> timeline = stated(round + "z", equal, first);
            int last = first.getLast();
            for (int fact = 0; fact < n; fact++) {
                assertThat(timeline.get(fact)).as("round %d fact %d", round, fact)
                        .isEqualTo(fact == last ? Validity.from(t) : new Validity(t, t));
            }
        }
    }

    private static List<Integer> shuffled(int n, Random random) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        java.util.Collections.shuffle(order, random);
        return order;
    }

    /** States fact i (start starts.get(i)) in the given order, event then memory; returns each fact's interval. */
    private List<Validity> stated(String name, List<Instant> starts, List<Integer> order) {
        try (Authority a = Authority.open(dir.resolve(name).resolve("jiyi.db"), List.of(new Fts5Index()))) {
            List<String> ids = new ArrayList<>(java.util.Collections.nCopies(starts.size(), (String) null));
            for (int fact : order) {
                String text = "我的职位是第" + fact + "级 my level is " + fact;
                a.submitEvent(new EventSubmission("e" + fact, SCOPE, Role.USER, text, "test", Category.CONVERSATION,
                        "s" + fact, starts.get(fact)));
                ids.set(fact, a.addMemory(SCOPE, MemoryDraft.builder("e" + fact).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                        .text(text).quote(text).subject("我").factKey("level").validAt(starts.get(fact)).build()).id());
            }
            return ids.stream().map(id -> a.memory(SCOPE, id).orElseThrow().validity()).toList();
        }
    }
}
