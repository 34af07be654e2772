package dev.jiyi.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * How much of a query a row covers, the arithmetic behind coverage scores (R11) and the evidence
 * rule (R6), written once for every index: an index reports its statistics (its terms' IDF, the
 * rows of a scope, the best share of the query one row holds) and the rule here turns them into
 * the query's evidence.
 */
public final class QueryCoverage {

    private QueryCoverage() {
    }

    /** How many of a query's most informative terms its ideal score counts. */
    public static final int IDEAL_TERMS = 8;

    /**
     * A query's ideal from its terms' scores at one occurrence in a row of average length (IDF, in
     * the index's BM25): the {@link #IDEAL_TERMS} highest of the terms that some row holds, topped
     * up, when the query has fewer, with the terms no row holds. A short question whose main words
     * the archive has never seen ("how does a Kalman filter work?") thus has little evidence in a row
     * that shares its one common word; a long dialogue, whose many incidental words the archive lacks,
     * is measured by the words it does share. A term no row holds scores as a term one row holds
     * would (it cannot be more telling than the rarest word the archive could have), and a CJK
     * character of a longer query word no row holds is not counted apart from that word: an unknown
     * Chinese word is one missing word, not three. (The characters of a word some row holds do
     * count: a row holding the word holds them too, and its BM25 counts them.)
     *
     * @param held   the scores of the query's terms that some row holds, by term (a term of several
     *               pieces, searched as a phrase, by its pieces joined with spaces)
     * @param absent the scores of the terms that no row holds, by term, each as if one row held it
     */
    public static double ideal(Map<String, Double> held, Map<String, Double> absent) {
        Set<String> all = absent.keySet();
        List<Double> h = new ArrayList<>(held.values());
        List<Double> a = new ArrayList<>();
        for (Map.Entry<String, Double> e : absent.entrySet()) {
            if (!partOfWord(e.getKey(), all)) {
                a.add(e.getValue());
            }
        }
        h.sort(Comparator.reverseOrder());
        a.sort(Comparator.reverseOrder());
        double sum = 0;
        int counted = 0;
        for (int i = 0; i < h.size() && counted < IDEAL_TERMS; i++, counted++) {
            sum += h.get(i);
        }
        for (int i = 0; i < a.size() && counted < IDEAL_TERMS; i++, counted++) {
            sum += a.get(i);
        }
        return Math.max(sum, 1e-9);
    }

    /**
     * The query's words: its terms without the CJK characters that are part of a longer term of the
     * query (the characters the analysis adds beside a Chinese word, R1). A row that shares only
     * such characters with a query (最近 with 渐近) shares no word with it.
     */
    public static List<String> words(List<String> terms) {
        Set<String> all = new HashSet<>(terms);
        List<String> out = new ArrayList<>(terms.size());
        for (String term : terms) {
            if (!partOfWord(term, all)) {
                out.add(term);
            }
        }
        return out;
    }

    /**
     * The rows, summed over a search's terms, that one search may read: what bounds a search's cost
     * as an archive grows. A search reads every row holding each of its terms (FTS5) or may have to
     * (Lucene, whose top-k search skips only rows that cannot reach the top), so a long query or a
     * dialogue of common words costs what those words hold, which grows with the archive. In a home
     * of a few thousand rows no query comes near it.
     */
    public static final long SEARCHED_ROWS = 20_000;

    /** The rarest terms a search always asks for, whatever they hold: as many as the ideal counts. */
    public static final int SEARCHED_TERMS = IDEAL_TERMS;

    /**
     * The terms of a query that a search asks for (both indexes follow it, so they keep equal
     * evidence): the terms some row of the scope holds ({@code holding}, the scope's rows of the
     * table holding a term, as both indexes count them: a scope is searched as if it were an index of
     * its own, R11), in the query's order; when together they hold more than
     * {@link #SEARCHED_ROWS} rows, the rarest of them (the most informative) while they hold no more
     * than that, and at least the {@link #SEARCHED_TERMS} rarest. Left out are the most common terms
     * of a long query, the ones that add rows sharing nothing with it but a common word. Terms no row
     * holds match nothing; they still count in the query's ideal.
     */
    public static List<String> searched(List<String> terms, ToLongFunction<String> holding) {
        Map<String, Long> counted = new HashMap<>();
        List<String> kept = new ArrayList<>(terms.size());
        long total = 0;
        for (String term : terms) {
            long rows = holding.applyAsLong(term);
            counted.put(term, rows);
            if (rows > 0) {
                kept.add(term);
                total += rows;
            }
        }
        if (total <= SEARCHED_ROWS) {
            return kept;
        }
        List<String> rarest = new ArrayList<>(kept);
        rarest.sort(Comparator.comparingLong(counted::get)); // stable: equal counts keep the query's order
        Set<String> chosen = new HashSet<>();
        long rows = 0;
        for (String term : rarest) {
            rows += counted.get(term);
            if (chosen.size() >= SEARCHED_TERMS && rows > SEARCHED_ROWS) {
                break;
            }
            chosen.add(term);
        }
        kept.removeIf(t -> !chosen.contains(t));
        return kept;
    }

    /** Rows a scope needs before {@link #evidence} measures anything. */
    public static final int EVIDENCE_MIN_ROWS = 50;

    /**
     * R6: in a question of this many {@link #words} or more, a row that holds only one of them is
     * evidence only when that word carries {@link #LONE_WORD_SHARE} of the question. One shared word
     * of a longer question is chance ("explain" in "Explain the difference between TCP and UDP", "main"
     * in "What were the main causes of the French Revolution?" beside a turn that used the word once);
     * the rows that answer such a question hold two of its words, or its one telling word.
     */
    public static final int LONE_WORD_QUERY = 4;

    /** The share of the query one word must carry to be evidence alone in a long question. */
    public static final double LONE_WORD_SHARE = 0.5;

    /**
     * Whether the best row holding any of a query's words settles its evidence: the query is short,
     * or that row's share is enough for one word alone. Otherwise the evidence is the best row that
     * holds two or more of its words.
     *
     * @param words the query's {@link #words}
     * @param best  the best share any row holds
     */
    public static boolean settled(int words, double best) {
        return words < LONE_WORD_QUERY || best >= LONE_WORD_SHARE;
    }

    private static boolean partOfWord(String term, Set<String> terms) {
        if (term.codePointCount(0, term.length()) != 1) {
            return false;
        }
        Character.UnicodeScript script = Character.UnicodeScript.of(term.codePointAt(0));
        if (script != Character.UnicodeScript.HAN && script != Character.UnicodeScript.HIRAGANA
                && script != Character.UnicodeScript.KATAKANA && script != Character.UnicodeScript.HANGUL) {
            return false;
        }
        for (String other : terms) {
            if (other.length() > term.length() && other.contains(term)) {
                return true;
            }
        }
        return false;
    }

    /**
     * R6, R11: how much evidence the query has at all: the most of the query's {@link #words} that
     * one row holds ({@code held}, over the rows holding at least that many words). In a question of
     * {@link #LONE_WORD_QUERY} words or more, a row holding one of them counts only when that word
     * carries {@link #LONE_WORD_SHARE} of it; otherwise the evidence is the best row that holds two.
     * Recall answers a query lexically only when this reaches the minimum evidence; 0 when no row
     * shares a word with it. In a scope of fewer than {@link #EVIDENCE_MIN_ROWS} rows (memories and
     * events), IDF cannot tell a common word from a rare one (in FTS5's BM25 a word in half the rows
     * weighs nothing), so the rule is off: positive infinity.
     *
     * @param words     how many words the query has
     * @param scopeRows the rows of the scope searched
     * @param held      the best share one row holds, of the rows holding at least the given number of words
     */
    public static double evidence(int words, long scopeRows, IntToDoubleFunction held) {
        if (words == 0) {
            return 0;
        }
        if (scopeRows < EVIDENCE_MIN_ROWS) {
            return Double.POSITIVE_INFINITY;
        }
        double best = held.applyAsDouble(1);
        return settled(words, best) ? best : held.applyAsDouble(2);
    }
}
