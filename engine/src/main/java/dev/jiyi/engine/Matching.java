package dev.jiyi.engine;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How a list handed in is matched against a conversation's window ({@link ChatWindows}): which of its
 * turns the window already holds, which are a deleted turn's stale copy, and which are new.
 *
 * <ol>
 * <li>The anchor: the longest run of the window's last turns that the list holds in a row (at its
 *     first place). A framework's window loses its oldest messages and gains new ones at the end,
 *     so that run is what survived; the list's turns after it are new.</li>
 * <li>Before the anchor: older messages handed back, or a summary in place of evicted ones. Each is
 *     the window's earlier turn where one matches in order; a copy of a turn deleted while in the
 *     window is dropped; the rest is new.</li>
 * <li>With no window (a new conversation, or one ended by {@link ChatWindows#end}): a run of two
 *     turns or more that an ended window holds in a row is that history handed back. One message
 *     alone never is: a framework that ends the window every request hands in one new message
 *     each time, and a second "好的" on another day is a new turn.</li>
 * </ol>
 */
final class Matching {

    private Matching() {
    }

    /**
     * Matches {@code turns} against the window's {@code live} turns (those whose events still exist:
     * the frameworks build their lists from what the window reads, which leaves deleted turns out);
     * the fingerprints of its {@code deleted} turns count as tombstones.
     */
    static void match(List<ChatWindows.Turn> turns, List<WindowFiles.Entry> live, List<String> deleted,
                      WindowFiles.Window window) {
        List<ChatWindows.Turn> list = turns.stream().filter(t -> t.role != null).toList();
        List<WindowFiles.Entry> held = live;
        int n = held.size();
        int m = list.size();
        int[] anchor = anchor(held, list);
        int k = anchor[0];
        int j = anchor[1];
        for (int i = 0; i < k; i++) {
            list.get(j + i).event = held.get(n - k + i).event();
        }
        Set<String> tombstones = new HashSet<>(window.tombstones());
        tombstones.addAll(deleted);
        int next = 0;
        List<ChatWindows.Turn> loose = new ArrayList<>();
        for (int i = 0; i < (k == 0 ? m : j); i++) {
            ChatWindows.Turn t = list.get(i);
            for (int q = next; q < n - k; q++) {
                if (held.get(q).fingerprint().equals(t.fingerprint)) {
                    t.event = held.get(q).event();
                    next = q + 1;
                    break;
                }
            }
            if (t.event == null && k > 0 && tombstones.contains(t.fingerprint)) {
                t.dropped = true;
            }
            if (t.event == null && !t.dropped) {
                loose.add(t);
            }
        }
        if (k == 0) {
            handedBack(loose, window.ended());
        }
    }

    /**
     * {k, j}: the longest run of the window's last k turns that the list holds in a row, starting at
     * its turn j (the first such place); {0, list size} when it holds none of them. Knuth-Morris-Pratt
     * over both sequences reversed: the longest prefix of the reversed window that occurs in the
     * reversed list.
     */
    static int[] anchor(List<WindowFiles.Entry> held, List<ChatWindows.Turn> list) {
        int n = held.size();
        int m = list.size();
        if (n == 0 || m == 0) {
            return new int[] {0, m};
        }
        String[] pattern = new String[n];
        for (int i = 0; i < n; i++) {
            pattern[i] = held.get(n - 1 - i).fingerprint();
        }
        int[] border = new int[n];
        for (int i = 1, b = 0; i < n; i++) {
            while (b > 0 && !pattern[i].equals(pattern[b])) {
                b = border[b - 1];
            }
            if (pattern[i].equals(pattern[b])) {
                b++;
            }
            border[i] = b;
        }
        int best = 0;
        int end = -1;
        for (int t = 0, q = 0; t < m; t++) {
            String s = list.get(m - 1 - t).fingerprint;
            while (q > 0 && (q == n || !s.equals(pattern[q]))) {
                q = border[q - 1];
            }
            if (s.equals(pattern[q])) {
                q++;
            }
            if (q >= best && q > 0) { // the later in the reversed list, the earlier in the list
                best = q;
                end = t;
            }
        }
        return best == 0 ? new int[] {0, m} : new int[] {best, m - 1 - end};
    }

    /** Gives runs of two loose turns or more that an ended window holds in a row their events. */
    private static void handedBack(List<ChatWindows.Turn> loose, List<WindowFiles.Entry> ended) {
        boolean[] used = new boolean[ended.size()];
        int i = 0;
        while (i < loose.size()) {
            int run = 0;
            int from = -1;
            for (int k = 0; k < ended.size() && run < 2; k++) {
                int length = 0;
                while (i + length < loose.size() && k + length < ended.size() && !used[k + length]
                        && ended.get(k + length).fingerprint().equals(loose.get(i + length).fingerprint)) {
                    length++;
                }
                if (length > run) {
                    run = length;
                    from = k;
                }
            }
            if (run < 2) {
                i++;
                continue;
            }
            while (i < loose.size() && from < ended.size() && !used[from]
                    && ended.get(from).fingerprint().equals(loose.get(i).fingerprint)) {
                loose.get(i++).event = ended.get(from).event();
                used[from++] = true;
            }
        }
    }
}
