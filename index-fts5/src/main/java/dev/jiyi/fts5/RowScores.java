package dev.jiyi.fts5;

import dev.jiyi.authority.index.Candidate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Per-term contributions summed per row ({@link ScopedBm25}): the sum and the number of terms of
 * each row, in primitive arrays (a search at a million rows adds hundreds of thousands), and the
 * best {@code n} rows taken without sorting the rest. A row's sum adds its terms in the order they
 * were added, so it is the same double whichever way it is read.
 */
final class RowScores {

    private long[] rows = new long[64];
    private double[] sums = new double[64];
    private int[] counts = new int[64];
    private int size;
    /** Open addressing: 0 is an empty slot, else the index of the row in the arrays above plus one. */
    private int[] slots = new int[128];

    /**
     * The sums of the rows that could reach {@code least}: for each term, its rows (in ascending
     * order) and its weight, a row's sum being the weights of the terms it holds added in the terms'
     * order, as the same adds term after term give it. The lightest terms whose weights together
     * stay below {@code least} (with a margin for rounding) cannot lift a row to it alone, so only
     * the rows of the heavier terms are summed, each exactly as it would be among all rows, with
     * its count of terms. A light term's rows are still passed in, but where the summed rows are far
     * fewer they are found in its rows by binary search instead of walking all of them.
     */
    static RowScores atLeast(long[][] rows, double[] weight, double least) {
        int n = rows.length;
        Integer[] byWeight = new Integer[n];
        for (int i = 0; i < n; i++) {
            byWeight[i] = i;
        }
        Arrays.sort(byWeight, Comparator.comparingDouble(i -> weight[i]));
        boolean[] light = new boolean[n];
        double lightSum = 0;
        for (int i : byWeight) {
            if ((lightSum + weight[i]) * (1 + 1e-9) >= least) {
                break;
            }
            lightSum += weight[i];
            light[i] = true;
        }
        RowScores sums = new RowScores();
        for (int i = 0; i < n; i++) {
            if (!light[i]) {
                for (long row : rows[i]) {
                    sums.mark(row);
                }
            }
        }
        long[] summed = Arrays.copyOf(sums.rows, sums.size);
        for (int i = 0; i < n; i++) {
            if (light[i] && (long) summed.length * 32 < rows[i].length) {
                for (long row : summed) {
                    if (Arrays.binarySearch(rows[i], row) >= 0) {
                        sums.addIfPresent(row, weight[i]);
                    }
                }
            } else {
                for (long row : rows[i]) {
                    sums.addIfPresent(row, weight[i]);
                }
            }
        }
        return sums;
    }

    /** Adds {@code value} to the row's sum and one to its count of terms. */
    void add(long row, double value) {
        int slot = slot(row);
        if (slots[slot] != 0) {
            int at = slots[slot] - 1;
            sums[at] += value;
            counts[at]++;
        } else {
            insert(slot, row, value, 1);
        }
    }

    /** A new row in the empty {@code slot}, with its sum and count of terms. */
    private void insert(int slot, long row, double value, int count) {
        if (size == rows.length) {
            rows = Arrays.copyOf(rows, 2 * size);
            sums = Arrays.copyOf(sums, 2 * size);
            counts = Arrays.copyOf(counts, 2 * size);
        }
        rows[size] = row;
        sums[size] = value;
        counts[size] = count;
        slots[slot] = ++size;
        if (2 * size > slots.length) {
            rehash();
        }
    }

    /** Gives the row a sum of 0 and no terms, if it has none yet: a row {@link #addIfPresent} then adds to. */
    private void mark(long row) {
        int slot = slot(row);
        if (slots[slot] == 0) {
            insert(slot, row, 0.0, 0);
        }
    }

    /** {@link #add}, for a row that has a sum already; nothing for any other. */
    private void addIfPresent(long row, double value) {
        int slot = slot(row);
        if (slots[slot] != 0) {
            int at = slots[slot] - 1;
            sums[at] += value;
            counts[at]++;
        }
    }

    /** The row's slot: the one holding it, else the empty one where it would go. */
    private int slot(long row) {
        int mask = slots.length - 1;
        int slot = hash(row) & mask;
        while (slots[slot] != 0 && rows[slots[slot] - 1] != row) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    /** How many rows have a sum. */
    int size() {
        return size;
    }

    /**
     * The best {@code n} rows of those holding at least {@code least} terms, in {@link Candidate#BEST_FIRST}
     * order (equal sums newest row first), each scored by its sum (at least {@link Double#MIN_VALUE}).
     */
    List<Candidate> best(int n, int least) {
        if (n >= size) {
            List<Candidate> all = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                if (counts[i] >= least) {
                    all.add(candidate(i));
                }
            }
            all.sort(Candidate.BEST_FIRST);
            return all;
        }
        PriorityQueue<Candidate> kept = new PriorityQueue<>(n + 1, Candidate.BEST_FIRST.reversed()); // the worst kept on top
        for (int i = 0; i < size; i++) {
            if (counts[i] < least) {
                continue;
            }
            if (kept.size() < n) {
                kept.add(candidate(i));
            } else if (n > 0 && beats(i, kept.peek())) {
                kept.poll();
                kept.add(candidate(i));
            }
        }
        List<Candidate> out = new ArrayList<>(kept);
        out.sort(Candidate.BEST_FIRST);
        return out;
    }

    /** Whether row {@code i} comes before {@code c} in {@link Candidate#BEST_FIRST} order. */
    private boolean beats(int i, Candidate c) {
        double score = Math.max(sums[i], Double.MIN_VALUE);
        return score > c.score() || score == c.score() && rows[i] > c.rowId();
    }

    private Candidate candidate(int i) {
        return new Candidate(rows[i], Math.max(sums[i], Double.MIN_VALUE));
    }

    private void rehash() {
        slots = new int[2 * slots.length];
        int mask = slots.length - 1;
        for (int i = 0; i < size; i++) {
            int slot = hash(rows[i]) & mask;
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = i + 1;
        }
    }

    private static int hash(long row) {
        long h = row * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
