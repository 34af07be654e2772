package dev.jiyi.authority;

import java.util.Locale;

/**
 * The authoritative tables, in the order {@code doctor} reports them. Their names are public:
 * {@code doctor --json}, archives and operators' scripts use them. The derived tables (the FTS5
 * index's, {@code index_state}) are not here: they belong to the indexes.
 */
public enum Table {
    PERSONAS, EVENTS, MEMORIES, RELATIONS, CHECKPOINTS, EMBEDDINGS, EXTRACTIONS, CAPTURE_CURSORS, CHANGE_LOG;

    /** The table's name in the database, in archives and in {@code doctor} output. */
    public String sqlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The table named {@code name}, or null. */
    public static Table named(String name) {
        for (Table t : values()) {
            if (t.sqlName().equals(name)) {
                return t;
            }
        }
        return null;
    }
}
