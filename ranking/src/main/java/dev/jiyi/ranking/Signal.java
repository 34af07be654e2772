package dev.jiyi.ranking;

/** One signal of a result's score: its value in [0, 1], its weight, and weight × value. */
public record Signal(String name, double value, double weight) {

    public double contribution() {
        return value * weight;
    }
}
