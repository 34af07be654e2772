package dev.jiyi.authority.index;

import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;

import java.util.List;

/**
 * A lexical index that proposes recall candidates: the FTS5 index, or the derived Lucene index.
 * Recall treats every answer as a proposal and rechecks it against the authority, so an index that
 * lags behind (or returns something since deleted) can never surface text the authority no longer
 * holds; but an index applies the filters it is given inside its search, so that its best
 * {@code limit} are all rows the recheck keeps (L4).
 *
 * <p>Implementations analyze the query with the shared token stream, search its terms as literals
 * (R2: query syntax is text) and drop stop words, so that a query sharing only common words with a
 * text does not propose it (R6). An index that lives in the authority's database reads through the
 * snapshot's {@link Snapshot#sql()}, inside its read transaction; one that lives elsewhere may
 * ignore the snapshot. The contract test {@code RecallIndexContract} holds every implementation to
 * this.
 *
 * <p>Scores are <em>coverage</em>, comparable across queries and lists (R11): a row's BM25 divided by
 * the query's ideal ({@link #ideal}), the BM25 a row of average length would earn holding each of
 * the query's {@link #IDEAL_TERMS} most informative terms once. A row that holds the query's
 * informative words scores about 1 whatever the query; one that shares a single common character
 * with a long query scores near 0, however much better than the rest it is. Scores may exceed 1
 * (short rows, repeated terms).
 *
 * <p>BM25's statistics are the scope's own (R11): IDF counts the rows of the scope searched, not of
 * the whole archive, so a scope ranks as it would in a home of its own, whatever other personas and
 * projects share the file (a word one persona uses everywhere is common there, however rare in the
 * file). Only the average row length is the archive's. The contract test holds every
 * implementation to it.
 */
public interface LexicalIndex {

    /** How many of a query's most informative terms its ideal score counts. */
    int IDEAL_TERMS = 8;

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
    static double ideal(java.util.Map<String, Double> held, java.util.Map<String, Double> absent) {
        java.util.Set<String> all = absent.keySet();
        List<Double> h = new java.util.ArrayList<>(held.values());
        List<Double> a = new java.util.ArrayList<>();
        for (java.util.Map.Entry<String, Double> e : absent.entrySet()) {
            if (!partOfWord(e.getKey(), all)) {
                a.add(e.getValue());
            }
        }
        h.sort(java.util.Comparator.reverseOrder());
        a.sort(java.util.Comparator.reverseOrder());
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
    static List<String> words(List<String> terms) {
        java.util.Set<String> all = new java.util.HashSet<>(terms);
        List<String> out = new java.util.ArrayList<>(terms.size());
        for (String term : terms) {
            if (!partOfWord(term, all)) {
                out.add(term);
            }
        }
        return out;
    }

    /**
     * R6, R11: how much evidence the query has here at all: the most of the query's {@link #words}
     * that one row holds, over the memories {@code filter} admits and the events of its scope. A row
     * holds the share of the ideal that its words make up: each word it holds counts its score in
     * the ideal once (its IDF), however often it occurs and however short the row, since the
     * question is whether the archive holds what the query asks about, not how well one row
     * matches. In a question of {@link #LONE_WORD_QUERY} words or more, a row holding one of them
     * counts only when that word carries {@link #LONE_WORD_SHARE} of it. Recall answers a query
     * lexically only when this reaches the minimum evidence; 0 when no row shares a word with it.
     * In a scope of fewer than {@link #EVIDENCE_MIN_ROWS} rows (memories and events), IDF cannot
     * tell a common word from a rare one (in FTS5's BM25 a word in half the rows weighs nothing), so
     * the rule is off: positive infinity.
     */
    double evidence(Snapshot snapshot, String query, Eligibility filter);

    /** Rows a scope needs before {@link #evidence} measures anything. */
    int EVIDENCE_MIN_ROWS = 50;

    /**
     * R6: in a question of this many {@link #words} or more, a row that holds only one of them is
     * evidence only when that word carries {@link #LONE_WORD_SHARE} of the question. One shared word
     * of a longer question is chance ("explain" in "Explain the difference between TCP and UDP", "main"
     * in "What were the main causes of the French Revolution?" beside a turn that used the word once);
     * the rows that answer such a question hold two of its words, or its one telling word.
     */
    int LONE_WORD_QUERY = 4;

    /** The share of the query one word must carry to be evidence alone in a long question. */
    double LONE_WORD_SHARE = 0.5;

    /**
     * Whether the best row holding any of a query's words settles its evidence: the query is short,
     * or that row's share is enough for one word alone. Otherwise the evidence is the best row that
     * holds two or more of its words.
     *
     * @param words the query's {@link #words}
     * @param best  the best share any row holds
     */
    static boolean settled(int words, double best) {
        return words < LONE_WORD_QUERY || best >= LONE_WORD_SHARE;
    }

    private static boolean partOfWord(String term, java.util.Set<String> terms) {
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

    /** A short name for reports and {@code --index}: {@code fts5}, {@code lucene}. */
    String name();

    /**
     * At most {@code limit} memories that {@code filter} admits (its scope, not revoked, valid at its
     * time unless it includes history) matching {@code query}, best first; equal scores newest row first.
     */
    List<Candidate> memories(Snapshot snapshot, String query, Eligibility filter, int limit);

    /**
     * At most {@code limit} raw events of {@code scope} matching {@code query}, best first; equal
     * scores newest first. Events are evidence for their memories and neighbouring turns too, so
     * they are filtered by scope only; recall decides which may be shown as raw results (R7, C3).
     */
    List<Candidate> events(Snapshot snapshot, String query, Scope scope, int limit);
}
