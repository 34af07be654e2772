package dev.jiyi.ranking;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.analysis.LanguagePrior;
import dev.jiyi.analysis.QueryCoverage;
import dev.jiyi.authority.RawEventRow;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.TurnContext;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.Neighbours;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.authority.index.VectorQuery;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recall's first phase: what the query matches. The lexical index proposes memories and events for
 * each view of the request (R4), the turns around matching events lend them context, earlier facts
 * that match lead to their timeline (R9), the query's evidence is measured (R6), and in semantic and
 * deep modes the vector index proposes the most similar memories (R5). All in one snapshot.
 */
final class RecallCandidates {

    /** The most a turn's context can be, as a share of the best match it is lent from. */
    static final double CONTEXT_CAP = 0.9;

    /** Most matching facts of other times that recall follows to their timeline's current fact (R9). */
    static final int TIMELINE_CANDIDATES = 20;

    /** A query's text and how much its evidence counts: the whole query, or a part of a dialogue. */
    private record View(String text, double weight) {
    }

    /**
     * Lexical evidence per row, the best over every view (each match times its view's weight).
     *
     * @param contexts per event, what the turns around it lend it
     * @param shared   per event, what the best match lends it through its own words
     *                 ({@link RecallCandidates#shared}; empty until it is asked for)
     * @param evidenced whether some view's direct match holds R6's minimum evidence (the query is
     *                  answered lexically at all)
     */
    record Matches(Map<Long, Double> memories, Map<Long, Double> events, Map<Long, Double> contexts,
                   Map<Long, Double> shared, Map<Long, Double> history, boolean evidenced) {

        static final Matches NONE = new Matches(Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), false);

        boolean isEmpty() {
            return memories.isEmpty() && events.isEmpty();
        }

        /** The events that are lent anything. */
        Set<Long> lentTo() {
            Set<Long> out = new LinkedHashSet<>(contexts.keySet());
            out.addAll(shared.keySet());
            return out;
        }

        /** All an event is lent: its context and what the best match's words lend it. */
        double lent(long event) {
            return contexts.getOrDefault(event, 0.0) + shared.getOrDefault(event, 0.0);
        }
    }

    private final Snapshot snapshot;
    private final RecallIndex index;
    private final RecallConfig config;

    RecallCandidates(Snapshot snapshot, RecallIndex index, RecallConfig config) {
        this.snapshot = snapshot;
        this.index = index;
        this.config = config;
    }

    /**
     * What a request searches: a query is one view at full weight; a dialogue (several turns, newest
     * last) is its last turn at full weight, its last three turns at the decay, and all of it at the
     * decay squared, so the turn being answered counts most and older turns still lend their words.
     */
    private List<View> views(RecallRequest request) {
        List<String> turns = request.dialogue();
        if (turns.size() < 2) {
            return List.of(new View(request.query(), 1.0));
        }
        double decay = config.precision().dialogueDecay();
        List<View> views = new ArrayList<>(3);
        views.add(new View(turns.get(turns.size() - 1), 1.0));
        if (decay > 0) {
            if (turns.size() > 3) {
                views.add(new View(String.join("\n", turns.subList(turns.size() - 3, turns.size())), decay));
            }
            views.add(new View(String.join("\n", turns), turns.size() > 3 ? decay * decay : decay));
        }
        return views;
    }

    /** The lexical matches of every view; {@code windows} are the times the query names (R10). */
    Matches matches(RecallRequest request, Eligibility eligible, List<TimeExpressions.Window> windows) {
        Scope scope = request.scope();
        Map<Long, Double> memories = new HashMap<>();
        Map<Long, Double> events = new HashMap<>();
        Map<Long, Double> history = new HashMap<>();
        // R6: the query is answered lexically only if some direct match holds the minimum evidence.
        boolean evidenced = config.precision().minEvidence() <= 0;
        List<String> times = new ArrayList<>();
        for (TimeExpressions.Window w : windows) {
            times.add(w.expression());
        }
        List<View> views = views(request);
        int window = config.candidates(request.limit());
        // R9: facts of other times that match lead to their timeline's current fact. They are searched
        // among themselves, so that the many memories valid now never crowd them out.
        List<Long> otherTimes = eligible.includeHistory() ? List.of() : snapshot.otherTimeFacts(scope, eligible.at());
        for (View view : views) {
            List<Candidate> direct = snapshot.memoryCandidates(index.lexical(), view.text(), eligible, window);
            if (!otherTimes.isEmpty()) {
                collect(history, view, snapshot.memoryCandidatesAmong(index.lexical(), view.text(), scope, otherTimes,
                        TIMELINE_CANDIDATES));
            }
            collect(memories, view, direct);
            List<Candidate> raw = snapshot.eventCandidates(index.lexical(), view.text(), scope, config.eventCandidateLimit());
            collect(events, view, raw);
            if (!evidenced && (!direct.isEmpty() || !raw.isEmpty())) {
                evidenced = evidenced(view.text(), times, eligible, request.dialogue().size() < 2);
            }
        }
        return new Matches(memories, events, context(scope, events), Map.of(), history, evidenced);
    }

    /**
     * R6, R10: whether the query has the minimum evidence without the time expressions it names: a
     * time is a window that boosts what happened then, not words the archive should hold
     * (`两个月前的火锅` asks for 火锅). A
     * query that is nothing but a time ("what did I say last week?") has no lexical evidence: rows
     * that happen to contain the words "last week" are chance. A query of several sentences also has
     * the evidence of its last sentence, when that has {@link #QUESTION_WORDS} words or more
     * ({@link QueryCoverage#lastSentence}); a dialogue is not split (its newest turn is a view of its own).
     */
    private boolean evidenced(String text, List<String> times, Eligibility eligible, boolean bySentence) {
        String rest = text;
        for (String expression : times) {
            rest = rest.replace(expression, " ");
        }
        if (reaches(rest, eligible, 1)) {
            return true;
        }
        String question = bySentence ? QueryCoverage.lastSentence(rest) : null;
        return question != null && reaches(question, eligible, QUESTION_WORDS);
    }

    /** Words the last sentence of a query needs before its own evidence counts: one word is a sign-off, not a question. */
    static final int QUESTION_WORDS = 2;

    /**
     * Whether {@code text}, of {@code words} words or more, has the minimum evidence: some row holds
     * that share of it ({@link LexicalIndex.Coverage#reaches}, which an index may answer at the first such row).
     */
    private boolean reaches(String text, Eligibility eligible, int words) {
        LexicalIndex.Coverage coverage = snapshot.coverage(index.lexical(), text, eligible);
        return coverage.words() >= Math.max(1, words) && coverage.reaches(config.precision().minEvidence());
    }

    /**
     * Conversation context ({@link TurnContext}): each matching turn lends its match to the turns
     * around it that are in an exchange with it (another speaker's, or beyond one), at the near weight
     * to the turns next to it and the far weight to the two beyond. A turn sums what it is lent (a
     * question's words are often spread over the turns around its answer), up to {@link #CONTEXT_CAP}
     * of the best match it is lent from, so context never outranks the direct evidence it comes from.
     * Context is lent only where it tells turns apart: a turn keeps what it is lent beyond its own
     * match, so that a turn is raised to the match around it but a session in which every turn
     * matches the query's common word lends nothing (each turn already holds what its neighbours
     * would lend) and cannot bury a turn elsewhere that holds the query's other words. It is computed
     * here, from the matches of the turns' own text, rather than kept in an index: see TurnContext
     * for why.
     */
    private Map<Long, Double> context(Scope scope, Map<Long, Double> events) {
        RecallConfig.Precision p = config.precision();
        Map<Long, Double> lent = new HashMap<>();
        if (p.contextNear() == 0 && p.contextFar() == 0) {
            return lent;
        }
        Map<Long, Double> best = new HashMap<>();
        for (Map.Entry<Long, TurnContext> e : snapshot.turnContexts(scope, events.keySet()).entrySet()) {
            double match = events.get(e.getKey());
            for (Long turn : e.getValue().near()) {
                lent.merge(turn, p.contextNear() * match, Double::sum);
                best.merge(turn, match, Math::max);
            }
            for (Long turn : e.getValue().far()) {
                lent.merge(turn, p.contextFar() * match, Double::sum);
                best.merge(turn, match, Math::max);
            }
        }
        lent.replaceAll((turn, v) -> Math.max(0, Math.min(v, CONTEXT_CAP * best.get(turn)) - events.getOrDefault(turn, 0.0)));
        lent.values().removeIf(v -> v == 0);
        return lent;
    }

    /**
     * Turns that hold the best match's own words at which those words tell none of them apart: the
     * shared-words search looks at one more, and when this many besides the best match qualify, none
     * is lent anything.
     */
    static final int SHARED_CANDIDATES = 20;

    /** Most of the best match's own words searched: the most specific in the language. */
    static final int SHARED_WORDS = 3;

    /** Best matches looked at for one that happened by the query time (an as-of recall). */
    private static final int SHARED_SEEDS = 5;

    /**
     * {@code matches} with what the best match's own words lend: the best matching turn that
     * happened by the query time (the highest match, then the newest) lends its match, times the
     * shared weight and how well each turn matches them, to the turns of the scope that hold its
     * words that the query (or a dialogue's newest turn) does not. A question that picks a thing out
     * by one attribute and asks for another ("the event in Shenzhen: when does it start?") is
     * answered by a turn that names the thing, not the attribute; and of two turns that match a
     * question alike, the one that says more about what the best match is about is the likelier
     * answer. Like context, it is lent only where it tells turns apart: a turn that holds too little
     * of those words to be evidence for them (below the minimum evidence, R6) is lent nothing, one
     * common word shared being chance here too; and when {@link #SHARED_CANDIDATES} turns or more
     * hold them (a persona's name, the words every one of its notes repeats), no turn is lent
     * anything. An amended best match (C3) lends nothing. What a turn is lent this way is added to
     * its context. One search of events more, for the best match's {@link #SHARED_WORDS} most
     * specific words in the language (a name, a thing: `书法论坛` before `地点`), which keeps it as
     * cheap as a short question on both indexes. Asked for only once the query has evidence (R6).
     */
    Matches shared(RecallRequest request, Eligibility eligible, Matches matches) {
        double weight = config.precision().contextShared();
        if (weight == 0 || matches.events().isEmpty()) {
            return matches;
        }
        Map<Long, Double> events = matches.events();
        List<Long> best = RecallEvidence.best(events, SHARED_SEEDS);
        Map<Long, RawEventRow> rows = new HashMap<>();
        for (RawEventRow row : snapshot.rawEvents(request.scope(), best)) {
            rows.put(row.event().sequence(), row);
        }
        RawEventRow seed = best.stream().map(rows::get)
                .filter(row -> row != null && !row.event().occurredAt().isAfter(eligible.at()))
                .findFirst().orElse(null);
        if (seed == null || seed.event().amended()) {
            return matches; // C3: an amended turn's words lead nowhere
        }
        Set<String> asked = new HashSet<>(ChineseTokens.queryTerms(views(request).getFirst().text()));
        List<String> own = new ArrayList<>();
        for (String word : QueryCoverage.words(ChineseTokens.queryTerms(seed.event().text()))) {
            if (!asked.contains(word)) {
                own.add(word);
            }
        }
        if (own.isEmpty()) {
            return matches;
        }
        if (own.size() > SHARED_WORDS) { // the words that name a thing are its most specific ones
            own.sort(Comparator.comparingDouble(LanguagePrior::specificity).reversed());
            own = own.subList(0, SHARED_WORDS);
        }
        long from = seed.event().sequence();
        double match = events.get(from);
        Map<Long, Double> lent = new HashMap<>();
        for (Candidate c : snapshot.eventCandidates(index.lexical(), String.join(" ", own), request.scope(),
                SHARED_CANDIDATES + 1)) {
            if (c.rowId() != from && c.score() >= config.precision().minEvidence()) {
                lent.put(c.rowId(), weight * match * Math.min(1, c.score()));
            }
        }
        if (lent.size() >= SHARED_CANDIDATES) {
            return matches; // words that this many turns hold tell none of them apart
        }
        return new Matches(matches.memories(), events, matches.contexts(), lent, matches.history(), matches.evidenced());
    }

    private static void collect(Map<Long, Double> into, View view, List<Candidate> candidates) {
        for (Candidate c : candidates) {
            into.merge(c.rowId(), view.weight() * c.score(), Math::max);
        }
    }

    /**
     * The rows similar to the query: each one's cosine signal (similarity above its model's
     * threshold, rescaled so the threshold is 0 and 1 is 1), and the signals of those whose
     * similarity reaches the model's standalone threshold for this query: without lexical
     * evidence, vector evidence answers alone only where the model can tell related from
     * unrelated.
     */
    record Similar(Map<Long, Double> signals, Map<Long, Double> standalone) {
        static final Similar NONE = new Similar(Map.of(), Map.of());
    }

    /**
     * R5: the eligible memories most similar to the query (at most candidateLimit, the best signals
     * of all models), each model's vectors compared with the query's vector of that model, counting
     * only similarity above the threshold (R3). Semantic mode compares the vectors of the most recent
     * semanticLimit memories with a vector of any of the query's models, each with its own model's
     * query vector (so semanticLimit in all, whether the home has one model or one per language);
     * deep mode all. Warns when the search or the vector coverage (V4) leaves memories out.
     */
    Similar similar(RecallRequest request, Eligibility eligible, List<QueryVector> queries, List<String> warnings) {
        String mode = request.mode().code();
        boolean deep = request.mode() == RecallMode.DEEP;
        Map<String, Integer> newest = deep || queries.size() < 2 ? Map.of()
                : snapshot.newestVectors(eligible, queries.stream().map(q -> q.model().fingerprint()).toList(),
                        config.semanticLimit());
        long eligibleRows = 0;
        long covered = 0;
        long compared = 0;
        Map<Long, Double> signals = new HashMap<>();
        Map<Long, Double> standalone = new HashMap<>();
        for (QueryVector query : queries) {
            String fingerprint = query.model().fingerprint();
            VectorCache.Coverage coverage = snapshot.vectorCoverage(eligible, fingerprint);
            eligibleRows = coverage.eligible();
            covered += coverage.covered();
            // VectorQuery's newest: 0 compares all (deep); a model none of the newest memories has is not searched.
            int limit = deep ? 0 : queries.size() < 2 ? config.semanticLimit() : newest.getOrDefault(fingerprint, 0);
            if (!deep && limit == 0) {
                continue;
            }
            double threshold = query.threshold(config);
            Neighbours neighbours = snapshot.nearest(index.vectors(), new VectorQuery(query.vector(), fingerprint,
                    eligible, config.candidateLimit(), threshold, limit));
            compared += neighbours.compared();
            double alone = query.model().standaloneThreshold(query.text(), threshold, coverage.covered());
            for (Candidate c : neighbours.nearest()) {
                double signal = Math.max(0, Math.min(1, (c.score() - threshold) / (1 - threshold)));
                signals.merge(c.rowId(), signal, Math::max);
                if (c.score() >= alone) {
                    standalone.merge(c.rowId(), signal, Math::max);
                }
            }
        }
        if (compared < covered) {
            warnings.add("mode " + mode + " compared the " + compared + " most recent of "
                    + covered + " vectors; --mode deep compares all");
        }
        if (covered < eligibleRows) {
            warnings.add("vector coverage incomplete: " + (eligibleRows - covered) + " of "
                    + eligibleRows + " memories have no vector of the current embedding model; "
                    + "run `jiyi reindex --vectors`");
        }
        if (signals.size() > config.candidateLimit()) {
            Set<Long> kept = new HashSet<>(RecallEvidence.best(signals, config.candidateLimit()));
            signals.keySet().retainAll(kept);
            standalone.keySet().retainAll(kept);
        }
        return new Similar(signals, standalone);
    }
}
