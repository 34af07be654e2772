package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.TransactionalIndex;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The FTS5 index: {@code memories_fts} and {@code events_fts} rows written and removed inside the
 * authority's transactions, holding the analysis module's tokens (jieba index mode + CJK unigrams)
 * as space-separated text. Row IDs are {@code memories.seq} and {@code events.sequence}.
 */
public final class Fts5Index implements TransactionalIndex {

    /** Loads the jieba dictionary before the write lock is taken. */
    @Override
    public void prepare() {
        ChineseTokens.warmUp();
    }

    @Override
    public void eventAdded(Connection tx, Event event) throws SQLException {
        insert(tx, "INSERT INTO events_fts (rowid, tokens) VALUES (?, ?)", event.sequence(),
                ChineseTokens.indexText(event.text()));
    }

    @Override
    public void eventRemoved(Connection tx, long sequence) throws SQLException {
        delete(tx, "DELETE FROM events_fts WHERE rowid = ?", sequence);
    }

    @Override
    public void memoryAdded(Connection tx, long rowId, Memory memory) throws SQLException {
        insert(tx, "INSERT INTO memories_fts (rowid, tokens) VALUES (?, ?)", rowId, ChineseTokens.indexText(memoryText(memory)));
    }

    @Override
    public void memoryRemoved(Connection tx, long rowId) throws SQLException {
        delete(tx, "DELETE FROM memories_fts WHERE rowid = ?", rowId);
    }

    /** What a memory is found by: its text, quote, subject, gist and cue keys. */
    static String memoryText(Memory m) {
        StringBuilder sb = new StringBuilder(m.text()).append('\n').append(m.quote());
        if (m.subject() != null) {
            sb.append('\n').append(m.subject());
        }
        if (m.gist() != null) {
            sb.append('\n').append(m.gist());
        }
        for (String cue : m.cueKeys()) {
            sb.append('\n').append(cue);
        }
        return sb.toString();
    }

    /**
     * An FTS5 MATCH expression that searches the query's tokens literally (R2): each distinct token
     * becomes a double-quoted string (inner quotes doubled), joined with OR, so operators, column
     * filters, prefixes and parentheses in the query are text, never syntax. Returns null when the
     * query has no searchable token.
     */
    public static String literalQuery(String query) {
        Set<String> distinct = new LinkedHashSet<>(ChineseTokens.terms(query));
        if (distinct.isEmpty()) {
            return null;
        }
        List<String> quoted = new ArrayList<>(distinct.size());
        for (String term : distinct) {
            quoted.add('"' + term.replace("\"", "\"\"") + '"');
        }
        return String.join(" OR ", quoted);
    }

    private static void insert(Connection tx, String sql, long rowId, String tokens) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(sql)) {
            ps.setLong(1, rowId);
            ps.setString(2, tokens);
            ps.executeUpdate();
        }
    }

    private static void delete(Connection tx, String sql, long rowId) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(sql)) {
            ps.setLong(1, rowId);
            ps.executeUpdate();
        }
    }
}
