package dev.jiyi.authority.internal;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.authority.Persona;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.index.ChangeLog;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Personas (S2-S5): immutable versions keyed by (persona ID, version), spanning all projects. An
 * edit or a rollback appends a version; nothing is updated in place.
 */
public final class Personas {

    /** The note of the neutral version a persona starts with (S3). */
    public static final String INITIALIZED = "initialized neutral default";

    private final Sql sql;
    private final ChangeLogWriter changeLog;

    public Personas(Sql sql, ChangeLogWriter changeLog) {
        this.sql = sql;
        this.changeLog = changeLog;
    }

    /** The latest version, the neutral default inserted first when there is none (S3). */
    public Persona latestOrNeutral(String personaId) throws SQLException {
        Persona current = latest(personaId);
        return current != null ? current : insert(personaId, 1, Authority.NEUTRAL_PERSONA, INITIALIZED);
    }

    public Persona latest(String personaId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT " + Rows.PERSONA_COLUMNS
                + " FROM personas WHERE persona_id = ? ORDER BY version DESC LIMIT 1");
        ps.setString(1, personaId);
        return Sql.first(ps, Rows::persona).orElse(null);
    }

    public Optional<Persona> version(String personaId, int version) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT " + Rows.PERSONA_COLUMNS
                + " FROM personas WHERE persona_id = ? AND version = ?");
        ps.setString(1, personaId);
        ps.setInt(2, version);
        return Sql.first(ps, Rows::persona);
    }

    /** All versions, oldest first. */
    public List<Persona> history(String personaId) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT " + Rows.PERSONA_COLUMNS
                + " FROM personas WHERE persona_id = ? ORDER BY version");
        ps.setString(1, personaId);
        return Sql.list(ps, Rows::persona);
    }

    /** Appends version n+1 with new content (S2), the neutral version 1 first for a new persona. */
    public Persona edit(String personaId, String content) throws SQLException {
        Persona current = latest(personaId);
        int next = current == null ? 2 : current.version() + 1;
        if (current == null) {
            insert(personaId, 1, Authority.NEUTRAL_PERSONA, INITIALIZED);
        }
        return insert(personaId, next, content, "edited");
    }

    /** Appends a version whose content equals version {@code k} (S4). */
    public Persona rollback(String personaId, int k) throws SQLException {
        Persona target = version(personaId, k)
                .orElseThrow(() -> new NotFoundException("persona version", personaId + "@" + k));
        Persona current = java.util.Objects.requireNonNull(latest(personaId));
        return insert(personaId, current.version() + 1, target.content(), "rollback to version " + k);
    }

    private Persona insert(String personaId, int version, String content, String note) throws SQLException {
        Instant now = Times.now();
        PreparedStatement ps = sql.prepare(
                "INSERT INTO personas (persona_id, version, content, note, created_at) VALUES (?, ?, ?, ?, ?)");
        ps.setString(1, personaId);
        ps.setInt(2, version);
        ps.setString(3, content);
        ps.setString(4, note);
        ps.setString(5, Times.format(now));
        ps.executeUpdate();
        changeLog.append(ChangeLog.Entity.PERSONA, personaId + "@" + version, null, ChangeLog.Op.INSERT, personaId, null, now);
        return new Persona(personaId, version, content, note, now);
    }
}
