package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.Neighbours;
import dev.jiyi.authority.index.VectorQuery;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fixtures of the Lucene index tests: an authority filled with events, memories and vectors through
 * its public API, and queries through the {@link dev.jiyi.authority.Snapshot}, as recall runs them.
 */
final class Archive {

    static final Instant SAID = Instant.parse("2024-05-01T02:00:00Z");
    static final Instant NOW = Instant.parse("2024-06-01T00:00:00Z");
    static final Instant Y2020 = Instant.parse("2020-01-01T00:00:00Z");
    static final Instant Y2021 = Instant.parse("2021-01-01T00:00:00Z");
    static final Instant Y2030 = Instant.parse("2030-01-01T00:00:00Z");

    static final Scope DIARY = new Scope("小明", "日记");
    static final Scope WORK = new Scope("alice", "work");

    static final String FINGERPRINT = "http://127.0.0.1:8081/v1/embeddings|bge-small-zh-v1.5|1";

    /** A limit above any answer of these tests: the list is the whole answer. */
    static final int ALL = 10_000;

    private Archive() {
    }

    static Event say(Authority a, Scope scope, String id, String text) {
        SubmitResult r = a.submitEvent(new EventSubmission(id, scope, Role.USER, text, "lucene-test",
                Category.CONVERSATION, "s1", SAID));
        return r.event();
    }

    /** A user-stated fact quoting its whole event, valid from the event's time. */
    static Memory remember(Authority a, Scope scope, String id, String text) {
        Event e = say(a, scope, "ev-" + id, text);
        return a.addMemory(scope, fact(e.id(), text).build());
    }

    static MemoryDraft.Builder fact(String eventId, String text) {
        return MemoryDraft.builder(eventId).kind(Kind.FACT).basis(Basis.USER_STATEMENT).text(text).quote(text);
    }

    /**
     * {@code n} events and one memory quoting each, in batches; texts Chinese, English and mixed, from
     * a fixed vocabulary so that queries find many of them. Returns the memories.
     */
    static List<Memory> fill(Authority a, Scope scope, String prefix, int n, Random random) {
        String[] zh = {"咖啡", "北京大学", "周末", "爬山", "图书馆", "读书", "猫", "下雨", "火锅", "地铁", "加班", "钢琴"};
        String[] en = {"coffee", "weekend", "hiking", "library", "rain", "piano", "subway", "cat", "deadline", "garden"};
        List<Memory> out = new ArrayList<>(n);
        for (int from = 0; from < n; from += 1_000) {
            int to = Math.min(n, from + 1_000);
            List<EventSubmission> events = new ArrayList<>(to - from);
            List<Derivation> memories = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                String text = "第" + i + "条 " + zh[random.nextInt(zh.length)] + "和" + zh[random.nextInt(zh.length)]
                        + " " + en[random.nextInt(en.length)] + " note " + prefix + i;
                String id = prefix + "-" + i;
                events.add(new EventSubmission("ev-" + id, scope, Role.USER, text, "lucene-test",
                        Category.CONVERSATION, "s1", SAID));
                memories.add(new Derivation(scope, fact("ev-" + id, text).build()));
            }
            BatchResult<SubmitResult> submitted = a.submitEvents(events);
            assertThat(submitted.error()).as("precondition: events stored").isNull();
            BatchResult<Memory> added = a.addMemories(memories);
            assertThat(added.error()).as("precondition: memories stored").isNull();
            out.addAll(added.committed());
        }
        return out;
    }

    /** Stores one vector per memory (the memory's text unchanged, so the authority accepts it). */
    static void vectors(Authority a, List<Memory> memories, List<float[]> vectors) {
        List<VectorCache.NewVector> batch = new ArrayList<>(memories.size());
        for (int i = 0; i < memories.size(); i++) {
            Memory m = memories.get(i);
            batch.add(new VectorCache.NewVector(m.id(), VectorCache.contentHash(m.text()), vectors.get(i)));
        }
        VectorCache.Stored stored = a.storeVectors(FINGERPRINT, batch);
        assertThat(stored.stored()).as("precondition: vectors stored").isEqualTo(memories.size());
    }

    static float[] randomUnit(Random random, int dims) {
        float[] v = new float[dims];
        double norm = 0;
        for (int i = 0; i < dims; i++) {
            v[i] = (float) random.nextGaussian();
            norm += v[i] * v[i];
        }
        for (int i = 0; i < dims; i++) {
            v[i] = (float) (v[i] / Math.sqrt(norm));
        }
        return v;
    }

    static List<Candidate> memories(Authority a, LuceneIndex index, String query, Eligibility filter, int limit) {
        return a.read(s -> s.memoryCandidates(index, query, filter, limit));
    }

    static List<Candidate> events(Authority a, LuceneIndex index, String query, Scope scope, int limit) {
        return a.read(s -> s.eventCandidates(index, query, scope, limit));
    }

    static Neighbours nearest(Authority a, dev.jiyi.authority.index.VectorIndex index, float[] q, Eligibility filter, int k) {
        return a.read(s -> s.nearest(index, new VectorQuery(q, FINGERPRINT, filter, k, -2, 0)));
    }

    static List<Long> rows(List<Candidate> candidates) {
        return candidates.stream().map(Candidate::rowId).toList();
    }
}
