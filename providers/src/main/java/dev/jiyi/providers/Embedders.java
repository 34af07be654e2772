package dev.jiyi.providers;

import java.util.List;
import java.util.Objects;

/**
 * A home's embedding models and which one embeds a memory's text: one model for every text (an
 * embedding endpoint, a user's own ONNX model), or one per language (the bundled pair: text with
 * Chinese goes to the Chinese model, any other to the English one). Each model's vectors carry its
 * own fingerprint (V1), so a query is compared with each model's vectors in that model's space and
 * the two spaces never mix.
 */
public final class Embedders {

    private final Embedder chinese;
    private final Embedder other;

    private Embedders(Embedder chinese, Embedder other) {
        this.chinese = Objects.requireNonNull(chinese, "chinese");
        this.other = Objects.requireNonNull(other, "other");
    }

    /** One model for every text. */
    public static Embedders of(Embedder only) {
        return new Embedders(only, only);
    }

    /** Text with a Han character to {@code chinese}, any other to {@code other}. */
    public static Embedders byLanguage(Embedder chinese, Embedder other) {
        return new Embedders(chinese, other);
    }

    /** The bundled pair, BGE small zh and en v1.5, with this configured version. */
    public static Embedders bundled(String configuredVersion) {
        return byLanguage(new LocalEmbedder(LocalModel.BGE_SMALL_ZH, configuredVersion),
                new LocalEmbedder(LocalModel.BGE_SMALL_EN, configuredVersion));
    }

    /** The model that embeds this memory text. */
    public Embedder forText(String text) {
        return chinese == other || LocalModel.hasHan(text) ? chinese : other;
    }

    /** Every model, the Chinese one first; one when a single model embeds every text. */
    public List<Embedder> all() {
        return chinese == other ? List.of(chinese) : List.of(chinese, other);
    }

    /**
     * Whether a vector of {@code fingerprint} for {@code text} is one of these models' but not the
     * one of the text's language (an English memory embedded before there was an English model):
     * still compared, in the other model's space, until {@code reindex --vectors} replaces it.
     */
    public boolean otherLanguage(String text, String fingerprint) {
        return !single() && !forText(text).fingerprint().equals(fingerprint)
                && all().stream().anyMatch(m -> m.fingerprint().equals(fingerprint));
    }

    /** Whether one model embeds every text. */
    public boolean single() {
        return chinese == other;
    }
}
