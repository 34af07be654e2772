-- Migration 3: host-capture cursors, one per host instance, scoped.

CREATE TABLE capture_cursors (
    instance_id TEXT    PRIMARY KEY,
    persona_id  TEXT    NOT NULL,
    project_id  TEXT    NOT NULL,
    cursor      TEXT    NOT NULL,
    version     INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
    updated_at  TEXT    NOT NULL
) WITHOUT ROWID;
