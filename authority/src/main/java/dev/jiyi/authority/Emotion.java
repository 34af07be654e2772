package dev.jiyi.authority;

/**
 * An emotion the assistant expressed: a label, valence in [-1, 1] and arousal in [0, 1].
 */
public record Emotion(String label, double valence, double arousal) {

    public Emotion {
        Limits.requireText("emotion_label", label, Limits.MAX_LABEL);
        if (!(valence >= -1.0 && valence <= 1.0)) {
            throw new InvalidInputException("valence", "must be a number in [-1, 1]");
        }
        if (!(arousal >= 0.0 && arousal <= 1.0)) {
            throw new InvalidInputException("arousal", "must be a number in [0, 1]");
        }
    }
}
