package dev.jiyi.authority;

import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Export (O3): every authoritative table ({@link ArchiveTable}), of the whole database or of one
 * scope, written as an archive from the one read transaction it runs in. The same data always gives
 * the same bytes: rows in key order, columns in archive order, every column written (null where
 * empty), numbers and times in one form. So export, import and export again is byte-identical.
 */
final class ArchiveExport {

    /** What an archive calls itself in its header. */
    static final String FORMAT = "jiyi-archive";
    /** The format version this jiyi writes; import reads it and every earlier one. */
    static final int VERSION = 1;
    /** The tables whose AUTOINCREMENT counters an archive keeps, so no deleted key is ever reused. */
    static final List<String> SEQUENCES = List.of("events", "memories", "checkpoints");

    private static final int PROGRESS_EVERY = 512;

    private final Sql sql;
    private final Scope scope;

    private ArchiveExport(Sql sql, Scope scope) {
        this.sql = sql;
        this.scope = scope;
    }

    /** Writes the archive into {@code target}, a file created here (an existing one is refused). */
    static ArchiveReport write(Sql sql, Path target, ArchiveFormat format, Scope scope, PhaseProgress progress)
            throws SQLException {
        Path file = target.toAbsolutePath();
        Backups.createNew(file, "export");
        boolean done = false;
        try (FileOutputStream stream = new FileOutputStream(file.toFile());
             Writer out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 1 << 16)) {
            Map<String, Long> rows = new ArchiveExport(sql, scope).write(out, format, progress);
            out.flush();
            stream.getFD().sync(); // acknowledged means on disk
            done = true;
            return new ArchiveReport(file, Files.size(file), VERSION, rows);
        } catch (IOException e) {
            throw new StorageException("writing the archive", e);
        } finally {
            if (!done) {
                Backups.deleteQuietly(file);
            }
        }
    }

    private Map<String, Long> write(Writer out, ArchiveFormat format, PhaseProgress progress)
            throws SQLException, IOException {
        Map<String, Long> counts = new LinkedHashMap<>();
        long total = 0;
        for (ArchiveTable t : ArchiveTable.values()) {
            PreparedStatement ps = sql.prepare("SELECT count(*) FROM " + t.table() + where(t));
            bindScope(ps, t);
            long n = Long.parseLong(Sql.strings(ps).getFirst());
            counts.put(t.table(), n);
            total += n;
        }
        StringBuilder header = new StringBuilder("{\"format\":\"").append(FORMAT).append("\",\"version\":").append(VERSION)
                .append(",\"scope\":");
        if (scope == null) {
            header.append("null");
        } else {
            header.append("{\"persona\":");
            JsonStrings.quote(header, scope.personaId());
            header.append(",\"project\":");
            JsonStrings.quote(header, scope.projectId());
            header.append('}');
        }
        header.append(",\"sequences\":{");
        Map<String, Long> sequences = sequences();
        for (String table : SEQUENCES) {
            header.append(table.equals(SEQUENCES.getFirst()) ? "" : ",").append('"').append(table).append("\":")
                    .append(sequences.getOrDefault(table, 0L));
        }
        header.append("},\"counts\":{");
        counts.forEach((table, n) -> header.append(header.charAt(header.length() - 1) == '{' ? "" : ",")
                .append('"').append(table).append("\":").append(n));
        header.append('}');
        out.write(header.append(format == ArchiveFormat.JSON ? ",\"rows\":[" : "}").append('\n').toString());

        progress.begin("export", total);
        long written = 0;
        StringBuilder line = new StringBuilder(4096);
        for (ArchiveTable t : ArchiveTable.values()) {
            PreparedStatement ps = sql.prepare("SELECT " + columnList(t) + " FROM " + t.table() + where(t)
                    + " ORDER BY " + t.orderBy());
            bindScope(ps, t);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    line.setLength(0);
                    if (format == ArchiveFormat.JSON && written > 0) {
                        line.append(",\n");
                    }
                    row(line, t, rs);
                    if (format == ArchiveFormat.JSONL) {
                        line.append('\n');
                    }
                    out.write(line.toString());
                    if (++written % PROGRESS_EVERY == 0) {
                        progress.advance(PROGRESS_EVERY);
                    }
                }
            }
        }
        if (format == ArchiveFormat.JSON) {
            out.write(written > 0 ? "\n]}\n" : "]}\n");
        }
        progress.advance(written % PROGRESS_EVERY);
        return counts;
    }

    /** One row as one JSON object: {@code table} first, then every column in archive order. */
    private static void row(StringBuilder sb, ArchiveTable t, ResultSet rs) throws SQLException {
        sb.append("{\"table\":\"").append(t.table()).append('"');
        int i = 1;
        for (ArchiveTable.Column c : t.columns()) {
            sb.append(",\"").append(c.name()).append("\":");
            switch (c.type()) {
                case INT -> sb.append(rs.getLong(i));
                case REAL -> {
                    double d = rs.getDouble(i);
                    sb.append(rs.wasNull() ? "null" : Double.toString(d));
                }
                case BOOL -> sb.append(rs.getInt(i) != 0);
                case LIST -> {
                    List<String> items = JsonStrings.decode(rs.getString(i));
                    sb.append('[');
                    for (int k = 0; k < items.size(); k++) {
                        if (k > 0) {
                            sb.append(',');
                        }
                        JsonStrings.quote(sb, items.get(k));
                    }
                    sb.append(']');
                }
                default -> {
                    String s = rs.getString(i);
                    if (s == null) {
                        sb.append("null");
                    } else {
                        JsonStrings.quote(sb, s);
                    }
                }
            }
            i++;
        }
        sb.append('}');
    }

    /** The AUTOINCREMENT counters of {@link #SEQUENCES}: a table that never had a row has none. */
    private Map<String, Long> sequences() throws SQLException {
        Map<String, Long> out = new LinkedHashMap<>();
        PreparedStatement ps = sql.prepare("SELECT name, seq FROM sqlite_sequence");
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getLong(2));
            }
        }
        return out;
    }

    static String columnList(ArchiveTable t) {
        return String.join(", ", t.columns().stream().map(ArchiveTable.Column::name).toList());
    }

    private String where(ArchiveTable t) {
        if (scope == null) {
            return "";
        }
        return switch (t.scoping()) {
            case PERSONA -> " WHERE persona_id = ?";
            case SCOPE -> " WHERE persona_id = ? AND project_id = ?";
            case EVENT -> " WHERE event_id IN (SELECT id FROM events WHERE persona_id = ? AND project_id = ?)";
        };
    }

    private void bindScope(PreparedStatement ps, ArchiveTable t) throws SQLException {
        if (scope != null) {
            ps.setString(1, scope.personaId());
            if (t.scoping() != ArchiveTable.Scoping.PERSONA) {
                ps.setString(2, scope.projectId());
            }
        }
    }
}
