package dev.jiyi.ranking;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Candidate;
import dev.jiyi.authority.Eligibility;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Neighbours;
import dev.jiyi.authority.RawEventRow;
import dev.jiyi.authority.RecallIndex;
import dev.jiyi.authority.RecallRow;
import dev.jiyi.authority.RelatedLink;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.VectorQuery;
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

    /** The query's vector and the model that made it. */
    private record QueryVector(float[] vector, Embedder model) {
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
            return new QueryVector(model.embed(request.query()), model);
        } catch (ProviderException e) {
            warnings.add("mode " + mode + ": the query could not be embedded (" + e.getMessage()
                    + "), so results are lexical only");
            return null;
        }
    }

    /** Every read of one recall, in one snapshot; all ranked results, best first. */
    private List<RecalledItem> recall(Snapshot snapshot, RecallRequest request, Eligibility eligible, QueryVector vector,
                                      List<String> warnings) {
        Instant at = eligible.at();
        Scope scope = request.scope();
        Map<Long, Double> cosine = vector == null ? Map.of() : similar(snapshot, request, eligible, vector, warnings);
        List<Candidate> memoryMatches = snapshot.memoryCandidates(index.lexical(), request.query(), eligible,
                config.candidateLimit());
        List<Candidate> eventMatches = snapshot.eventCandidates(index.lexical(), request.query(), scope,
                config.eventCandidateLimit());
        if (memoryMatches.isEmpty() && eventMatches.isEmpty() && cosine.isEmpty()) {
            return List.of();
        }

        // Lexical evidence per memory row: its own match, or a (discounted) match on its source event.
        Map<Long, Double> lexical = new HashMap<>();
        Map<Long, Evidence> via = new HashMap<>();
        double memoryTop = top(memoryMatches);
        for (Candidate c : memoryMatches) {
            lexical.merge(c.rowId(), c.score() / memoryTop, Math::max);
            via.put(c.rowId(), Evidence.MEMORY);
        }
        double eventTop = top(eventMatches);
        Map<Long, Double> eventLexical = new HashMap<>();
        for (Candidate c : eventMatches) {
            eventLexical.put(c.rowId(), c.score() / eventTop);
        }
        // Conversation context: a matching turn is weaker evidence for the turns next to it.
        Map<Long, Double> contextLexical = new HashMap<>();
        if (config.contextEvidence() > 0) {
            for (Map.Entry<Long, List<Long>> e : snapshot.adjacentEvents(eventLexical.keySet()).entrySet()) {
                for (Long neighbour : e.getValue()) {
                    contextLexical.merge(neighbour, config.contextEvidence() * eventLexical.get(e.getKey()), Math::max);
                }
            }
        }
        Set<Long> evidenceEvents = new LinkedHashSet<>(eventLexical.keySet());
        evidenceEvents.addAll(contextLexical.keySet());
        Map<Long, List<Long>> derived = snapshot.derivedMemoryRows(evidenceEvents);
        for (Map.Entry<Long, List<Long>> e : derived.entrySet()) {
            double direct = config.eventEvidence() * eventLexical.getOrDefault(e.getKey(), 0.0);
            double context = contextLexical.getOrDefault(e.getKey(), 0.0);
            double evidence = Math.max(direct, context);
            for (Long row : e.getValue()) {
                if (evidence > lexical.getOrDefault(row, 0.0)) {
                    lexical.put(row, evidence);
                    via.put(row, direct >= context ? Evidence.SOURCE_EVENT : Evidence.ADJACENT_TURN);
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
            via.putIfAbsent(row, Evidence.VECTOR);
        }
        Map<Long, Double> related = new HashMap<>();
        for (RelatedLink link : snapshot.relatedLinks(rows)) {
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
        for (RecallRow row : snapshot.recallRows(scope, rows)) {
            RecalledItem item = memoryItem(row, lexical.getOrDefault(row.rowId(), 0.0),
                    cosine.getOrDefault(row.rowId(), 0.0), related.getOrDefault(row.rowId(), 0.0),
                    via.getOrDefault(row.rowId(), Evidence.RELATED_LINK), at, request.includeHistory());
            if (item != null) {
                items.add(item);
            }
        }
        for (RawEventRow raw : snapshot.rawEvents(scope, eventLexical.keySet())) {
            RecalledItem item = rawItem(raw, eventLexical.get(raw.event().sequence()), at);
            if (item != null) {
                items.add(item);
            }
        }
        items.sort(ORDER);
        return items;
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

    /** Best score first; memories before raw events; then IDs: deterministic for equal scores. */
    static final Comparator<RecalledItem> ORDER = Comparator.comparingDouble(RecalledItem::score).reversed()
            .thenComparing(RecalledItem::type)
            .thenComparing(i -> i.memoryId() == null ? "" : i.memoryId())
            .thenComparing(RecalledItem::sourceEventId);

    private RecalledItem memoryItem(RecallRow row, double lexical, double cosine, double related, Evidence via,
                                    Instant at, boolean history) {
        Memory m = row.memory();
        if (m.revoked()) {
            return null; // R8: never, not even with history
        }
        Status status = Status.of(m.validity(), at);
        if (!history && status != Status.CURRENT) {
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
        Forgetting.Shown shown = forgetting.presentation(m, row.occurredAt(), at);
        return new RecalledItem(RecalledItem.Type.MEMORY, m.id(), m.eventId(), sum(signals), shown.text(),
                shown.presentation(),
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
