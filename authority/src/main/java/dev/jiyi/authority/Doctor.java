package dev.jiyi.authority;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The checks behind {@code doctor} (O6). */
final class Doctor {

    /** The authoritative tables, in the order doctor reports them. */
    static final List<String> TABLES = List.of("personas", "events", "memories", "relations", "checkpoints",
            "embeddings", "extractions", "capture_cursors", "change_log");

    /** The name the FTS5 index (dev.jiyi.fts5.Fts5Index) keeps its state under in index_state. */
    static final String FTS5_INDEX = "fts5";

    private Doctor() {
    }

    /** Row counts of the authoritative tables, in {@link #TABLES} order. */
    static Map<String, Long> counts(Connection c) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Statement s = c.createStatement()) {
            for (String table : TABLES) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                    counts.put(table, rs.next() ? rs.getLong(1) : 0L);
                }
            }
        }
        return counts;
    }

    static DoctorReport check(Connection c) throws SQLException {
        int version = Database.userVersion(c);
        List<String> integrity = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        Map<String, Long> counts = new LinkedHashMap<>();
        List<String> indexProblems = new ArrayList<>();
        long pending;
        try (Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
                while (rs.next()) {
                    integrity.add(rs.getString(1));
                }
            }
            try (ResultSet rs = s.executeQuery("PRAGMA foreign_key_check")) {
                while (rs.next()) {
                    violations.add(rs.getString(1) + " rowid " + rs.getLong(2) + " -> " + rs.getString(3));
                }
            }
            counts.putAll(counts(c));
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM events WHERE extraction_state = 'pending'")) {
                pending = rs.next() ? rs.getLong(1) : 0L;
            }
            // Only an FTS5 index that claims to be complete is checked: one marked stale (or never built,
            // as in a file only ever opened without it) is rebuilt, and one being built is finished, by
            // the next open that attaches it.
            boolean ftsCurrent;
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM index_state WHERE name = '" + FTS5_INDEX
                    + "' AND version <> 'stale' AND version NOT LIKE '%#building'")) {
                ftsCurrent = rs.next() && rs.getLong(1) > 0;
            }
            for (String table : ftsCurrent ? List.of("events", "memories") : List.<String>of()) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table + "_fts")) {
                    long indexed = rs.next() ? rs.getLong(1) : 0L;
                    if (indexed != counts.get(table)) {
                        indexProblems.add(table + "_fts holds " + indexed + " row(s) for " + counts.get(table) + " "
                                + table + ": the FTS5 index is out of step, run `jiyi reindex`");
                    }
                }
            }
        }
        return new DoctorReport(version, integrity, violations, counts, pending, indexProblems);
    }
}
