package dev.jiyi.ranking;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.RawEventRow;
import dev.jiyi.authority.RecallRow;
import dev.jiyi.authority.RelatedLink;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.TurnContext;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.Neighbours;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.authority.index.VectorQuery;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.ProviderException;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Recall over whichever {@link RecallIndex} it is given (FTS5 with the exact vector scan, or
 * Lucene), through the authority's index interfaces only: a bounded candidate set from the lexical
 * index (eligible memories only: in scope, not revoked, valid at the query time unless history is
 * asked for), source-event keys and one-hop {@code related} links (R4), rechecked against the
 * authority (present, in scope, not revoked, valid at the query time: R8, T6), scored by fused
 * signals (R3), and presented with forgetting rules (F1-F3). Events without derived memories come
 * back as labeled raw results (R7). A query without evidence returns nothing (R6). One recall reads
 * one snapshot of the authority.
 *
 * <p>Semantic and deep modes add the memories whose vectors are most similar to the query's (R5):
 * semantic mode compares the most recent eligible vectors (at most {@link RecallConfig#semanticLimit()}),
 * deep mode all of them. Only similarity above the threshold is evidence (R3). Fast mode never asks
 * for the embedder (R4); the query is embedded before the snapshot is opened, never inside it.
 */
public final class Recall {

    /** Share of the candidate budget kept for memories reached over a related link. */
    static final double RELATED_SHARE = 0.1;

    private final Authority authority;
    private final RecallIndex index;
    private final RecallConfig config;
    private final Clock clock;
    private final Forgetting forgetting;
    private final Supplier<Embedder> embedder;

    /** Recall with fast mode only: semantic and deep modes warn and rank lexically. */
    public Recall(Authority authority, RecallIndex index, RecallConfig config, Clock clock) {
        this(authority, index, config, clock, null);
    }

    /**
     * @param embedder the query embedder, asked for only by semantic and deep recalls (so that fast
     *                 recall never loads a model or reaches an endpoint); null when there is none
     */
    public Recall(Authority authority, RecallIndex index, RecallConfig config, Clock clock,
                  Supplier<Embedder> embedder) {
        this.authority = authority;
        this.index = index;
        this.config = config;
        this.clock = clock;
        this.forgetting = new Forgetting(config);
        this.embedder = embedder;
    }

    public RecallConfig config() {
        return config;
    }

    public RecallResult recall(RecallRequest request) {
        List<String> warnings = new ArrayList<>();
        Instant now = clock.instant();
        Instant at = request.asOf() != null ? request.asOf() : now;
        Eligibility eligible = new Eligibility(request.scope(), at, request.includeHistory());
        QueryVector vector = request.mode() == RecallMode.FAST ? null : embed(request, warnings);
        List<RecalledItem> items = authority.read(snapshot -> recall(snapshot, request, eligible, vector, warnings));
        return new RecallResult(items.subList(0, Math.min(request.limit(), items.size())), warnings);
    }

    /** The query's vector, the model that made it, and the text it was made from. */
    private record QueryVector(float[] vector, Embedder model, String text) {
    }

    /** Embeds the query for semantic and deep modes; null, with a warning, when that cannot be done. */
    private QueryVector embed(RecallRequest request, List<String> warnings) {
        String mode = request.mode().name().toLowerCase(Locale.ROOT);
        if (embedder == null) {
            warnings.add("mode " + mode + ": no embedding model is configured, so results are lexical only");
            return null;
        }
        try {
            Embedder model = embedder.get();
            String text = embeddedText(request);
            return new QueryVector(model.embed(text), model, text);
        } catch (ProviderException e) {
            warnings.add("mode " + mode + ": the query could not be embedded (" + e.getMessage()
                    + "), so results are lexical only");
            return null;
        }
    }

    /** A query's text and how much its evidence counts: the whole query, or a part of a dialogue. */
    private record View(String text, double weight) {
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

    /** Lexical evidence per row, the best over every view (each match times its view's weight). */
    private record Matches(Map<Long, Double> memories, Map<Long, Double> events, Map<Long, Double> contexts,
                           Map<Long, Double> history, double bestDirect) {

        boolean isEmpty() {
            return memories.isEmpty() && events.isEmpty();
        }
    }

    private Matches matches(Snapshot snapshot, RecallRequest request, Eligibility eligible) {
        Scope scope = request.scope();
        Map<Long, Double> memories = new HashMap<>();
        Map<Long, Double> events = new HashMap<>();
        Map<Long, Double> history = new HashMap<>();
        double bestDirect = 0;
        List<String> times = new ArrayList<>();
        for (TimeExpressions.Window w : TimeExpressions.find(timeText(request), eligible.at(), clock.getZone())) {
            times.add(w.expression());
        }
        for (View view : views(request)) {
            List<Candidate> direct = snapshot.memoryCandidates(index.lexical(), view.text(), eligible, config.candidateLimit());
            collect(memories, view, direct);
            List<Candidate> raw = snapshot.eventCandidates(index.lexical(), view.text(), scope, config.eventCandidateLimit());
            collect(events, view, raw);
            if (!direct.isEmpty() || !raw.isEmpty()) {
                bestDirect = Math.max(bestDirect, evidence(snapshot, view.text(), times, eligible));
            }
            if (!eligible.includeHistory()) {
                // R9: earlier facts that match lead to their timeline's current fact.
                collect(history, view, snapshot.memoryCandidates(index.lexical(), view.text(),
                        Eligibility.anyTime(scope), TIMELINE_CANDIDATES));
            }
        }
        return new Matches(memories, events, context(snapshot, scope, events), history, bestDirect);
    }

    /**
     * R6, R10: the query's evidence without the time expressions it names: a time is a window that
     * boosts what happened then, not words the archive should hold (`两个月前的火锅` asks for 火锅). A
     * query that is nothing but a time ("what did I say last week?") has no lexical evidence: rows
     * that happen to contain the words "last week" are chance.
     */
    private double evidence(Snapshot snapshot, String text, List<String> times, Eligibility eligible) {
        String rest = text;
        for (String expression : times) {
            rest = rest.replace(expression, " ");
        }
        return snapshot.evidence(index.lexical(), rest, eligible);
    }

    /**
     * Conversation context ({@link TurnContext}): each matching turn lends its match
     * to the turns around it, at the near weight to the turns next to it and the far weight to the
     * two beyond. A turn sums what it is lent (a question's words are often spread over the turns
     * around its answer), up to {@link #CONTEXT_CAP} of the best match it is lent from, so context
     * never outranks the direct evidence it comes from. It is computed here, from the matches of the
     * turns' own text, rather than kept in an index: see TurnContext for why.
     */
    private Map<Long, Double> context(Snapshot snapshot, Scope scope, Map<Long, Double> events) {
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
        lent.replaceAll((turn, v) -> Math.min(v, CONTEXT_CAP * best.get(turn)));
        lent.values().removeIf(v -> v == 0);
        return lent;
    }

    /** The most a turn's context can be, as a share of the best match it is lent from. */
    static final double CONTEXT_CAP = 0.9;

    /** Most matches of any time that recall follows to their timeline's current fact (R9). */
    static final int TIMELINE_CANDIDATES = 20;

    private static void collect(Map<Long, Double> into, View view, List<Candidate> candidates) {
        for (Candidate c : candidates) {
            into.merge(c.rowId(), view.weight() * c.score(), Math::max);
        }
    }

    /**
     * What a query's vector is made from: the query, or a dialogue's newest turns, as many as fit
     * {@link #EMBEDDED_CHARS} (the local model reads 512 tokens; a whole long dialogue would be cut
     * at its start and blur the turn being answered with everything before it).
     */
    static String embeddedText(RecallRequest request) {
        List<String> turns = request.dialogue();
        if (turns.isEmpty()) {
            return request.query();
        }
        StringBuilder text = new StringBuilder();
        for (int i = turns.size() - 1; i >= 0; i--) {
            String turn = turns.get(i);
            if (!text.isEmpty() && text.length() + turn.length() + 1 > EMBEDDED_CHARS) {
                break;
            }
            text.insert(0, text.isEmpty() ? turn : turn + "\n");
        }
        return text.toString();
    }

    /** Characters of a dialogue's newest turns its vector is made from. */
    static final int EMBEDDED_CHARS = 500;

    /** Every read of one recall, in one snapshot; all ranked results, best first. */
    private List<RecalledItem> recall(Snapshot snapshot, RecallRequest request, Eligibility eligible, QueryVector vector,
                                      List<String> warnings) {
        Instant at = eligible.at();
        Scope scope = request.scope();
        Map<Long, Double> cosine = vector == null ? Map.of() : similar(snapshot, request, eligible, vector, warnings);
        Matches matches = matches(snapshot, request, eligible);
        // R6, R11: a query whose best direct match covers too little of it has no lexical evidence at
        // all (a shared character or common word is chance, however much better than the rest it is).
        boolean lexicalEvidence = !matches.isEmpty() && matches.bestDirect() >= config.precision().minEvidence();
        if (!lexicalEvidence) {
            cosine = standalone(cosine, vector);
            if (cosine.isEmpty()) {
                return List.of();
            }
            matches = new Matches(Map.of(), Map.of(), Map.of(), Map.of(), 0);
        }

        // Lexical evidence per memory row: its own match, or a (discounted) match on its source event;
        // beside it, the match its source event is lent by the turns around it (conversation context).
        Map<Long, Double> lexical = new HashMap<>(matches.memories());
        Map<Long, Evidence> via = new HashMap<>();
        for (Long row : lexical.keySet()) {
            via.put(row, Evidence.MEMORY);
        }
        Set<Long> evidenceEvents = new LinkedHashSet<>(matches.events().keySet());
        evidenceEvents.addAll(matches.contexts().keySet());
        Map<Long, Double> context = new HashMap<>();
        for (Map.Entry<Long, List<Long>> e : snapshot.derivedMemoryRows(evidenceEvents).entrySet()) {
            double direct = config.eventEvidence() * matches.events().getOrDefault(e.getKey(), 0.0);
            double around = matches.contexts().getOrDefault(e.getKey(), 0.0);
            for (Long row : e.getValue()) {
                if (direct > lexical.getOrDefault(row, 0.0)) {
                    lexical.put(row, direct);
                    via.put(row, Evidence.SOURCE_EVENT);
                }
                if (around > 0) {
                    context.merge(row, around, Math::max);
                    via.putIfAbsent(row, Evidence.ADJACENT_TURN);
                }
            }
        }
        // R9: a matching fact of another time stands for its timeline's fact at the query time.
        // With history, the matches themselves are of any time; the timeline's fact is the one valid now.
        Map<Long, Double> earlier = eligible.includeHistory() ? matches.memories() : matches.history();
        if (!earlier.isEmpty()) {
            Eligibility valid = Eligibility.current(scope, at);
            for (Map.Entry<Long, List<Long>> e : snapshot.timelineFacts(earlier.keySet(), valid).entrySet()) {
                double value = earlier.get(e.getKey());
                for (Long row : e.getValue()) {
                    if (value > lexical.getOrDefault(row, 0.0)) {
                        lexical.put(row, value);
                        via.put(row, Evidence.TIMELINE);
                    }
                }
            }
        }

        // The bounded candidate set (R4): the best lexical rows, then one-hop neighbours of them.
        // Semantic and deep recalls add their most similar rows (at most candidateLimit more).
        Map<Long, Double> combined = new HashMap<>(lexical);
        context.forEach((row, v) -> combined.merge(row, v, Double::sum));
        int relatedBudget = (int) Math.floor(config.candidateLimit() * RELATED_SHARE);
        Set<Long> rows = new LinkedHashSet<>(best(combined, config.candidateLimit() - relatedBudget));
        rows.addAll(cosine.keySet());
        for (Long row : cosine.keySet()) {
            via.putIfAbsent(row, Evidence.VECTOR);
        }
        List<TimeExpressions.Window> windows = TimeExpressions.find(timeText(request), at, clock.getZone());
        Inputs inputs = new Inputs(lexical, context, cosine, new HashMap<>(), via, windows);
        Map<Long, RecallRow> admitted = new LinkedHashMap<>();
        for (RecallRow row : snapshot.recallRows(scope, rows)) {
            if (admits(row, at, request.includeHistory())) {
                admitted.put(row.rowId(), row);
            }
        }
        // One-hop related links, only from rows the recheck kept: a link never lends the evidence of
        // a revoked, expired or out-of-scope memory.
        Map<Long, Double> related = inputs.related();
        for (RelatedLink link : snapshot.relatedLinks(admitted.keySet())) {
            double from = Math.max(combined.getOrDefault(link.fromRow(), 0.0),
                    inputs.cosineValue(link.fromRow(), config, vector));
            if (from > 0) {
                related.merge(link.toRow(), from, Math::max);
            }
        }
        List<Long> extra = new ArrayList<>();
        for (Long row : best(related, related.size())) {
            if (extra.size() >= relatedBudget) {
                break;
            }
            if (!rows.contains(row)) { // rows already loaded were admitted, or rejected by the recheck
                extra.add(row);
            }
        }
        for (RecallRow row : snapshot.recallRows(scope, extra)) {
            if (admits(row, at, request.includeHistory())) {
                admitted.put(row.rowId(), row);
            }
        }

        List<RecalledItem> items = new ArrayList<>();
        for (RecallRow row : admitted.values()) {
            items.add(memoryItem(row, inputs, vector, at));
        }
        Map<Long, Double> rawContext = matches.contexts();
        for (RawEventRow raw : snapshot.rawEvents(scope, matches.events().keySet())) {
            RecalledItem item = rawItem(raw, matches.events().get(raw.event().sequence()),
                    rawContext.getOrDefault(raw.event().sequence(), 0.0), windows, at);
            if (item != null) {
                items.add(item);
            }
        }
        items.sort(ORDER);
        return items;
    }

    /** The text whose time expressions count (R10): the query, or a dialogue's last turn. */
    private static String timeText(RecallRequest request) {
        List<String> turns = request.dialogue();
        return turns.isEmpty() ? request.query() : turns.get(turns.size() - 1);
    }

    /** Everything a memory's signals are computed from. */
    private record Inputs(Map<Long, Double> lexical, Map<Long, Double> context, Map<Long, Double> cosine,
                          Map<Long, Double> related, Map<Long, Evidence> via, List<TimeExpressions.Window> windows) {

        /** The cosine signal: similarity above the threshold, rescaled so the threshold is 0 and 1 is 1. */
        double cosineValue(long row, RecallConfig config, QueryVector vector) {
            Double c = cosine.get(row);
            if (c == null || vector == null) {
                return 0;
            }
            double t = threshold(config, vector.model());
            return Math.max(0, Math.min(1, (c - t) / (1 - t)));
        }
    }

    private static double threshold(RecallConfig config, Embedder model) {
        return Double.isNaN(config.cosineThreshold()) ? model.cosineThreshold() : config.cosineThreshold();
    }

    /**
     * Without lexical evidence, vector evidence answers alone only where the model can tell related
     * from unrelated: similarity at or above its standalone threshold for this query.
     */
    private Map<Long, Double> standalone(Map<Long, Double> cosine, QueryVector vector) {
        if (cosine.isEmpty()) {
            return cosine;
        }
        double alone = vector.model().standaloneThreshold(vector.text(), threshold(config, vector.model()));
        Map<Long, Double> out = new HashMap<>();
        cosine.forEach((row, c) -> {
            if (c >= alone) {
                out.put(row, c);
            }
        });
        return out;
    }

    /**
     * R5: the eligible memories most similar to the query (at most candidateLimit), with their cosine
     * similarity, counting only similarity above the threshold (R3). Semantic mode compares the most
     * recent semanticLimit vectors, deep mode all. Warns when the search or the vector coverage (V4)
     * leaves memories out.
     */
    private Map<Long, Double> similar(Snapshot snapshot, RecallRequest request, Eligibility eligible, QueryVector query,
                                      List<String> warnings) {
        String mode = request.mode().name().toLowerCase(Locale.ROOT);
        Embedder model = query.model();
        String fingerprint = model.fingerprint();
        VectorCache.Coverage coverage = snapshot.vectorCoverage(eligible, fingerprint);
        int newest = request.mode() == RecallMode.DEEP ? 0 : config.semanticLimit();
        double threshold = Double.isNaN(config.cosineThreshold()) ? model.cosineThreshold() : config.cosineThreshold();
        Neighbours neighbours = snapshot.nearest(index.vectors(),
                new VectorQuery(query.vector(), fingerprint, eligible, config.candidateLimit(), threshold, newest));
        if (neighbours.compared() < coverage.covered()) {
            warnings.add("mode " + mode + " compared the " + neighbours.compared() + " most recent of "
                    + coverage.covered() + " vectors; --mode deep compares all");
        }
        if (!coverage.complete()) {
            warnings.add("vector coverage incomplete: " + (coverage.eligible() - coverage.covered()) + " of "
                    + coverage.eligible() + " memories have no vector of the current embedding model; "
                    + "run `jiyi reindex --vectors`");
        }
        Map<Long, Double> out = new HashMap<>();
        for (Candidate c : neighbours.nearest()) {
            out.put(c.rowId(), c.score());
        }
        return out;
    }

    /**
     * Best score first; memories before raw events; then the source event's ID (the host's, so equal
     * scores come in the same order in any copy of the archive, where memory IDs are made anew by
     * each load), then the memory's ID.
     */
    static final Comparator<RecalledItem> ORDER = Comparator.comparingDouble(RecalledItem::score).reversed()
            .thenComparing(RecalledItem::type)
            .thenComparing(RecalledItem::sourceEventId)
            .thenComparing(i -> i.memoryId() == null ? "" : i.memoryId());

    /** The recheck (R8, T6): never revoked; expired and future facts only with history. */
    private static boolean admits(RecallRow row, Instant at, boolean history) {
        Memory m = row.memory();
        return !m.revoked() && (history || Status.of(m.validity(), at) == Status.CURRENT);
    }

    private RecalledItem memoryItem(RecallRow row, Inputs in, QueryVector vector, Instant at) {
        Memory m = row.memory();
        long r = row.rowId();
        Status status = Status.of(m.validity(), at);
        Weights w = config.weights();
        List<Signal> signals = List.of(
                new Signal("lexical", in.lexical().getOrDefault(r, 0.0), w.lexical()),
                new Signal("context", in.context().getOrDefault(r, 0.0), w.lexical()),
                new Signal("cosine", in.cosineValue(r, config, vector), w.cosine()),
                new Signal("related", in.related().getOrDefault(r, 0.0), w.related()),
                new Signal("basis", basisValue(m.basis()), w.basis()),
                new Signal("confidence", m.confidence(), w.confidence()),
                new Signal("freshness", forgetting.freshness(row.occurredAt(), at), w.freshness()),
                new Signal("time", inside(row.occurredAt(), in.windows()), w.time()));
        Forgetting.Shown shown = forgetting.presentation(m, row.occurredAt(), at);
        return new RecalledItem(RecalledItem.Type.MEMORY, m.id(), m.eventId(), sum(signals), shown.text(),
                shown.presentation(),
                m.kind(), m.basis(), null, m.confidence(), forgetting.timeLabel(m.kind(), row.occurredAt(), at),
                row.occurredAt(), m.validity(), status, false, in.via().getOrDefault(r, Evidence.RELATED_LINK), signals);
    }

    /** R10: 1 when the time is inside a window the query names, else 0. */
    private static double inside(Instant time, List<TimeExpressions.Window> windows) {
        for (TimeExpressions.Window window : windows) {
            if (window.contains(time)) {
                return 1;
            }
        }
        return 0;
    }

    private RecalledItem rawItem(RawEventRow raw, double lexical, double context, List<TimeExpressions.Window> windows,
                                 Instant at) {
        Event e = raw.event();
        if (raw.derived() || e.amended() || e.occurredAt().isAfter(at)) {
            return null; // R7 only for events without memories; C3 never from amended text
        }
        Weights w = config.weights();
        List<Signal> signals = List.of(
                new Signal("lexical", lexical, w.lexical()),
                new Signal("context", context, w.lexical()),
                new Signal("freshness", forgetting.freshness(e.occurredAt(), at), w.freshness()),
                new Signal("time", inside(e.occurredAt(), windows), w.time()));
        String text = e.text();
        boolean truncated = text.codePointCount(0, text.length()) > config.rawTextCap();
        if (truncated) {
            text = text.substring(0, text.offsetByCodePoints(0, config.rawTextCap()));
        }
        return new RecalledItem(RecalledItem.Type.RAW_EVENT, null, e.id(), sum(signals), text, Presentation.RAW_EVENT,
                null, null, e.category(), 0.0, forgetting.timeLabel(null, e.occurredAt(), at), e.occurredAt(), null,
                Status.CURRENT, truncated, Evidence.RAW_EVENT, signals);
    }

    static double basisValue(Basis basis) {
        return switch (basis) {
            case USER_STATEMENT -> 1.0;
            case ASSISTANT_EXPRESSION -> 0.7;
            case INFERENCE -> 0.5;
        };
    }

    private static double sum(List<Signal> signals) {
        double s = 0;
        for (Signal signal : signals) {
            s += signal.contribution();
        }
        return s;
    }

    /** The {@code n} keys with the highest values; ties go to the larger (newer) row. */
    private static List<Long> best(Map<Long, Double> values, int n) {
        return values.entrySet().stream()
                .sorted(Map.Entry.<Long, Double>comparingByValue().reversed()
                        .thenComparing(Map.Entry.<Long, Double>comparingByKey().reversed()))
                .limit(Math.max(0, n))
                .map(Map.Entry::getKey)
                .toList();
    }
}
