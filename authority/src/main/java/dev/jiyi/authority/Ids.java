package dev.jiyi.authority;

import java.security.SecureRandom;

/** Identifier rules and generation. */
public final class Ids {

    /** Longest host-supplied event ID, session ID or scope ID, in characters. */
    public static final int MAX_ID_LENGTH = 200;

    private static final char[] CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    /** Checks a host-supplied identifier: 1..200 characters, no whitespace or control characters. */
    public static String check(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidInputException(field, "is required");
        }
        if (value.length() > MAX_ID_LENGTH) {
            throw new InvalidInputException(field, "must be at most " + MAX_ID_LENGTH + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c) || Character.isSpaceChar(c)) {
                throw new InvalidInputException(field, "must not contain whitespace or control characters");
            }
        }
        return Limits.wellFormed(field, value);
    }

    static void checkScopeId(String field, String value) {
        check(field, value);
    }

    /**
     * A new memory ID: {@code mem_} and 26 Crockford base-32 characters (48 bits of milliseconds, 80
     * random bits), so IDs sort roughly by creation time and never collide in practice.
     */
    public static String newMemoryId() {
        return "mem_" + ulid(System.currentTimeMillis());
    }

    /** A new ID for an explicit-correction event that jiyi creates itself (C1): {@code corr_} and a ULID. */
    public static String newCorrectionEventId() {
        return "corr_" + ulid(System.currentTimeMillis());
    }

    static String ulid(long millis) {
        byte[] random = new byte[10];
        RANDOM.nextBytes(random);
        char[] out = new char[26];
        long time = millis;
        for (int i = 9; i >= 0; i--) {
            out[i] = CROCKFORD[(int) (time & 31)];
            time >>>= 5;
        }
        // 80 random bits as 16 characters of 5 bits.
        long hi = 0;
        for (int i = 0; i < 5; i++) {
            hi = (hi << 8) | (random[i] & 0xFF);
        }
        long lo = 0;
        for (int i = 5; i < 10; i++) {
            lo = (lo << 8) | (random[i] & 0xFF);
        }
        for (int i = 17; i >= 10; i--) {
            out[i] = CROCKFORD[(int) (hi & 31)];
            hi >>>= 5;
        }
        for (int i = 25; i >= 18; i--) {
            out[i] = CROCKFORD[(int) (lo & 31)];
            lo >>>= 5;
        }
        return new String(out);
    }
}
