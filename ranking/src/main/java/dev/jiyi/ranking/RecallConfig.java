package dev.jiyi.ranking;

import java.time.Duration;

/**
 * Recall's tunable engineering defaults (documented in docs/recall.md; settable in
 * config.properties, the environment or flags).
 *
 * @param candidateLimit most memory rows one fast recall loads (R4)
 * @param eventCandidateLimit most raw events one recall asks the index for
 * @param eventEvidence how much a match on a memory's source event counts, relative to a match on
 *                      the memory itself (source-event keys)
 * @param contextEvidence how much a match on the turn just before or after a memory's source event
 *                        (same session) counts, relative to a match on the memory itself
 * @param freshnessHalfLife F1: ranking decays with this half-life (default 180 days)
 * @param gistAfter F2: episodes, observations and emotions older than this show their gist
 * @param decadeAfter F2: ... and older than this a decade time label
 * @param emotionHalfLife F4: half-life of expressed emotion (default 6 hours)
 * @param cosineThreshold R3: cosine similarity counts only above this; NaN (the default) for the
 *                        embedding model's own threshold ({@code Embedder.cosineThreshold()})
 * @param rawTextCap R7: characters of raw event text shown at most
 * @param semanticLimit R5: most recent eligible vectors semantic mode compares (deep mode: all)
 */
public record RecallConfig(
        int candidateLimit,
        int eventCandidateLimit,
        double eventEvidence,
        double contextEvidence,
        Weights weights,
        Duration freshnessHalfLife,
        Duration gistAfter,
        Duration decadeAfter,
        Duration emotionHalfLife,
        double cosineThreshold,
        int rawTextCap,
        int semanticLimit) {

    public static final RecallConfig DEFAULT = new RecallConfig(200, 100, 0.8, 0.8, Weights.DEFAULT,
            Duration.ofDays(180), Duration.ofDays(180), Duration.ofDays(730), Duration.ofHours(6), Double.NaN, 2000, 2000);

    public RecallConfig {
        if (candidateLimit < 1 || eventCandidateLimit < 0) {
            throw new IllegalArgumentException("candidate limits must be positive");
        }
        if (!(eventEvidence >= 0 && eventEvidence <= 1) || !(contextEvidence >= 0 && contextEvidence <= 1)) {
            throw new IllegalArgumentException("event and context evidence must be in [0, 1]");
        }
        if (freshnessHalfLife.isNegative() || freshnessHalfLife.isZero() || emotionHalfLife.isNegative()
                || emotionHalfLife.isZero()) {
            throw new IllegalArgumentException("half-lives must be positive");
        }
        if (rawTextCap < 1) {
            throw new IllegalArgumentException("rawTextCap must be positive");
        }
        if (semanticLimit < 1) {
            throw new IllegalArgumentException("semanticLimit must be positive");
        }
        if (!Double.isNaN(cosineThreshold) && !(cosineThreshold >= -1 && cosineThreshold < 1)) {
            throw new IllegalArgumentException("cosineThreshold must be in [-1, 1)");
        }
    }

    public RecallConfig withWeights(Weights w) {
        return new RecallConfig(candidateLimit, eventCandidateLimit, eventEvidence, contextEvidence, w, freshnessHalfLife, gistAfter,
                decadeAfter, emotionHalfLife, cosineThreshold, rawTextCap, semanticLimit);
    }

    public RecallConfig withCandidateLimit(int limit) {
        return new RecallConfig(limit, eventCandidateLimit, eventEvidence, contextEvidence, weights, freshnessHalfLife, gistAfter,
                decadeAfter, emotionHalfLife, cosineThreshold, rawTextCap, semanticLimit);
    }

    public RecallConfig withCandidateLimits(int memories, int events) {
        return new RecallConfig(memories, events, eventEvidence, contextEvidence, weights, freshnessHalfLife, gistAfter,
                decadeAfter, emotionHalfLife, cosineThreshold, rawTextCap, semanticLimit);
    }

    public RecallConfig withSemanticLimit(int limit) {
        return new RecallConfig(candidateLimit, eventCandidateLimit, eventEvidence, contextEvidence, weights, freshnessHalfLife,
                gistAfter, decadeAfter, emotionHalfLife, cosineThreshold, rawTextCap, limit);
    }

    public RecallConfig withEvidence(double event, double context) {
        return new RecallConfig(candidateLimit, eventCandidateLimit, event, context, weights, freshnessHalfLife, gistAfter,
                decadeAfter, emotionHalfLife, cosineThreshold, rawTextCap, semanticLimit);
    }
}
