package dev.jiyi.ranking;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Candidate;
import dev.jiyi.authority.CandidateIndex;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.RawEventRow;
import dev.jiyi.authority.RecallRow;
import dev.jiyi.authority.RelatedLink;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Validity;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.ProviderException;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Recall over whichever {@link CandidateIndex} it is given (FTS5 or Lucene): a bounded candidate set
 * from the index, source-event keys and one-hop {@code related} links (R4), rechecked against the
 * authority (present, in scope, not revoked, valid at the query time: R8, T6), scored by fused
 * signals (R3), and presented with forgetting rules (F1-F3). Events without derived memories come
 * back as labeled raw results (R7). A query without evidence returns nothing (R6).
 *
 * <p>Semantic and deep modes add the memories whose vectors are most similar to the query's (R5):
 * semantic mode compares the most recent eligible vectors (at most {@link RecallConfig#semanticLimit()}),
 * deep mode all of them, an exact scan of the vector cache. Only similarity above the threshold is
 * evidence (R3). Fast mode never asks for the embedder (R4).
 */
public final class Recall {

    /** Share of the candidate budget kept for memories reached over a related link. */
    static final double RELATED_SHARE = 0.1;

    private final Authority authority;
    private final CandidateIndex index;
    private final RecallConfig config;
    private final Clock clock;
    private final Forgetting forgetting;
    private final Supplier<Embedder> embedder;

    /** Recall with fast mode only: semantic and deep modes warn and rank lexically. */
    public Recall(Authority authority, CandidateIndex index, RecallConfig config, Clock clock) {
        this(authority, index, config, clock, null);
    }

    /**
     * @param embedder the query embedder, asked for only by semantic and deep recalls (so that fast
     *                 recall never loads a model or reaches an endpoint); null when there is none
     */
    public Recall(Authority authority, CandidateIndex index, RecallConfig config, Clock clock,
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
        Scope scope = request.scope();

        Map<Long, Double> cosine = request.mode() == RecallMode.FAST ? Map.of() : similar(request, at, warnings);
        List<Candidate> memoryMatches = authority.memoryCandidates(index, scope, request.query(), config.candidateLimit());
        List<Candidate> eventMatches = authority.eventCandidates(index, scope, request.query(), config.eventCandidateLimit());
        if (memoryMatches.isEmpty() && eventMatches.isEmpty() && cosine.isEmpty()) {
            return new RecallResult(List.of(), warnings);
        }

        // Lexical evidence per memory row: its own match, or a (discounted) match on its source event.
        Map<Long, Double> lexical = new HashMap<>();
        Map<Long, String> via = new HashMap<>();
        double memoryTop = top(memoryMatches);
        for (Candidate c : memoryMatches) {
            lexical.merge(c.rowId(), c.score() / memoryTop, Math::max);
            via.put(c.rowId(), "memory");
        }
        double eventTop = top(eventMatches);
        Map<Long, Double> eventLexical = new HashMap<>();
        for (Candidate c : eventMatches) {
            eventLexical.put(c.rowId(), c.score() / eventTop);
        }
        // Conversation context: a matching turn is weaker evidence for the turns next to it.
        Map<Long, Double> contextLexical = new HashMap<>();
        if (config.contextEvidence() > 0) {
            for (Map.Entry<Long, List<Long>> e : authority.adjacentEvents(eventLexical.keySet()).entrySet()) {
                for (Long neighbour : e.getValue()) {
                    contextLexical.merge(neighbour, config.contextEvidence() * eventLexical.get(e.getKey()), Math::max);
                }
            }
        }
        Set<Long> evidenceEvents = new LinkedHashSet<>(eventLexical.keySet());
        evidenceEvents.addAll(contextLexical.keySet());
        Map<Long, List<Long>> derived = authority.derivedMemoryRows(evidenceEvents);
        for (Map.Entry<Long, List<Long>> e : derived.entrySet()) {
            double direct = config.eventEvidence() * eventLexical.getOrDefault(e.getKey(), 0.0);
            double context = contextLexical.getOrDefault(e.getKey(), 0.0);
            double evidence = Math.max(direct, context);
            for (Long row : e.getValue()) {
                if (evidence > lexical.getOrDefault(row, 0.0)) {
                    lexical.put(row, evidence);
                    via.put(row, direct >= context ? "source_event" : "adjacent_turn");
                }
            }
        }

        // The bounded candidate set (R4): the best lexical rows, then one-hop neighbours of them.
        // Semantic and deep recalls add their most similar rows (at most candidateLimit more).
        int relatedBudget = (int) Math.floor(config.candidateLimit() * RELATED_SHARE);
        List<Long> chosen = best(lexical, config.candidateLimit() - relatedBudget);
        Set<Long> rows = new LinkedHashSet<>(chosen);
        rows.addAll(cosine.keySet());
        for (Long row : cosine.keySet()) {
            via.putIfAbsent(row, "vector");
        }
        Map<Long, Double> related = new HashMap<>();
        for (RelatedLink link : authority.relatedLinks(rows)) {
            double from = Math.max(lexical.getOrDefault(link.fromRow(), 0.0), cosine.getOrDefault(link.fromRow(), 0.0));
            related.merge(link.toRow(), from, Math::max);
        }
        int limit = config.candidateLimit() + cosine.size();
        for (Long row : best(related, related.size())) {
            if (rows.size() >= limit) {
                break;
            }
            rows.add(row);
        }

        List<RecalledItem> items = new ArrayList<>();
        for (RecallRow row : authority.recallRows(scope, rows)) {
            RecalledItem item = memoryItem(row, lexical.getOrDefault(row.rowId(), 0.0),
                    cosine.getOrDefault(row.rowId(), 0.0), related.getOrDefault(row.rowId(), 0.0), via.getOrDefault(row.rowId(), "related_link"), at,
                    request.includeHistory());
            if (item != null) {
                items.add(item);
            }
        }
        for (RawEventRow raw : authority.rawEvents(scope, eventLexical.keySet())) {
            RecalledItem item = rawItem(raw, eventLexical.get(raw.event().sequence()), at);
            if (item != null) {
                items.add(item);
            }
        }
        items.sort(ORDER);
        return new RecallResult(items.subList(0, Math.min(request.limit(), items.size())), warnings);
    }

    /**
     * R5: the eligible memories most similar to the query (at most candidateLimit), with their cosine
     * similarity, counting only similarity above the threshold (R3). Semantic mode compares the most
     * recent semanticLimit vectors, deep mode all. Warns when the scan or the vector coverage (V4)
     * leaves memories out, and when there is no embedder or it fails (then lexical evidence only).
     */
    private Map<Long, Double> similar(RecallRequest request, Instant at, List<String> warnings) {
        String mode = request.mode().name().toLowerCase(Locale.ROOT);
        if (embedder == null) {
            warnings.add("mode " + mode + ": no embedding model is configured, so results are lexical only");
            return Map.of();
        }
        Embedder model;
        float[] query;
        try {
            model = embedder.get();
            query = model.embed(request.query());
        } catch (ProviderException e) {
            warnings.add("mode " + mode + ": the query could not be embedded (" + e.getMessage()
                    + "), so results are lexical only");
            return Map.of();
        }
        String fingerprint = model.fingerprint();
        VectorCache.Coverage coverage = authority.vectorCoverage(request.scope(), fingerprint, at, request.includeHistory());
        int scanLimit = request.mode() == RecallMode.DEEP ? 0 : config.semanticLimit();
        double threshold = Double.isNaN(config.cosineThreshold()) ? model.cosineThreshold() : config.cosineThreshold();
        int keep = config.candidateLimit();
        // The best `keep` rows by similarity; ties go to the newer (larger) row, as elsewhere.
        PriorityQueue<Map.Entry<Long, Double>> top = new PriorityQueue<>(
                Map.Entry.<Long, Double>comparingByValue().thenComparing(Map.Entry.comparingByKey()));
        long scanned = authority.scanVectors(request.scope(), fingerprint, at, request.includeHistory(), scanLimit,
                (row, vector) -> {
                    if (vector.length != query.length) {
                        return;
                    }
                    double c = dot(query, vector);
                    if (c > threshold) {
                        top.add(Map.entry(row, c));
                        if (top.size() > keep) {
                            top.poll();
                        }
                    }
                });
        if (scanned < coverage.covered()) {
            warnings.add("mode " + mode + " compared the " + scanned + " most recent of " + coverage.covered()
                    + " vectors; --mode deep compares all");
        }
        if (!coverage.complete()) {
            warnings.add("vector coverage incomplete: " + (coverage.eligible() - coverage.covered()) + " of "
                    + coverage.eligible() + " memories have no vector of the current embedding model; "
                    + "run `jiyi reindex --vectors`");
        }
        Map<Long, Double> out = new HashMap<>();
        for (Map.Entry<Long, Double> e : top) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    private static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /** Best score first; memories before raw events; then IDs: deterministic for equal scores. */
    static final Comparator<RecalledItem> ORDER = Comparator.comparingDouble(RecalledItem::score).reversed()
            .thenComparing(RecalledItem::type)
            .thenComparing(i -> i.memoryId() == null ? "" : i.memoryId())
            .thenComparing(RecalledItem::sourceEventId);

    private RecalledItem memoryItem(RecallRow row, double lexical, double cosine, double related, String via, Instant at,
                                    boolean history) {
        Memory m = row.memory();
        if (m.revoked()) {
            return null; // R8: never, not even with history
        }
        String status = status(m.validity(), at);
        if (!history && !status.equals("current")) {
            return null; // T6: expired and future facts only with --as-of / --include-history
        }
        Weights w = config.weights();
        List<Signal> signals = List.of(
                new Signal("lexical", lexical, w.lexical()),
                new Signal("cosine", cosine, w.cosine()),
                new Signal("related", related, w.related()),
                new Signal("basis", basisValue(m.basis()), w.basis()),
                new Signal("confidence", m.confidence(), w.confidence()),
                new Signal("freshness", forgetting.freshness(row.occurredAt(), at), w.freshness()));
        String[] shown = forgetting.presentation(m, row.occurredAt(), at);
        return new RecalledItem(RecalledItem.Type.MEMORY, m.id(), m.eventId(), sum(signals), shown[0], shown[1],
                m.kind(), m.basis(), null, m.confidence(), forgetting.timeLabel(m.kind(), row.occurredAt(), at),
                row.occurredAt(), m.validity(), status, false, via, signals);
    }

    private RecalledItem rawItem(RawEventRow raw, double lexical, Instant at) {
        Event e = raw.event();
        if (raw.derived() || e.amended() || e.occurredAt().isAfter(at)) {
            return null; // R7 only for events without memories; C3 never from amended text
        }
        Weights w = config.weights();
        List<Signal> signals = List.of(
                new Signal("lexical", lexical, w.lexical()),
                new Signal("freshness", forgetting.freshness(e.occurredAt(), at), w.freshness()));
        String text = e.text();
        boolean truncated = text.codePointCount(0, text.length()) > config.rawTextCap();
        if (truncated) {
            text = text.substring(0, text.offsetByCodePoints(0, config.rawTextCap()));
        }
        return new RecalledItem(RecalledItem.Type.RAW_EVENT, null, e.id(), sum(signals), text, "raw_event", null, null,
                e.category(), 0.0, forgetting.timeLabel(null, e.occurredAt(), at), e.occurredAt(), null, "current",
                truncated, "raw_event", signals);
    }

    static String status(Validity v, Instant at) {
        if (v.contains(at)) {
            return "current";
        }
        return at.isBefore(v.validAt()) ? "future" : "expired";
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

    private static double top(List<Candidate> candidates) {
        double top = 0;
        for (Candidate c : candidates) {
            top = Math.max(top, c.score());
        }
        return top > 0 ? top : 1;
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
