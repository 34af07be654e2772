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
 * @param freshnessHalfLife F1: ranking decays with this half-life (default 180 days)
 * @param gistAfter F2: episodes, observations and emotions older than this show their gist
 * @param decadeAfter F2: ... and older than this a decade time label
 * @param emotionHalfLife F4: half-life of expressed emotion (default 6 hours)
 * @param cosineThreshold R3: cosine similarity counts only above this; NaN (the default) for the
 *                        embedding model's own threshold ({@code Embedder.cosineThreshold()})
 * @param rawTextCap R7: characters of raw event text shown at most
 * @param semanticLimit R5: most recent eligible vectors semantic mode compares (deep mode: all)
 * @param precision the evidence rules: the minimum evidence a query needs and the weights of
 *                  conversation context and of a dialogue's older turns
 */
public record RecallConfig(
        int candidateLimit,
        int eventCandidateLimit,
        double eventEvidence,
        Weights weights,
        Duration freshnessHalfLife,
        Duration gistAfter,
        Duration decadeAfter,
        Duration emotionHalfLife,
        double cosineThreshold,
        int rawTextCap,
        int semanticLimit,
        Precision precision) {

    public static final RecallConfig DEFAULT = new RecallConfig(200, 100, 0.8, Weights.DEFAULT,
            Duration.ofDays(180), Duration.ofDays(180), Duration.ofDays(730), Duration.ofHours(6), Double.NaN, 2000, 2000,
            Precision.DEFAULT);

    /**
     * What counts as evidence (R6, R11) and how much context weighs (docs/recall.md).
     *
     * @param minEvidence a query is answered lexically only when its best direct match (a memory or
     *                    an event) covers at least this share of its informative terms; below it,
     *                    every lexical match is chance (a shared character or a common word)
     * @param contextNear how much of its match a turn lends the turns just before and after it
     *                    (their conversation context); 0 (with contextFar) turns the context off
     * @param contextFar  how much it lends the turns two before and two after it
     * @param contextShared how much of its match the best matching turn lends the turns that hold its
     *                    own words beyond the query's (a question that names a thing by one of its
     *                    attributes is answered by the turn that names the thing); 0 turns it off
     * @param dialogueDecay a dialogue query's evidence from its older turns counts this much per
     *                      step back: the last turn 1, the last three this, the whole dialogue its square
     */
    public record Precision(double minEvidence, double contextNear, double contextFar, double contextShared,
                            double dialogueDecay) {

        public static final Precision DEFAULT = new Precision(0.25, 0.7, 0.35, 0.3, 0.8);

        /** The settings in the record's order (min evidence, context near, far, shared, dialogue decay). */
        public static Precision of(double... inOrder) {
            if (inOrder.length != 5) {
                throw new IllegalArgumentException("recall precision: five numbers, min evidence, context near, "
                        + "context far, context shared and dialogue decay");
            }
            return new Precision(inOrder[0], inOrder[1], inOrder[2], inOrder[3], inOrder[4]);
        }

        public Precision {
            for (double v : new double[] {minEvidence, contextNear, contextFar, contextShared, dialogueDecay}) {
                if (!(v >= 0 && v <= 1)) {
                    throw new IllegalArgumentException("recall.min_evidence, recall.context.near, recall.context.far, "
                            + "recall.context.shared and recall.dialogue_decay must be numbers in [0, 1]");
                }
            }
        }
    }

    public RecallConfig {
        if (candidateLimit < 1 || eventCandidateLimit < 0) {
            throw new IllegalArgumentException("candidate limits must be positive");
        }
        if (!(eventEvidence >= 0 && eventEvidence <= 1)) {
            throw new IllegalArgumentException("event evidence must be in [0, 1]");
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

    /** Memory candidates a recall searches for and loads per result it asks for ({@link #candidates}). */
    public static final int CANDIDATES_PER_RESULT = 10;

    /** The fewest memory candidates a recall searches for and loads ({@link #candidates}), within candidateLimit. */
    public static final int MIN_CANDIDATES = 100;

    /**
     * How many memories a recall of {@code limit} results asks the lexical index for and loads at
     * most (R4): {@link #CANDIDATES_PER_RESULT} per result, at least {@link #MIN_CANDIDATES}, never
     * more than candidateLimit. The fused score's other signals (context, links, freshness, basis,
     * confidence, a named time) can lift a weaker lexical match above a stronger one, so a recall
     * needs more candidates than results, but a number that follows the results asked for, not a
     * fixed 200: the search and the rows loaded are most of a recall's cost in a large archive. With
     * 100 for the 10 results the public sets are scored on, every R@5 of bench recall stayed within
     * 0.002 of 200's (LoCoMo's R@10 rose 0.003; 2026-12-05); 50 cost LoCoMo 0.002 R@5 and 0.003 R@10.
     * candidateLimit is the cap: raising it changes nothing for 10 results.
     */
    public int candidates(int limit) {
        return Math.min(candidateLimit, Math.max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * limit));
    }

    /** A builder starting from {@link #DEFAULT}. */
    public static Builder builder() {
        return DEFAULT.toBuilder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Settings one at a time; {@link #build} checks them all. */
    public static final class Builder {
        private int candidateLimit;
        private int eventCandidateLimit;
        private double eventEvidence;
        private Weights weights;
        private Duration freshnessHalfLife;
        private Duration gistAfter;
        private Duration decadeAfter;
        private Duration emotionHalfLife;
        private double cosineThreshold;
        private int rawTextCap;
        private int semanticLimit;
        private Precision precision;

        private Builder(RecallConfig c) {
            candidateLimit = c.candidateLimit;
            eventCandidateLimit = c.eventCandidateLimit;
            eventEvidence = c.eventEvidence;
            weights = c.weights;
            freshnessHalfLife = c.freshnessHalfLife;
            gistAfter = c.gistAfter;
            decadeAfter = c.decadeAfter;
            emotionHalfLife = c.emotionHalfLife;
            cosineThreshold = c.cosineThreshold;
            rawTextCap = c.rawTextCap;
            semanticLimit = c.semanticLimit;
            precision = c.precision;
        }

        public Builder candidateLimit(int v) {
            candidateLimit = v;
            return this;
        }

        public Builder eventCandidateLimit(int v) {
            eventCandidateLimit = v;
            return this;
        }

        public Builder eventEvidence(double v) {
            eventEvidence = v;
            return this;
        }

        public Builder weights(Weights v) {
            weights = v;
            return this;
        }

        public Builder freshnessHalfLife(Duration v) {
            freshnessHalfLife = v;
            return this;
        }

        public Builder gistAfter(Duration v) {
            gistAfter = v;
            return this;
        }

        public Builder decadeAfter(Duration v) {
            decadeAfter = v;
            return this;
        }

        public Builder emotionHalfLife(Duration v) {
            emotionHalfLife = v;
            return this;
        }

        public Builder cosineThreshold(double v) {
            cosineThreshold = v;
            return this;
        }

        public Builder rawTextCap(int v) {
            rawTextCap = v;
            return this;
        }

        public Builder semanticLimit(int v) {
            semanticLimit = v;
            return this;
        }

        public Builder precision(Precision v) {
            precision = v;
            return this;
        }

        public RecallConfig build() {
            return new RecallConfig(candidateLimit, eventCandidateLimit, eventEvidence, weights, freshnessHalfLife,
                    gistAfter, decadeAfter, emotionHalfLife, cosineThreshold, rawTextCap, semanticLimit, precision);
        }
    }
}
