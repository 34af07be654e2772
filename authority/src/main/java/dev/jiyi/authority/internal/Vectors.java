package dev.jiyi.authority.internal;

import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.Eligibility;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The vector cache (V1-V4, R5): one vector per memory, keyed by its row number, with the model's
 * fingerprint and a digest of the text it was computed from. Storing rechecks every memory (V3);
 * coverage and scans read only the covering indexes and the vectors asked for. Vectors stored and
 * removed are logged, so that an index outside SQLite can follow them.
 */
public final class Vectors {

    private final Sql sql;
    private final ChangeLogWriter changeLog;

    public Vectors(Sql sql, ChangeLogWriter changeLog) {
        this.sql = sql;
        this.changeLog = changeLog;
    }

    /** Memories of a scope (not revoked) without a vector of this fingerprint, in row order after a row. */
    public List<VectorCache.Task> missing(Scope scope, String fingerprint, long afterRow, int limit) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT m.seq, m.id, m.text FROM memories m "
                + "LEFT JOIN embeddings e INDEXED BY embeddings_fingerprint ON e.fingerprint = ? AND e.memory_seq = m.seq "
                + "WHERE m.persona_id = ? AND m.project_id = ? AND m.revoked_at IS NULL AND m.seq > ? "
                + "AND e.memory_seq IS NULL ORDER BY m.seq LIMIT ?");
        ps.setString(1, fingerprint);
        ps.setString(2, scope.personaId());
        ps.setString(3, scope.projectId());
        ps.setLong(4, afterRow);
        ps.setInt(5, limit);
        return Sql.list(ps, rs -> {
            String text = rs.getString("text");
            return new VectorCache.Task(rs.getLong("seq"), rs.getString("id"), text, VectorCache.contentHash(text));
        });
    }

    /**
     * V2, V3: stores vectors, replacing a memory's vector of any fingerprint, after rechecking each
     * memory: a vector whose memory is gone, revoked or no longer has the text it was computed from
     * is dropped, never attached.
     */
    public VectorCache.Stored store(String fingerprint, Iterable<VectorCache.NewVector> vectors) throws SQLException {
        int stored = 0;
        int skipped = 0;
        Instant now = Times.now();
        PreparedStatement check = sql.prepare(
                "SELECT seq, text, persona_id, project_id FROM memories WHERE id = ? AND revoked_at IS NULL");
        PreparedStatement upsert = sql.prepare("INSERT INTO embeddings (memory_seq, memory_id, fingerprint, "
                + "dimensions, content_hash, created_at, vector) VALUES (?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (memory_seq) DO UPDATE SET fingerprint = excluded.fingerprint, "
                + "dimensions = excluded.dimensions, vector = excluded.vector, "
                + "content_hash = excluded.content_hash, created_at = excluded.created_at");
        for (VectorCache.NewVector v : vectors) {
            check.setString(1, v.memoryId());
            long seq = 0;
            String text = null;
            Scope scope = null;
            try (ResultSet rs = check.executeQuery()) {
                if (rs.next()) {
                    seq = rs.getLong("seq");
                    text = rs.getString("text");
                    scope = new Scope(rs.getString("persona_id"), rs.getString("project_id"));
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
            changeLog.vector(v.memoryId(), seq, scope, ChangeLog.Op.INSERT, now);
            stored++;
        }
        return new VectorCache.Stored(stored, skipped);
    }

    /** {@link #store(String, Iterable)} for each model's vectors, in the caller's transaction. */
    public VectorCache.Stored store(Map<String, ? extends Iterable<VectorCache.NewVector>> byModel)
            throws SQLException {
        int stored = 0;
        int skipped = 0;
        for (Map.Entry<String, ? extends Iterable<VectorCache.NewVector>> e : byModel.entrySet()) {
            VectorCache.Stored s = store(e.getKey(), e.getValue());
            stored += s.stored();
            skipped += s.skipped();
        }
        return new VectorCache.Stored(stored, skipped);
    }

    /** The stored vectors of these memory rows, whatever their scope or state, in row order. */
    public List<VectorCache.StoredVector> byMemoryRows(java.util.Collection<Long> rows) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT memory_seq, memory_id, fingerprint, vector FROM embeddings "
                + "WHERE memory_seq IN (SELECT value FROM json_each(?)) ORDER BY memory_seq");
        ps.setString(1, Sql.jsonArray(rows));
        return Sql.list(ps, rs -> new VectorCache.StoredVector(rs.getLong("memory_seq"), rs.getString("memory_id"),
                rs.getString("fingerprint"), VectorCache.decode(rs.getBytes("vector"))));
    }

    /** Removes a memory's vector (it is being deleted); returns how many were removed (0 or 1). */
    public int deleteFor(Memory m, Instant now) throws SQLException {
        PreparedStatement ps = sql.prepare("DELETE FROM embeddings WHERE memory_id = ?");
        ps.setString(1, m.id());
        int removed = ps.executeUpdate();
        if (removed > 0) {
            changeLog.vector(m.id(), m.rowId(), m.scope(), ChangeLog.Op.DELETE, now);
        }
        return removed;
    }

    /** V4: how many eligible memories there are and how many have a vector of this fingerprint. */
    public VectorCache.Coverage coverage(Eligibility filter, String fingerprint) throws SQLException {
        // Index-only: the eligibility columns are in memories_scope_seq, and embeddings_fingerprint
        // says which rows have a vector without reading any vector.
        PreparedStatement ps = sql.prepare("SELECT count(*), count(e.memory_seq) FROM memories m "
                + "INDEXED BY memories_scope_seq LEFT JOIN embeddings e INDEXED BY embeddings_fingerprint "
                + "ON e.fingerprint = ? AND e.memory_seq = m.seq WHERE " + Sql.eligible("m", filter));
        ps.setString(1, fingerprint);
        Sql.bindEligible(ps, 2, filter);
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new VectorCache.Coverage(rs.getLong(1), rs.getLong(2));
        }
    }

    /**
     * Hands each live memory's text and its vector's fingerprint to {@code visitor}, in row order:
     * which model embedded what ({@code doctor}).
     */
    public void eachVectorText(java.util.function.BiConsumer<String, String> visitor) throws SQLException {
        try (PreparedStatement ps = sql.connection().prepareStatement("SELECT m.text, e.fingerprint FROM embeddings e "
                + "JOIN memories m ON m.seq = e.memory_seq WHERE m.revoked_at IS NULL ORDER BY e.memory_seq");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                visitor.accept(rs.getString(1), rs.getString(2));
            }
        }
    }

    /** Whether any memory of the home has a vector of this fingerprint (one step down its index). */
    public boolean any(String fingerprint) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT EXISTS (SELECT 1 FROM embeddings INDEXED BY embeddings_fingerprint "
                + "WHERE fingerprint = ?)");
        ps.setString(1, fingerprint);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getInt(1) == 1;
        }
    }

    /**
     * R5: how many vectors of each of these fingerprints the {@code limit} newest eligible memories
     * with a vector of any of them have (a memory has one vector, so the counts add up to at most
     * {@code limit}); fingerprints with none are left out. Index-only, like {@link #coverage}.
     */
    public Map<String, Integer> newest(Eligibility filter, List<String> fingerprints, int limit) throws SQLException {
        if (fingerprints.isEmpty() || limit <= 0) {
            return Map.of();
        }
        Map<String, Integer> out = new LinkedHashMap<>();
        String any = String.join(", ", Collections.nCopies(fingerprints.size(), "?"));
        PreparedStatement ps = sql.prepare("SELECT fingerprint, count(*) FROM (SELECT e.fingerprint FROM memories m "
                + "INDEXED BY memories_scope_seq CROSS JOIN embeddings e INDEXED BY embeddings_fingerprint "
                + "ON e.fingerprint IN (" + any + ") AND e.memory_seq = m.seq WHERE " + Sql.eligible("m", filter)
                + " ORDER BY m.seq DESC LIMIT ?) GROUP BY fingerprint");
        int next = 1;
        for (String fingerprint : fingerprints) {
            ps.setString(next++, fingerprint);
        }
        next = Sql.bindEligible(ps, next, filter);
        ps.setInt(next, limit);
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getInt(2));
            }
        }
        return Map.copyOf(out);
    }

    /**
     * R5: hands the vectors of this fingerprint of the eligible memories to {@code visitor}, newest
     * memory first, at most {@code limit} of them (0 for all); returns how many it visited.
     */
    public long scan(Eligibility filter, String fingerprint, int limit, VectorCache.Visitor visitor) throws SQLException {
        long visited = 0;
        // Newest first along memories_scope_seq (CROSS JOIN keeps memories the outer loop, so a LIMIT
        // stops early), each vector read from its row by the integer key. The visitor runs while the
        // result set is open, so the scan has a statement of its own: a visitor that reads through the
        // shared statements cannot cut it short.
        try (PreparedStatement ps = sql.connection().prepareStatement("SELECT m.seq, e.vector FROM memories m "
                + "INDEXED BY memories_scope_seq CROSS JOIN embeddings e ON e.memory_seq = m.seq AND e.fingerprint = ? "
                + "WHERE " + Sql.eligible("m", filter) + " ORDER BY m.seq DESC LIMIT ?")) {
            ps.setString(1, fingerprint);
            int next = Sql.bindEligible(ps, 2, filter);
            ps.setLong(next, limit > 0 ? limit : -1); // a negative LIMIT is no limit
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    visitor.visit(rs.getLong(1), VectorCache.decode(rs.getBytes(2)));
                    visited++;
                }
            }
        }
        return visited;
    }
}
