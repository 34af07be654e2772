package dev.jiyi.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * jieba's segmentation in index mode, over the precompiled {@link JiebaDictionary}: a DAG of the
 * dictionary words at each position, the maximum-probability route through it, an HMM (Viterbi over
 * B/M/E/S states) for runs of characters the dictionary does not join, and, for long words, their
 * two- and three-character sub-words that are dictionary words (北京大学 → 北京, 大学, 北京大学).
 *
 * <p>It follows the algorithm of {@code com.huaban:jieba-analysis} (itself a port of Python jieba),
 * so that tokens match jieba's; {@code SegmenterEquivalenceTest} checks that on real text. Offsets
 * are exact character offsets into the input.
 */
final class Segmenter {

    /** One segment: {@code text[start, end)}. */
    record Segment(int start, int end) {
    }

    private static final Pattern SKIP = Pattern.compile("(\\d+\\.\\d+|[a-zA-Z0-9]+)");

    // HMM states, in jieba's order, and its start and transition log probabilities.
    private static final int B = 0;
    private static final int M = 1;
    private static final int E = 2;
    private static final int S = 3;
    private static final double[] START = {-0.26268660809250016, -3.14e100, -3.14e100, -1.4652633398537678};
    private static final double[][] TRANS = new double[4][4];
    private static final int[][] PREV = {{E, S}, {M, B}, {B, M}, {S, E}};

    static {
        for (double[] row : TRANS) {
            java.util.Arrays.fill(row, JiebaDictionary.MIN_FLOAT);
        }
        TRANS[B][E] = -0.510825623765990;
        TRANS[B][M] = -0.916290731874155;
        TRANS[E][B] = -0.5897149736854513;
        TRANS[E][S] = -0.8085250474669937;
        TRANS[M][E] = -0.33344856811948514;
        TRANS[M][M] = -1.2603623820268226;
        TRANS[S][B] = -0.7211965654669841;
        TRANS[S][S] = -0.6658631448798212;
    }

    private final JiebaDictionary dict;

    JiebaDictionary dictionary() {
        return dict;
    }

    Segmenter(JiebaDictionary dict) {
        this.dict = dict;
    }

    /** Index-mode segments of {@code text} (already lower-cased), in jieba's emission order. */
    List<Segment> indexMode(String text) {
        char[] s = text.toCharArray();
        List<Segment> out = new ArrayList<>();
        int runStart = -1;
        for (int i = 0; i <= s.length; i++) {
            boolean inRun = i < s.length && joinable(s[i]);
            if (inRun && runStart < 0) {
                runStart = i;
            } else if (!inRun) {
                if (runStart >= 0) {
                    for (Segment word : sentence(s, runStart, i)) {
                        expand(s, word, out);
                    }
                    runStart = -1;
                }
                if (i < s.length) {
                    out.add(new Segment(i, i + 1));
                }
            }
        }
        return out;
    }

    /** Index mode: a long word's dictionary sub-words of two and three characters, then the word. */
    private void expand(char[] s, Segment word, List<Segment> out) {
        int len = word.end() - word.start();
        if (len > 2) {
            for (int j = word.start(); j + 2 <= word.end(); j++) {
                if (dict.contains(s, j, j + 2)) {
                    out.add(new Segment(j, j + 2));
                }
            }
        }
        if (len > 3) {
            for (int j = word.start(); j + 3 <= word.end(); j++) {
                if (dict.contains(s, j, j + 3)) {
                    out.add(new Segment(j, j + 3));
                }
            }
        }
        out.add(word);
    }

    /** Characters jieba segments together: its Chinese letters, ASCII letters and digits, and + # &amp; . _ -. */
    static boolean joinable(char c) {
        return isChinese(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '+' || c == '#' || c == '&' || c == '.' || c == '_' || c == '-';
    }

    static boolean isChinese(char c) {
        return c >= JiebaDictionary.HAN_FIRST && c <= JiebaDictionary.HAN_LAST;
    }

    /** Precise-mode words of {@code s[from, to)}: the best dictionary route, with the HMM for unknown runs. */
    private List<Segment> sentence(char[] s, int from, int to) {
        int n = to - from;
        // DAG: for each start, the ends (exclusive) of dictionary words starting there, with their
        // log frequencies; a character that starts no word is a word of the minimum frequency.
        int[][] dag = new int[n][];
        double[][] freq = new double[n][];
        int[] ends = new int[dict.maxWordLength()];
        double[] freqs = new double[ends.length];
        for (int k = 0; k < n; k++) {
            int count = dict.wordsAt(s, from + k, to, ends, freqs);
            if (count == 0) {
                dag[k] = new int[] {k + 1};
                freq[k] = new double[] {dict.minLogFreq()};
            } else {
                dag[k] = new int[count];
                for (int i = 0; i < count; i++) {
                    dag[k][i] = ends[i] - from;
                }
                freq[k] = java.util.Arrays.copyOf(freqs, count);
            }
        }
        // Route: the maximum total log frequency from each position to the end; first maximum wins.
        double[] best = new double[n + 1];
        int[] next = new int[n + 1];
        for (int k = n - 1; k >= 0; k--) {
            double top = 0;
            int arg = -1;
            for (int i = 0; i < dag[k].length; i++) {
                int end = dag[k][i];
                double score = freq[k][i] + best[end];
                if (arg < 0 || top < score) {
                    top = score;
                    arg = end;
                }
            }
            best[k] = top;
            next[k] = arg;
        }
        List<Segment> words = new ArrayList<>();
        int bufStart = -1;
        int x = 0;
        while (x < n) {
            int y = next[x];
            if (y - x == 1) {
                if (bufStart < 0) {
                    bufStart = x;
                }
            } else {
                if (bufStart >= 0) {
                    flush(s, from + bufStart, from + x, words);
                    bufStart = -1;
                }
                words.add(new Segment(from + x, from + y));
            }
            x = y;
        }
        if (bufStart >= 0) {
            flush(s, from + bufStart, from + n, words);
        }
        return words;
    }

    /** A run of single characters: one word when it is one, else the HMM and pattern split. */
    private void flush(char[] s, int from, int to, List<Segment> words) {
        if (to - from == 1 || dict.contains(s, from, to)) {
            words.add(new Segment(from, to));
            return;
        }
        int runStart = from;
        boolean chinese = isChinese(s[from]);
        for (int i = from + 1; i <= to; i++) {
            boolean boundary = i == to || isChinese(s[i]) != chinese;
            if (boundary) {
                if (chinese) {
                    viterbi(s, runStart, i, words);
                } else {
                    other(s, runStart, i, words);
                }
                if (i < to) {
                    runStart = i;
                    chinese = isChinese(s[i]);
                }
            }
        }
    }

    private static void other(char[] s, int from, int to, List<Segment> words) {
        Matcher m = SKIP.matcher(java.nio.CharBuffer.wrap(s, from, to - from));
        int offset = 0;
        int length = to - from;
        while (m.find()) {
            if (m.start() > offset) {
                words.add(new Segment(from + offset, from + m.start()));
            }
            words.add(new Segment(from + m.start(), from + m.end()));
            offset = m.end();
        }
        if (offset < length) {
            words.add(new Segment(from + offset, to));
        }
    }

    /** jieba's HMM: the most likely B/M/E/S labelling, cut into words. */
    private void viterbi(char[] s, int from, int to, List<Segment> words) {
        int n = to - from;
        double[][] v = new double[n][4];
        int[][] back = new int[n][4];
        for (int state = 0; state < 4; state++) {
            v[0][state] = START[state] + dict.emit(state, s[from]);
            back[0][state] = -1;
        }
        for (int i = 1; i < n; i++) {
            for (int y = 0; y < 4; y++) {
                double emit = dict.emit(y, s[from + i]);
                double top = 0;
                int arg = -1;
                for (int y0 : PREV[y]) {
                    double p = TRANS[y0][y] + emit + v[i - 1][y0];
                    if (arg < 0 || top <= p) {
                        top = p;
                        arg = y0;
                    }
                }
                v[i][y] = top;
                back[i][y] = arg;
            }
        }
        int state = v[n - 1][E] < v[n - 1][S] ? S : E;
        int[] labels = new int[n];
        for (int i = n - 1; i >= 0; i--) {
            labels[i] = state;
            state = back[i][state];
        }
        int begin = 0;
        int nextStart = 0;
        for (int i = 0; i < n; i++) {
            if (labels[i] == B) {
                begin = i;
            } else if (labels[i] == E) {
                words.add(new Segment(from + begin, from + i + 1));
                nextStart = i + 1;
            } else if (labels[i] == S) {
                words.add(new Segment(from + i, from + i + 1));
                nextStart = i + 1;
            }
        }
        if (nextStart < n) {
            words.add(new Segment(from + nextStart, to));
        }
    }
}
