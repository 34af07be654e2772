package dev.jiyi.ranking;

/**
 * Weights of the fused score (R3): each signal is in [0, 1], its contribution is weight × value,
 * and the score is the sum of contributions.
 *
 * @param lexical BM25 coverage of the query's informative terms (see {@code LexicalIndex}), at most 1
 * @param cosine embedding similarity, counted only above the threshold (semantic and deep modes)
 * @param related one hop over an explicit {@code related} link from a lexical match
 * @param basis how the memory is known: user statement 1, assistant expression 0.7, inference 0.5
 * @param confidence the extractor's ranking metadata
 * @param freshness 0.5^(age / half-life)
 * @param time 1 when the memory happened inside a time the query names (R10: 昨天, last May), else 0
 */
public record Weights(double lexical, double cosine, double related, double basis, double confidence,
                      double freshness, double time) {

    public static final Weights DEFAULT = new Weights(1.0, 0.5, 0.3, 0.05, 0.05, 0.1, 0.3);

    public Weights {
        for (double w : new double[] {lexical, cosine, related, basis, confidence, freshness, time}) {
            if (!(w >= 0 && w <= 10)) {
                throw new IllegalArgumentException("recall weights must be numbers in [0, 10]");
            }
        }
    }
}
