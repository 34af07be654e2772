package dev.jiyi.authority.archive;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Ids;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.PhaseProgress;
import dev.jiyi.authority.RefusedException;
import dev.jiyi.authority.Rejection;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.internal.JsonStrings;

import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;

import java.io.InputStream;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Import (O4): reads an archive of any format version up to {@link ArchiveVersion#CURRENT}, each row brought to the current layout first ({@link ArchiveVersion#upgrade}), into an
 * empty database, inside the caller's one write transaction, checking everything on the way and
 * refusing the whole archive at the first broken rule: each row's shape and types, times with an
 * offset, identifiers and limits as the write rules have them, and every reference when its row
 * arrives (a memory's event in its scope, derivable, holding its quote, of the role its basis needs;
 * relation endpoints in the relation's scope; a checkpoint's covered event in its scope and
 * session). At the end: the row counts the header announced (a truncated archive is refused),
 * persona versions without gaps, fact timelines whose closings agree, and SQLite's own foreign-key
 * check. Errors name the line and the field and the rule, never a value.
 */
public final class ArchiveImport {

    private final Sql sql;
    private final PhaseProgress progress;
    private final Map<String, Long> rows = new LinkedHashMap<>();
    private final Map<String, Integer> closingLines = new HashMap<>();
    private ArchiveReader.Header header;
    private int lastTable = -1;

    private ArchiveImport(Sql sql, PhaseProgress progress) {
        this.sql = sql;
        this.progress = progress;
        for (ArchiveTable t : ArchiveTable.values()) {
            rows.put(t.table(), 0L);
        }
    }

    /** Imports the archive; the caller's transaction commits it, or rolls it back on any exception. */
    public static ArchiveReport run(Sql sql, InputStream in, PhaseProgress progress) throws SQLException {
        requireEmpty(sql);
        sql.prepare("DELETE FROM personas").executeUpdate(); // neutral versions only (checked above)
        ArchiveImport archive = new ArchiveImport(sql, progress);
        ArchiveInput input = new ArchiveInput(in);
        JsonParser p = ArchiveReader.JSON.createParser(ObjectReadContext.empty(), input);
        try {
            archive.read(p);
        } catch (UnexpectedEndOfInputException e) {
            throw new InvalidInputException("archive", "ends in the middle of a row: it is truncated");
        } catch (StreamConstraintsException e) {
            throw new InvalidInputException("line " + ArchiveReader.line(e, p),
                    "holds a value beyond the limits of an archive (a text, a number or a name too long, or nested too deep)");
        } catch (JacksonException e) {
            throw new InvalidInputException("line " + ArchiveReader.line(e, p), "must be valid JSON");
        } finally {
            p.close();
        }
        archive.checkWhole();
        return new ArchiveReport(null, input.bytesRead(), archive.header.version().number(), ArchiveTable.counts(archive.rows));
    }

    /** O4: an import goes into an empty database only, never merged into data already there. */
    static void requireEmpty(Sql sql) throws SQLException {
        // A home that only read its persona holds the neutral version 1 (S3): nothing of anyone's yet.
        PreparedStatement neutral = sql.prepare("SELECT 1 FROM personas WHERE version <> 1 OR content <> ? LIMIT 1");
        neutral.setString(1, Authority.NEUTRAL_PERSONA);
        boolean personas;
        try (ResultSet rs = neutral.executeQuery()) {
            personas = rs.next();
        }
        for (ArchiveTable t : ArchiveTable.values()) {
            if (t == ArchiveTable.PERSONAS ? personas : any(sql, t.table())) {
                throw new RefusedException("the destination is not empty (it holds " + t.table()
                        + "): import goes into an empty home only, so nothing is merged or overwritten");
            }
        }
        if (any(sql, "embeddings")) {
            throw new RefusedException("the destination is not empty (it holds embeddings): import goes into an empty home only");
        }
    }

    private static boolean any(Sql sql, String table) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT 1 FROM " + table + " LIMIT 1").executeQuery()) {
            return rs.next();
        }
    }

    private void read(JsonParser p) throws SQLException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new InvalidInputException("line 1", "must begin with the archive's header, a JSON object");
        }
        header = ArchiveReader.header(p, rows.keySet());
        progress.begin("import", header.counts().values().stream().mapToLong(Long::longValue).sum());
        while (true) {
            JsonToken t = p.nextToken();
            if (header.json() ? t == JsonToken.END_ARRAY : t == null) {
                break;
            }
            int line = p.currentTokenLocation().getLineNr();
            if (t == null) {
                throw new InvalidInputException("archive", "ends in the middle of a row: it is truncated");
            }
            if (t != JsonToken.START_OBJECT) {
                throw new InvalidInputException("line " + line, "must be a row: a JSON object");
            }
            row(p, line);
            progress.advance(1);
        }
        if (header.json() && (p.nextToken() != JsonToken.END_OBJECT || p.nextToken() != null)) {
            throw new InvalidInputException("line " + p.currentLocation().getLineNr(),
                    "must end the archive: nothing may follow its rows");
        }
    }

    // ---------------------------------------------------------------- one row

    private void row(JsonParser p, int line) throws SQLException {
        Map<String, Object> fields = ArchiveReader.fields(p, line);
        Object name = fields.remove("table");
        ArchiveTable table = name instanceof String s ? ArchiveTable.named(s) : null;
        if (table == null) {
            throw new InvalidInputException("line " + line + ": table", "must name an archived table");
        }
        if (table.ordinal() < lastTable) {
            throw new InvalidInputException("line " + line + ": table",
                    "must not go back to an earlier table: rows come table by table, in archive order");
        }
        lastTable = table.ordinal();
        fields = header.version().upgrade(table, fields);
        List<ArchiveTable.Column> columns = table.columns();
        Object[] values = new Object[columns.size()];
        Map<String, Object> named = new HashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            ArchiveTable.Column c = columns.get(i);
            String field = "line " + line + ": " + table.table() + "." + c.name();
            if (!fields.containsKey(c.name())) {
                throw new InvalidInputException(field, "is required (null where there is no value)");
            }
            values[i] = ArchiveReader.value(c, fields.remove(c.name()), field);
            named.put(c.name(), values[i]);
        }
        if (!fields.isEmpty()) {
            throw new InvalidInputException("line " + line + ": " + table.table(), "holds a field that is not one of its columns");
        }
        Row row = new Row(table, line, named);
        inScope(row);
        references(row);
        insert(row, values);
        rows.merge(table.table(), 1L, Long::sum);
    }

    /** A checked row: its table, line and values by column. */
    private record Row(ArchiveTable table, int line, Map<String, Object> values) {
        String string(String column) {
            return (String) values.get(column);
        }

        long number(String column) {
            return (Long) values.get(column);
        }

        String field(String column) {
            return "line " + line + ": " + table.table() + "." + column;
        }
    }

    // ---------------------------------------------------------------- references, checked as each row arrives

    /** A scope export holds its scope's rows only. */
    private void inScope(Row row) {
        Scope scope = header.scope();
        if (scope == null || row.table().scoping() == ArchiveTable.Scoping.EVENT) {
            return;
        }
        if (!scope.personaId().equals(row.string("persona_id"))) {
            throw new InvalidInputException(row.field("persona_id"), "must be the persona of the archive's scope");
        }
        if (row.table().scoping() == ArchiveTable.Scoping.SCOPE && !scope.projectId().equals(row.string("project_id"))) {
            throw new InvalidInputException(row.field("project_id"), "must be the project of the archive's scope");
        }
    }

    private void references(Row row) throws SQLException {
        switch (row.table()) {
            case MEMORIES -> memory(row);
            case RELATIONS -> {
                if (row.string("from_id").equals(row.string("to_id"))) {
                    throw new InvalidInputException(row.field("to_id"), "must differ from from_id: a memory is not related to itself");
                }
                for (String end : List.of("from_id", "to_id")) {
                    PreparedStatement ps = sql.prepare("SELECT persona_id, project_id FROM memories WHERE id = ?");
                    ps.setString(1, row.string(end));
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            throw new InvalidInputException(row.field(end), "must be the ID of a memory earlier in the archive");
                        }
                        if (!sameScope(rs, row)) {
                            throw new InvalidInputException(row.field(end), "must be a memory of the relation's own scope");
                        }
                    }
                }
            }
            case CHECKPOINTS -> {
                draftRules(row, () -> new CheckpointDraft(row.string("session_id"), row.string("goal"), strings(row, "done"),
                        strings(row, "pending"), strings(row, "constraints"), row.string("next_action"),
                        row.number("covered_seq")));
                PreparedStatement ps = sql.prepare("SELECT persona_id, project_id, session_id FROM events WHERE sequence = ?");
                ps.setLong(1, row.number("covered_seq"));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new InvalidInputException(row.field("covered_seq"), "must be the sequence of an event earlier in the archive");
                    }
                    if (!sameScope(rs, row) || !rs.getString("session_id").equals(row.string("session_id"))) {
                        throw new InvalidInputException(row.field("covered_seq"),
                                "must be an event of the checkpoint's own scope and session");
                    }
                }
            }
            case EXTRACTIONS -> {
                for (String id : strings(row, "memory_ids")) {
                    Ids.check(row.field("memory_ids"), id);
                }
                for (String rejection : strings(row, "rejected")) {
                    try {
                        Rejection.decode(rejection);
                    } catch (RuntimeException e) {
                        throw new InvalidInputException(row.field("rejected"), "must hold rejections as \"#index field: rule\"");
                    }
                }
                PreparedStatement ps = sql.prepare("SELECT 1 FROM events WHERE id = ?");
                ps.setString(1, row.string("event_id"));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new InvalidInputException(row.field("event_id"), "must be the ID of an event earlier in the archive");
                    }
                }
            }
            default -> {
            }
        }
    }

    /** A list column's items. */
    @SuppressWarnings("unchecked")
    private static List<String> strings(Row row, String column) {
        return (List<String>) row.values().get(column);
    }

    /** Runs a write path's own checks of a row (a draft's constructor), naming the row's line. */
    private static void draftRules(Row row, Runnable draft) {
        try {
            draft.run();
        } catch (InvalidInputException e) {
            throw new InvalidInputException("line " + row.line() + ": " + row.table().table() + "." + e.field(), e.rule());
        }
    }

    /**
     * The rules of a memory as a derivation has them: its draft's (which kinds and bases may carry a
     * fact key, which basis an emotion needs, limits; M2, E6), an emotion whole or absent, then the
     * source event's (X3): in the memory's scope, derivable, holding the quote, of the basis's role.
     */
    private void memory(Row row) throws SQLException {
        Object label = row.values().get("emotion_label");
        Object valence = row.values().get("valence");
        Object arousal = row.values().get("arousal");
        if ((label == null) != (valence == null) || (label == null) != (arousal == null)) {
            throw new InvalidInputException(row.field("emotion_label"), "must come with valence and arousal, or none of them");
        }
        draftRules(row, () -> MemoryDraft.builder(row.string("event_id")).kind(Kind.parse("kind", row.string("kind")))
                .basis(Basis.parse("basis", row.string("basis"))).text(row.string("text")).quote(row.string("quote"))
                .subject(row.string("subject")).factKey(row.string("fact_key")).confidence((Double) row.values().get("confidence"))
                .gist(row.string("gist")).cues(strings(row, "cue_keys"))
                .emotion(label == null ? null : new Emotion((String) label, (Double) valence, (Double) arousal)).build());
        PreparedStatement ps = sql.prepare("SELECT persona_id, project_id, role, category, text FROM events WHERE id = ?");
        ps.setString(1, row.string("event_id"));
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new InvalidInputException(row.field("event_id"), "must be the ID of an event earlier in the archive");
            }
            if (!sameScope(rs, row)) {
                throw new InvalidInputException(row.field("event_id"), "must be an event of the memory's own scope");
            }
            if (!Category.parse("category", rs.getString("category")).derivable()) {
                throw new InvalidInputException(row.field("event_id"),
                        "must be a conversation or correction event: reference and persona events are sources only");
            }
            if (!rs.getString("text").contains(row.string("quote"))) {
                throw new InvalidInputException(row.field("quote"), "must be an exact substring of its event's text");
            }
            Basis basis = Basis.parse("basis", row.string("basis"));
            if (basis.requiredRole() != null && !basis.requiredRole().code().equals(rs.getString("role"))) {
                throw new InvalidInputException(row.field("basis"),
                        basis.code() + " requires a " + basis.requiredRole().code() + " event");
            }
        }
        String invalidAt = row.string("invalid_at");
        if (invalidAt != null && invalidAt.compareTo(row.string("valid_at")) < 0) {
            throw new InvalidInputException(row.field("invalid_at"), "must not be before valid_at");
        }
        if (row.string("closed_by") != null) {
            closingLines.put(row.string("id"), row.line());
        }
    }

    private static boolean sameScope(ResultSet rs, Row row) throws SQLException {
        return rs.getString("persona_id").equals(row.string("persona_id"))
                && rs.getString("project_id").equals(row.string("project_id"));
    }

    private void insert(Row row, Object[] values) throws SQLException {
        ArchiveTable t = row.table();
        PreparedStatement ps = sql.prepare("INSERT INTO " + t.table() + " (" + ArchiveWriter.columnList(t) + ") VALUES ("
                + String.join(", ", java.util.Collections.nCopies(values.length, "?")) + ")");
        for (int i = 0; i < values.length; i++) {
            Object v = values[i];
            if (v instanceof Boolean b) {
                ps.setInt(i + 1, b ? 1 : 0);
            } else if (v instanceof List<?> items) {
                ps.setString(i + 1, JsonStrings.encode(items.stream().map(String.class::cast).toList()));
            } else {
                ps.setObject(i + 1, v);
            }
        }
        try {
            ps.executeUpdate();
        } catch (SQLiteException e) {
            SQLiteErrorCode code = e.getResultCode();
            if (code == SQLiteErrorCode.SQLITE_CONSTRAINT_PRIMARYKEY || code == SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE) {
                throw new InvalidInputException("line " + row.line() + ": " + t.table(),
                        "must not repeat the ID or key of an earlier row");
            }
            if (code.name().startsWith("SQLITE_CONSTRAINT")) {
                throw new InvalidInputException("line " + row.line() + ": " + t.table(), "breaks a constraint of the table");
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------- the whole archive

    private void checkWhole() throws SQLException {
        for (Map.Entry<String, Long> announced : header.counts().entrySet()) {
            long held = rows.get(announced.getKey());
            if (held != announced.getValue()) {
                throw new InvalidInputException("header.counts." + announced.getKey(), "announces " + announced.getValue()
                        + " rows where the archive holds " + held + ": it is truncated or altered");
            }
        }
        for (String table : ArchiveWriter.SEQUENCES) {
            String key = table.equals("events") ? "sequence" : table.equals("memories") ? "seq" : "id";
            long max = Long.parseLong(Sql.strings(sql.prepare("SELECT coalesce(max(" + key + "), 0) FROM " + table)).getFirst());
            long counter = header.sequences().get(table);
            if (counter < max || counter > ArchiveReader.MAX_KEY) {
                throw new InvalidInputException("header.sequences." + table,
                        "must be at least the largest key of its rows and at most " + ArchiveReader.MAX_KEY);
            }
            PreparedStatement set = sql.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = ?");
            set.setLong(1, counter);
            set.setString(2, table);
            if (set.executeUpdate() == 0 && counter > 0) {
                PreparedStatement add = sql.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)");
                add.setString(1, table);
                add.setLong(2, counter);
                add.executeUpdate();
            }
        }
        if (!Sql.strings(sql.prepare("SELECT persona_id FROM personas GROUP BY persona_id "
                + "HAVING max(version) <> count(*) LIMIT 1")).isEmpty()) {
            throw new InvalidInputException("personas.version", "must run 1, 2, 3... for each persona, without gaps");
        }
        // T4: a closed fact ends where the member that closed it starts, on the same timeline (a
        // closing member since deleted leaves the end as it was, T7).
        List<String> broken = Sql.strings(sql.prepare("SELECT m.id FROM memories m JOIN memories c ON c.id = m.closed_by "
                + "WHERE m.revoked_at IS NULL AND (c.persona_id <> m.persona_id OR c.project_id <> m.project_id "
                + "OR c.subject IS NOT m.subject OR c.fact_key IS NOT m.fact_key OR c.valid_at IS NOT m.invalid_at) LIMIT 1"));
        if (!broken.isEmpty()) {
            throw new InvalidInputException("line " + closingLines.get(broken.getFirst()) + ": memories.closed_by",
                    "must name a memory of the same fact timeline that starts where this one ends");
        }
        // T4: on a fact timeline, in its order, each member ends by the time the next one starts: one current value.
        List<String> overlapping = Sql.strings(sql.prepare("SELECT seq FROM (SELECT seq, invalid_at, lead(valid_at) OVER ("
                + "PARTITION BY persona_id, project_id, subject, fact_key ORDER BY valid_at, evidence_seq, lineage_id, id) "
                + "AS next_start FROM memories WHERE fact_key IS NOT NULL AND revoked_at IS NULL) "
                + "WHERE next_start IS NOT NULL AND (invalid_at IS NULL OR invalid_at > next_start) LIMIT 1"));
        if (!overlapping.isEmpty()) {
            throw new InvalidInputException("memories.invalid_at", "the memory with seq " + overlapping.getFirst()
                    + " must end by the time the next fact of its timeline starts (one current value per subject and key)");
        }
        if (!Sql.strings(sql.prepare("PRAGMA foreign_key_check")).isEmpty()) {
            throw new InvalidInputException("archive", "holds a row that refers to a row it does not hold");
        }
    }
}
