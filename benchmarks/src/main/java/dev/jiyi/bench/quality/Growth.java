package dev.jiyi.bench.quality;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.bench.ChatCorpus;
import dev.jiyi.engine.Progress;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Grows a scenario's archive to a size with seeded distractors: {@link ChatCorpus} conversations
 * (Chinese, English and mixed chat of 20 to 200 characters, 50 turns a session), each event with
 * one observation memory whose text is the raw turn, as the scenario's own memories are. The
 * distractors go into the scopes the scenario's questions search (a session per scope in turn), so
 * every question competes with them, and happen inside the scenario's time span (each session
 * starts at a seeded time between its first event and a day before its query time), so that
 * freshness favours neither. The same scenario, size and seed give the same archive.
 */
final class Growth {

    /** Bumped whenever what a seed grows into changes, so cached archives of the old kind are not reused. */
    static final int VERSION = 1;

    /** Events (and memories) per batch. */
    private static final int CHUNK = 1_000;

    private static final Duration TURN_GAP = Duration.ofSeconds(37);

    private Growth() {
    }

    /** The scopes the scenario's questions search, in the order they first appear. */
    static List<Scope> scopes(Scenario s) {
        LinkedHashSet<Scope> scopes = new LinkedHashSet<>();
        s.questions().forEach(q -> scopes.add(q.scope()));
        return List.copyOf(scopes);
    }

    /**
     * Adds {@code extra} distractor events, each with one memory, to an archive holding {@code s}.
     *
     * @param progress advanced by one per distractor
     */
    static void grow(Authority authority, Scenario s, int extra, long seed, Progress progress) {
        if (extra <= 0) {
            return;
        }
        List<Scope> scopes = scopes(s);
        Instant first = s.events().stream().map(Scenario.EventSpec::occurredAt).min(Instant::compareTo)
                .orElse(s.now().minus(Duration.ofDays(365)));
        long span = Math.max(1, Duration.between(first, s.now().minus(Duration.ofDays(1))).getSeconds()
                - TURN_GAP.getSeconds() * ChatCorpus.TURNS_PER_SESSION);
        ChatCorpus corpus = new ChatCorpus(seed, "grow");
        SplittableRandom starts = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        Instant sessionStart = first;
        for (int done = 0; done < extra; ) {
            int n = Math.min(CHUNK, extra - done);
            List<EventSubmission> events = new ArrayList<>(n);
            List<Derivation> memories = new ArrayList<>(n);
            for (int i = 0; i < n; i++, done++) {
                int turn = done % ChatCorpus.TURNS_PER_SESSION;
                int session = done / ChatCorpus.TURNS_PER_SESSION;
                if (turn == 0) {
                    sessionStart = first.plusSeconds(starts.nextLong(span));
                }
                Scope scope = scopes.get(session % scopes.size());
                EventSubmission e = corpus.nextEvent();
                EventSubmission placed = new EventSubmission("grow-" + done, scope, e.role(), e.text(), "benchmark",
                        null, "grow-" + session, sessionStart.plus(TURN_GAP.multipliedBy(turn)));
                events.add(placed);
                memories.add(new Derivation(scope, MemoryDraft.builder(placed.id()).kind(Kind.OBSERVATION)
                        .basis(e.role() == Role.USER ? Basis.USER_STATEMENT : Basis.ASSISTANT_EXPRESSION)
                        .text(e.text()).quote(e.text()).build()));
            }
            require(authority.submitEvents(events), "events");
            require(authority.addMemories(memories), "memories");
            progress.advance(n);
        }
    }

    static void require(BatchResult<?> r, String what) {
        if (r.failed()) {
            throw new IllegalStateException("loading " + what + " failed at item " + r.failedAt(), r.error());
        }
    }
}
