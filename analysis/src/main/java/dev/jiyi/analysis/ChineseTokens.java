package dev.jiyi.analysis;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/**
 * The one token stream every jiyi index sees: jieba index mode (which also emits the sub-words of
 * long words) plus every individual CJK character, over NFKC-normalized, lower-cased text. English
 * words are reduced to their Porter stems ({@code moved}, {@code moving} → {@code move}), an irregular
 * form to its word's ({@link EnglishStems}: {@code bought} → {@code buy}).
 *
 * <p>Both the FTS5 index (fed the tokens as space-separated text) and the Lucene index (through an
 * analyzer that wraps this class) see identical tokens, so a query tokenized here matches the same
 * way in either. Tokens come out ordered by start offset, then by length, then by text.
 *
 * <p>The jieba dictionary is loaded once per JVM, lazily, on the first call that needs it, from a
 * compact precompiled form (see {@link JiebaDictionary}).
 */
public final class ChineseTokens {

    /**
     * The version of this token stream: of the normalization, segmentation, dictionary, unigrams and
     * stemming together. Indexes record it and are rebuilt when it changes (an FTS5 row is deleted
     * with the very tokens it was inserted with). {@code AnalysisVersionTest} pins the token stream of
     * a fixed corpus: when it fails, the stream changed, and this string must change with it.
     */
    public static final String VERSION = "analysis-2";

    /**
     * {@link #VERSION} plus a fingerprint of the JDK's Unicode tables: normalization and character
     * classes come from them, and they change between Java releases (a character unassigned in one
     * is Han in the next), so the same code can tokenize differently on another JDK. Two JDKs with the
     * same Unicode data (Java 22 and 23, say) give the same version.
     */
    public static String version() {
        return VERSION + "/unicode-" + UnicodeTables.FINGERPRINT;
    }

    /**
     * Which Unicode version the JDK's tables implement, told apart by whether a character first
     * assigned in each version from 8.0 to 17.0 is defined (a JDK adopts a Unicode version whole).
     * Microseconds, so every open can afford it.
     */
    private static final class UnicodeTables {
        /**
         * A character first assigned in Unicode 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 15.1,
         * 16.0 and 17.0: the first of a new CJK extension where the version has one, else a new
         * emoji or the first letter of a new script. (Every JDK from 21 on has the ones up to 14.0.)
         */
        private static final int[] PROBES = {0x2B820, 0x1F923, 0x2CEB0, 0x1F970, 0x1F971, 0x30000, 0x1FAE0, 0x31350,
                0x2EBF0, 0x105C0, 0x323B0};
        static final String FINGERPRINT = fingerprint();

        private static String fingerprint() {
            StringBuilder sb = new StringBuilder();
            for (int probe : PROBES) {
                sb.append(Character.isDefined(probe) ? '1' : '0');
            }
            return sb.toString();
        }
    }

    private static final Comparator<Token> ORDER = Comparator.comparingInt(Token::start)
            .thenComparingInt(Token::end)
            .thenComparing(Token::text);

    private ChineseTokens() {
    }

    /**
     * NFKC normalization, then lower case one code point at a time: full-width letters become ASCII
     * and case folds. (Per code point rather than {@code String.toLowerCase}, which is quadratic on
     * long runs of characters whose lower case is longer, such as U+0130; here İ simply becomes i.)
     */
    public static String normalize(String text) {
        String nfkc = Normalizer.normalize(text, Normalizer.Form.NFKC);
        StringBuilder sb = new StringBuilder(nfkc.length());
        for (int i = 0; i < nfkc.length(); ) {
            int cp = nfkc.codePointAt(i);
            sb.appendCodePoint(Character.toLowerCase(cp));
            i += Character.charCount(cp);
        }
        return sb.toString();
    }

    /** Tokens of {@code text}, with offsets into {@code normalize(text)}. */
    public static List<Token> tokenize(String text) {
        String normalized = normalize(text);
        List<Token> tokens = new ArrayList<>();
        BitSet singleCjk = new BitSet(normalized.length());
        for (Segmenter.Segment seg : Holder.SEGMENTER.indexMode(normalized)) {
            int start = seg.start();
            int end = seg.end();
            String surface = normalized.substring(start, end);
            if (!isWordLike(surface)) {
                continue;
            }
            tokens.add(new Token(isAsciiWord(surface) ? EnglishStems.stem(surface) : surface, start, end));
            if (end - start == 1 && isCjk(normalized.charAt(start))) {
                singleCjk.set(start);
            }
        }
        for (int i = 0; i < normalized.length(); ) {
            int cp = normalized.codePointAt(i);
            int n = Character.charCount(cp);
            if (isCjk(cp) && !singleCjk.get(i)) {
                tokens.add(new Token(normalized.substring(i, i + n), i, i + n));
            }
            i += n;
        }
        tokens.sort(ORDER);
        return List.copyOf(tokens);
    }

    /** Token texts only, in order. */
    public static List<String> terms(String text) {
        List<Token> tokens = tokenize(text);
        List<String> terms = new ArrayList<>(tokens.size());
        for (Token token : tokens) {
            terms.add(token.text());
        }
        return terms;
    }

    /**
     * The distinct terms of a query that can be evidence: its tokens without {@link StopWords}, in
     * order of first appearance. Empty when the query shares nothing searchable with any text (R6).
     */
    public static List<String> queryTerms(String query) {
        String normalized = normalize(query);
        List<Token> tokens = tokenize(query);
        // The CJK characters the analysis adds inside a stop word of several characters are as empty as
        // the word (什 of 什么); a word of stop characters that is no stop word (地下, 过去) stays.
        boolean[] stopped = new boolean[normalized.length()];
        java.util.LinkedHashSet<String> distinct = new java.util.LinkedHashSet<>();
        for (Token token : tokens) {
            if (stop(normalized, token) && token.text().codePointCount(0, token.text().length()) > 1) {
                java.util.Arrays.fill(stopped, token.start(), token.end(), true);
            }
        }
        for (Token token : tokens) {
            boolean character = token.text().codePointCount(0, token.text().length()) == 1;
            if (!stop(normalized, token) && !(character && inside(stopped, token.start(), token.end()))) {
                distinct.add(token.text());
            }
        }
        return List.copyOf(distinct);
    }

    /**
     * The query's terms ({@link #queryTerms}) as the derived indexes search them: each as its stored
     * pieces ({@link #storedPieces}; a phrase when more than one), distinct, in order, none empty.
     */
    public static List<List<String>> queryPieces(String query) {
        java.util.LinkedHashSet<List<String>> out = new java.util.LinkedHashSet<>();
        for (String term : queryTerms(query)) {
            List<String> pieces = storedPieces(term);
            if (!pieces.isEmpty()) {
                out.add(pieces);
            }
        }
        return new ArrayList<>(out);
    }

    private static boolean stop(String normalized, Token token) {
        return StopWords.contains(normalized.substring(token.start(), token.end())) || StopWords.contains(token.text());
    }

    private static boolean inside(boolean[] stopped, int start, int end) {
        for (int i = start; i < end; i++) {
            if (!stopped[i]) {
                return false;
            }
        }
        return true;
    }

    /** The tokens joined by single spaces: the form FTS5 indexes. */
    public static String indexText(String text) {
        return String.join(" ", terms(text));
    }

    /**
     * The pieces of a term that an index stores: the term split at ASCII characters that are neither
     * letters nor digits, which is where FTS5's {@code ascii} tokenizer splits the token text it is
     * given (every other character, CJK included, is kept). Lucene indexes the same pieces, so both
     * indexes hold identical terms for a text; a query term of several pieces is searched as a phrase.
     */
    public static List<String> storedPieces(String term) {
        List<String> pieces = new ArrayList<>(1);
        int start = -1;
        for (int i = 0; i <= term.length(); i++) {
            boolean separator = i == term.length() || isAsciiSeparator(term.charAt(i));
            if (separator && start >= 0) {
                pieces.add(term.substring(start, i));
                start = -1;
            } else if (!separator && start < 0) {
                start = i;
            }
        }
        return pieces;
    }

    private static boolean isAsciiSeparator(char c) {
        return c < 0x80 && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z');
    }

    /** Loads the jieba dictionary now instead of on first use; returns the time it took, in ms. */
    public static long warmUp() {
        long start = System.nanoTime();
        Holder.SEGMENTER.indexMode("预热");
        LanguagePrior.specificity("warm");
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** True for Han ideographs, kana and hangul: the characters indexed one by one. */
    public static boolean isCjk(char c) {
        return isCjk((int) c);
    }

    /** {@link #isCjk(char)} for any code point, including Han outside the Basic Multilingual Plane (𠮷). */
    public static boolean isCjk(int codePoint) {
        Character.UnicodeScript script = Character.UnicodeScript.of(codePoint);
        return script == Character.UnicodeScript.HAN
                || script == Character.UnicodeScript.HIRAGANA
                || script == Character.UnicodeScript.KATAKANA
                || script == Character.UnicodeScript.HANGUL;
    }

    private static boolean isAsciiWord(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 'a' || c > 'z') {
                return false;
            }
        }
        return true;
    }

    private static boolean isWordLike(String s) {
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            if (Character.isLetterOrDigit(cp)) {
                return true;
            }
            i += Character.charCount(cp);
        }
        return false;
    }

    /** jieba's dictionary, as the segmenter uses it (loaded on first use). */
    static JiebaDictionary dictionary() {
        return Holder.SEGMENTER.dictionary();
    }

    /** Holder idiom: the dictionary loads on first use, once per JVM. */
    private static final class Holder {
        static final Segmenter SEGMENTER = new Segmenter(JiebaDictionary.load());
    }
}
