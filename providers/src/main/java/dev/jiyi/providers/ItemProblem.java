package dev.jiyi.providers;

/**
 * An item of the model's answer rejected before it reaches the authority: {@code field} and the
 * {@code rule} it broke, never the item's text.
 */
public record ItemProblem(int index, String field, String rule) {
}
