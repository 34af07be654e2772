package dev.jiyi.ranking;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.RawEventRow;
import dev.jiyi.authority.RecallRow;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Embedders;
import dev.jiyi.providers.ProviderException;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    private final Authority authority;
    private final RecallIndex index;
    private final RecallConfig config;
    private final Clock clock;
    private final Forgetting forgetting;
    private final Supplier<Embedders> embedders;

    /** Recall with fast mode only: semantic and deep modes warn and rank lexically. */
    public Recall(Authority authority, RecallIndex index, RecallConfig config, Clock clock) {
        this(authority, index, config, clock, null);
    }

    /**
     * @param embedders the embedding models, asked for only by semantic and deep recalls (so that
     *                  fast recall never loads a model or reaches an endpoint); null when there are none
     */
    public Recall(Authority authority, RecallIndex index, RecallConfig config, Clock clock,
                  Supplier<Embedders> embedders) {
        this.authority = authority;
        this.index = index;
        this.config = config;
        this.clock = clock;
        this.forgetting = new Forgetting(config);
        this.embedders = embedders;
    }

    public RecallConfig config() {
        return config;
    }

    public RecallResult recall(RecallRequest request) {
        List<String> warnings = new ArrayList<>();
        Instant now = clock.instant();
        Instant at = request.asOf() != null ? request.asOf() : now;
        Eligibility eligible = new Eligibility(request.scope(), at, request.includeHistory());
        List<QueryVector> vectors = request.mode() == RecallMode.FAST ? List.of() : embed(request, warnings);
        List<RecalledItem> items = authority.read(snapshot -> recall(snapshot, request, eligible, vectors, warnings));
        return new RecallResult(items.subList(0, Math.min(request.limit(), items.size())), warnings);
    }

    /**
     * Embeds the query for semantic and deep modes, once per model whose vectors the home holds (a
     * home without English memories never loads the English model), or with the model of the
     * query's language when it holds none; none, with a warning, when that cannot be done.
     */
    private List<QueryVector> embed(RecallRequest request, List<String> warnings) {
        String mode = request.mode().code();
        if (embedders == null) {
            warnings.add("mode " + mode + ": no embedding model is configured, so results are lexical only");
            return List.of();
        }
        try {
            Embedders models = embedders.get();
            String text = embeddedText(request);
            List<Embedder> used = models.single() ? models.all()
                    : models.all().stream().filter(m -> authority.read(s -> s.hasVectors(m.fingerprint()))).toList();
            if (used.isEmpty()) {
                used = List.of(models.forText(text));
            }
            List<QueryVector> vectors = new ArrayList<>();
            for (Embedder model : used) {
                vectors.add(new QueryVector(model.embedQuery(text), model, text));
            }
            return vectors;
        } catch (ProviderException e) {
            warnings.add("mode " + mode + ": the query could not be embedded (" + e.getMessage()
                    + "), so results are lexical only");
            return List.of();
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

    /** Every read of one recall, in one snapshot, phase by phase; all ranked results, best first. */
    private List<RecalledItem> recall(Snapshot snapshot, RecallRequest request, Eligibility eligible,
                                      List<QueryVector> vectors, List<String> warnings) {
        Instant at = eligible.at();
        RecallCandidates candidates = new RecallCandidates(snapshot, index, config);
        RecallCandidates.Similar similar = vectors.isEmpty() ? RecallCandidates.Similar.NONE
                : candidates.similar(request, eligible, vectors, warnings);
        Map<Long, Double> cosine = similar.signals();
        List<TimeExpressions.Window> windows = TimeExpressions.find(timeText(request), at, clock.getZone());
        RecallCandidates.Matches matches = candidates.matches(request, eligible, windows);
        // R6, R11: a query whose best direct match covers too little of it has no lexical evidence at
        // all (a shared character or common word is chance, however much better than the rest it is).
        boolean lexicalEvidence = !matches.isEmpty() && matches.evidenced();
        if (!lexicalEvidence) {
            cosine = similar.standalone();
            if (cosine.isEmpty()) {
                return List.of();
            }
            matches = RecallCandidates.Matches.NONE;
        } else {
            matches = candidates.shared(request, eligible, matches);
        }

        RecallEvidence evidence = new RecallEvidence(snapshot, config);
        RecallEvidence.Lexical lexical = evidence.lexical(matches, request.scope(), eligible);
        RecallEvidence.Admitted admitted = evidence.admit(lexical, cosine, request, at);

        RecallScoring scoring = new RecallScoring(config, forgetting);
        RecallScoring.Inputs inputs = new RecallScoring.Inputs(lexical, cosine, admitted.related(), windows);
        List<RecalledItem> items = new ArrayList<>();
        for (RecallRow row : admitted.rows().values()) {
            items.add(scoring.memory(row, inputs, at));
        }
        for (RawEventRow raw : snapshot.rawEvents(request.scope(), evidence.rawEvents(matches, lexical, request))) {
            RecalledItem item = scoring.raw(raw, matches.events().getOrDefault(raw.event().sequence(), 0.0),
                    matches.lent(raw.event().sequence()), windows, at);
            if (item != null) {
                items.add(item);
            }
        }
        items.sort(RecallScoring.ORDER);
        return items;
    }

    /** The text whose time expressions count (R10): the query, or a dialogue's last turn. */
    private static String timeText(RecallRequest request) {
        List<String> turns = request.dialogue();
        return turns.isEmpty() ? request.query() : turns.get(turns.size() - 1);
    }
}
