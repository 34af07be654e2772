package dev.jiyi.authority;

import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.Neighbours;
import dev.jiyi.authority.index.VectorIndex;
import dev.jiyi.authority.index.VectorQuery;
import dev.jiyi.authority.internal.ChangeLogWriter;
import dev.jiyi.authority.internal.Events;
import dev.jiyi.authority.internal.Memories;
import dev.jiyi.authority.internal.Rows;
import dev.jiyi.authority.internal.Vectors;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * One read transaction over the authority ({@link Authority#read}): every read a recall makes, from
 * one consistent snapshot, so that the candidates an index proposes, the rows they point to and
 * their neighbours all come from the same state of the archive. Valid only inside the work it was
 * handed to.
 *
 * <p>Recall reads (R4, R7, F4) read keys and row numbers from indexes and load memory rows only in
 * {@link #recallRows}, so the rows a recall reads are exactly those it asks for. Lists of row
 * numbers are bound as one JSON array, so each read is one statement however many rows it asks for.
 */
public final class Snapshot {

    private final Sql sql;
    private final Vectors vectors;
    private final Events events;
    private final Memories memories;
    private final ChangeLogWriter changeLog;
    private final AtomicLong memoryRowsRead;
    private final TimelineTimes timelineTimes;
    private final KeptCounts keptCounts;
    private boolean open = true;

    Snapshot(Sql sql, Vectors vectors, Events events, Memories memories, ChangeLogWriter changeLog,
             AtomicLong memoryRowsRead, TimelineTimes timelineTimes,
             KeptCounts keptCounts) {
        this.sql = sql;
        this.vectors = vectors;
        this.events = events;
        this.memories = memories;
        this.changeLog = changeLog;
        this.memoryRowsRead = memoryRowsRead;
        this.timelineTimes = timelineTimes;
        this.keptCounts = keptCounts;
    }

    /**
     * The connection of this snapshot, for an index that lives in the authority's database (FTS5,
     * the exact vector scan): its statements run inside this read transaction.
     */
    public Sql sql() {
        requireOpen();
        return sql;
    }

    void close() {
        open = false;
    }

    private void requireOpen() {
        if (!open) {
            throw new IllegalStateException("a snapshot is valid only inside the read that created it");
        }
    }

    /** Lexical memory candidates that {@code filter} admits, from {@code index}, best first. */
    public List<Candidate> memoryCandidates(LexicalIndex index, String query, Eligibility filter, int limit) {
        Limits.limit("limit", limit);
        requireOpen();
        return index.memories(this, query, filter, limit);
    }

    /** R9: those of {@code rows} that match {@code query}, from {@code index} ({@link LexicalIndex#memoriesAmong}). */
    public List<Candidate> memoryCandidatesAmong(LexicalIndex index, String query, Scope scope, Collection<Long> rows,
                                                 int limit) {
        Limits.limit("limit", limit);
        requireOpen();
        return index.memoriesAmong(this, query, scope, rows, limit);
    }

    /** Lexical raw-event candidates of {@code scope} from {@code index}, best first. */
    public List<Candidate> eventCandidates(LexicalIndex index, String query, Scope scope, int limit) {
        Limits.limit("limit", limit);
        requireOpen();
        return index.events(this, query, scope, limit);
    }

    /** R6, R11: the statistics of the query's evidence in {@code index} ({@link LexicalIndex#coverage}). */
    public LexicalIndex.Coverage coverage(LexicalIndex index, String query, Eligibility filter) {
        requireOpen();
        return index.coverage(this, query, filter);
    }

    /** The nearest eligible memories by vector, from {@code index}. */
    public Neighbours nearest(VectorIndex index, VectorQuery query) {
        requireOpen();
        return index.nearest(this, query);
    }

    /** Whether any memory of the home, in any scope, has a vector of this fingerprint. */
    public boolean hasVectors(String fingerprint) {
        return read("looking for vectors", () -> vectors.any(fingerprint));
    }

    /** Each live memory's text and its vector's fingerprint, in row order (memories without a vector left out). */
    public void eachVectorText(java.util.function.BiConsumer<String, String> visitor) {
        read("reading vectors' texts", () -> {
            vectors.eachVectorText(visitor);
            return null;
        });
    }

    /**
     * V4: how many memories {@code filter} admits and how many of them have a vector of this
     * fingerprint (kept between reads while they cannot have changed, {@link KeptCounts}).
     */
    public VectorCache.Coverage vectorCoverage(Eligibility filter, String fingerprint) {
        return read("counting vectors", () -> keptCounts.kept(sql, new KeptCounts.CoverageOf(fingerprint), filter,
                () -> vectors.coverage(filter, fingerprint)));
    }

    /**
     * R5: of the {@code limit} newest memories {@code filter} admits that have a vector of any of
     * these fingerprints, how many have each one's (those with none left out): what semantic mode
     * compares of each model, so that it compares {@code limit} vectors in all, however many models
     * the home has.
     */
    public Map<String, Integer> newestVectors(Eligibility filter, List<String> fingerprints, int limit) {
        if (limit < 1) {
            throw new InvalidInputException("limit", "must be positive");
        }
        List<String> models = List.copyOf(fingerprints);
        return read("counting the newest vectors", () -> keptCounts.kept(sql, new KeptCounts.NewestOf(models, limit),
                filter, () -> vectors.newest(filter, models, limit)));
    }

    /**
     * R5: hands the vectors of this fingerprint of the memories {@code filter} admits to
     * {@code visitor}, newest memory first, at most {@code limit} of them (0 for all); returns how
     * many it visited.
     */
    public long scanVectors(Eligibility filter, String fingerprint, int limit, VectorCache.Visitor visitor) {
        if (limit < 0) {
            throw new InvalidInputException("limit", "must not be negative");
        }
        return read("scanning vectors", () -> vectors.scan(filter, fingerprint, limit, visitor));
    }

    /**
     * Source-event keys: the row numbers of the memories derived from each of these events, read
     * from the event-ID index without loading memory rows.
     */
    public Map<Long, List<Long>> derivedMemoryRows(Collection<Long> eventSequences) {
        return read("finding derived memories", () -> {
            Map<Long, List<Long>> out = new LinkedHashMap<>();
            if (eventSequences.isEmpty()) {
                return out;
            }
            PreparedStatement ps = sql.prepare("SELECT e.sequence, m.seq FROM events e JOIN memories m "
                    + "ON m.event_id = e.id WHERE e.sequence IN (SELECT value FROM json_each(?)) ORDER BY e.sequence, m.seq");
            ps.setString(1, Sql.jsonArray(eventSequences));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(rs.getLong(2));
                }
            }
            return out;
        });
    }

    /**
     * The conversation context ({@link TurnContext}) of each of these events of {@code scope} that
     * is a dialogue turn with any: the turns around it, to which recall lends its match.
     */
    public Map<Long, TurnContext> turnContexts(Scope scope, Collection<Long> eventSequences) {
        return read("finding the turns around matching turns", () -> TurnContext.around(sql, scope, eventSequences));
    }

    /**
     * R9: the rows of the scope's timeline facts (a subject and a fact key) that are not revoked and
     * not valid at {@code at}: the earlier facts that later ones closed (T4) or that ended at a stated
     * time, and facts not valid yet. The scope's keyed facts are read through the timeline index and
     * kept while the archive's memories stand still ({@link TimelineTimes}), so a recall pays for
     * listing them only after a write.
     */
    public List<Long> otherTimeFacts(Scope scope, Instant at) {
        return read("finding the facts of other times", () -> timelineTimes.otherTimes(sql, scope, at));
    }

    /**
     * R9: for each of these memory rows that is a member of a fact timeline (subject and fact key),
     * the rows of the other members of its timeline that {@code current} admits (in its scope, not
     * revoked, valid at its time), read through the timeline index.
     */
    public Map<Long, List<Long>> timelineFacts(Collection<Long> memoryRows, Eligibility current) {
        if (current.includeHistory()) {
            throw new IllegalArgumentException("timelineFacts needs a query time");
        }
        return read("finding timeline facts", () -> {
            Map<Long, List<Long>> out = new LinkedHashMap<>();
            if (memoryRows.isEmpty()) {
                return out;
            }
            PreparedStatement ps = sql.prepare("SELECT m.seq, c.seq FROM memories m "
                    + "JOIN memories c INDEXED BY memories_fact_timeline ON c.persona_id = m.persona_id "
                    + "AND c.project_id = m.project_id AND c.subject = m.subject AND c.fact_key = m.fact_key "
                    + "WHERE m.seq IN (SELECT value FROM json_each(?)) AND m.fact_key IS NOT NULL AND c.seq <> m.seq AND "
                    + Sql.eligible("c", current) + " ORDER BY m.seq, c.seq");
            ps.setString(1, Sql.jsonArray(memoryRows));
            Sql.bindEligible(ps, 2, current);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(rs.getLong(2));
                }
            }
            return out;
        });
    }

    /** One-hop {@code related} links of these memories, in both directions, without loading memory rows. */
    public List<RelatedLink> relatedLinks(Collection<Long> memoryRows) {
        return read("finding related memories", () -> {
            List<RelatedLink> out = new ArrayList<>();
            if (memoryRows.isEmpty()) {
                return out;
            }
            PreparedStatement ps = sql.prepare("SELECT a.seq, b.seq FROM relations r "
                    + "JOIN memories a ON a.id = r.from_id JOIN memories b ON b.id = r.to_id "
                    + "WHERE r.type = 'related' AND a.seq IN (SELECT value FROM json_each(?1)) "
                    + "UNION SELECT b.seq, a.seq FROM relations r "
                    + "JOIN memories a ON a.id = r.from_id JOIN memories b ON b.id = r.to_id "
                    + "WHERE r.type = 'related' AND b.seq IN (SELECT value FROM json_each(?1)) ORDER BY 1, 2");
            ps.setString(1, Sql.jsonArray(memoryRows));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new RelatedLink(rs.getLong(1), rs.getLong(2)));
                }
            }
            return out;
        });
    }

    /**
     * Loads these memories of {@code scope} (and their source events' times) for recall: the only
     * place recall reads memory rows, so the count of rows it reads is exactly the count asked for.
     */
    public List<RecallRow> recallRows(Scope scope, Collection<Long> memoryRows) {
        return read("loading recall candidates", () -> {
            List<RecallRow> out = new ArrayList<>();
            if (memoryRows.isEmpty()) {
                return out;
            }
            PreparedStatement ps = sql.prepare("SELECT " + Rows.qualified("m", Rows.MEMORY_COLUMNS) + ", " + OCCURRED_AT + " AS occurred_at "
                    + "FROM memories m JOIN events e ON e.id = m.event_id "
                    + "WHERE m.seq IN (SELECT value FROM json_each(?)) AND m.persona_id = ? AND m.project_id = ? "
                    + "ORDER BY m.seq");
            ps.setString(1, Sql.jsonArray(memoryRows));
            ps.setString(2, scope.personaId());
            ps.setString(3, scope.projectId());
            out.addAll(Sql.list(ps, Snapshot::recallRow));
            memoryRowsRead.addAndGet(out.size());
            return out;
        });
    }

    /** Loads these events of {@code scope} for the raw fallback, with whether each has derived memories. */
    public List<RawEventRow> rawEvents(Scope scope, Collection<Long> eventSequences) {
        return read("loading raw events", () -> {
            List<RawEventRow> out = new ArrayList<>();
            if (eventSequences.isEmpty()) {
                return out;
            }
            PreparedStatement ps = sql.prepare("SELECT " + Rows.qualified("e", Rows.EVENT_COLUMNS)
                    + ", EXISTS (SELECT 1 FROM memories m WHERE m.event_id = e.id) AS derived FROM events e "
                    + "WHERE e.sequence IN (SELECT value FROM json_each(?)) AND +e.persona_id = ? AND +e.project_id = ? "
                    + "ORDER BY e.sequence"); // + : by primary key, never by a scan of the scope (turnContexts)
            ps.setString(1, Sql.jsonArray(eventSequences));
            ps.setString(2, scope.personaId());
            ps.setString(3, scope.projectId());
            out.addAll(Sql.list(ps, rs -> new RawEventRow(Rows.event(rs), rs.getInt("derived") != 0)));
            return out;
        });
    }

    /**
     * The most recent assistant-expressed emotion of the scope at or before {@code asOf} (F4), with
     * its source event's time.
     */
    public Optional<RecallRow> latestEmotion(Scope scope, Instant asOf) {
        return read("reading the latest emotion", () -> {
            PreparedStatement ps = sql.prepare("SELECT " + Rows.qualified("m", Rows.MEMORY_COLUMNS) + ", " + OCCURRED_AT + " AS occurred_at "
                    + "FROM memories m JOIN events e ON e.id = m.event_id WHERE m.persona_id = ? AND m.project_id = ? "
                    + "AND m.emotion_label IS NOT NULL AND m.basis = 'assistant_expression' AND m.revoked_at IS NULL "
                    + "AND " + OCCURRED_AT + " <= ? ORDER BY " + OCCURRED_AT + " DESC, m.seq DESC LIMIT 1");
            ps.setString(1, scope.personaId());
            ps.setString(2, scope.projectId());
            ps.setString(3, Times.format(asOf));
            return Sql.first(ps, Snapshot::recallRow);
        });
    }

    /**
     * The newest memories of these kinds that {@code filter} admits (newest by {@code valid_at},
     * then by row), at most {@code limit}: the pack's recent agreements and growth records (P2).
     * One statement per kind, each walking {@code memories_scope_kind} backwards from the time and
     * stopping after {@code limit} eligible rows, then merged: an archive with many agreements
     * costs no more than one with few.
     */
    public List<RecallRow> recentMemories(Eligibility filter, Set<Kind> kinds, int limit) {
        Limits.limit("limit", limit);
        return read("reading recent memories", () -> {
            PreparedStatement ps = sql.prepare("SELECT " + Rows.qualified("m", Rows.MEMORY_COLUMNS) + ", "
                    + OCCURRED_AT + " AS occurred_at FROM memories m JOIN events e ON e.id = m.event_id WHERE "
                    + Sql.eligible("m", filter) + " AND m.kind = ? ORDER BY m.valid_at DESC, m.seq DESC LIMIT ?");
            List<RecallRow> out = new ArrayList<>();
            for (Kind kind : kinds) {
                int i = Sql.bindEligible(ps, 1, filter);
                ps.setString(i, kind.code());
                ps.setInt(i + 1, limit);
                out.addAll(Sql.list(ps, Snapshot::recallRow));
            }
            out.sort(Comparator.comparing((RecallRow r) -> r.memory().validity().validAt())
                    .thenComparingLong(RecallRow::rowId).reversed());
            List<RecallRow> newest = List.copyOf(out.subList(0, Math.min(limit, out.size())));
            memoryRowsRead.addAndGet(out.size());
            return newest;
        });
    }

    /**
     * The latest events of {@code scope} in these categories, of one session when {@code sessionId}
     * is given, that occurred at or before {@code asOf}: newest first (by occurrence, then sequence),
     * at most {@code limit}. Amended events (a correction replaced what they said, C3) are left out,
     * so their text cannot bring a corrected fact back.
     */
    public List<Event> recentEvents(Scope scope, String sessionId, Set<Category> categories, Instant asOf,
                                    int limit) {
        Limits.limit("limit", limit);
        return read("reading recent events", () -> {
            if (categories.isEmpty()) {
                return List.<Event>of();
            }
            // Without a session, events_scope_occurred is walked backwards from asOf and stops after
            // the limit. With one, the session's rows are read through events_scope_session and
            // sorted: the cost is the session's size, never the scope's (the planner could otherwise
            // walk the whole scope by time looking for an old session's turns).
            PreparedStatement ps = sql.prepare("SELECT " + Rows.EVENT_COLUMNS + " FROM events "
                    + (sessionId == null ? "" : "INDEXED BY events_scope_session ")
                    + "WHERE persona_id = ? AND project_id = ? " + (sessionId == null ? "" : "AND session_id = ? ")
                    + "AND amended = 0 AND category IN (SELECT value FROM json_each(?)) AND occurred_at <= ? "
                    + "ORDER BY occurred_at DESC, sequence DESC LIMIT ?");
            int i = 1;
            ps.setString(i++, scope.personaId());
            ps.setString(i++, scope.projectId());
            if (sessionId != null) {
                ps.setString(i++, sessionId);
            }
            ps.setString(i++, categories.stream().map(c -> '"' + c.code() + '"')
                    .collect(Collectors.joining(",", "[", "]")));
            ps.setString(i++, Times.format(asOf));
            ps.setInt(i, limit);
            return Sql.list(ps, Rows::event);
        });
    }

    /**
     * When a memory's content happened, as {@code occurred_at}: its source event's time, except for
     * a memory that replaced a mistaken one (C1), whose source is the correction event made when the
     * mistake was fixed: it happened when the mistaken one did, which its {@code valid_at} keeps (C2).
     * Otherwise a corrected old episode would look new, and a faded emotion would come back (F1, F2, F4).
     */
    private static final String OCCURRED_AT =
            "CASE WHEN e.category = 'correction' THEN m.valid_at ELSE e.occurred_at END";

    /** A memory row with when it happened ({@link #OCCURRED_AT}). */
    private static RecallRow recallRow(ResultSet rs) throws SQLException {
        Memory m = Rows.memory(rs);
        return new RecallRow(m.rowId(), m, Times.read(rs.getString("occurred_at")));
    }

    // ---------------------------------------------------------------- following the authority

    /** Change-log entries after {@code afterSeq}, oldest first, at most {@code limit}. */
    public List<ChangeLog.Entry> changesAfter(long afterSeq, int limit) {
        Limits.limit("limit", limit);
        return read("reading the change log", () -> changeLog.after(afterSeq, limit));
    }

    /** The newest change-log sequence (0 for none): a follower that has applied it is current. */
    public long changeLogHead() {
        return read("reading the change log", changeLog::head);
    }

    /**
     * The current state of these events, whatever their scope, for an index that follows the change
     * log: an ID that is absent was deleted (a later log entry says so).
     */
    public List<Event> eventsById(Collection<String> ids) {
        return read("reading events", () -> {
            List<Event> out = new ArrayList<>();
            for (String id : ids) {
                events.byId(id).ifPresent(out::add);
            }
            return out;
        });
    }

    /**
     * The current state of these memories, whatever their scope, with their row numbers, for an index
     * that follows the change log: an ID that is absent was deleted.
     */
    public List<Memory> memoriesById(Collection<String> ids) {
        return read("reading memories", () -> {
            List<Memory> out = new ArrayList<>();
            for (String id : ids) {
                memories.byId(id).ifPresent(out::add);
            }
            return out;
        });
    }

    /**
     * Events of every scope after {@code afterSequence}, in sequence order, at most {@code limit}: a
     * derived index rebuilding from the authority pages through them.
     */
    public List<Event> eventsAfter(long afterSequence, int limit) {
        Limits.limit("limit", limit);
        return read("reading events", () -> {
            PreparedStatement ps = sql.prepare("SELECT " + Rows.EVENT_COLUMNS + " FROM events WHERE sequence > ? "
                    + "ORDER BY sequence LIMIT ?");
            ps.setLong(1, afterSequence);
            ps.setInt(2, limit);
            return Sql.list(ps, Rows::event);
        });
    }

    /**
     * Memories of every scope after row {@code afterRow}, in row order, at most {@code limit}: a
     * derived index rebuilding from the authority pages through them.
     */
    public List<Memory> memoriesAfter(long afterRow, int limit) {
        Limits.limit("limit", limit);
        return read("reading memories", () -> {
            PreparedStatement ps = sql.prepare("SELECT " + Rows.MEMORY_COLUMNS + " FROM memories WHERE seq > ? "
                    + "ORDER BY seq LIMIT ?");
            ps.setLong(1, afterRow);
            ps.setInt(2, limit);
            return Sql.list(ps, Rows::memory);
        });
    }

    /**
     * The stored vectors of these memory rows (a change log's vector entries name them), whatever
     * their scope, fingerprint or the memory's state: a row without a vector is absent.
     */
    public List<VectorCache.StoredVector> vectorsByMemoryRow(Collection<Long> memoryRows) {
        return read("reading vectors", () -> memoryRows.isEmpty() ? List.of() : vectors.byMemoryRows(memoryRows));
    }

    @FunctionalInterface
    private interface Read<T> {
        T run() throws SQLException;
    }

    private <T> T read(String operation, Read<T> work) {
        requireOpen();
        try {
            return work.run();
        } catch (SQLException e) {
            throw new StorageException(operation, e);
        }
    }
}
