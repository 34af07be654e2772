package dev.jiyi.authority.archive;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.ExtractionBatch;
import dev.jiyi.authority.ExtractionState;
import dev.jiyi.authority.Ids;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.RelationType;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Table;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.internal.Codes;

import java.util.List;
import java.util.Set;

/**
 * The authoritative tables an archive holds (O3), in the order it holds them, each with its columns
 * in archive order: the one description that export writes from and import reads and checks
 * against ({@code docs/archive.md} is its prose). A table comes after every table its rows refer to,
 * so that import can check a reference when the row arrives. Not here, on purpose: configuration,
 * {@code embeddings} (vectors, rebuilt with {@code reindex --vectors}), the FTS5 tables and
 * {@code index_state} (rebuilt on import), and {@code change_log} (what derived indexes follow; an
 * imported archive starts it afresh, and its indexes are rebuilt).
 */
enum ArchiveTable {

    PERSONAS(Table.PERSONAS, "persona_id, version", Scoping.PERSONA,
            col("persona_id", Type.ID), count("version", 1), text("content", Limits.MAX_PERSONA_TEXT),
            optionalText("note", Limits.MAX_CHECKPOINT_TEXT), col("created_at", Type.TIME)),
    EVENTS(Table.EVENTS, "sequence", Scoping.SCOPE,
            count("sequence", 1), col("id", Type.ID), col("persona_id", Type.ID), col("project_id", Type.ID),
            codes("role", Role.class), text("source", Limits.MAX_LABEL),
            codes("category", Category.class),
            col("session_id", Type.ID), new Column("text", Type.ORIGINAL, false, 0, Limits.MAX_EVENT_TEXT, 0, Set.of()),
            col("occurred_at", Type.TIME),
            col("ingested_at", Type.TIME), codes("extraction_state", ExtractionState.class),
            optionalText("extraction_error", Limits.MAX_CHECKPOINT_TEXT), col("amended", Type.BOOL)),
    MEMORIES(Table.MEMORIES, "seq", Scoping.SCOPE,
            count("seq", 1), col("id", Type.ID), col("persona_id", Type.ID), col("project_id", Type.ID),
            col("event_id", Type.ID),
            codes("kind", Kind.class),
            codes("basis", Basis.class),
            text("text", Limits.MAX_MEMORY_TEXT), text("quote", Limits.MAX_QUOTE),
            real("confidence", false, 0, 1), optionalText("subject", Limits.MAX_LABEL),
            optionalText("fact_key", Limits.MAX_LABEL), col("valid_at", Type.TIME), optional("invalid_at", Type.TIME),
            optional("revoked_at", Type.TIME), optionalText("emotion_label", Limits.MAX_LABEL),
            real("valence", true, -1, 1), real("arousal", true, 0, 1), col("created_at", Type.TIME),
            optionalText("gist", Limits.MAX_GIST), list("cue_keys", Limits.MAX_CUES, Limits.MAX_LABEL),
            count("evidence_seq", 0), col("lineage_id", Type.ID), optional("closed_by", Type.ID),
            optional("stated_invalid_at", Type.TIME)),
    RELATIONS(Table.RELATIONS, "from_id, to_id, type", Scoping.SCOPE,
            col("persona_id", Type.ID), col("project_id", Type.ID), col("from_id", Type.ID), col("to_id", Type.ID),
            codes("type", RelationType.class), col("created_at", Type.TIME)),
    CHECKPOINTS(Table.CHECKPOINTS, "id", Scoping.SCOPE,
            count("id", 1), col("persona_id", Type.ID), col("project_id", Type.ID), col("session_id", Type.ID),
            text("goal", Limits.MAX_CHECKPOINT_TEXT),
            list("done", Limits.MAX_CHECKPOINT_ITEMS, Limits.MAX_CHECKPOINT_TEXT),
            list("pending", Limits.MAX_CHECKPOINT_ITEMS, Limits.MAX_CHECKPOINT_TEXT),
            list("constraints", Limits.MAX_CHECKPOINT_ITEMS, Limits.MAX_CHECKPOINT_TEXT),
            optionalText("next_action", Limits.MAX_CHECKPOINT_TEXT), count("covered_seq", 1),
            col("created_at", Type.TIME), optional("invalidated_at", Type.TIME)),
    EXTRACTIONS(Table.EXTRACTIONS, "event_id", Scoping.EVENT,
            col("event_id", Type.ID), text("extractor", ExtractionBatch.MAX_FINGERPRINT),
            text("digest", ExtractionBatch.MAX_FINGERPRINT), list("memory_ids", Integer.MAX_VALUE, Ids.MAX_ID_LENGTH),
            list("rejected", Integer.MAX_VALUE, Limits.MAX_CHECKPOINT_TEXT), col("completed_at", Type.TIME)),
    CAPTURE_CURSORS(Table.CAPTURE_CURSORS, "instance_id", Scoping.SCOPE,
            col("instance_id", Type.ID), col("persona_id", Type.ID), col("project_id", Type.ID), col("cursor", Type.ID),
            optional("occurred_at", Type.TIME), list("ids_at", 10_000, Ids.MAX_ID_LENGTH), count("version", 0),
            col("updated_at", Type.TIME));

    /** The value types of archive columns, as they appear in JSON. */
    enum Type {
        /** An identifier ({@link Ids#check}): a JSON string. */
        ID,
        /** Non-blank, well-formed text of at most {@code max} characters: a JSON string. */
        TEXT,
        /** An event's original text, kept exactly as given: not empty (blank is allowed), well-formed, at most {@code max}. */
        ORIGINAL,
        /** One of the listed codes: a JSON string. */
        ENUM,
        /** A time with an offset, stored in UTC ({@link Times}): a JSON string. */
        TIME,
        /** A whole number of at least {@code min}: a JSON integer. */
        INT,
        /** A number within [{@code min}, {@code max}]: a JSON number. */
        REAL,
        /** Stored as 0 or 1: a JSON boolean. */
        BOOL,
        /** A JSON array of at most {@code max} strings of at most {@code itemMax} characters, stored as JSON text. */
        LIST
    }

    /** Which rows of the table belong to one scope, for an export of one scope. */
    enum Scoping {
        /** The persona's rows ({@code persona_id}), shared by its projects. */
        PERSONA,
        /** {@code persona_id} and {@code project_id}. */
        SCOPE,
        /** The rows of the scope's events ({@code event_id}). */
        EVENT
    }

    /**
     * One column: its name, type, whether it may be null, and its bounds (a number's range, a text's
     * or a list's greatest length, a list item's greatest length) or codes.
     */
    record Column(String name, Type type, boolean nullable, double min, double max, int itemMax, Set<String> codes) {
    }

    private final Table kind;
    private final String orderBy;
    private final Scoping scoping;
    private final List<Column> columns;

    ArchiveTable(Table kind, String orderBy, Scoping scoping, Column... columns) {
        this.kind = kind;
        this.orderBy = orderBy;
        this.scoping = scoping;
        this.columns = List.of(columns);
    }

    /** The table's name, in the database and in the archive. */
    String table() {
        return kind.sqlName();
    }

    /** The authoritative table this archived table is. */
    Table kind() {
        return kind;
    }

    /** The columns in archive order. */
    List<Column> columns() {
        return columns;
    }

    /** The ORDER BY that makes an export of the same data the same bytes: the table's key. */
    String orderBy() {
        return orderBy;
    }

    Scoping scoping() {
        return scoping;
    }

    /** The table of this name, or null. */
    static ArchiveTable named(String name) {
        for (ArchiveTable t : values()) {
            if (t.table().equals(name)) {
                return t;
            }
        }
        return null;
    }

    /** Rows per archived table from counts by table name ({@link #table}): a report's counts. */
    static TableCounts counts(java.util.Map<String, Long> byName) {
        java.util.Map<Table, Long> out = new java.util.EnumMap<>(Table.class);
        for (ArchiveTable t : values()) {
            out.put(t.kind(), byName.getOrDefault(t.table(), 0L));
        }
        return new TableCounts(out);
    }

    private static Column col(String name, Type type) {
        return new Column(name, type, false, 0, 0, 0, Set.of());
    }

    private static Column optional(String name, Type type) {
        return new Column(name, type, true, 0, 0, 0, Set.of());
    }

    private static Column text(String name, int max) {
        return new Column(name, Type.TEXT, false, 0, max, 0, Set.of());
    }

    private static Column optionalText(String name, int max) {
        return new Column(name, Type.TEXT, true, 0, max, 0, Set.of());
    }

    private static Column count(String name, long min) {
        return new Column(name, Type.INT, false, min, Long.MAX_VALUE, 0, Set.of());
    }

    private static Column real(String name, boolean nullable, double min, double max) {
        return new Column(name, Type.REAL, nullable, min, max, 0, Set.of());
    }

    private static Column list(String name, int maxItems, int maxItemLength) {
        return new Column(name, Type.LIST, false, 0, maxItems, maxItemLength, Set.of());
    }

    /** A column holding the code of one of {@code type}'s constants (as {@link Codes} writes them). */
    private static <E extends Enum<E>> Column codes(String name, Class<E> type) {
        return new Column(name, Type.ENUM, false, 0, 0, 0, Codes.all(type));
    }
}
