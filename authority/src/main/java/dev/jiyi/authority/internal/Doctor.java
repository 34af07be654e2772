package dev.jiyi.authority.internal;

import dev.jiyi.authority.Database;
import dev.jiyi.authority.DoctorReport;
import dev.jiyi.authority.Table;
import dev.jiyi.authority.TableCounts;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** The checks behind {@code doctor} (O6); each attached index checks its own rows ({@link Indexes#check}). */
public final class Doctor {

    private Doctor() {
    }

    /** Row counts of the authoritative tables, in {@link Table} order. */
    public static TableCounts counts(Connection c) throws SQLException {
        Map<Table, Long> counts = new EnumMap<>(Table.class);
        try (Statement s = c.createStatement()) {
            for (Table table : Table.values()) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table.sqlName())) {
                    counts.put(table, rs.next() ? rs.getLong(1) : 0L);
                }
            }
        }
        return new TableCounts(counts);
    }

    public static DoctorReport check(Connection c, Indexes indexes) throws SQLException {
        int version = Database.userVersion(c);
        List<String> integrity = new ArrayList<>();
        List<String> violations = new ArrayList<>();
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
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM events WHERE extraction_state = 'pending'")) {
                pending = rs.next() ? rs.getLong(1) : 0L;
            }
        }
        TableCounts counts = counts(c);
        return new DoctorReport(version, integrity, violations, counts, pending, indexes.check(counts));
    }
}
