package dev.jiyi.authority.archive;

import dev.jiyi.authority.PhaseProgress;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.Table;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.internal.JsonStrings;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.PrettyPrinter;
import tools.jackson.core.SerializableString;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.MinimalPrettyPrinter;

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
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Export (O3): every authoritative table ({@link ArchiveTable}), of the whole database or of one
 * scope, written as an archive of the current format version ({@link ArchiveVersion#CURRENT}) from
 * the one read transaction it runs in, through Jackson's streaming generator. The same data always
 * gives the same bytes: rows in key order, columns in archive order, every column written (null where
 * empty), numbers and times in one form, the same escapes ({@link Layout}). So export, import and
 * export again is byte-identical.
 */
public final class ArchiveWriter {

    /** The tables whose AUTOINCREMENT counters an archive keeps, so no deleted key is ever reused. */
    static final List<String> SEQUENCES = List.of("events", "memories", "checkpoints");

    private static final int PROGRESS_EVERY = 512;

    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .disable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER) // Double.toString: the form archives have
            .build();

    private final Sql sql;
    private final Scope scope;

    private ArchiveWriter(Sql sql, Scope scope) {
        this.sql = sql;
        this.scope = scope;
    }

    /** Writes the archive into {@code target}, a file created here (an existing one is refused). */
    public static ArchiveReport write(Sql sql, Path target, ArchiveFormat format, Scope scope, PhaseProgress progress)
            throws SQLException {
        Path file = target.toAbsolutePath();
        Backups.createNew(file, "export");
        boolean done = false;
        try (FileOutputStream stream = new FileOutputStream(file.toFile());
             Writer out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 1 << 16)) {
            TableCounts rows = new ArchiveWriter(sql, scope).write(out, format, progress);
            out.flush();
            stream.getFD().sync(); // acknowledged means on disk
            done = true;
            return new ArchiveReport(file, Files.size(file), ArchiveVersion.CURRENT.number(), rows);
        } catch (IOException | JacksonException e) {
            throw new StorageException("writing the archive", e instanceof IOException io ? io : new IOException(e));
        } finally {
            if (!done) {
                Backups.deleteQuietly(file);
            }
        }
    }

    private TableCounts write(Writer out, ArchiveFormat format, PhaseProgress progress) throws SQLException {
        Map<Table, Long> counts = new EnumMap<>(Table.class);
        long total = 0;
        for (ArchiveTable t : ArchiveTable.values()) {
            PreparedStatement ps = sql.prepare("SELECT count(*) FROM " + t.table() + where(t));
            bindScope(ps, t);
            long n = Long.parseLong(Sql.strings(ps).getFirst());
            counts.put(t.kind(), n);
            total += n;
        }
        Layout layout = new Layout();
        try (JsonGenerator g = JSON.createGenerator(layout, out)) {
            g.writeStartObject();
            g.writeStringProperty("format", ArchiveVersion.FORMAT);
            g.writeNumberProperty("version", ArchiveVersion.CURRENT.number());
            g.writeName("scope");
            if (scope == null) {
                g.writeNull();
            } else {
                g.writeStartObject();
                g.writeStringProperty("persona", scope.personaId());
                g.writeStringProperty("project", scope.projectId());
                g.writeEndObject();
            }
            g.writeObjectPropertyStart("sequences");
            Map<String, Long> sequences = sequences();
            for (String table : SEQUENCES) {
                g.writeNumberProperty(table, sequences.getOrDefault(table, 0L));
            }
            g.writeEndObject();
            g.writeObjectPropertyStart("counts");
            for (ArchiveTable t : ArchiveTable.values()) {
                g.writeNumberProperty(t.table(), counts.get(t.kind()));
            }
            g.writeEndObject();
            if (format == ArchiveFormat.JSON) {
                g.writeArrayPropertyStart("rows");
                layout.rows(g.streamWriteContext());
                g.writeRaw('\n');
            } else {
                g.writeEndObject();
            }

            progress.begin("export", total);
            long written = 0;
            for (ArchiveTable t : ArchiveTable.values()) {
                PreparedStatement ps = sql.prepare("SELECT " + columnList(t) + " FROM " + t.table() + where(t)
                        + " ORDER BY " + t.orderBy());
                bindScope(ps, t);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        row(g, t, rs);
                        if (++written % PROGRESS_EVERY == 0) {
                            progress.advance(PROGRESS_EVERY);
                        }
                    }
                }
            }
            if (format == ArchiveFormat.JSON) {
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeRaw('\n');
            progress.advance(written % PROGRESS_EVERY);
        }
        return new TableCounts(counts);
    }

    /** One row as one JSON object: {@code table} first, then every column in archive order. */
    private static void row(JsonGenerator g, ArchiveTable t, ResultSet rs) throws SQLException {
        g.writeStartObject();
        g.writeStringProperty("table", t.table());
        int i = 1;
        for (ArchiveTable.Column c : t.columns()) {
            g.writeName(c.name());
            switch (c.type()) {
                case INT -> g.writeNumber(rs.getLong(i));
                case REAL -> {
                    double d = rs.getDouble(i);
                    if (rs.wasNull()) {
                        g.writeNull();
                    } else {
                        g.writeNumber(d);
                    }
                }
                case BOOL -> g.writeBoolean(rs.getInt(i) != 0);
                case LIST -> {
                    g.writeStartArray();
                    for (String item : JsonStrings.decode(rs.getString(i))) {
                        g.writeString(item);
                    }
                    g.writeEndArray();
                }
                default -> g.writeString(rs.getString(i)); // null writes null
            }
            i++;
        }
        g.writeEndObject();
    }

    /**
     * How an archive is laid out: no spaces; in {@code jsonl} each row (and the header) on a line of
     * its own; in {@code json} the header, then each row of the {@code rows} array on a line of its own.
     * Strings escape quotes, backslashes, {@code \n}, {@code \r}, {@code \t} and every other control
     * character as {@code \}{@code u00xx} (lower-case hex), and nothing else: the bytes archives of
     * version 1 have always had.
     */
    private static final class Layout extends ObjectWriteContext.Base {

        private final Printer printer = new Printer();

        void rows(TokenStreamContext rows) {
            printer.rows = rows;
        }

        @Override
        public PrettyPrinter getPrettyPrinter() {
            return printer;
        }

        @Override
        public boolean hasPrettyPrinter() {
            return true;
        }

        @Override
        public CharacterEscapes getCharacterEscapes() {
            return ESCAPES;
        }

        private static final class Printer extends MinimalPrettyPrinter {
            private TokenStreamContext rows;

            Printer() {
                super("\n");
            }

            @Override
            public void writeArrayValueSeparator(JsonGenerator g) {
                g.writeRaw(g.streamWriteContext() == rows ? ",\n" : ",");
            }

            @Override
            public void writeEndArray(JsonGenerator g, int values) {
                g.writeRaw(g.streamWriteContext() == rows && values > 0 ? "\n]" : "]");
            }
        }

        private static final CharacterEscapes ESCAPES = new CharacterEscapes() {
            private final int[] ascii = escapes();

            private static int[] escapes() {
                int[] codes = CharacterEscapes.standardAsciiEscapesForJSON();
                for (int c = 0; c < 0x20; c++) {
                    if (c != '\n' && c != '\r' && c != '\t') { // those three keep their short escapes
                        codes[c] = CharacterEscapes.ESCAPE_CUSTOM;
                    }
                }
                return codes;
            }

            @Override
            public int[] getEscapeCodesForAscii() {
                return ascii;
            }

            @Override
            public SerializableString getEscapeSequence(int ch) {
                return ch < 0x20 ? new SerializedString(String.format(Locale.ROOT, "\\u%04x", ch)) : null;
            }
        };
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
