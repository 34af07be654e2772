package dev.jiyi.ranking;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The signals of the fused score (R3), each a value in [0, 1] times its weight. Every signal but
 * {@link #CONTEXT} has a weight of its own, set by {@link #weightKey()}; conversation context counts
 * at the lexical weight, since it is lexical evidence lent by the turns around a match.
 */
public enum Signal {
    /** BM25 coverage of the query's informative terms (see {@code LexicalIndex}), at most 1. */
    LEXICAL,
    /** The match the turns around a memory's source event lend it (conversation context). */
    CONTEXT,
    /** Embedding similarity, counted only above the threshold (semantic and deep modes). */
    COSINE,
    /** One hop over an explicit {@code related} link from a lexical match. */
    RELATED,
    /** How the memory is known: user statement 1, assistant expression 0.7, inference 0.5. */
    BASIS,
    /** The extractor's ranking metadata. */
    CONFIDENCE,
    /** 0.5^(age / half-life). */
    FRESHNESS,
    /** 1 when the memory happened inside a time the query names (R10: 昨天, last May), else 0. */
    TIME;

    private static final List<Signal> WEIGHTED = Arrays.stream(values()).filter(s -> s.weightedBy() == s).toList();

    /** The name in {@code --explain} output: {@code lexical}, {@code context}, ... */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The signal whose weight this one counts at (itself, but for {@link #CONTEXT}). */
    public Signal weightedBy() {
        return this == CONTEXT ? LEXICAL : this;
    }

    /** The setting of its weight: {@code recall.weight.lexical}, ... */
    public String weightKey() {
        return "recall.weight." + weightedBy().code();
    }

    /** The signals with a weight of their own, in order. */
    public static List<Signal> weighted() {
        return WEIGHTED;
    }

    /** This signal's value in a result, with its weight. */
    public Value of(double value, Weights weights) {
        return new Value(this, value, weights.of(this));
    }

    /** One signal of a result's score: its value in [0, 1], its weight, and weight × value. */
    public record Value(Signal signal, double value, double weight) {

        /** {@link Signal#code()}. */
        public String name() {
            return signal.code();
        }

        public double contribution() {
            return value * weight;
        }
    }
}
