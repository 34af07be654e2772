package dev.jiyi.fts5;

import dev.jiyi.authority.Sql;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The b-tree keys of an FTS5 table that could still spell a deleted term after secure-delete has
 * removed its entries, and the merge that rebuilds them from surviving terms (D1).
 */
final class KeyTraces {

    private KeyTraces() {
    }

    /**
     * Merges {@code table} into one segment when a b-tree key is a trace of a term that the removal
     * made vanish ({@link Fts5Index#removalsDone} says why).
     */
    static void purge(Sql tx, String table, java.util.Set<String> removedTerms)
            throws SQLException {
        // Most removed terms are still used by other rows; only a vanished term can leave a trace. (A
        // phrase query stops at the first posting; the vocabulary would count a common term's postings.)
        List<byte[]> vanished = new ArrayList<>();
        PreparedStatement match = tx.prepare("SELECT 1 FROM " + table + " WHERE " + table + " MATCH ? LIMIT 1");
        for (String term : removedTerms) {
            match.setString(1, '"' + term.replace("\"", "\"\"") + '"');
            try (ResultSet rs = match.executeQuery()) {
                if (!rs.next()) {
                    vanished.add(term.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        if (vanished.isEmpty()) {
            return;
        }
        List<byte[]> keys = new ArrayList<>();
        try (ResultSet rs = tx.prepare("SELECT term FROM " + table + "_idx").executeQuery()) {
            while (rs.next()) {
                byte[] key = rs.getBytes(1);
                if (key != null && key.length > 1) {
                    keys.add(java.util.Arrays.copyOfRange(key, 1, key.length)); // byte 0 says which index
                }
            }
        }
        String vocabulary = "temp." + table + "_terms";
        tx.execute("CREATE VIRTUAL TABLE IF NOT EXISTS " + vocabulary + " USING fts5vocab(main, " + table + ", row)");
        PreparedStatement range = tx.prepare("SELECT term FROM " + vocabulary + " WHERE term >= ? AND term < ? LIMIT 1");
        for (byte[] term : vanished) {
            for (byte[] key : keys) {
                if (startsWith(term, key) && !anyTermStartsWith(range, key)) {
                    mergeIntoOneSegment(tx, table);
                    return;
                }
            }
        }
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && java.util.Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    /**
     * Whether a surviving term starts with these bytes. Terms sort by their UTF-8 bytes, so the terms
     * with this byte prefix are a range of strings: from the prefix with its last, partial character
     * completed by the smallest continuation bytes, to the same with the largest, then anything.
     */
    private static boolean anyTermStartsWith(PreparedStatement range, byte[] prefix) throws SQLException {
        int last = prefix.length - 1;
        while (last > 0 && (prefix[last] & 0xC0) == 0x80) {
            last--; // back over continuation bytes to the last character's first byte
        }
        boolean complete = prefix.length - last == utf8Length(prefix[last]);
        String head = new String(prefix, 0, complete ? prefix.length : last, StandardCharsets.UTF_8);
        String low = complete ? head : head + completed(prefix, last, true);
        String high = (complete ? head : head + completed(prefix, last, false)) + "\uDBFF\uDFFF";
        range.setString(1, low);
        range.setString(2, high);
        try (ResultSet rs = range.executeQuery()) {
            return rs.next() && startsWith(rs.getString(1).getBytes(StandardCharsets.UTF_8), prefix);
        }
    }

    private static int utf8Length(byte first) {
        return (first & 0x80) == 0 ? 1 : (first & 0xE0) == 0xC0 ? 2 : (first & 0xF0) == 0xE0 ? 3 : 4;
    }

    /**
     * The smallest ({@code low}) or largest character whose UTF-8 starts with {@code bytes[from..]}:
     * the missing continuation bytes at their lowest or highest value, within the ranges UTF-8
     * allows after the lead byte (E0 needs A0 and up, ED at most 9F, F0 at least 90, F4 at most 8F).
     */
    private static String completed(byte[] bytes, int from, boolean low) {
        int need = utf8Length(bytes[from]);
        byte[] ch = java.util.Arrays.copyOfRange(bytes, from, from + need);
        int lead = ch[0] & 0xFF;
        for (int i = bytes.length - from; i < need; i++) {
            int min = 0x80;
            int max = 0xBF;
            if (i == 1) {
                min = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
                max = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
            }
            ch[i] = (byte) (low ? min : max);
        }
        return new String(ch, StandardCharsets.UTF_8);
    }

    /**
     * FTS5's 'optimize' does nothing to an index that is one segment already (as after a rebuild or
     * an earlier merge), so a placeholder row makes a second segment first and is deleted after.
     */
    private static void mergeIntoOneSegment(Sql tx, String table) throws SQLException {
        tx.execute("INSERT INTO " + table + " (rowid, scope, tokens) VALUES (0, '', '" + MERGE_PLACEHOLDER + "')");
        tx.execute("INSERT INTO " + table + " (" + table + ") VALUES ('optimize')");
        tx.execute("INSERT INTO " + table + " (" + table + ", rowid, scope, tokens) VALUES ('delete', 0, '', '"
                + MERGE_PLACEHOLDER + "')");
    }

    /** The one term of the placeholder row (rowid 0, which no event or memory has) that forces a merge. */
    private static final String MERGE_PLACEHOLDER = "jiyimergeplaceholder";
}
