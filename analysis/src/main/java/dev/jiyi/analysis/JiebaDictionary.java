package dev.jiyi.analysis;

import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * jieba's word dictionary and HMM emission model in a compact, precompiled form: the words sorted in
 * one char pool (binary-searched within the range of their first character), their log
 * frequencies, and dense emission tables for the four HMM states over the CJK range jieba models.
 *
 * <p>The source data is the dictionary ({@code dict.txt}) and model ({@code prob_emit.txt}) that ship
 * in {@code com.huaban:jieba-analysis}. The build compiles them into {@link #RESOURCE} (see
 * {@link DictionaryCompiler}) so that a cold JVM loads the dictionary in milliseconds instead of the
 * seconds that parsing the 5 MB text takes; without that resource the text is parsed on first use.
 */
final class JiebaDictionary {

    static final String RESOURCE = "/dev/jiyi/analysis/jieba-dict.bin";
    private static final int MAGIC = 0x4A59_4431; // "JYD1"

    /** The range of characters jieba treats as Chinese letters (and models in its HMM). */
    static final char HAN_FIRST = '\u4E00';
    static final char HAN_LAST = '\u9FA5';
    static final double MIN_FLOAT = -3.14e100;

    private final char[] pool;
    private final int[] offsets;      // word i is pool[offsets[i] .. offsets[i + 1])
    private final double[] logFreq;   // ln(freq / total)
    private final double minLogFreq;
    private final double[][] emit;    // [state B, M, E, S][c - HAN_FIRST]
    private final int[] firstCharStart = new int[65536 + 1];
    private final int maxWordLength;

    private JiebaDictionary(char[] pool, int[] offsets, double[] logFreq, double minLogFreq, double[][] emit) {
        this.pool = pool;
        this.offsets = offsets;
        this.logFreq = logFreq;
        this.minLogFreq = minLogFreq;
        this.emit = emit;
        // firstCharStart[c] = index of the first word whose first char is >= c.
        int n = logFreq.length;
        int w = 0;
        for (int c = 0; c <= 65536; c++) {
            while (w < n && pool[offsets[w]] < c) {
                w++;
            }
            firstCharStart[c] = w;
        }
        int longest = 0;
        for (int i = 0; i < n; i++) {
            longest = Math.max(longest, offsets[i + 1] - offsets[i]);
        }
        this.maxWordLength = longest;
    }

    /** The length of the longest word: no more words than that start at one position ({@link #wordsAt}). */
    int maxWordLength() {
        return maxWordLength;
    }

    int size() {
        return logFreq.length;
    }

    double minLogFreq() {
        return minLogFreq;
    }

    /** A word's log frequency, ln(freq / total), or NaN when {@code word} is not in the dictionary. */
    double logFreq(String word) {
        if (word.isEmpty()) {
            return Double.NaN;
        }
        int i = lookup(word.toCharArray(), 0, word.length());
        return i >= 0 ? logFreq[i] : Double.NaN;
    }

    /** Emission log probability of {@code c} in HMM state {@code state} (0..3 = B, M, E, S). */
    double emit(int state, char c) {
        return c < HAN_FIRST || c > HAN_LAST ? MIN_FLOAT : emit[state][c - HAN_FIRST];
    }

    /**
     * Looks up {@code s[from, to)}: returns the word's index when it is a word, {@code -1} when it is
     * not a word but some word starts with it, and {@code -2} when no word starts with it.
     */
    int lookup(char[] s, int from, int to) {
        char first = s[from];
        int lo = firstCharStart[first];
        int hi = firstCharStart[first + 1] - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = compare(mid, s, from, to);
            if (cmp < 0) {
                lo = mid + 1;
            } else if (cmp > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        // lo is the first word greater than the key: the key is a prefix iff that word starts with it.
        if (lo < firstCharStart[first + 1] && startsWith(lo, s, from, to)) {
            return -1;
        }
        return -2;
    }

    /**
     * The words that start at {@code s[from]} and end at or before {@code to}, shortest first: their
     * ends (exclusive) go to {@code ends} and their log frequencies to {@code freqs} (each at least
     * {@link #maxWordLength()} long); returns how many. What {@link #lookup} of each longer prefix
     * would find, in one walk: the words sharing a prefix are a contiguous run of the sorted words,
     * and each next character narrows the run by a binary search on that character alone.
     */
    int wordsAt(char[] s, int from, int to, int[] ends, double[] freqs) {
        char first = s[from];
        int lo = firstCharStart[first];
        int hi = firstCharStart[first + 1];
        int count = 0;
        // [lo, hi): the words whose first d characters are s[from, from + d), sorted; the one of
        // exactly d characters, if any, sorts first, and the rest are ordered by their character d.
        for (int d = 1; lo < hi; d++) {
            if (offsets[lo + 1] - offsets[lo] == d) {
                ends[count] = from + d;
                freqs[count++] = logFreq[lo];
                lo++;
            }
            if (from + d == to) {
                break;
            }
            char c = s[from + d];
            lo = firstWithCharAtLeast(lo, hi, d, c);
            hi = firstWithCharAtLeast(lo, hi, d, c + 1);
        }
        return count;
    }

    /** The first word of {@code [lo, hi)} whose character {@code d} is at least {@code c} (all are longer than d). */
    private int firstWithCharAtLeast(int lo, int hi, int d, int c) {
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (pool[offsets[mid] + d] < c) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    boolean contains(char[] s, int from, int to) {
        return lookup(s, from, to) >= 0;
    }

    boolean contains(String word) {
        return !word.isEmpty() && contains(word.toCharArray(), 0, word.length());
    }

    private int compare(int word, char[] s, int from, int to) {
        int a = offsets[word];
        int aEnd = offsets[word + 1];
        int b = from;
        while (a < aEnd && b < to) {
            int d = pool[a++] - s[b++];
            if (d != 0) {
                return d;
            }
        }
        return (aEnd - offsets[word]) - (to - from);
    }

    private boolean startsWith(int word, char[] s, int from, int to) {
        int len = to - from;
        int start = offsets[word];
        if (offsets[word + 1] - start < len) {
            return false;
        }
        for (int k = 0; k < len; k++) {
            if (pool[start + k] != s[from + k]) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ loading

    /** System property naming an extracted copy of {@link #RESOURCE}, read by memory mapping. */
    static final String FILE_PROPERTY = "jiyi.dictionary.file";

    /**
     * The precompiled dictionary: from the file named by {@value #FILE_PROPERTY} when set and
     * readable (the launcher extracts it once, so a cold start maps it instead of inflating it from
     * the jar), else the class-path resource, else compiled from jieba's text files.
     */
    static JiebaDictionary load() {
        String file = System.getProperty(FILE_PROPERTY);
        if (file != null && java.nio.file.Files.isReadable(java.nio.file.Path.of(file))) {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(java.nio.file.Path.of(file))) {
                return read(ch.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, ch.size()));
            } catch (IOException | RuntimeException e) {
                // a stale or damaged copy: fall back to the resource below
            }
        }
        try (InputStream in = JiebaDictionary.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                return read(in.readAllBytes());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the compiled jieba dictionary", e);
        }
        return compileFromJieba();
    }

    static JiebaDictionary compileFromJieba() {
        try (InputStream dict = JiebaDictionary.class.getResourceAsStream("/dict.txt");
             InputStream model = JiebaDictionary.class.getResourceAsStream("/prob_emit.txt")) {
            if (dict == null || model == null) {
                throw new IllegalStateException("jieba's dict.txt or prob_emit.txt is not on the class path");
            }
            return compile(dict, model);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read jieba's dictionary", e);
        }
    }

    /**
     * Parses jieba's text formats the way jieba does: words trimmed and lower-cased, a repeated word
     * keeps its last frequency, the total counts every line, log frequencies are ln(freq / total).
     */
    static JiebaDictionary compile(InputStream dictText, InputStream emitText) throws IOException {
        Map<String, Double> freqs = new HashMap<>(700_000);
        double total = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(dictText, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] parts = line.split("[\t ]+");
                if (parts.length < 2) {
                    continue;
                }
                double freq = Double.parseDouble(parts[1]);
                total += freq;
                String word = parts[0].trim().toLowerCase(Locale.ROOT);
                if (!word.isEmpty()) {
                    freqs.put(word, freq);
                }
            }
        }
        List<String> words = new ArrayList<>(freqs.keySet());
        words.sort(null); // String order is char order: the order lookup's binary search assumes
        int n = words.size();
        int[] offsets = new int[n + 1];
        StringBuilder pool = new StringBuilder();
        double[] logFreq = new double[n];
        double min = Double.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            offsets[i] = pool.length();
            pool.append(words.get(i));
            logFreq[i] = Math.log(freqs.get(words.get(i)) / total);
            min = Math.min(min, logFreq[i]);
        }
        offsets[n] = pool.length();

        double[][] emit = new double[4][HAN_LAST - HAN_FIRST + 1];
        for (double[] row : emit) {
            Arrays.fill(row, MIN_FLOAT);
        }
        try (BufferedReader r = new BufferedReader(new InputStreamReader(emitText, StandardCharsets.UTF_8))) {
            String line;
            int state = -1;
            while ((line = r.readLine()) != null) {
                String[] parts = line.split("\t");
                if (parts.length == 1) {
                    state = "BMES".indexOf(parts[0].charAt(0));
                } else if (state >= 0) {
                    char c = parts[0].charAt(0);
                    if (c >= HAN_FIRST && c <= HAN_LAST) {
                        emit[state][c - HAN_FIRST] = Double.parseDouble(parts[1]);
                    }
                }
            }
        }
        return new JiebaDictionary(pool.toString().toCharArray(), offsets, logFreq, min, emit);
    }

    void write(DataOutputStream out) throws IOException {
        out.writeInt(MAGIC);
        out.writeInt(logFreq.length);
        out.writeInt(pool.length);
        for (char c : pool) {
            out.writeChar(c);
        }
        for (int o : offsets) {
            out.writeInt(o);
        }
        for (double f : logFreq) {
            out.writeDouble(f);
        }
        out.writeDouble(minLogFreq);
        for (double[] row : emit) {
            for (double p : row) {
                out.writeDouble(p);
            }
        }
    }

    static JiebaDictionary read(byte[] bytes) {
        return read(ByteBuffer.wrap(bytes));
    }

    static JiebaDictionary read(ByteBuffer in) {
        if (in.getInt() != MAGIC) {
            throw new IllegalStateException("the compiled jieba dictionary has an unknown format");
        }
        int n = in.getInt();
        char[] pool = new char[in.getInt()];
        in.asCharBuffer().get(pool);
        in.position(in.position() + pool.length * 2);
        int[] offsets = new int[n + 1];
        in.asIntBuffer().get(offsets);
        in.position(in.position() + offsets.length * 4);
        double[] logFreq = new double[n];
        in.asDoubleBuffer().get(logFreq);
        in.position(in.position() + n * 8);
        double min = in.getDouble();
        double[][] emit = new double[4][HAN_LAST - HAN_FIRST + 1];
        for (double[] row : emit) {
            in.asDoubleBuffer().get(row);
            in.position(in.position() + row.length * 8);
        }
        return new JiebaDictionary(pool, offsets, logFreq, min, emit);
    }
}
