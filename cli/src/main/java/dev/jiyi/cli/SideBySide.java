package dev.jiyi.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Two texts in two columns for a terminal, measured in display columns rather than characters:
 * CJK ideographs, kana, hangul, full-width forms and most emoji take two columns, combining marks
 * and format characters none. Lines break at spaces, between wide characters, or inside a word that
 * is longer than a column; a reply's own line breaks are kept.
 *
 * <pre>
 * A: qwen2.5-7b        | B: gpt-4o-mini
 * -------------------- | --------------------
 * 你住在杭州，养了一只 | You live in Hangzhou
 * 猫叫团子。           | and have a cat.
 * </pre>
 *
 * The separator is plain ASCII: box-drawing characters are "ambiguous width" and take two columns
 * in many CJK terminals, which would break the alignment.
 */
final class SideBySide {

    static final String GAP = " | ";

    /** Closing punctuation that must not begin a line in Chinese and Japanese text. */
    private static final String NO_LINE_START = "，。、；：！？）」』》〉】〕…—,.;:!?)";

    private SideBySide() {
    }

    /** The display width of one code point: 0, 1 or 2 columns. */
    static int width(int cp) {
        int type = Character.getType(cp);
        if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK || type == Character.FORMAT
                || (cp >= 0x1160 && cp <= 0x11FF)) {
            return 0;
        }
        return wide(cp) ? 2 : 1;
    }

    /** East Asian Wide and Full-width ranges (Unicode UAX #11), plus the emoji blocks shown wide. */
    private static boolean wide(int cp) {
        return (cp >= 0x1100 && cp <= 0x115F)
                || (cp >= 0x2E80 && cp <= 0x303E)
                || (cp >= 0x3041 && cp <= 0x33FF)
                || (cp >= 0x3400 && cp <= 0x4DBF)
                || (cp >= 0x4E00 && cp <= 0x9FFF)
                || (cp >= 0xA000 && cp <= 0xA4CF)
                || (cp >= 0xA960 && cp <= 0xA97F)
                || (cp >= 0xAC00 && cp <= 0xD7A3)
                || (cp >= 0xF900 && cp <= 0xFAFF)
                || (cp >= 0xFE10 && cp <= 0xFE19)
                || (cp >= 0xFE30 && cp <= 0xFE6F)
                || (cp >= 0xFF00 && cp <= 0xFF60)
                || (cp >= 0xFFE0 && cp <= 0xFFE6)
                || (cp >= 0x1F300 && cp <= 0x1F64F)
                || (cp >= 0x1F680 && cp <= 0x1F6FF)
                || (cp >= 0x1F900 && cp <= 0x1F9FF)
                || (cp >= 0x1FA70 && cp <= 0x1FAFF)
                || (cp >= 0x20000 && cp <= 0x3FFFD);
    }

    /** The display width of a line. */
    static int width(String s) {
        return s.codePoints().map(SideBySide::width).sum();
    }

    /**
     * Text made safe to print: line ends become {@code \n}, a tab four spaces, and every other
     * control character (an escape sequence's ESC, a C1 control) U+FFFD, so a reply cannot move the
     * cursor or recolour the terminal.
     */
    static String printable(String text) {
        String s = text.replace("\r\n", "\n").replace('\r', '\n').replace("\t", "    ");
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            if (cp != '\n' && Character.getType(cp) == Character.CONTROL) {
                sb.append('\uFFFD');
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.toString();
    }

    /** {@code text} (already {@link #printable}) broken into lines of at most {@code columns} display columns. */
    static List<String> wrap(String text, int columns) {
        if (columns < 2) {
            throw new IllegalArgumentException("a column must be at least 2 wide, was " + columns);
        }
        List<String> lines = new ArrayList<>();
        for (String paragraph : text.split("\n", -1)) {
            wrapParagraph(paragraph, columns, lines);
        }
        return lines;
    }

    /**
     * Greedy filling by units: a run of spaces, a run of narrow non-space characters (a word), or
     * one wide character; zero-width characters stay with the unit before them.
     */
    private static void wrapParagraph(String paragraph, int columns, List<String> lines) {
        StringBuilder line = new StringBuilder();
        int used = 0;
        int lastUnit = 0; // where the last unit on the line starts
        boolean first = true;
        int i = 0;
        while (i < paragraph.length()) {
            int end = unitEnd(paragraph, i);
            String unit = paragraph.substring(i, end);
            i = end;
            boolean space = unit.charAt(0) == ' ';
            int w = width(unit);
            if (space && used == 0 && !first) {
                continue; // a wrapped line does not start with the spaces it broke at
            }
            if (used + w <= columns) {
                lastUnit = line.length();
                line.append(unit);
                used += w;
                continue;
            }
            if (NO_LINE_START.indexOf(unit.codePointAt(0)) >= 0 && lastUnit > 0
                    && line.charAt(lastUnit - 1) != ' ' && line.charAt(lastUnit) != ' '
                    && width(line.substring(lastUnit)) + w <= columns) {
                // "，" or "。" never starts a line: the character before it goes down with it.
                String carried = line.substring(lastUnit);
                line.setLength(lastUnit);
                lines.add(stripTrailing(line));
                line.setLength(0);
                line.append(carried).append(unit);
                used = width(line.toString());
                lastUnit = carried.length();
                first = false;
                continue;
            }
            if (space) {
                if (used > 0) {
                    lines.add(stripTrailing(line));
                    line.setLength(0);
                    used = 0;
                    lastUnit = 0;
                    first = false;
                }
                continue;
            }
            if (used > 0) {
                lines.add(stripTrailing(line));
                line.setLength(0);
                used = 0;
                first = false;
            }
            lastUnit = 0; // the word starts the line (a line that ends inside it is not carried from)
            for (int j = 0; j < unit.length(); ) {
                int cp = unit.codePointAt(j);
                int cw = width(cp);
                if (used + cw > columns) {
                    // A word longer than a whole column is cut where the column ends.
                    lines.add(line.toString());
                    line.setLength(0);
                    used = 0;
                    first = false;
                }
                line.appendCodePoint(cp);
                used += cw;
                j += Character.charCount(cp);
            }
        }
        lines.add(stripTrailing(line));
    }

    private static int unitEnd(String s, int start) {
        int cp = s.codePointAt(start);
        int i = start + Character.charCount(cp);
        if (cp == ' ') {
            while (i < s.length() && s.charAt(i) == ' ') {
                i++;
            }
            return i;
        }
        boolean wideUnit = width(cp) == 2;
        while (i < s.length()) {
            int next = s.codePointAt(i);
            int w = width(next);
            if (w == 0) {
                i += Character.charCount(next);
            } else if (wideUnit || next == ' ' || w == 2) {
                return i;
            } else {
                i += Character.charCount(next);
            }
        }
        return i;
    }

    private static String stripTrailing(StringBuilder line) {
        int end = line.length();
        while (end > 0 && line.charAt(end - 1) == ' ') {
            end--;
        }
        return line.substring(0, end);
    }

    /** {@code s} followed by spaces up to {@code columns} display columns. */
    static String pad(String s, int columns) {
        return s + " ".repeat(Math.max(0, columns - width(s)));
    }

    /**
     * Two lists of lines (each at most {@code columns} wide) as rows: the left padded to
     * {@code columns}, the {@link #GAP}, the right; the shorter side is filled with blank lines.
     */
    static List<String> rows(List<String> left, List<String> right, int columns) {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < Math.max(left.size(), right.size()); i++) {
            String l = i < left.size() ? left.get(i) : "";
            String r = i < right.size() ? right.get(i) : "";
            rows.add((pad(l, columns) + GAP + r).stripTrailing());
        }
        return rows;
    }
}
