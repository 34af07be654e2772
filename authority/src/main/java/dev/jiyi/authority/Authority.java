package dev.jiyi.authority;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The SQLite authority: every write rule of jiyi, each in one immediate transaction that also
 * feeds the attached {@link TransactionalIndex}es and appends to the change log.
 *
 * <p>One instance owns one connection and is used by one thread at a time (methods are
 * synchronized). Several processes may open the same file at once: writers queue on SQLite's lock
 * with a busy timeout.
 */
public final class Authority implements AutoCloseable {

    /** Characters per page of source text in {@link #readMemory}, unless the caller asks otherwise. */
    public static final int DEFAULT_PAGE_SIZE = 4_000;

    /** The persona text a persona starts with when it is first read (S3). */
    public static final String NEUTRAL_PERSONA = "Neutral default persona: no personality, tone or preferences have been set. "
            + "中性默认人设：尚未设置性格、语气或偏好。";

    private static final String EVENT_COLUMNS = "sequence, id, persona_id, project_id, role, source, category, "
            + "session_id, text, occurred_at, ingested_at, extraction_state, extraction_error, amended";
    private static final String MEMORY_COLUMNS = "seq, id, persona_id, project_id, event_id, kind, basis, text, "
            + "quote, confidence, subject, fact_key, valid_at, invalid_at, revoked_at, emotion_label, valence, "
            + "arousal, gist, cue_keys, created_at";

    private static final String NOT_EXTRACTED = "none";
    private static final String PENDING = "pending";
    private static final String SKIPPED = "skipped";

    private final Connection connection;
    private final List<TransactionalIndex> indexes;
    private final ChangeLog changeLog = new ChangeLog();
    private final java.util.concurrent.atomic.AtomicLong memoryRowsRead = new java.util.concurrent.atomic.AtomicLong();

    private Authority(Connection connection, List<TransactionalIndex> indexes) {
        this.connection = connection;
        this.indexes = List.copyOf(indexes);
    }

    /**
     * Opens (creating and migrating as needed) the database file, with these indexes attached. An
     * attached index whose stored version differs from its own is rebuilt first (see
     * {@link TransactionalIndex#version()}).
     */
    public static Authority open(Path file, List<TransactionalIndex> indexes) {
        // A migration that replaces index tables commits together with their refill: no other process
        // ever sees them empty.
        Authority authority = new Authority(Database.open(file, migrated -> {
            Authority inMigration = new Authority(migrated, indexes);
            inMigration.prepareIndexes();
            inMigration.syncIndexes();
        }), indexes);
        try {
            authority.rebuildStaleIndexes();
        } catch (RuntimeException e) {
            authority.close();
            throw e;
        }
        return authority;
    }

    private void rebuildStaleIndexes() {
        for (TransactionalIndex index : indexes) {
            String version = index.version();
            if (version == null || version.equals(read("reading index state", () -> indexVersion(index.name())))) {
                continue;
            }
            index.prepare();
            write("rebuilding the " + index.name() + " index", () -> {
                syncIndexes(); // rechecked under the lock: another process may have rebuilt it meanwhile
                return null;
            });
        }
    }

    /**
     * Rebuilds every attached, versioned index now, whatever its state (the {@code reindex} command),
     * and returns how many events and memories each was fed.
     */
    public synchronized Rebuilt rebuildIndexes() {
        prepareIndexes();
        return write("rebuilding the indexes", () -> {
            Rebuilt fed = new Rebuilt(0, 0);
            for (TransactionalIndex index : indexes) {
                if (index.version() != null) {
                    fed = rebuild(index);
                }
            }
            return fed;
        });
    }

    /** How many events and memories a rebuilt index was fed. */
    public record Rebuilt(long events, long memories) {
    }

    /**
     * Inside a write transaction that adds or removes indexed rows: makes every attached index current
     * before the write touches it, and marks stale every index kept in this file that is not
     * attached here (it would miss this write). An index is deleted from by its rows' tokens, so
     * writing to an index built by another version (a newer jiyi, another JDK's Unicode tables)
     * would leave entries behind; rebuilding first makes the tokens agree again.
     */
    private void syncIndexes() throws SQLException {
        Map<String, String> stored = new java.util.HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT name, version FROM index_state");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                stored.put(rs.getString(1), rs.getString(2));
            }
        }
        for (TransactionalIndex index : indexes) {
            String version = index.version();
            if (version != null && !version.equals(stored.remove(index.name()))) {
                rebuild(index);
            }
        }
        for (String unattached : stored.keySet()) {
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM index_state WHERE name = ?")) {
                delete.setString(1, unattached);
                delete.executeUpdate();
            }
        }
    }

    /**
     * Clears the index and feeds it every event and memory in insertion order, in the open
     * transaction; returns how many of each.
     */
    private Rebuilt rebuild(TransactionalIndex index) throws SQLException {
        long events = 0;
        long memories = 0;
        index.clear(connection);
        try (Statement s = connection.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT " + EVENT_COLUMNS + " FROM events ORDER BY sequence")) {
                while (rs.next()) {
                    index.eventAdded(connection, event(rs));
                    events++;
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT " + MEMORY_COLUMNS + " FROM memories ORDER BY seq")) {
                while (rs.next()) {
                    index.memoryAdded(connection, rs.getLong(1), memory(rs));
                    memories++;
                }
            }
        }
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO index_state (name, version, built_at) "
                + "VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version, "
                + "built_at = excluded.built_at")) {
            ps.setString(1, index.name());
            ps.setString(2, index.version());
            ps.setString(3, Times.format(Times.now()));
            ps.executeUpdate();
        }
        return new Rebuilt(events, memories);
    }

    private String indexVersion(String name) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT version FROM index_state WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Override
    public synchronized void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new StorageException("closing the database", e);
        }
    }

    // ---------------------------------------------------------------- transactions

    @FunctionalInterface
    private interface Work<T> {
        T run() throws SQLException;
    }

    /** Runs {@code work} in one BEGIN IMMEDIATE transaction; any failure rolls everything back. */
    private <T> T write(String operation, Work<T> work) {
        try (Statement s = connection.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            T result;
            try {
                result = work.run();
                s.execute("COMMIT");
            } catch (Throwable e) {
                // Whatever failed, including an Error or the COMMIT itself, leave no open transaction.
                rollback(s, e);
                throw e;
            }
            return result;
        } catch (SQLException e) {
            throw new StorageException(operation, e);
        }
    }

    /** A {@link #write} that adds or removes indexed rows: the indexes are made current first. */
    private <T> T indexedWrite(String operation, Work<T> work) {
        return write(operation, () -> {
            syncIndexes();
            return work.run();
        });
    }

    /** Runs {@code work} in one read transaction: a consistent snapshot across its statements. */
    private <T> T read(String operation, Work<T> work) {
        try (Statement s = connection.createStatement()) {
            s.execute("BEGIN");
            try {
                return work.run();
            } finally {
                s.execute("COMMIT");
            }
        } catch (SQLException e) {
            throw new StorageException(operation, e);
        }
    }

    private void prepareIndexes() {
        for (TransactionalIndex index : indexes) {
            index.prepare();
        }
    }

    /** Rolls back; when no transaction is open any more (a failed COMMIT may end it), that is noted. */
    private static void rollback(Statement s, Throwable primary) {
        try {
            s.execute("ROLLBACK");
        } catch (SQLException e) {
            primary.addSuppressed(e);
        }
    }

    /**
     * Applies {@code items} in one transaction, each under its own savepoint. If one is rejected, its
     * savepoint is rolled back and the transaction commits the items before it: those end committed
     * and nothing of the rejected item or those after it is.
     */
    private <I, T> BatchResult<T> batch(String operation, List<I> items, ItemWork<I, T> work) {
        return indexedWrite(operation, () -> {
            List<T> done = new ArrayList<>();
            try (Statement s = connection.createStatement()) {
                for (int i = 0; i < items.size(); i++) {
                    s.execute("SAVEPOINT batch_item");
                    try {
                        done.add(work.apply(items.get(i)));
                    } catch (JiyiException e) {
                        s.execute("ROLLBACK TO batch_item");
                        s.execute("RELEASE batch_item");
                        return new BatchResult<>(done, i, e);
                    }
                    s.execute("RELEASE batch_item");
                }
            }
            return BatchResult.success(done);
        });
    }

    @FunctionalInterface
    private interface ItemWork<I, T> {
        T apply(I item) throws SQLException;
    }

    // ---------------------------------------------------------------- personas (S2-S5)

    /** The persona's latest version, or the given one; an absent persona starts neutral (S3). */
    public synchronized Persona persona(String personaId, Integer version) {
        Ids.check("persona", personaId);
        if (version != null && version < 1) {
            throw new InvalidInputException("version", "must be at least 1");
        }
        Persona latest = write("reading persona", () -> {
            Persona current = latestPersona(personaId);
            return current != null ? current : insertPersona(personaId, 1, NEUTRAL_PERSONA, "initialized neutral default");
        });
        if (version == null || version == latest.version()) {
            return latest;
        }
        return read("reading persona", () -> personaVersion(personaId, version))
                .orElseThrow(() -> new NotFoundException("persona version", personaId + "@" + version));
    }

    /** All versions, oldest first. */
    public synchronized List<Persona> personaHistory(String personaId) {
        persona(personaId, null);
        return read("reading persona history", () -> {
            List<Persona> out = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT persona_id, version, content, note, created_at FROM personas WHERE persona_id = ? ORDER BY version")) {
                ps.setString(1, personaId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(persona(rs));
                    }
                }
            }
            return out;
        });
    }

    /** Appends version n+1 with new content (S2); nothing is updated in place. */
    public synchronized Persona editPersona(String personaId, String content) {
        Ids.check("persona", personaId);
        Limits.requireText("text", content, Limits.MAX_PERSONA_TEXT);
        return write("editing persona", () -> {
            Persona current = latestPersona(personaId);
            int next = current == null ? 2 : current.version() + 1;
            if (current == null) {
                insertPersona(personaId, 1, NEUTRAL_PERSONA, "initialized neutral default");
            }
            return insertPersona(personaId, next, content, "edited");
        });
    }

    /** Appends a version whose content equals version {@code k} (S4); history is never erased. */
    public synchronized Persona rollbackPersona(String personaId, int k) {
        Ids.check("persona", personaId);
        if (k < 1) {
            throw new InvalidInputException("to", "must be a version number of at least 1");
        }
        return write("rolling back persona", () -> {
            Persona target = personaVersion(personaId, k)
                    .orElseThrow(() -> new NotFoundException("persona version", personaId + "@" + k));
            Persona current = Objects.requireNonNull(latestPersona(personaId));
            return insertPersona(personaId, current.version() + 1, target.content(), "rollback to version " + k);
        });
    }

    private Persona latestPersona(String personaId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT persona_id, version, content, note, created_at FROM personas WHERE persona_id = ? "
                        + "ORDER BY version DESC LIMIT 1")) {
            ps.setString(1, personaId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? persona(rs) : null;
            }
        }
    }

    private Optional<Persona> personaVersion(String personaId, int version) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT persona_id, version, content, note, created_at FROM personas WHERE persona_id = ? AND version = ?")) {
            ps.setString(1, personaId);
            ps.setInt(2, version);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(persona(rs)) : Optional.empty();
            }
        }
    }

    private Persona insertPersona(String personaId, int version, String content, String note) throws SQLException {
        Instant now = Times.now();
        try (PreparedStatement ps = connection.prepareStatement(
                "INSERT INTO personas (persona_id, version, content, note, created_at) VALUES (?, ?, ?, ?, ?)")) {
            ps.setString(1, personaId);
            ps.setInt(2, version);
            ps.setString(3, content);
            ps.setString(4, note);
            ps.setString(5, Times.format(now));
            ps.executeUpdate();
        }
        changeLog.append(connection, "persona", personaId + "@" + version, "insert", personaId, null, now);
        return new Persona(personaId, version, content, note, now);
    }

    private static Persona persona(ResultSet rs) throws SQLException {
        return new Persona(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getString(4), Times.read(rs.getString(5)));
    }

    // ---------------------------------------------------------------- events (E1-E4)

    /** Stores one event in its own transaction (E5), or returns the identical stored one (E2). */
    public synchronized SubmitResult submitEvent(EventSubmission submission) {
        prepareIndexes();
        return indexedWrite("submitting an event", () -> submitInTransaction(submission));
    }

    /** Stores many events in one transaction; see {@link BatchResult} for a rejected item. */
    public synchronized BatchResult<SubmitResult> submitEvents(List<EventSubmission> submissions) {
        prepareIndexes();
        return batch("submitting events", submissions, this::submitInTransaction);
    }

    private SubmitResult submitInTransaction(EventSubmission s) throws SQLException {
        Optional<Event> existing = eventById(s.id());
        if (existing.isPresent()) {
            Event e = existing.get();
            boolean same = e.scope().equals(s.scope()) && e.role() == s.role() && e.text().equals(s.text())
                    && e.source().equals(s.source()) && e.category() == s.category()
                    && e.sessionId().equals(s.sessionId())
                    && (s.occurredAt() == null || e.occurredAt().equals(s.occurredAt()));
            if (!same) {
                throw new ConflictException("event " + s.id()
                        + " already exists with a different payload or scope; nothing was changed");
            }
            return new SubmitResult(e, false);
        }
        Instant ingested = Times.now();
        Instant occurred = s.occurredAt() != null ? s.occurredAt() : ingested;
        long sequence;
        try (PreparedStatement ps = connection.prepareStatement(
                "INSERT INTO events (id, persona_id, project_id, role, source, category, session_id, text, "
                        + "occurred_at, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING sequence")) {
            ps.setString(1, s.id());
            ps.setString(2, s.scope().personaId());
            ps.setString(3, s.scope().projectId());
            ps.setString(4, s.role().code());
            ps.setString(5, s.source());
            ps.setString(6, s.category().code());
            ps.setString(7, s.sessionId());
            ps.setString(8, s.text());
            ps.setString(9, Times.format(occurred));
            ps.setString(10, Times.format(ingested));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                sequence = rs.getLong(1);
            }
        }
        Event event = new Event(sequence, s.id(), s.scope(), s.role(), s.source(), s.category(), s.sessionId(),
                s.text(), occurred, ingested, "none", null, false);
        for (TransactionalIndex index : indexes) {
            index.eventAdded(connection, event);
        }
        changeLog.append(connection, "event", event.id(), "insert", s.scope().personaId(), s.scope().projectId(), ingested);
        return new SubmitResult(event, true);
    }

    /**
     * Marks an event's extraction pending with a sanitized reason (X2): the reason is written by
     * jiyi, never a provider's response body, credential or the input text. An event that another
     * process has meanwhile extracted ({@code done}), or that is {@code skipped}, is left alone.
     */
    public synchronized void markExtractionPending(String eventId, String sanitizedReason) {
        Ids.check("event", eventId);
        Limits.requireText("reason", sanitizedReason, Limits.MAX_CHECKPOINT_TEXT);
        write("marking extraction pending", () -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "UPDATE events SET extraction_state = 'pending', extraction_error = ? WHERE id = ? "
                            + "AND extraction_state IN ('none', 'pending')")) {
                ps.setString(1, sanitizedReason);
                ps.setString(2, eventId);
                if (ps.executeUpdate() == 0) {
                    eventById(eventId).orElseThrow(() -> new NotFoundException("event", eventId));
                    return null; // done (another process finished it) or skipped: nothing is pending
                }
            }
            Event e = eventById(eventId).orElseThrow();
            changeLog.append(connection, "event", eventId, "update", e.scope().personaId(), e.scope().projectId(), Times.now());
            return null;
        });
    }

    /** The event with this ID in this scope. */
    public synchronized Optional<Event> event(Scope scope, String eventId) {
        Ids.check("id", eventId);
        return read("reading an event", () -> eventById(eventId).filter(e -> e.scope().equals(scope)));
    }

    private Optional<Event> eventById(String id) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + EVENT_COLUMNS + " FROM events WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(event(rs)) : Optional.empty();
            }
        }
    }

    private static Event event(ResultSet rs) throws SQLException {
        return new Event(rs.getLong(1), rs.getString(2), new Scope(rs.getString(3), rs.getString(4)),
                Role.parse("role", rs.getString(5)), rs.getString(6), Category.parse("category", rs.getString(7)),
                rs.getString(8), rs.getString(9), Times.read(rs.getString(10)), Times.read(rs.getString(11)),
                rs.getString(12), rs.getString(13), rs.getInt(14) != 0);
    }

    /** Events of a scope in sequence order, after {@code afterSequence}, at most {@code limit}. */
    public synchronized List<Event> events(Scope scope, long afterSequence, int limit) {
        Limits.limit("limit", limit);
        return read("listing events", () -> eventPage("", scope, afterSequence, limit));
    }

    /** Events of a scope matching {@code filter} (SQL, may be empty) after a sequence, in order. */
    private List<Event> eventPage(String filter, Scope scope, long afterSequence, int limit) throws SQLException {
        List<Event> out = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + EVENT_COLUMNS + " FROM events WHERE "
                + filter + "persona_id = ? AND project_id = ? AND sequence > ? ORDER BY sequence LIMIT ?")) {
            ps.setString(1, scope.personaId());
            ps.setString(2, scope.projectId());
            ps.setLong(3, afterSequence);
            ps.setInt(4, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(event(rs));
                }
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- memories (M1-M4, X3, E6, T1-T5)

    /** Derives one memory; see {@link #addMemories}. */
    public synchronized Memory addMemory(Scope scope, MemoryDraft draft) {
        prepareIndexes();
        return indexedWrite("adding a memory", () -> addInTransaction(scope, draft));
    }

    /**
     * Derives memories in one transaction, each checked against its source event (X3, E6, M2):
     * the event exists in the same scope and may be derived from, the quote is an exact substring of
     * its text, and its role fits the basis. A fact timeline member closes its neighbours (T4).
     */
    public synchronized BatchResult<Memory> addMemories(List<Derivation> derivations) {
        prepareIndexes();
        BatchResult<Memory> result = batch("adding memories", derivations, d -> addInTransaction(d.scope(), d.draft()));
        if (result.committed().stream().noneMatch(m -> m.factKey() != null)) {
            return result;
        }
        // A later fact of the batch may have closed an earlier one's interval: report what is stored.
        List<Memory> stored = read("reading memories", () -> {
            List<Memory> out = new ArrayList<>();
            for (Memory m : result.committed()) {
                out.add(memoryById(m.id()).orElse(m));
            }
            return out;
        });
        return new BatchResult<>(stored, result.failedAt(), result.error());
    }

    private Memory addInTransaction(Scope scope, MemoryDraft d) throws SQLException {
        return addInTransaction(scope, d, null);
    }

    /**
     * @param place the fact's place among equal starts (T5): null for a new fact (its source event's
     *              sequence, its own ID); a correction passes the mistaken memory's
     */
    private Memory addInTransaction(Scope scope, MemoryDraft d, TimelinePlace place) throws SQLException {
        Event source = eventById(d.eventId())
                .filter(e -> e.scope().equals(scope))
                .orElseThrow(() -> new InvalidInputException("event", "must refer to an existing event in the same scope"));
        if (!source.category().derivable()) {
            throw new InvalidInputException("event",
                    "reference and persona events are sources only and cannot be derived into memories");
        }
        if (!source.text().contains(d.quote())) {
            throw new InvalidInputException("quote", "must be an exact substring of the source event's text");
        }
        Role required = d.basis().requiredRole();
        if (required != null && source.role() != required) {
            throw new InvalidInputException("basis", d.basis().code() + " requires a " + required.code() + " event");
        }
        Instant validAt = d.validAt() != null ? d.validAt() : source.occurredAt();
        if (d.invalidAt() != null && d.invalidAt().isBefore(validAt)) {
            throw new InvalidInputException("invalid_at", "must not be before valid_at");
        }
        Validity validity = new Validity(validAt, d.invalidAt());
        String id = Ids.newMemoryId();
        TimelinePlace at = place != null ? place : new TimelinePlace(source.sequence(), id);
        String closedBy = null;
        if (d.onTimeline()) {
            TimelineMember successor = placeOnTimeline(scope, d.subject(), d.factKey(), validity, at, id);
            if (successor != null && (validity.invalidAt() == null || validity.invalidAt().isAfter(successor.validAt()))) {
                validity = validity.closedAt(successor.validAt());
                closedBy = successor.id();
            }
        }
        Instant now = Times.now();
        Memory memory = new Memory(id, scope, source.id(), d.kind(), d.basis(), d.text(), d.quote(),
                d.confidence(), d.subject(), d.factKey(), validity, null, d.emotion(), d.gist(), d.cueKeys(), now);
        long rowId;
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO memories (id, persona_id, project_id, "
                + "event_id, kind, basis, text, quote, confidence, subject, fact_key, valid_at, invalid_at, emotion_label, "
                + "valence, arousal, gist, cue_keys, created_at, evidence_seq, lineage_id, closed_by, stated_invalid_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq")) {
            ps.setString(1, memory.id());
            ps.setString(2, scope.personaId());
            ps.setString(3, scope.projectId());
            ps.setString(4, memory.eventId());
            ps.setString(5, memory.kind().code());
            ps.setString(6, memory.basis().code());
            ps.setString(7, memory.text());
            ps.setString(8, memory.quote());
            ps.setDouble(9, memory.confidence());
            ps.setString(10, memory.subject());
            ps.setString(11, memory.factKey());
            ps.setString(12, Times.format(validity.validAt()));
            ps.setString(13, Times.format(validity.invalidAt()));
            Emotion emotion = memory.emotion();
            ps.setString(14, emotion == null ? null : emotion.label());
            setNullableDouble(ps, 15, emotion == null ? null : emotion.valence());
            setNullableDouble(ps, 16, emotion == null ? null : emotion.arousal());
            ps.setString(17, memory.gist());
            ps.setString(18, JsonStrings.encode(memory.cueKeys()));
            ps.setString(19, Times.format(now));
            ps.setLong(20, at.evidenceSeq());
            ps.setString(21, at.lineageId());
            ps.setString(22, closedBy);
            ps.setString(23, Times.format(d.invalidAt()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                rowId = rs.getLong(1);
            }
        }
        for (TransactionalIndex index : indexes) {
            index.memoryAdded(connection, rowId, memory);
        }
        changeLog.append(connection, "memory", memory.id(), "insert", scope.personaId(), scope.projectId(), now);
        return memory;
    }

    /**
     * T4/T5: places a new single-valued fact by validity time and returns its successor (the member
     * that closes it), or null. Members are ordered by (valid_at, evidence_seq, lineage_id, ID):
     * evidence_seq is when the fact's evidence entered the archive (its source event's sequence), so
     * the timeline does not depend on the order in which memories are derived; a correction copies
     * evidence_seq and lineage_id from the mistaken memory and so keeps its place. The predecessor is
     * closed at the new start (and records who closed it). Revoked members take no part.
     */
    private TimelineMember placeOnTimeline(Scope scope, String subject, String factKey, Validity validity,
                                           TimelinePlace place, String id) throws SQLException {
        TimelineMember predecessor = null;
        TimelineMember successor = null;
        for (TimelineMember m : timeline(scope, subject, factKey)) {
            if (m.before(validity.validAt(), place, id)) {
                predecessor = m;
            } else {
                successor = m;
                break;
            }
        }
        if (predecessor != null && (predecessor.invalidAt() == null || predecessor.invalidAt().isAfter(validity.validAt()))) {
            setInvalidAt(scope, predecessor.id(), validity.validAt(), id);
        }
        return successor;
    }

    /**
     * A correction revokes a mistaken timeline member: the closings it caused were part of the
     * mistake. Every member it closed ends again where it was stated to end, or where whatever now
     * follows it starts, whichever is first (open if neither). Ends caused by other members are left
     * alone, and deletion never does this (T7).
     */
    private void undoClosingsBy(Memory revoked) throws SQLException {
        List<TimelineMember> members = timeline(revoked.scope(), revoked.subject(), revoked.factKey());
        for (int i = 0; i < members.size(); i++) {
            TimelineMember m = members.get(i);
            if (revoked.id().equals(m.closedBy())) {
                TimelineMember next = i + 1 < members.size() ? members.get(i + 1) : null;
                Instant stated = m.statedInvalidAt();
                if (next != null && (stated == null || next.validAt().isBefore(stated))) {
                    setInvalidAt(revoked.scope(), m.id(), next.validAt(), next.id());
                } else {
                    setInvalidAt(revoked.scope(), m.id(), stated, null); // back to where it was stated to end
                }
            }
        }
    }

    /** Where a fact sits among members with the same start (T5). */
    private record TimelinePlace(long evidenceSeq, String lineageId) {
    }

    /** One non-revoked member of a fact timeline, with its ordering key and who closed it. */
    private record TimelineMember(String id, Instant validAt, Instant invalidAt, TimelinePlace place, String closedBy,
                                  Instant statedInvalidAt) {
        /** True when this member sorts before the key (start, place, id). */
        boolean before(Instant start, TimelinePlace other, String otherId) {
            int order = validAt.compareTo(start);
            if (order == 0) {
                order = Long.compare(place.evidenceSeq(), other.evidenceSeq());
            }
            if (order == 0) {
                order = place.lineageId().compareTo(other.lineageId());
            }
            if (order == 0) {
                order = id.compareTo(otherId);
            }
            return order < 0;
        }
    }

    private List<TimelineMember> timeline(Scope scope, String subject, String factKey) throws SQLException {
        List<TimelineMember> out = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT id, valid_at, invalid_at, evidence_seq, lineage_id, "
                + "closed_by, stated_invalid_at FROM memories WHERE persona_id = ? AND project_id = ? AND subject = ? "
                + "AND fact_key = ? "
                + "AND revoked_at IS NULL ORDER BY valid_at, evidence_seq, lineage_id, id")) {
            ps.setString(1, scope.personaId());
            ps.setString(2, scope.projectId());
            ps.setString(3, subject);
            ps.setString(4, factKey);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new TimelineMember(rs.getString(1), Times.read(rs.getString(2)), Times.read(rs.getString(3)),
                            new TimelinePlace(rs.getLong(4), rs.getString(5)), rs.getString(6), Times.read(rs.getString(7))));
                }
            }
        }
        return out;
    }

    private void setInvalidAt(Scope scope, String memoryId, Instant end, String closedBy) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("UPDATE memories SET invalid_at = ?, closed_by = ? WHERE id = ?")) {
            ps.setString(1, Times.format(end));
            ps.setString(2, closedBy);
            ps.setString(3, memoryId);
            ps.executeUpdate();
        }
        changeLog.append(connection, "memory", memoryId, "update", scope.personaId(), scope.projectId(), Times.now());
    }

    private static void setNullableDouble(PreparedStatement ps, int index, Double value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.REAL);
        } else {
            ps.setDouble(index, value);
        }
    }

    /** The memory with this ID in this scope. */
    public synchronized Optional<Memory> memory(Scope scope, String memoryId) {
        Ids.check("id", memoryId);
        return read("reading a memory", () -> memoryById(memoryId).filter(m -> m.scope().equals(scope)));
    }

    private Optional<Memory> memoryById(String id) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + MEMORY_COLUMNS + " FROM memories WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(memory(rs)) : Optional.empty();
            }
        }
    }

    private static Memory memory(ResultSet rs) throws SQLException {
        String label = rs.getString(16);
        Emotion emotion = label == null ? null : new Emotion(label, rs.getDouble(17), rs.getDouble(18));
        return new Memory(rs.getString(2), new Scope(rs.getString(3), rs.getString(4)), rs.getString(5),
                Kind.parse("kind", rs.getString(6)), Basis.parse("basis", rs.getString(7)), rs.getString(8),
                rs.getString(9), rs.getDouble(10), rs.getString(11), rs.getString(12),
                new Validity(Times.read(rs.getString(13)), Times.read(rs.getString(14))), Times.read(rs.getString(15)),
                emotion, rs.getString(19), JsonStrings.decode(rs.getString(20)), Times.read(rs.getString(21)));
    }

    /**
     * M4: the memory, page {@code page} (1-based) of its source event's text, the memories derived
     * from the same event, and its relations in both directions.
     */
    public synchronized MemoryView readMemory(Scope scope, String memoryId, int page, int pageSize) {
        if (page < 1) {
            throw new InvalidInputException("page", "must be at least 1");
        }
        if (pageSize < 1) {
            throw new InvalidInputException("page_size", "must be at least 1");
        }
        Ids.check("id", memoryId);
        return read("reading a memory", () -> {
            Memory memory = memoryById(memoryId).filter(m -> m.scope().equals(scope))
                    .orElseThrow(() -> new NotFoundException("memory", memoryId));
            Event source = eventById(memory.eventId()).orElseThrow(() -> new NotFoundException("event", memory.eventId()));
            String text = source.text();
            int totalPages = Math.max(1, (text.length() + pageSize - 1) / pageSize);
            if (page > totalPages) {
                throw new InvalidInputException("page", "must be at most the total page count " + totalPages);
            }
            int from = (page - 1) * pageSize;
            int to = Math.min(text.length(), from + pageSize);
            // Never split a surrogate pair across pages.
            if (to < text.length() && Character.isHighSurrogate(text.charAt(to - 1))) {
                to--;
            }
            if (from > 0 && Character.isLowSurrogate(text.charAt(from))) {
                from--;
            }
            MemoryView.SourcePage sourcePage = new MemoryView.SourcePage(page, totalPages, pageSize, text.length(),
                    text.substring(from, to));
            List<Memory> coDerived = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT " + MEMORY_COLUMNS + " FROM memories WHERE event_id = ? AND id <> ? ORDER BY seq")) {
                ps.setString(1, memory.eventId());
                ps.setString(2, memory.id());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        coDerived.add(memory(rs));
                    }
                }
            }
            return new MemoryView(memory, source, sourcePage, coDerived, relationsOf(memory.id()),
                    lineage(memory.id(), "SELECT to_id FROM relations WHERE from_id = ? AND type = 'corrects'"),
                    lineage(memory.id(), "SELECT from_id FROM relations WHERE to_id = ? AND type = 'corrects'"));
        });
    }

    /** The memories reached from {@code start} by repeatedly following {@code step}, nearest first. */
    private List<Memory> lineage(String start, String step) throws SQLException {
        List<Memory> out = new ArrayList<>();
        Set<String> seen = new java.util.LinkedHashSet<>(List.of(start)); // insertion order: breadth first
        java.util.ArrayDeque<String> queue = new java.util.ArrayDeque<>(List.of(start));
        try (PreparedStatement ps = connection.prepareStatement(step)) {
            while (!queue.isEmpty()) {
                ps.setString(1, queue.poll());
                collect(ps, seen, queue);
            }
        }
        seen.remove(start);
        for (String id : seen) {
            memoryById(id).ifPresent(out::add);
        }
        return out;
    }

    // ---------------------------------------------------------------- relations (M3)

    /** Links two memories of the same scope with a {@code related} edge (M3). Idempotent. */
    public synchronized Relation relate(Scope scope, String fromId, String toId) {
        Ids.check("a", fromId);
        Ids.check("b", toId);
        if (fromId.equals(toId)) {
            throw new InvalidInputException("b", "must differ from a: a memory is not related to itself");
        }
        return write("relating memories", () -> {
            Memory a = memoryById(fromId).orElseThrow(() -> new InvalidInputException("a", "must refer to an existing memory"));
            Memory b = memoryById(toId).orElseThrow(() -> new InvalidInputException("b", "must refer to an existing memory"));
            if (!a.scope().equals(scope)) {
                throw new InvalidInputException("a", "must be a memory of the requested scope");
            }
            if (!b.scope().equals(scope)) {
                throw new InvalidInputException("b", "must be a memory of the same scope: cross-scope links are rejected");
            }
            return insertRelation(scope, fromId, toId, RelationType.RELATED, Times.now());
        });
    }

    /** Inserts an edge unless it exists (idempotent) and returns the stored one. */
    private Relation insertRelation(Scope scope, String fromId, String toId, RelationType type, Instant now)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO relations (persona_id, project_id, "
                + "from_id, to_id, type, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
            ps.setString(1, scope.personaId());
            ps.setString(2, scope.projectId());
            ps.setString(3, fromId);
            ps.setString(4, toId);
            ps.setString(5, type.code());
            ps.setString(6, Times.format(now));
            if (ps.executeUpdate() == 1) {
                changeLog.append(connection, "relation", fromId + "->" + toId, "insert", scope.personaId(),
                        scope.projectId(), now);
            }
        }
        return relationsOf(fromId).stream()
                .filter(r -> r.type() == type && r.fromId().equals(fromId) && r.toId().equals(toId))
                .findFirst().orElseThrow();
    }

    private List<Relation> relationsOf(String memoryId) throws SQLException {
        List<Relation> out = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT from_id, to_id, type, created_at FROM relations "
                + "WHERE from_id = ? OR to_id = ? ORDER BY created_at, from_id, to_id, type")) {
            ps.setString(1, memoryId);
            ps.setString(2, memoryId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Relation(rs.getString(1), rs.getString(2), RelationType.parse("type", rs.getString(3)),
                            Times.read(rs.getString(4))));
                }
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- correction (C1-C3) and deletion (D1-D3)

    /**
     * C1, C2: corrects a mistaken memory. In one transaction: a new explicit-correction event holding
     * the corrected text (same role as the mistaken memory's source, so the basis rules still hold;
     * its own session, so it is nobody's adjacent turn), the mistaken memory revoked, the corrected
     * memory derived from the new event with the mistaken memory's kind, basis, confidence, subject,
     * fact key and emotion (its gist and cues described the mistake and are dropped), a
     * {@code corrects} edge from the corrected memory to the mistaken one, the old source event
     * marked amended, and every checkpoint of the scope invalidated (D3).
     *
     * <p>Without {@code validAt} the corrected memory keeps the mistaken one's start (C2). It keeps
     * the mistaken one's end when that is after its start; a fact timeline then places it like any
     * member (T4), and a closed interval is never reopened.
     */
    public synchronized Correction correctMemory(Scope scope, String memoryId, CorrectionDraft draft) {
        Ids.check("id", memoryId);
        Objects.requireNonNull(draft, "draft");
        prepareIndexes();
        return indexedWrite("correcting a memory", () -> {
            Memory mistaken = memoryById(memoryId).filter(m -> m.scope().equals(scope))
                    .orElseThrow(() -> new NotFoundException("memory", memoryId));
            if (mistaken.revoked()) {
                throw new ConflictException("memory " + memoryId
                        + " is already revoked by a correction; correct the memory that replaced it instead");
            }
            Event original = eventById(mistaken.eventId()).orElseThrow();
            Instant now = Times.now();

            String eventId = Ids.newCorrectionEventId();
            SubmitResult submitted = submitInTransaction(new EventSubmission(eventId, scope, original.role(),
                    draft.text(), CORRECTION_SOURCE, Category.CORRECTION, eventId, now));

            Instant validAt = draft.validAt() != null ? draft.validAt() : mistaken.validity().validAt();
            Instant invalidAt = statedInvalidAt(mistaken.id()); // an end caused by a successor is re-derived by placement
            if (invalidAt != null && !invalidAt.isAfter(validAt)) {
                invalidAt = null; // a new start at or after the old end: the old end says nothing about it
            }
            TimelinePlace place = timelinePlace(mistaken.id());
            setRevoked(mistaken, now);
            if (mistaken.onTimeline()) {
                undoClosingsBy(mistaken);
            }
            MemoryDraft corrected = MemoryDraft.builder(eventId)
                    .kind(mistaken.kind()).basis(mistaken.basis())
                    .text(draft.text()).quote(draft.quoteOrText())
                    .confidence(mistaken.confidence())
                    .subject(mistaken.subject()).factKey(mistaken.factKey())
                    .validAt(validAt).invalidAt(invalidAt)
                    .emotion(mistaken.emotion())
                    .build();
            Memory added = addInTransaction(scope, corrected, place);
            Relation relation = insertRelation(scope, added.id(), mistaken.id(), RelationType.CORRECTS, now);

            try (PreparedStatement ps = connection.prepareStatement("UPDATE events SET amended = 1 WHERE id = ?")) {
                ps.setString(1, original.id());
                ps.executeUpdate();
            }
            changeLog.append(connection, "event", original.id(), "update", scope.personaId(), scope.projectId(), now);
            int invalidated = invalidateCheckpoints(scope, now);
            return new Correction(submitted.event(), memoryById(mistaken.id()).orElseThrow(),
                    memoryById(added.id()).orElseThrow(), relation, invalidated);
        });
    }

    /** How long a deletion's closing WAL checkpoint waits for readers on older snapshots. */
    private static final int CHECKPOINT_WAIT_MS = 2_000;

    /** The {@code source} of the explicit-correction events that {@link #correctMemory} creates. */
    public static final String CORRECTION_SOURCE = "jiyi:correct";

    private Instant statedInvalidAt(String memoryId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT stated_invalid_at FROM memories WHERE id = ?")) {
            ps.setString(1, memoryId);
            return Times.read(firstColumn(ps).getFirst());
        }
    }

    private TimelinePlace timelinePlace(String memoryId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT evidence_seq, lineage_id FROM memories WHERE id = ?")) {
            ps.setString(1, memoryId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new TimelinePlace(rs.getLong(1), rs.getString(2));
            }
        }
    }

    private void setRevoked(Memory m, Instant now) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("UPDATE memories SET revoked_at = ? WHERE id = ?")) {
            ps.setString(1, Times.format(now));
            ps.setString(2, m.id());
            ps.executeUpdate();
        }
        changeLog.append(connection, "memory", m.id(), "update", m.scope().personaId(), m.scope().projectId(), now);
    }

    /** D1: permanently deletes this event and everything connected to it; see {@link #deleteMemory}. */
    public synchronized Deletion deleteEvent(Scope scope, String eventId) {
        Ids.check("event", eventId);
        return purge("deleting an event", () -> {
            Event start = eventById(eventId).filter(e -> e.scope().equals(scope))
                    .orElseThrow(() -> new NotFoundException("event", eventId));
            return deleteClosure(scope, Set.of(start.id()), Set.of());
        });
    }

    /**
     * D1-D3: permanently deletes this memory's source event, every memory co-derived from it and the
     * connected correction lineage in both directions, transitively (a lineage member's own source
     * event and its co-derived memories too), with their FTS5 rows, vectors and relation edges, in
     * one transaction. Memories linked to them only by {@code related} survive; the edges go. Intervals
     * the removed facts had closed stay closed (T7). Checkpoints that covered a removed event are
     * removed with it; every other checkpoint of the scope is invalidated. Change-log entries (IDs
     * only, never text) let derived indexes follow.
     */
    public synchronized Deletion deleteMemory(Scope scope, String memoryId) {
        Ids.check("memory", memoryId);
        return purge("deleting a memory", () -> {
            Memory start = memoryById(memoryId).filter(m -> m.scope().equals(scope))
                    .orElseThrow(() -> new NotFoundException("memory", memoryId));
            return deleteClosure(scope, Set.of(), Set.of(start.id()));
        });
    }

    /**
     * Runs a deletion (connections zero what they free: {@code secure_delete}, see {@link Database};
     * the FTS5 tables remove a deleted row's entries from their pages at once), then checkpoints the
     * write-ahead log so that older copies of the changed pages leave it.
     */
    private Deletion purge(String operation, Work<Deletion> work) {
        prepareIndexes();
        Deletion deletion = indexedWrite(operation, work);
        // Committed: from here on nothing may report the deletion as failed. A reader still on an
        // older snapshot makes the checkpoint wait; it waits briefly, not the full busy timeout.
        try (Statement s = connection.createStatement()) {
            s.execute("PRAGMA busy_timeout = " + CHECKPOINT_WAIT_MS);
            try {
                s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            } finally {
                s.execute("PRAGMA busy_timeout = " + Database.BUSY_TIMEOUT_MS);
            }
        } catch (SQLException busy) {
            // Best effort: the old frames are overwritten when the log is next reset.
        }
        return deletion;
    }

    private Deletion deleteClosure(Scope scope, Set<String> startEvents, Set<String> startMemories) throws SQLException {
        // The closure: events pull in their memories; memories pull in their source events and their
        // corrects neighbours in both directions. Related edges are not followed (D2).
        Set<String> events = new java.util.LinkedHashSet<>(startEvents);
        Set<String> memories = new java.util.LinkedHashSet<>(startMemories);
        java.util.ArrayDeque<String> eventQueue = new java.util.ArrayDeque<>(startEvents);
        java.util.ArrayDeque<String> memoryQueue = new java.util.ArrayDeque<>(startMemories);
        try (PreparedStatement derived = connection.prepareStatement("SELECT id FROM memories WHERE event_id = ?");
             PreparedStatement source = connection.prepareStatement("SELECT event_id FROM memories WHERE id = ?");
             PreparedStatement lineage = connection.prepareStatement("SELECT to_id FROM relations WHERE from_id = ? "
                     + "AND type = 'corrects' UNION SELECT from_id FROM relations WHERE to_id = ? AND type = 'corrects'")) {
            while (!eventQueue.isEmpty() || !memoryQueue.isEmpty()) {
                if (!eventQueue.isEmpty()) {
                    derived.setString(1, eventQueue.poll());
                    collect(derived, memories, memoryQueue);
                    continue;
                }
                String memory = memoryQueue.poll();
                source.setString(1, memory);
                collect(source, events, eventQueue);
                lineage.setString(1, memory);
                lineage.setString(2, memory);
                collect(lineage, memories, memoryQueue);
            }
        }
        Instant now = Times.now();
        int relations = 0;
        int vectors = 0;
        List<Memory> removedMemories = new ArrayList<>();
        List<Event> removedEvents = new ArrayList<>();
        try (PreparedStatement edges = connection.prepareStatement(
                "DELETE FROM relations WHERE from_id = ? OR to_id = ? RETURNING from_id || '->' || to_id");
             PreparedStatement vector = connection.prepareStatement("DELETE FROM embeddings WHERE memory_id = ?");
             PreparedStatement row = connection.prepareStatement("DELETE FROM memories WHERE id = ?")) {
            for (String memory : memories) {
                edges.setString(1, memory);
                edges.setString(2, memory);
                for (String edge : firstColumn(edges)) {
                    relations++;
                    changeLog.append(connection, "relation", edge, "delete", scope.personaId(), scope.projectId(), now);
                }
                vector.setString(1, memory);
                vectors += vector.executeUpdate();
                long seq;
                Memory removed;
                try (PreparedStatement ps = connection.prepareStatement(
                        "SELECT " + MEMORY_COLUMNS + " FROM memories WHERE id = ?")) {
                    ps.setString(1, memory);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        seq = rs.getLong(1);
                        removed = memory(rs);
                    }
                }
                for (TransactionalIndex index : indexes) {
                    index.memoryRemoved(connection, seq, removed);
                }
                removedMemories.add(removed);
                row.setString(1, memory);
                row.executeUpdate();
                changeLog.append(connection, "memory", memory, "delete", scope.personaId(), scope.projectId(), now);
            }
        }
        int checkpointsRemoved = 0;
        try (PreparedStatement covering = connection.prepareStatement("DELETE FROM checkpoints WHERE covered_seq = "
                + "(SELECT sequence FROM events WHERE id = ?) RETURNING id");
             PreparedStatement extraction = connection.prepareStatement("DELETE FROM extractions WHERE event_id = ?");
             PreparedStatement row = connection.prepareStatement("DELETE FROM events WHERE id = ?")) {
            for (String event : events) {
                covering.setString(1, event);
                for (String checkpoint : firstColumn(covering)) {
                    checkpointsRemoved++;
                    changeLog.append(connection, "checkpoint", checkpoint, "delete", scope.personaId(),
                            scope.projectId(), now);
                }
                Event removed = eventById(event).orElseThrow();
                extraction.setString(1, event);
                extraction.executeUpdate();
                for (TransactionalIndex index : indexes) {
                    index.eventRemoved(connection, removed);
                }
                removedEvents.add(removed);
                row.setString(1, event);
                row.executeUpdate();
                changeLog.append(connection, "event", event, "delete", scope.personaId(), scope.projectId(), now);
            }
        }
        for (TransactionalIndex index : indexes) {
            index.removalsDone(connection, removedEvents, removedMemories);
        }
        int invalidated = invalidateCheckpoints(scope, now);
        return new Deletion(List.copyOf(events), List.copyOf(memories), relations, vectors, checkpointsRemoved,
                invalidated);
    }

    /**
     * Runs {@code ps} (a query, or a write with RETURNING) and returns its first column as text, every
     * row, fully read before any other statement runs on the connection.
     */
    private static List<String> firstColumn(PreparedStatement ps) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Adds the IDs {@code ps} returns to {@code seen}, and those not seen before to {@code queue}. */
    private static void collect(PreparedStatement ps, Set<String> seen, java.util.Queue<String> queue) throws SQLException {
        for (String id : firstColumn(ps)) {
            if (seen.add(id)) {
                queue.add(id);
            }
        }
    }

    /** D3: invalidates every still-valid checkpoint of the scope; returns how many. */
    private int invalidateCheckpoints(Scope scope, Instant now) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("UPDATE checkpoints SET invalidated_at = ? "
                + "WHERE persona_id = ? AND project_id = ? AND invalidated_at IS NULL RETURNING id")) {
            ps.setString(1, Times.format(now));
            ps.setString(2, scope.personaId());
            ps.setString(3, scope.projectId());
            List<String> ids = firstColumn(ps);
            for (String id : ids) {
                changeLog.append(connection, "checkpoint", id, "update", scope.personaId(), scope.projectId(), now);
            }
            return ids.size();
        }
    }

    // ---------------------------------------------------------------- extraction (E5, X2-X5)

    /**
     * Stores one event as {@link #submitEvent} does and, in the same transaction, queues its
     * extraction (E5): an event not yet extracted becomes {@code pending}, so that a process killed
     * before the model answers leaves work for {@code retry}; reference and persona events become
     * {@code skipped} (E6). An event already {@code done} or {@code skipped} is left as it is.
     */
    public synchronized SubmitResult submitForExtraction(EventSubmission submission) {
        prepareIndexes();
        return indexedWrite("submitting an event", () -> queueExtraction(submitInTransaction(submission)));
    }

    /** {@link #submitEvents} with every event queued for extraction as in {@link #submitForExtraction}. */
    public synchronized BatchResult<SubmitResult> submitEventsForExtraction(List<EventSubmission> submissions) {
        prepareIndexes();
        return batch("submitting events", submissions, s -> queueExtraction(submitInTransaction(s)));
    }

    /** Queues extraction of an event already stored (see {@link #submitForExtraction}). */
    public synchronized Event requestExtraction(Scope scope, String eventId) {
        Ids.check("event", eventId);
        return write("queueing an extraction", () -> {
            Event event = eventById(eventId).filter(e -> e.scope().equals(scope))
                    .orElseThrow(() -> new NotFoundException("event", eventId));
            return queueExtraction(new SubmitResult(event, false)).event();
        });
    }

    private SubmitResult queueExtraction(SubmitResult submitted) throws SQLException {
        Event e = submitted.event();
        if (!e.extraction().equals(NOT_EXTRACTED)) {
            return submitted;
        }
        String skip = skipReason(e);
        setExtractionState(e, skip == null ? PENDING : SKIPPED, skip);
        return new SubmitResult(eventById(e.id()).orElseThrow(), submitted.created());
    }

    /**
     * Why an event must not be extracted, or null. Reference and persona events are sources only
     * (E6). An amended event's text holds a mistake a correction revoked, and an event that already
     * has memories (derived by hand, or the event of a correction) has been interpreted: extracting
     * either again could bring back what was corrected (C3) or duplicate what is there.
     */
    private String skipReason(Event e) throws SQLException {
        if (!e.category().derivable()) {
            return "reference and persona events are archived, not extracted";
        }
        if (e.amended()) {
            return "amended by a correction: its text is not extracted again";
        }
        try (PreparedStatement ps = connection.prepareStatement("SELECT 1 FROM memories WHERE event_id = ? LIMIT 1")) {
            ps.setString(1, e.id());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return "already has memories: it is not extracted again";
                }
            }
        }
        return null;
    }

    private void setExtractionState(Event e, String state, String reason) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "UPDATE events SET extraction_state = ?, extraction_error = ? WHERE id = ?")) {
            ps.setString(1, state);
            ps.setString(2, reason);
            ps.setString(3, e.id());
            ps.executeUpdate();
        }
        changeLog.append(connection, "event", e.id(), "update", e.scope().personaId(), e.scope().projectId(), Times.now());
    }

    /** Events of a scope whose extraction is pending, in sequence order, after {@code afterSequence}. */
    public synchronized List<Event> pendingExtractions(Scope scope, long afterSequence, int limit) {
        Limits.limit("limit", limit);
        return read("listing pending extractions",
                () -> eventPage("extraction_state = 'pending' AND ", scope, afterSequence, limit));
    }

    /**
     * X3-X5: applies one extraction answer to its event in one transaction. Each proposed draft is
     * checked against the event (exact quote, the role its basis requires, derivable category); the
     * accepted ones are saved together with the event's {@code done} state, and the rejected ones
     * are returned with their reasons. If the event was already extracted, nothing is created and
     * the existing memories are returned, marked as a duplicate (X5): a repeated completion, a retry
     * after success and two racing extractions all end with one set of memories. An event that a
     * correction amended, or that got memories by hand, while the model was answering is marked
     * {@code skipped} instead and the answer dropped (see {@link #submitForExtraction}).
     */
    public synchronized Extraction applyExtraction(Scope scope, String eventId, ExtractionBatch batch) {
        Ids.check("event", eventId);
        prepareIndexes();
        return indexedWrite("applying an extraction", () -> {
            Event event = eventById(eventId).filter(e -> e.scope().equals(scope))
                    .orElseThrow(() -> new NotFoundException("event", eventId));
            Optional<Extraction> done = completedExtraction(event);
            if (done.isPresent()) {
                return done.get();
            }
            if (!event.category().derivable()) {
                throw new InvalidInputException("event",
                        "reference and persona events are sources only and cannot be derived into memories");
            }
            String skip = skipReason(event);
            if (skip != null) {
                // Amended or derived by hand while the model was answering: the answer is dropped.
                setExtractionState(event, SKIPPED, skip);
                return new Extraction(eventById(eventId).orElseThrow(), List.of(), List.of(), false);
            }
            List<Rejection> rejected = new ArrayList<>(batch.rejected());
            List<Memory> saved = new ArrayList<>();
            try (Statement s = connection.createStatement()) {
                for (ExtractionBatch.Proposed p : batch.proposed()) {
                    if (!p.draft().eventId().equals(eventId)) {
                        rejected.add(new Rejection(p.index(), "event", "must be the event being extracted"));
                        continue;
                    }
                    s.execute("SAVEPOINT extraction_item");
                    try {
                        saved.add(addInTransaction(scope, p.draft()));
                    } catch (InvalidInputException e) {
                        s.execute("ROLLBACK TO extraction_item");
                        rejected.add(Rejection.of(p.index(), e));
                    }
                    s.execute("RELEASE extraction_item");
                }
            }
            rejected.sort(java.util.Comparator.comparingInt(Rejection::index));
            Instant now = Times.now();
            try (PreparedStatement ps = connection.prepareStatement("INSERT INTO extractions (event_id, extractor, "
                    + "digest, memory_ids, rejected, completed_at) VALUES (?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, eventId);
                ps.setString(2, batch.extractor());
                ps.setString(3, batch.digest());
                ps.setString(4, JsonStrings.encode(saved.stream().map(Memory::id).toList()));
                ps.setString(5, JsonStrings.encode(rejected.stream().map(Rejection::encode).toList()));
                ps.setString(6, Times.format(now));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = connection.prepareStatement(
                    "UPDATE events SET extraction_state = 'done', extraction_error = NULL WHERE id = ?")) {
                ps.setString(1, eventId);
                ps.executeUpdate();
            }
            changeLog.append(connection, "event", eventId, "update", scope.personaId(), scope.projectId(), now);
            // Re-read: a later item of the batch may have closed an earlier one's interval.
            List<Memory> stored = new ArrayList<>();
            for (Memory m : saved) {
                stored.add(memoryById(m.id()).orElseThrow());
            }
            return new Extraction(eventById(eventId).orElseThrow(), stored, rejected, false);
        });
    }

    /** The completed extraction of an event in this scope, if any (X5), marked as a duplicate. */
    public synchronized Optional<Extraction> extraction(Scope scope, String eventId) {
        Ids.check("event", eventId);
        return read("reading an extraction", () -> {
            Event event = eventById(eventId).filter(e -> e.scope().equals(scope))
                    .orElseThrow(() -> new NotFoundException("event", eventId));
            return completedExtraction(event);
        });
    }

    /** The completed extraction of an event, if any, with the memories it saved that still exist. */
    private Optional<Extraction> completedExtraction(Event event) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT memory_ids, rejected FROM extractions WHERE event_id = ?")) {
            ps.setString(1, event.id());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                List<String> ids = JsonStrings.decode(rs.getString(1));
                List<Rejection> rejected = JsonStrings.decode(rs.getString(2)).stream().map(Rejection::decode).toList();
                List<Memory> memories = new ArrayList<>();
                for (String id : ids) {
                    memoryById(id).ifPresent(memories::add);
                }
                return Optional.of(new Extraction(event, memories, rejected, true));
            }
        }
    }

    // ---------------------------------------------------------------- vectors (V1-V4, R5)

    /**
     * Memories of a scope (not revoked) that have no vector of this fingerprint, in row order after
     * {@code afterRow}, at most {@code limit}: what {@code reindex --vectors} embeds.
     */
    public synchronized List<VectorCache.Task> memoriesWithoutVectors(Scope scope, String fingerprint, long afterRow,
                                                                      int limit) {
        Limits.limit("limit", limit);
        return read("listing memories without vectors", () -> {
            List<VectorCache.Task> out = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement("SELECT m.seq, m.id, m.text FROM memories m "
                    + "LEFT JOIN embeddings e INDEXED BY embeddings_fingerprint ON e.fingerprint = ? AND e.memory_seq = m.seq "
                    + "WHERE m.persona_id = ? AND m.project_id = ? AND m.revoked_at IS NULL AND m.seq > ? "
                    + "AND e.memory_seq IS NULL ORDER BY m.seq LIMIT ?")) {
                ps.setString(1, fingerprint);
                ps.setString(2, scope.personaId());
                ps.setString(3, scope.projectId());
                ps.setLong(4, afterRow);
                ps.setInt(5, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String text = rs.getString(3);
                        out.add(new VectorCache.Task(rs.getLong(1), rs.getString(2), text, VectorCache.contentHash(text)));
                    }
                }
            }
            return out;
        });
    }

    /**
     * V2, V3: stores computed vectors in one transaction, replacing a memory's vector of any
     * fingerprint. Each memory is rechecked first: a vector whose memory is gone, revoked or no
     * longer has the text it was computed from is dropped, never attached.
     */
    public synchronized VectorCache.Stored storeVectors(String fingerprint, Iterable<VectorCache.NewVector> vectors) {
        Limits.requireText("fingerprint", fingerprint, ExtractionBatch.MAX_FINGERPRINT);
        return write("storing vectors", () -> {
            int stored = 0;
            int skipped = 0;
            Instant now = Times.now();
            try (PreparedStatement check = connection.prepareStatement(
                    "SELECT seq, text FROM memories WHERE id = ? AND revoked_at IS NULL");
                 PreparedStatement upsert = connection.prepareStatement("INSERT INTO embeddings (memory_seq, memory_id, "
                         + "fingerprint, dimensions, content_hash, created_at, vector) VALUES (?, ?, ?, ?, ?, ?, ?) "
                         + "ON CONFLICT (memory_seq) DO UPDATE SET fingerprint = excluded.fingerprint, "
                         + "dimensions = excluded.dimensions, vector = excluded.vector, "
                         + "content_hash = excluded.content_hash, created_at = excluded.created_at")) {
                for (VectorCache.NewVector v : vectors) {
                    check.setString(1, v.memoryId());
                    long seq = 0;
                    String text = null;
                    try (ResultSet rs = check.executeQuery()) {
                        if (rs.next()) {
                            seq = rs.getLong(1);
                            text = rs.getString(2);
                        }
                    }
                    if (text == null || !VectorCache.contentHash(text).equals(v.contentHash())) {
                        skipped++;
                        continue;
                    }
                    upsert.setLong(1, seq);
                    upsert.setString(2, v.memoryId());
                    upsert.setString(3, fingerprint);
                    upsert.setInt(4, v.vector().length);
                    upsert.setString(5, v.contentHash());
                    upsert.setString(6, Times.format(now));
                    upsert.setBytes(7, VectorCache.encode(v.vector()));
                    upsert.executeUpdate();
                    stored++;
                }
            }
            return new VectorCache.Stored(stored, skipped);
        });
    }

    /** V4: how many eligible memories of the scope have a vector of this fingerprint. */
    public synchronized VectorCache.Coverage vectorCoverage(Scope scope, String fingerprint, Instant at,
                                                            boolean includeHistory) {
        return read("counting vectors", () -> {
            // Index-only: the eligibility columns are in memories_scope_seq, and embeddings_fingerprint
            // says which rows have a vector without reading any vector.
            try (PreparedStatement ps = connection.prepareStatement("SELECT count(*), count(e.memory_seq) FROM memories m "
                    + "INDEXED BY memories_scope_seq LEFT JOIN embeddings e INDEXED BY embeddings_fingerprint "
                    + "ON e.fingerprint = ? AND e.memory_seq = m.seq WHERE "
                    + eligible(includeHistory))) {
                ps.setString(1, fingerprint);
                bindEligible(ps, 2, scope, at, includeHistory);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new VectorCache.Coverage(rs.getLong(1), rs.getLong(2));
                }
            }
        });
    }

    /**
     * R5: hands the vectors of this fingerprint of the scope's eligible memories to {@code visitor},
     * newest memory first, at most {@code limit} of them (0 for all); returns how many it visited.
     * One read transaction: a consistent snapshot.
     */
    public synchronized long scanVectors(Scope scope, String fingerprint, Instant at, boolean includeHistory,
                                         int limit, VectorCache.Visitor visitor) {
        if (limit < 0) {
            throw new InvalidInputException("limit", "must not be negative");
        }
        return read("scanning vectors", () -> {
            long visited = 0;
            // Newest first along memories_scope_seq (CROSS JOIN keeps memories the outer loop, so a
            // LIMIT stops early), each vector read from its row by the integer key.
            try (PreparedStatement ps = connection.prepareStatement("SELECT m.seq, e.vector FROM memories m "
                    + "INDEXED BY memories_scope_seq CROSS JOIN embeddings e ON e.memory_seq = m.seq AND e.fingerprint = ? "
                    + "WHERE " + eligible(includeHistory)
                    + " ORDER BY m.seq DESC" + (limit > 0 ? " LIMIT " + limit : ""))) {
                ps.setString(1, fingerprint);
                bindEligible(ps, 2, scope, at, includeHistory);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        visitor.visit(rs.getLong(1), VectorCache.decode(rs.getBytes(2)));
                        visited++;
                    }
                }
            }
            return visited;
        });
    }

    /** The memories semantic recall may consider (R5, R8, T6); {@code m} is the memories table. */
    private static String eligible(boolean includeHistory) {
        return "m.persona_id = ? AND m.project_id = ? AND m.revoked_at IS NULL"
                + (includeHistory ? "" : " AND m.valid_at <= ? AND (m.invalid_at IS NULL OR m.invalid_at > ?)");
    }

    private static void bindEligible(PreparedStatement ps, int first, Scope scope, Instant at, boolean includeHistory)
            throws SQLException {
        if (at == null && !includeHistory) {
            throw new InvalidInputException("as_of", "is required unless history is included");
        }
        ps.setString(first, scope.personaId());
        ps.setString(first + 1, scope.projectId());
        if (!includeHistory) {
            ps.setString(first + 2, Times.format(at));
            ps.setString(first + 3, Times.format(at));
        }
    }

    // ---------------------------------------------------------------- checkpoints (K1)

    /**
     * Saves a host-reported checkpoint. Its covered sequence must belong to an event of the same
     * scope and session (K1).
     */
    public synchronized Checkpoint saveCheckpoint(Scope scope, CheckpointDraft d) {
        return write("saving a checkpoint", () -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT persona_id, project_id, session_id FROM events WHERE sequence = ?")) {
                ps.setLong(1, d.coveredSequence());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next() || !new Scope(rs.getString(1), rs.getString(2)).equals(scope)
                            || !rs.getString(3).equals(d.sessionId())) {
                        throw new InvalidInputException("covered_seq",
                                "must be the sequence of an event in the same scope and session");
                    }
                }
            }
            Instant now = Times.now();
            long id;
            try (PreparedStatement ps = connection.prepareStatement("INSERT INTO checkpoints (persona_id, project_id, "
                    + "session_id, goal, done, pending, constraints, next_action, covered_seq, created_at) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")) {
                ps.setString(1, scope.personaId());
                ps.setString(2, scope.projectId());
                ps.setString(3, d.sessionId());
                ps.setString(4, d.goal());
                ps.setString(5, JsonStrings.encode(d.done()));
                ps.setString(6, JsonStrings.encode(d.pending()));
                ps.setString(7, JsonStrings.encode(d.constraints()));
                ps.setString(8, d.nextAction());
                ps.setLong(9, d.coveredSequence());
                ps.setString(10, Times.format(now));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    id = rs.getLong(1);
                }
            }
            changeLog.append(connection, "checkpoint", Long.toString(id), "insert", scope.personaId(), scope.projectId(), now);
            return new Checkpoint(id, scope, d.sessionId(), d.goal(), d.done(), d.pending(), d.constraints(),
                    d.nextAction(), d.coveredSequence(), now, null);
        });
    }

    /** The newest valid checkpoint of the scope, of one session when {@code sessionId} is given. */
    public synchronized Optional<Checkpoint> latestCheckpoint(Scope scope, String sessionId) {
        if (sessionId != null) {
            Ids.check("session", sessionId);
        }
        return read("reading a checkpoint", () -> {
            try (PreparedStatement ps = connection.prepareStatement("SELECT id, session_id, goal, done, pending, "
                    + "constraints, next_action, covered_seq, created_at, invalidated_at FROM checkpoints "
                    + "WHERE persona_id = ? AND project_id = ? AND (? IS NULL OR session_id = ?) AND invalidated_at IS NULL "
                    + "ORDER BY id DESC LIMIT 1")) {
                ps.setString(1, scope.personaId());
                ps.setString(2, scope.projectId());
                ps.setString(3, sessionId);
                ps.setString(4, sessionId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(new Checkpoint(rs.getLong(1), scope, rs.getString(2), rs.getString(3),
                            JsonStrings.decode(rs.getString(4)), JsonStrings.decode(rs.getString(5)),
                            JsonStrings.decode(rs.getString(6)), rs.getString(7), rs.getLong(8),
                            Times.read(rs.getString(9)), Times.read(rs.getString(10))));
                }
            }
        });
    }

    // ---------------------------------------------------------------- recall reads (R4, R7)

    /** Memory rows materialized for recall since this authority was opened: what R4 bounds. */
    public long memoryRowsRead() {
        return memoryRowsRead.get();
    }

    /** Lexical memory candidates from {@code index}, inside one read transaction. */
    public synchronized List<Candidate> memoryCandidates(CandidateIndex index, Scope scope, String query, int limit) {
        Limits.limit("limit", limit);
        return read("finding memory candidates", () -> index.memories(connection, scope, query, limit));
    }

    /** Lexical raw-event candidates from {@code index}, inside one read transaction. */
    public synchronized List<Candidate> eventCandidates(CandidateIndex index, Scope scope, String query, int limit) {
        Limits.limit("limit", limit);
        return read("finding event candidates", () -> index.events(connection, scope, query, limit));
    }

    /**
     * Source-event keys: the row numbers of the memories derived from each of these events, read
     * from the event-ID index without loading memory rows.
     */
    public synchronized Map<Long, List<Long>> derivedMemoryRows(Collection<Long> eventSequences) {
        return read("finding derived memories", () -> {
            Map<Long, List<Long>> out = new LinkedHashMap<>();
            if (eventSequences.isEmpty()) {
                return out;
            }
            try (PreparedStatement ps = connection.prepareStatement("SELECT e.sequence, m.seq FROM events e "
                    + "JOIN memories m ON m.event_id = e.id WHERE e.sequence IN (" + placeholders(eventSequences.size())
                    + ") ORDER BY e.sequence, m.seq")) {
                bind(ps, eventSequences);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(rs.getLong(2));
                    }
                }
            }
            return out;
        });
    }

    /**
     * Conversation context: for each of these events, the events just before and after it in the
     * same scope and session (by sequence), read from the session index.
     */
    public synchronized Map<Long, List<Long>> adjacentEvents(Collection<Long> eventSequences) {
        return read("finding adjacent events", () -> {
            Map<Long, List<Long>> out = new LinkedHashMap<>();
            try (PreparedStatement before = connection.prepareStatement("SELECT n.sequence FROM events e JOIN events n "
                    + "ON n.persona_id = e.persona_id AND n.project_id = e.project_id AND n.session_id = e.session_id "
                    + "AND n.sequence < e.sequence WHERE e.sequence = ? ORDER BY n.sequence DESC LIMIT 1");
                 PreparedStatement after = connection.prepareStatement("SELECT n.sequence FROM events e JOIN events n "
                    + "ON n.persona_id = e.persona_id AND n.project_id = e.project_id AND n.session_id = e.session_id "
                    + "AND n.sequence > e.sequence WHERE e.sequence = ? ORDER BY n.sequence LIMIT 1")) {
                for (Long seq : eventSequences) {
                    List<Long> neighbours = new ArrayList<>(2);
                    for (PreparedStatement ps : List.of(before, after)) {
                        ps.setLong(1, seq);
                        try (ResultSet rs = ps.executeQuery()) {
                            if (rs.next()) {
                                neighbours.add(rs.getLong(1));
                            }
                        }
                    }
                    out.put(seq, neighbours);
                }
            }
            return out;
        });
    }

    /** One-hop {@code related} links of these memories, in both directions, without loading memory rows. */
    public synchronized List<RelatedLink> relatedLinks(Collection<Long> memoryRows) {
        return read("finding related memories", () -> {
            List<RelatedLink> out = new ArrayList<>();
            if (memoryRows.isEmpty()) {
                return out;
            }
            String in = placeholders(memoryRows.size());
            try (PreparedStatement ps = connection.prepareStatement("SELECT a.seq, b.seq FROM relations r "
                    + "JOIN memories a ON a.id = r.from_id JOIN memories b ON b.id = r.to_id "
                    + "WHERE r.type = 'related' AND a.seq IN (" + in + ") "
                    + "UNION SELECT b.seq, a.seq FROM relations r "
                    + "JOIN memories a ON a.id = r.from_id JOIN memories b ON b.id = r.to_id "
                    + "WHERE r.type = 'related' AND b.seq IN (" + in + ") ORDER BY 1, 2")) {
                bind(ps, memoryRows);
                int i = memoryRows.size() + 1;
                for (Long row : memoryRows) {
                    ps.setLong(i++, row);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new RelatedLink(rs.getLong(1), rs.getLong(2)));
                    }
                }
            }
            return out;
        });
    }

    /**
     * Loads these memories of {@code scope} (and their source events' times) for recall: the only
     * place recall reads memory rows, so the count of rows it reads is exactly the count asked for.
     */
    public synchronized List<RecallRow> recallRows(Scope scope, Collection<Long> memoryRows) {
        return read("loading recall candidates", () -> {
            List<RecallRow> out = new ArrayList<>();
            if (memoryRows.isEmpty()) {
                return out;
            }
            String columns = MEMORY_COLUMNS.replaceAll("(^|, )", "$1m.");
            try (PreparedStatement ps = connection.prepareStatement("SELECT " + columns + ", e.occurred_at "
                    + "FROM memories m JOIN events e ON e.id = m.event_id WHERE m.seq IN ("
                    + placeholders(memoryRows.size()) + ") AND m.persona_id = ? AND m.project_id = ? ORDER BY m.seq")) {
                bind(ps, memoryRows);
                ps.setString(memoryRows.size() + 1, scope.personaId());
                ps.setString(memoryRows.size() + 2, scope.projectId());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new RecallRow(rs.getLong(1), memory(rs), Times.read(rs.getString(22))));
                    }
                }
            }
            memoryRowsRead.addAndGet(out.size());
            return out;
        });
    }

    /** Loads these events of {@code scope} for the raw fallback, with whether each has derived memories. */
    public synchronized List<RawEventRow> rawEvents(Scope scope, Collection<Long> eventSequences) {
        return read("loading raw events", () -> {
            List<RawEventRow> out = new ArrayList<>();
            if (eventSequences.isEmpty()) {
                return out;
            }
            String columns = EVENT_COLUMNS.replaceAll("(^|, )", "$1e.");
            try (PreparedStatement ps = connection.prepareStatement("SELECT " + columns + ", EXISTS (SELECT 1 FROM "
                    + "memories m WHERE m.event_id = e.id) FROM events e WHERE e.sequence IN ("
                    + placeholders(eventSequences.size()) + ") AND e.persona_id = ? AND e.project_id = ? ORDER BY e.sequence")) {
                bind(ps, eventSequences);
                ps.setString(eventSequences.size() + 1, scope.personaId());
                ps.setString(eventSequences.size() + 2, scope.projectId());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new RawEventRow(event(rs), rs.getInt(15) != 0));
                    }
                }
            }
            return out;
        });
    }

    /**
     * The most recent assistant-expressed emotion of the scope at or before {@code asOf} (F4),
     * with its source event's time.
     */
    public synchronized Optional<RecallRow> latestEmotion(Scope scope, Instant asOf) {
        return read("reading the latest emotion", () -> {
            String columns = MEMORY_COLUMNS.replaceAll("(^|, )", "$1m.");
            try (PreparedStatement ps = connection.prepareStatement("SELECT " + columns + ", e.occurred_at "
                    + "FROM memories m JOIN events e ON e.id = m.event_id WHERE m.persona_id = ? AND m.project_id = ? "
                    + "AND m.emotion_label IS NOT NULL AND m.basis = 'assistant_expression' AND m.revoked_at IS NULL "
                    + "AND e.occurred_at <= ? ORDER BY e.occurred_at DESC, m.seq DESC LIMIT 1")) {
                ps.setString(1, scope.personaId());
                ps.setString(2, scope.projectId());
                ps.setString(3, Times.format(asOf));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? Optional.of(new RecallRow(rs.getLong(1), memory(rs), Times.read(rs.getString(22))))
                            : Optional.empty();
                }
            }
        });
    }

    private static String placeholders(int n) {
        return String.join(", ", java.util.Collections.nCopies(n, "?"));
    }

    private static void bind(PreparedStatement ps, Collection<Long> values) throws SQLException {
        int i = 1;
        for (Long v : values) {
            ps.setLong(i++, v);
        }
    }

    // ---------------------------------------------------------------- operations (O6)

    /** Integrity, foreign keys, table counts and pending extractions (O6). */
    public synchronized DoctorReport doctor() {
        return read("checking the database", () -> Doctor.check(connection));
    }

    /** Change-log entries after {@code afterSeq}, oldest first: what a derived index follows. */
    public synchronized List<ChangeLog.Entry> changesAfter(long afterSeq, int limit) {
        Limits.limit("limit", limit);
        return read("reading the change log", () -> changeLog.after(connection, afterSeq, limit));
    }
}
