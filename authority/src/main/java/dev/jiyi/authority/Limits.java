package dev.jiyi.authority;



/** Size limits on stored text, in characters (UTF-16 code units), checked before any write. */
public final class Limits {

    /** An event's original text. Longer documents belong in several reference events. */
    public static final int MAX_EVENT_TEXT = 200_000;
    /** A memory's derived text. Memories are atomic: one fact, one preference, one episode. */
    public static final int MAX_MEMORY_TEXT = 2_000;
    /** A memory's exact quote from its source event. */
    public static final int MAX_QUOTE = 2_000;
    /** An authored gist. */
    public static final int MAX_GIST = 300;
    /** A subject, fact key, source, emotion label or cue key. */
    public static final int MAX_LABEL = 200;
    /** Cue keys on one memory. */
    public static final int MAX_CUES = 32;
    /** A persona's text. */
    public static final int MAX_PERSONA_TEXT = 50_000;
    /** A checkpoint's goal, each step, constraint and next action. */
    public static final int MAX_CHECKPOINT_TEXT = 4_000;
    /** Steps or constraints in one checkpoint. */
    public static final int MAX_CHECKPOINT_ITEMS = 100;

    private Limits() {
    }

    /** Requires non-blank text of at most {@code max} characters. */
    public static String requireText(String field, String value, int max) {
        if (value == null || value.isBlank()) {
            throw new InvalidInputException(field, "is required and must not be blank");
        }
        return limit(field, value, max);
    }

    /** Null stays null; otherwise non-blank and at most {@code max} characters. */
    public static String optionalText(String field, String value, int max) {
        if (value == null) {
            return null;
        }
        return requireText(field, value, max);
    }

    private static String limit(String field, String value, int max) {
        if (value.length() > max) {
            throw new InvalidInputException(field, "must be at most " + max + " characters");
        }
        return wellFormed(field, value);
    }

    /**
     * Rejects NUL characters and unpaired surrogates: SQLite stores UTF-8, which cannot carry half a
     * surrogate pair, so such text would silently come back altered.
     */
    public static String wellFormed(String field, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\u0000') {
                throw new InvalidInputException(field, "must not contain NUL characters");
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new InvalidInputException(field, "must be valid Unicode (no unpaired surrogates)");
            }
            if (Character.isLowSurrogate(c)) {
                throw new InvalidInputException(field, "must be valid Unicode (no unpaired surrogates)");
            }
        }
        return value;
    }

    /** A row limit: zero or more. */
    public static int limit(String field, int value) {
        if (value < 0) {
            throw new InvalidInputException(field, "must not be negative");
        }
        return value;
    }

    /** The first {@code max} characters of {@code text} (all of it when shorter), never splitting a surrogate pair. */
    public static String prefix(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        return text.substring(0, Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max);
    }

    /** The last {@code max} characters of {@code text} (all of it when shorter), never splitting a surrogate pair. */
    public static String suffix(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        int from = text.length() - max;
        return text.substring(Character.isLowSurrogate(text.charAt(from)) ? from + 1 : from);
    }
}
