package dev.jiyi.authority;

import java.util.Random;

/**
 * Seeded randomness for property-style tests: the seed comes from {@code -Djiyi.test.seed} or is
 * drawn once, and is printed so that a failure can be replayed exactly.
 */
public final class SeededRandom {

    private SeededRandom() {
    }

    public static Random create(String testName) {
        String configured = System.getProperty("jiyi.test.seed");
        long seed = configured != null ? Long.parseLong(configured) : System.nanoTime();
        System.out.println("[seed] " + testName + " -Djiyi.test.seed=" + seed);
        return new Random(seed);
    }

    /** A random string mixing ASCII, CJK, punctuation, whitespace and occasional surrogate pairs. */
    public static String mixedText(Random random, int maxLength) {
        String alphabet = "abcXYZ019 ,.!?\"*()-:^书本北京大学读我的了你好，。！「」ＡＩ　\t\n";
        int length = random.nextInt(maxLength + 1);
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            int pick = random.nextInt(20);
            if (pick == 0) {
                sb.appendCodePoint(0x1F600 + random.nextInt(50));
            } else if (pick == 1) {
                sb.append((char) (0x4E00 + random.nextInt(0x9FA5 - 0x4E00)));
            } else {
                sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
        }
        return sb.toString();
    }
}
