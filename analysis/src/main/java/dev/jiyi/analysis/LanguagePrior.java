package dev.jiyi.analysis;

import java.util.HashMap;
import java.util.Map;

/**
 * How telling a word is in the language at large, for the words a scope's own statistics cannot
 * judge: a word no row of the scope holds has no document frequency there, and counting it as the
 * rarest word the scope could hold makes "一下", "哪里" or "place" weigh as much as a name. The prior is
 * the word's frequency in general text: jieba's dictionary frequencies for Chinese (the dictionary the
 * analysis segments with), the rank of English words in BERT's uncased vocabulary (ordered by
 * frequency; {@code english-word-ranks.txt}) read as Zipf's law for English, with Porter stems as the
 * index has them.
 *
 * <p>{@link #specificity} maps a word's log probability onto [0, 1]: 1 for a word as rare as one in
 * {@code e^18} (about 66 million) words or rarer, or one the prior does not know (a name, a new word,
 * numbers of two digits or more); ln p / -18 otherwise: about 0.47 for 一下, 0.41 for "place", 0.13 for
 * "the", 0.39 for a single letter or digit.
 */
public final class LanguagePrior {

    /** ln of the probability at and below which a word counts as fully specific. */
    static final double FLOOR = -18.0;

    private static final String ENGLISH = "english-word-ranks.txt";

    /** The rank a single Latin letter or digit counts at: the list has none, and they are among the commonest tokens. */
    static final int SINGLE_LETTER_RANK = 100;

    private LanguagePrior() {
    }

    /**
     * How specific a query term is, in (0, 1]: a word of the language's commonest weighs little, an
     * unknown one 1. A term of several pieces (a phrase, pieces joined by spaces) is as specific as
     * its most specific piece.
     */
    public static double specificity(String term) {
        double best = 0;
        for (String piece : term.split(" ")) {
            if (!piece.isEmpty()) {
                best = Math.max(best, piece(piece));
            }
        }
        return best == 0 ? 1 : best;
    }

    private static double piece(String word) {
        double ln = Double.NaN;
        int first = word.codePointAt(0);
        if (Character.UnicodeScript.of(first) == Character.UnicodeScript.HAN) {
            ln = ChineseTokens.dictionary().logFreq(word);
        } else if (first < 128 && Character.isLetterOrDigit(first)) {
            // A single letter or digit ("x", "2") is no word of the list but among the commonest tokens;
            // a longer number ("4711") is as specific as an unknown word.
            Integer rank = word.length() == 1 ? Integer.valueOf(SINGLE_LETTER_RANK) : English.RANKS.get(word);
            if (rank != null) {
                ln = -Math.log(rank * English.HARMONIC);
            }
        }
        if (Double.isNaN(ln)) {
            return 1;
        }
        return Math.min(1, Math.max(0.05, ln / FLOOR));
    }

    /** The English ranks by term ({@link EnglishStems}: a term takes its commonest word's rank), loaded on first use. */
    private static final class English {
        static final Map<String, Integer> RANKS = new HashMap<>();
        static final double HARMONIC;

        static {
            int rank = 0;
            for (WordLists.Line line : WordLists.read(ENGLISH)) {
                rank++;
                RANKS.putIfAbsent(EnglishStems.stem(line.text()), rank);
                // And by its plain Porter stem: the term of an index that stems English itself
                // (Lucene's smartcn), which keeps an irregular form (bought) apart from its word.
                RANKS.putIfAbsent(PorterStemmer.stem(line.text()), rank);
            }
            HARMONIC = Math.log(rank) + 0.5772; // Zipf's law: p(rank) = 1 / (rank * H(n))
        }
    }
}
