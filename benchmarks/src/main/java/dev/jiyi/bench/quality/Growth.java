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
import dev.jiyi.bench.ZipfCorpus;
import dev.jiyi.engine.Progress;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Grows a scenario's archive to a size with seeded distractors, each event with one observation
 * memory whose text is the raw turn, as the scenario's own memories are (events alone for a
 * scenario whose turns are kept as events only). The distractors go into
 * the scopes the scenario's questions search (a session per scope in turn), so every question
 * competes with them, and happen inside the scenario's time span (each session starts at a seeded
 * time between its first event and a day before its query time), so that freshness favours
 * neither. The same scenario, size, seed and corpus give the same archive.
 */
final class Growth {

    /** Bumped whenever what a seed grows into changes, so cached archives of the old kind are not reused. */
    static final int VERSION = 2;

    /** Where the distractors' text comes from ({@code bench recall --growth}). */
    enum Corpus {
        /**
         * {@link ZipfCorpus}: vocabulary that grows as real text's does (jieba's and an English
         * frequency list's words by frequency, topics and names by Zipf draws, 20 turns a
         * session), so a word's share of the rows falls as the archive grows. The default.
         */
        ZIPF("zipf", ZipfCorpus.TURNS_PER_SESSION),
        /**
         * {@link ChatCorpus}: 60 fixed everyday sentences spliced into turns of 20 to 200 characters,
         * 50 a session. Every word keeps its share of the rows at any size, and many of the
         * sentences state facts of the kinds the scenarios ask about (a cat's name, an allergy, a
         * trip), so it is the worst case: the named adversary, not a model of an archive.
         */
        CHAT("chat", ChatCorpus.TURNS_PER_SESSION);

        final String code;
        final int turnsPerSession;

        Corpus(String code, int turnsPerSession) {
            this.code = code;
            this.turnsPerSession = turnsPerSession;
        }

        static Corpus parse(String code) {
            for (Corpus c : values()) {
                if (c.code.equals(code)) {
                    return c;
                }
            }
            throw new IllegalArgumentException("--growth: must be zipf or chat");
        }
    }

    /** What a distractor's event ID (and session) begins with. */
    static final String PREFIX = "grow-";

    /** Events (and memories) per batch. */
    private static final int CHUNK = 1_000;

    private static final Duration TURN_GAP = Duration.ofSeconds(37);

    private Growth() {
    }

    /**
     * The rows a scenario's archive is counted in: its memories, or its events for a scenario kept
     * as events only (its distractors are then events only too, as the scenario's turns are).
     */
    static int rows(Scenario s) {
        return s.memories().isEmpty() ? s.events().size() : s.memories().size();
    }

    /** The scopes the scenario's questions search, in the order they first appear. */
    static List<Scope> scopes(Scenario s) {
        LinkedHashSet<Scope> scopes = new LinkedHashSet<>();
        s.questions().forEach(q -> scopes.add(q.scope()));
        return List.copyOf(scopes);
    }

    /**
     * Adds {@code extra} distractor events to an archive holding {@code s}, each with one memory
     * unless the scenario keeps its own turns as events only.
     *
     * @param progress advanced by one per distractor
     */
    static void grow(Authority authority, Scenario s, int extra, long seed, Corpus corpus, Progress progress) {
        if (extra <= 0) {
            return;
        }
        List<Scope> scopes = scopes(s);
        Instant first = s.events().stream().map(Scenario.EventSpec::occurredAt).min(Instant::compareTo)
                .orElse(s.now().minus(Duration.ofDays(365)));
        int perSession = corpus.turnsPerSession;
        long span = Math.max(1, Duration.between(first, s.now().minus(Duration.ofDays(1))).getSeconds()
                - TURN_GAP.getSeconds() * perSession);
        ChatCorpus chat = corpus == Corpus.CHAT ? new ChatCorpus(seed, "grow") : null;
        ZipfCorpus zipf = corpus == Corpus.ZIPF ? new ZipfCorpus(seed, extra) : null;
        SplittableRandom starts = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        Instant sessionStart = first;
        for (int done = 0; done < extra; ) {
            int n = Math.min(CHUNK, extra - done);
            List<EventSubmission> events = new ArrayList<>(n);
            List<Derivation> memories = new ArrayList<>(n);
            for (int i = 0; i < n; i++, done++) {
                int turn = done % perSession;
                int session = done / perSession;
                if (turn == 0) {
                    sessionStart = first.plusSeconds(starts.nextLong(span));
                }
                Scope scope = scopes.get(session % scopes.size());
                Role role;
                String text;
                if (chat != null) {
                    EventSubmission e = chat.nextEvent();
                    role = e.role();
                    text = e.text();
                } else {
                    ZipfCorpus.Turn t = zipf.turn(done);
                    role = t.role();
                    text = t.text();
                }
                EventSubmission placed = new EventSubmission(PREFIX + done, scope, role, text, "benchmark",
                        null, PREFIX + session, sessionStart.plus(TURN_GAP.multipliedBy(turn)));
                events.add(placed);
                memories.add(new Derivation(scope, MemoryDraft.builder(placed.id()).kind(Kind.OBSERVATION)
                        .basis(role == Role.USER ? Basis.USER_STATEMENT : Basis.ASSISTANT_EXPRESSION)
                        .text(text).quote(text).build()));
            }
            require(authority.submitEvents(events), "events");
            if (!s.memories().isEmpty()) {
                require(authority.addMemories(memories), "memories");
            }
            progress.advance(n);
        }
    }

    static void require(BatchResult<?> r, String what) {
        if (r.failed()) {
            throw new IllegalStateException("loading " + what + " failed at item " + r.failedAt(), r.error());
        }
    }
}
