package dev.jiyi.analysis;

/**
 * One token of the normalized text: its text and its character offsets into the normalized string.
 *
 * @param text the token text, already normalized (NFKC, lower case)
 * @param start offset of the first character, inclusive
 * @param end offset after the last character, exclusive
 */
public record Token(String text, int start, int end) {
    public Token {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("token text must not be empty");
        }
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("token offsets must satisfy 0 <= start <= end");
        }
    }
}
