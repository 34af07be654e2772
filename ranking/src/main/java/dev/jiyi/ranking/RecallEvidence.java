package dev.jiyi.ranking;

import dev.jiyi.authority.Memory;
import dev.jiyi.authority.RecallRow;
import dev.jiyi.authority.RelatedLink;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.index.Eligibility;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recall's second phase: from matches to the memories that are candidates and why. A memory's
 * lexical evidence is its own match, a discounted match on its source event, or, for an earlier
 * fact that matches, its timeline's current fact (R9); beside it, the context its source event is
 * lent. The best of them, with the vector matches and one-hop related links, make the bounded
 * candidate set (R4), each rechecked against the authority (R8, T6). The events without memories
 * that match or are lent anything are the raw candidates (R7).
 */
final class RecallEvidence {

    /** Share of the candidate budget kept for memories reached over a related link. */
    static final double RELATED_SHARE = 0.1;

    /**
     * Each memory row's lexical evidence, the context lent to it, and why it is a candidate; and which
     * of the events that match or are lent anything have memories.
     *
     * @param combined      lexical plus context: what the candidate set is chosen by
     * @param derivedEvents the events among those that memories were derived from: they are never
     *                      raw candidates (R7)
     */
    record Lexical(Map<Long, Double> lexical, Map<Long, Double> context, Map<Long, Evidence> via,
                   Map<Long, Double> combined, Set<Long> derivedEvents) {
    }

    /** The admitted candidates, in the order they were loaded, and what related links lend them. */
    record Admitted(Map<Long, RecallRow> rows, Map<Long, Double> related) {
    }

    private final Snapshot snapshot;
    private final RecallConfig config;

    RecallEvidence(Snapshot snapshot, RecallConfig config) {
        this.snapshot = snapshot;
        this.config = config;
    }

    /** Lexical evidence per memory row: its own match, or a (discounted) match on its source event, or its timeline's. */
    Lexical lexical(RecallCandidates.Matches matches, Scope scope, Eligibility eligible) {
        Map<Long, Double> lexical = new HashMap<>(matches.memories());
        Map<Long, Evidence> via = new HashMap<>();
        for (Long row : lexical.keySet()) {
            via.put(row, Evidence.MEMORY);
        }
        Set<Long> evidenceEvents = new LinkedHashSet<>(matches.events().keySet());
        evidenceEvents.addAll(matches.lentTo());
        Map<Long, Double> context = new HashMap<>();
        Map<Long, List<Long>> derived = snapshot.derivedMemoryRows(evidenceEvents);
        for (Map.Entry<Long, List<Long>> e : derived.entrySet()) {
            double direct = config.eventEvidence() * matches.events().getOrDefault(e.getKey(), 0.0);
            double around = matches.lent(e.getKey());
            Evidence lentBy = matches.contexts().containsKey(e.getKey()) ? Evidence.ADJACENT_TURN : Evidence.SHARED_WORDS;
            for (Long row : e.getValue()) {
                if (direct > lexical.getOrDefault(row, 0.0)) {
                    lexical.put(row, direct);
                    via.put(row, Evidence.SOURCE_EVENT);
                }
                if (around > 0) {
                    context.merge(row, around, Math::max);
                    via.putIfAbsent(row, lentBy);
                }
            }
        }
        // R9: a matching fact of another time stands for its timeline's fact at the query time.
        // With history, the matches themselves are of any time; the timeline's fact is the one valid now.
        Map<Long, Double> earlier = eligible.includeHistory() ? matches.memories() : matches.history();
        if (!earlier.isEmpty()) {
            Eligibility valid = Eligibility.current(scope, eligible.at());
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
        Map<Long, Double> combined = new HashMap<>(lexical);
        context.forEach((row, v) -> combined.merge(row, v, Double::sum));
        return new Lexical(lexical, context, via, combined, derived.keySet());
    }

    /**
     * R7 with R4: the events without memories that are raw candidates, each by its own match or by
     * what its conversation lends it, as a memory derived from it would be: every one that matches,
     * and of those that are only lent, the {@link RecallConfig#candidates} lent the most. So an answer
     * told in the reply to the turn that holds the question's words is found in a home that keeps only
     * its conversation. Whether an event is amended or after the query time is known only once its
     * row is loaded ({@link RecallScoring#raw} drops it then), so such events count in the budget.
     */
    List<Long> rawEvents(RecallCandidates.Matches matches, Lexical lexical, RecallRequest request) {
        List<Long> out = new ArrayList<>();
        for (Long event : matches.events().keySet()) {
            if (!lexical.derivedEvents().contains(event)) {
                out.add(event);
            }
        }
        Map<Long, Double> lentOnly = new HashMap<>();
        for (Long event : matches.lentTo()) {
            if (!matches.events().containsKey(event) && !lexical.derivedEvents().contains(event)) {
                lentOnly.put(event, matches.lent(event));
            }
        }
        out.addAll(best(lentOnly, config.candidates(request.limit())));
        return out;
    }

    /**
     * The bounded candidate set (R4): the best lexical rows ({@link RecallConfig#candidates} for the
     * results asked for), then one-hop neighbours of them; semantic and deep recalls add their most
     * similar rows (at most candidateLimit more). Each is loaded and rechecked; related links lend
     * only from rows the recheck kept, so a link never lends the evidence of a revoked, expired or
     * out-of-scope memory. Adds the vector matches to {@code lexical}'s reasons.
     */
    Admitted admit(Lexical lexical, Map<Long, Double> cosine, RecallRequest request, Instant at) {
        Scope scope = request.scope();
        int budget = config.candidates(request.limit());
        int relatedBudget = (int) Math.floor(budget * RELATED_SHARE);
        Set<Long> rows = new LinkedHashSet<>(best(lexical.combined(), budget - relatedBudget));
        rows.addAll(cosine.keySet());
        for (Long row : cosine.keySet()) {
            lexical.via().putIfAbsent(row, Evidence.VECTOR);
        }
        Map<Long, RecallRow> admitted = new LinkedHashMap<>();
        for (RecallRow row : snapshot.recallRows(scope, rows)) {
            if (admits(row, at, request.includeHistory())) {
                admitted.put(row.rowId(), row);
            }
        }
        Map<Long, Double> related = new HashMap<>();
        for (RelatedLink link : snapshot.relatedLinks(admitted.keySet())) {
            double from = Math.max(lexical.combined().getOrDefault(link.fromRow(), 0.0),
                    cosine.getOrDefault(link.fromRow(), 0.0));
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
        return new Admitted(admitted, related);
    }

    /** The recheck (R8, T6): never revoked; expired and future facts only with history. */
    private static boolean admits(RecallRow row, Instant at, boolean history) {
        Memory m = row.memory();
        return !m.revoked() && (history || Status.of(m.validity(), at) == Status.CURRENT);
    }

    /** The {@code n} keys with the highest values; ties go to the larger (newer) row. */
    static List<Long> best(Map<Long, Double> values, int n) {
        return values.entrySet().stream()
                .sorted(Map.Entry.<Long, Double>comparingByValue().reversed()
                        .thenComparing(Map.Entry.<Long, Double>comparingByKey().reversed()))
                .limit(Math.max(0, n))
                .map(Map.Entry::getKey)
                .toList();
    }
}
