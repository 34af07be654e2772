-- Migration 1: the authoritative tables, the change log and the FTS5 tables.
-- Times are ISO-8601 UTC text with microsecond precision (sortable as text).

CREATE TABLE personas (
    persona_id TEXT    NOT NULL,
    version    INTEGER NOT NULL CHECK (version >= 1),
    content    TEXT    NOT NULL,
    note       TEXT,
    created_at TEXT    NOT NULL,
    PRIMARY KEY (persona_id, version)
) WITHOUT ROWID;

CREATE TABLE events (
    sequence         INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT    NOT NULL UNIQUE,
    persona_id       TEXT    NOT NULL,
    project_id       TEXT    NOT NULL,
    role             TEXT    NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    source           TEXT    NOT NULL,
    category         TEXT    NOT NULL CHECK (category IN ('conversation', 'reference', 'persona', 'correction')),
    session_id       TEXT    NOT NULL,
    text             TEXT    NOT NULL,
    occurred_at      TEXT    NOT NULL,
    ingested_at      TEXT    NOT NULL,
    extraction_state TEXT    NOT NULL DEFAULT 'none'
                     CHECK (extraction_state IN ('none', 'pending', 'done', 'skipped')),
    extraction_error TEXT,
    amended          INTEGER NOT NULL DEFAULT 0 CHECK (amended IN (0, 1))
);

CREATE TABLE memories (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT    NOT NULL UNIQUE,
    persona_id    TEXT    NOT NULL,
    project_id    TEXT    NOT NULL,
    event_id      TEXT    NOT NULL REFERENCES events (id),
    kind          TEXT    NOT NULL CHECK (kind IN ('fact', 'preference', 'episode', 'observation',
                                                   'emotion', 'agreement', 'growth')),
    basis         TEXT    NOT NULL CHECK (basis IN ('user_statement', 'assistant_expression', 'inference')),
    text          TEXT    NOT NULL,
    quote         TEXT    NOT NULL,
    confidence    REAL    NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    subject       TEXT,
    fact_key      TEXT,
    valid_at      TEXT    NOT NULL,
    invalid_at    TEXT,
    revoked_at    TEXT,
    emotion_label TEXT,
    valence       REAL CHECK (valence IS NULL OR (valence >= -1 AND valence <= 1)),
    arousal       REAL CHECK (arousal IS NULL OR (arousal >= 0 AND arousal <= 1)),
    created_at    TEXT    NOT NULL
);

CREATE TABLE relations (
    persona_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    from_id    TEXT NOT NULL REFERENCES memories (id),
    to_id      TEXT NOT NULL REFERENCES memories (id),
    type       TEXT NOT NULL CHECK (type IN ('related', 'corrects')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (from_id, to_id, type),
    CHECK (from_id <> to_id)
) WITHOUT ROWID;

CREATE TABLE checkpoints (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    persona_id     TEXT    NOT NULL,
    project_id     TEXT    NOT NULL,
    session_id     TEXT    NOT NULL,
    goal           TEXT    NOT NULL,
    done           TEXT    NOT NULL,
    pending        TEXT    NOT NULL,
    constraints    TEXT    NOT NULL,
    next_action    TEXT,
    covered_seq    INTEGER NOT NULL REFERENCES events (sequence),
    created_at     TEXT    NOT NULL,
    invalidated_at TEXT
);

CREATE TABLE embeddings (
    memory_id    TEXT    PRIMARY KEY REFERENCES memories (id),
    fingerprint  TEXT    NOT NULL,
    dimensions   INTEGER NOT NULL CHECK (dimensions > 0),
    vector       BLOB    NOT NULL,
    content_hash TEXT    NOT NULL,
    created_at   TEXT    NOT NULL
) WITHOUT ROWID;

CREATE TABLE change_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    entity     TEXT    NOT NULL CHECK (entity IN ('persona', 'event', 'memory', 'relation', 'checkpoint')),
    entity_id  TEXT    NOT NULL,
    op         TEXT    NOT NULL CHECK (op IN ('insert', 'update', 'delete')),
    persona_id TEXT    NOT NULL,
    project_id TEXT,
    at         TEXT    NOT NULL
);

-- The FTS5 tables hold the analysis module's tokens (jieba index mode + CJK unigrams), space
-- separated; unicode61 only splits them again on the spaces. They are contentless: the rowid is
-- memories.seq / events.sequence, and the authority's text stays in the tables above.
CREATE VIRTUAL TABLE memories_fts USING fts5(
    tokens, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE events_fts USING fts5(
    tokens, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0'
);
