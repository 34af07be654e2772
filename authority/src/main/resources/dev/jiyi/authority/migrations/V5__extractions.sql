-- Migration 5: completed extractions (X4, X5) and the scans behind semantic recall (R5).

-- One row per event whose extraction completed: which model answered, a digest of the answer, the
-- memories it produced and the items it rejected (index, field and rule; never text). A second
-- completion for the same event finds this row and creates nothing (X5).
CREATE TABLE extractions (
    event_id     TEXT PRIMARY KEY REFERENCES events (id),
    extractor    TEXT NOT NULL,
    digest       TEXT NOT NULL,
    memory_ids   TEXT NOT NULL,
    rejected     TEXT NOT NULL,
    completed_at TEXT NOT NULL
) WITHOUT ROWID;

-- Semantic recall scans a scope's memories newest first and counts the eligible ones; reindex
-- pages through them in order. The index carries what eligibility needs (revocation, validity),
-- so neither touches the memory rows.
CREATE INDEX memories_scope_seq ON memories (persona_id, project_id, seq, revoked_at, valid_at, invalid_at);

-- The vector cache becomes a rowid table keyed by the memory's row number. In migration 1's
-- WITHOUT ROWID table every vector (2 KiB at 512 dimensions) spilled to an overflow page; now it sits
-- on its table page, and a newest-first scan joins on the integer key and reads neighbouring pages.
-- The vector is the last column, so reading the others never passes over it. Vectors are a derived
-- cache: they are copied as they are.
CREATE TABLE embeddings_v5 (
    memory_seq   INTEGER PRIMARY KEY REFERENCES memories (seq),
    memory_id    TEXT    NOT NULL UNIQUE REFERENCES memories (id),
    fingerprint  TEXT    NOT NULL,
    dimensions   INTEGER NOT NULL CHECK (dimensions > 0),
    content_hash TEXT    NOT NULL,
    created_at   TEXT    NOT NULL,
    vector       BLOB    NOT NULL
);
INSERT INTO embeddings_v5 (memory_seq, memory_id, fingerprint, dimensions, content_hash, created_at, vector)
    SELECT m.seq, e.memory_id, e.fingerprint, e.dimensions, e.content_hash, e.created_at, e.vector
    FROM embeddings e JOIN memories m ON m.id = e.memory_id;
DROP TABLE embeddings;
ALTER TABLE embeddings_v5 RENAME TO embeddings;
-- Which memories have a vector of a fingerprint, without reading the vectors (coverage, V4).
CREATE INDEX embeddings_fingerprint ON embeddings (fingerprint, memory_seq);
