package dev.jiyi.ranking;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Weights of the fused score (R3), one per {@link Signal#weighted() weighted signal}: each signal is
 * in [0, 1], its contribution is weight × value, and the score is the sum of contributions.
 */
public final class Weights {

    public static final Weights DEFAULT = of(1.0, 0.5, 0.3, 0.05, 0.05, 0.1, 0.3);

    private final Map<Signal, Double> weights;

    private Weights(Map<Signal, Double> weights) {
        for (double w : weights.values()) {
            if (!(w >= 0 && w <= 10)) {
                throw new IllegalArgumentException("recall weights must be numbers in [0, 10]");
            }
        }
        this.weights = weights;
    }

    /** The weights of {@link Signal#weighted()}, in that order (lexical, cosine, related, basis, confidence, freshness, time). */
    public static Weights of(double... inOrder) {
        List<Signal> signals = Signal.weighted();
        if (inOrder.length != signals.size()) {
            throw new IllegalArgumentException("recall weights: " + signals.size() + " numbers, one per weighted signal");
        }
        Map<Signal, Double> m = new EnumMap<>(Signal.class);
        for (int i = 0; i < inOrder.length; i++) {
            m.put(signals.get(i), inOrder[i]);
        }
        return new Weights(m);
    }

    /** The weight {@code signal} counts at (context: the lexical weight). */
    public double of(Signal signal) {
        return weights.get(signal.weightedBy());
    }

    /** These weights with {@code signal}'s own weight replaced. */
    public Weights with(Signal signal, double weight) {
        if (signal.weightedBy() != signal) {
            throw new IllegalArgumentException(signal.code() + " has no weight of its own");
        }
        Map<Signal, Double> m = new EnumMap<>(weights);
        m.put(signal, weight);
        return new Weights(m);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Weights w && w.weights.equals(weights);
    }

    @Override
    public int hashCode() {
        return weights.hashCode();
    }

    @Override
    public String toString() {
        return "Weights" + weights;
    }
}
