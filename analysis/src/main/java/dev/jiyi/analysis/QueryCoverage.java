package dev.jiyi.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

    /** {@link #words} of terms given as their pieces ({@link ChineseTokens#queryPieces}), each as its pieces. */
    public static List<List<String>> wordPieces(List<List<String>> phrases) {
        Map<String, List<String>> byTerm = byTerm(phrases);
        List<List<String>> out = new ArrayList<>();
        for (String word : words(new ArrayList<>(byTerm.keySet()))) {
            out.add(byTerm.get(word));
        }
        return out;
    }

    /**
     * {@link #searched} of terms given as their pieces, each as its pieces; {@code holding} counts a
     * term's rows by its pieces (a term of several is a phrase).
     */
    public static List<List<String>> searchedPieces(List<List<String>> phrases, ToLongFunction<List<String>> holding) {
        Map<String, List<String>> byTerm = byTerm(phrases);
        List<List<String>> out = new ArrayList<>();
        for (String term : searched(new ArrayList<>(byTerm.keySet()), t -> holding.applyAsLong(byTerm.get(t)))) {
            out.add(byTerm.get(term));
        }
        return out;
    }

    /** Terms by their pieces joined with spaces, in order. */
    private static Map<String, List<String>> byTerm(List<List<String>> phrases) {
        Map<String, List<String>> byTerm = new java.util.LinkedHashMap<>();
        for (List<String> pieces : phrases) {
            byTerm.put(String.join(" ", pieces), pieces);
        }
        return byTerm;
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

    /**
     * Rows a scope (a table of it: its memories, or its events) needs before its own statistics alone
     * weigh the evidence ({@link #evidenceWeight}).
     */
    public static final int EVIDENCE_MIN_ROWS = 50;

    /**
     * R6: the weight the evidence rule counts a query's held word by: how rare it is in the scope
     * times how specific it is in the language ({@link LanguagePrior#specificity}), as a word no row
     * holds is counted in the ideal. The scope alone cannot tell a word the persona rarely uses
     * ("work") from a telling one ("Kalman"); the language alone cannot tell a persona's
     * everywhere-word (its own name) from a rare one. In a table of the scope of
     * fewer than {@link #EVIDENCE_MIN_ROWS} rows the scope's IDF means little (in a home of ten rows
     * every word one row holds is as rare as a word can be, and FTS5's BM25 weighs a word in half of
     * them at nothing), so it gives way to the IDF of a word one row holds in proportion:
     * {@code (a × idf + (1 - a) × one) × specificity}, {@code a} the table's share of
     * {@link #EVIDENCE_MIN_ROWS}. The rule thus holds from a home's first row: "量子色动力学的渐近自由" is
     * not answered by "我在北京大学读书" through a common word, nor "Explain TCP and UDP" by "we
     * explained it".
     *
     * @param word a query word some row of the table holds
     * @param idf  its IDF over the scope
     * @param one  the IDF of a word one row of the table holds
     * @param rows the table's rows of the scope
     */
    public static double evidenceWeight(String word, double idf, double one, long rows) {
        double a = Math.min(1, Math.max(0, rows) / (double) EVIDENCE_MIN_ROWS);
        return (a * idf + (1 - a) * one) * LanguagePrior.specificity(word);
    }

    /**
     * R6: the ideal the evidence rule divides by: {@link #ideal} with each held word at its
     * {@link #evidenceWeight} and each word no row holds at {@code one} times its specificity in the
     * language. A word the scope never used has no IDF there; counting it as the rarest word the scope
     * could hold made the everyday words around a question ("我想问一下", "please remind me") weigh as
     * much as its name, and drowned it below the minimum.
     *
     * @param held   the IDF over the scope of each query word some row holds
     * @param absent the words no row holds (their values are not read)
     * @param one    the IDF of a word one row of the table holds
     * @param rows   the table's rows of the scope
     */
    public static double evidenceIdeal(Map<String, Double> held, Set<String> absent, double one, long rows) {
        Map<String, Double> h = new HashMap<>();
        held.forEach((word, idf) -> h.put(word, evidenceWeight(word, idf, one, rows)));
        Map<String, Double> a = new HashMap<>();
        for (String word : absent) {
            a.put(word, one * LanguagePrior.specificity(word));
        }
        return ideal(h, a);
    }

    /**
     * R6: the last sentence of a query of several, whose evidence counts beside the whole query's: a
     * question after a chatty preamble ("最近工作特别忙，周末也没休息。对了，书法展在哪里举行？") is as well
     * evidenced as the question alone, since the preamble's words the archive does not hold would
     * otherwise drown the one sentence it answers. The question usually comes last; only the last
     * sentence is measured, so a greeting or a sign-off elsewhere in the query ("Thanks!") is never
     * evidence for all of it. A sentence ends at 。！？；, at ! ? ;, at a full stop before a space and at
     * a line break. Null for a query of one sentence.
     */
    public static String lastSentence(String query) {
        List<String> out = new ArrayList<>();
        int start = 0;
        int n = query.length();
        for (int i = 0; i < n; i++) {
            char c = query.charAt(i);
            boolean end = c == '。' || c == '！' || c == '？' || c == '；' || c == '!' || c == '?' || c == ';'
                    || c == '\n' || (c == '.' && (i + 1 == n || Character.isWhitespace(query.charAt(i + 1))));
            if (end) {
                add(out, query.substring(start, i + 1));
                start = i + 1;
            }
        }
        add(out, query.substring(start));
        return out.size() < 2 ? null : out.get(out.size() - 1);
    }

    private static void add(List<String> sentences, String piece) {
        String s = piece.strip();
        if (s.codePoints().anyMatch(Character::isLetterOrDigit)) {
            sentences.add(s);
        }
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
}
