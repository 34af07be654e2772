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
            "embeddings", "capture_cursors", "change_log");

    private Doctor() {
    }

    static DoctorReport check(Connection c) throws SQLException {
        int version = Database.userVersion(c);
        List<String> integrity = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        Map<String, Long> counts = new LinkedHashMap<>();
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
            for (String table : TABLES) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
                    counts.put(table, rs.next() ? rs.getLong(1) : 0L);
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM events WHERE extraction_state = 'pending'")) {
                pending = rs.next() ? rs.getLong(1) : 0L;
            }
        }
        return new DoctorReport(version, integrity, violations, counts, pending);
    }
}
