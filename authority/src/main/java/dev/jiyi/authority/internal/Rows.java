package dev.jiyi.authority.internal;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Checkpoint;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.ExtractionState;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Persona;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.Validity;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One mapper per table, each reading its columns by name: the only place a row becomes a value.
 * Queries select {@link #EVENT_COLUMNS} or {@link #MEMORY_COLUMNS} (qualified with a table alias
 * where they join, see {@link #qualified}) and may add columns of their own after them.
 */
public final class Rows {

    public static final String EVENT_COLUMNS = "sequence, id, persona_id, project_id, role, source, category, "
            + "session_id, text, occurred_at, ingested_at, extraction_state, extraction_error, amended";
    public static final String MEMORY_COLUMNS = "seq, id, persona_id, project_id, event_id, kind, basis, text, "
            + "quote, confidence, subject, fact_key, valid_at, invalid_at, revoked_at, emotion_label, valence, "
            + "arousal, gist, cue_keys, created_at";
    public static final String PERSONA_COLUMNS = "persona_id, version, content, note, created_at";
    public static final String CHECKPOINT_COLUMNS = "id, persona_id, project_id, session_id, goal, done, pending, "
            + "constraints, next_action, covered_seq, created_at, invalidated_at";

    private Rows() {
    }

    /** The columns with a table alias: {@code qualified("m", "seq, id")} is {@code m.seq, m.id}. */
    public static String qualified(String alias, String columns) {
        return columns.replaceAll("(^|, )", "$1" + alias + ".");
    }

    public static Event event(ResultSet rs) throws SQLException {
        return new Event(rs.getLong("sequence"), rs.getString("id"),
                new Scope(rs.getString("persona_id"), rs.getString("project_id")),
                Role.parse("role", rs.getString("role")), rs.getString("source"),
                Category.parse("category", rs.getString("category")), rs.getString("session_id"),
                rs.getString("text"), Times.read(rs.getString("occurred_at")), Times.read(rs.getString("ingested_at")),
                ExtractionState.parse("extraction_state", rs.getString("extraction_state")),
                rs.getString("extraction_error"), rs.getInt("amended") != 0);
    }

    public static Memory memory(ResultSet rs) throws SQLException {
        String label = rs.getString("emotion_label");
        Emotion emotion = label == null ? null
                : new Emotion(label, rs.getDouble("valence"), rs.getDouble("arousal"));
        return new Memory(rs.getLong("seq"), rs.getString("id"),
                new Scope(rs.getString("persona_id"), rs.getString("project_id")), rs.getString("event_id"),
                Kind.parse("kind", rs.getString("kind")), Basis.parse("basis", rs.getString("basis")),
                rs.getString("text"), rs.getString("quote"), rs.getDouble("confidence"), rs.getString("subject"),
                rs.getString("fact_key"),
                new Validity(Times.read(rs.getString("valid_at")), Times.read(rs.getString("invalid_at"))),
                Times.read(rs.getString("revoked_at")), emotion, rs.getString("gist"),
                JsonStrings.decode(rs.getString("cue_keys")), Times.read(rs.getString("created_at")));
    }

    public static Persona persona(ResultSet rs) throws SQLException {
        return new Persona(rs.getString("persona_id"), rs.getInt("version"), rs.getString("content"),
                rs.getString("note"), Times.read(rs.getString("created_at")));
    }

    public static Checkpoint checkpoint(ResultSet rs) throws SQLException {
        return new Checkpoint(rs.getLong("id"), new Scope(rs.getString("persona_id"), rs.getString("project_id")),
                rs.getString("session_id"), rs.getString("goal"), JsonStrings.decode(rs.getString("done")),
                JsonStrings.decode(rs.getString("pending")), JsonStrings.decode(rs.getString("constraints")),
                rs.getString("next_action"), rs.getLong("covered_seq"), Times.read(rs.getString("created_at")),
                Times.read(rs.getString("invalidated_at")));
    }
}
