package dev.jiyi.bench.quality;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The reference point of the recall issue: plain FTS5 BM25 over the raw event texts with the
 * trigram tokenizer. A query is every distinct three-character window of the question (lower-cased,
 * whitespace collapsed), quoted and joined with OR.
 */
final class TrigramBaseline implements AutoCloseable {

    private final Connection c;

    TrigramBaseline(Scenario scenario) throws SQLException {
        c = DriverManager.getConnection("jdbc:sqlite::memory:");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE raw USING fts5(scope UNINDEXED, event_id UNINDEXED, text, tokenize='trigram')");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO raw (scope, event_id, text) VALUES (?, ?, ?)")) {
            for (Scenario.EventSpec e : scenario.events()) {
                ps.setString(1, e.scope().toString());
                ps.setString(2, e.id());
                ps.setString(3, e.text());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    List<String> search(Scenario.Question q, int limit) throws SQLException {
        String text = q.query().toLowerCase().replaceAll("\\s+", " ").strip();
        Set<String> grams = new LinkedHashSet<>();
        int[] cps = text.codePoints().toArray();
        for (int i = 0; i + 3 <= cps.length; i++) {
            String g = new String(cps, i, 3);
            if (!g.isBlank()) {
                grams.add('"' + g.replace("\"", "\"\"") + '"');
            }
        }
        List<String> out = new ArrayList<>();
        if (grams.isEmpty()) {
            return out;
        }
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT event_id FROM raw WHERE raw MATCH ? AND scope = ? ORDER BY rank, rowid LIMIT ?")) {
            ps.setString(1, "text : (" + String.join(" OR ", grams) + ")");
            ps.setString(2, q.scope().toString());
            ps.setInt(3, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    @Override
    public void close() throws SQLException {
        c.close();
    }
}
