-- Migration 4: FTS5 tables that forget a deleted row at once, the state of derived indexes, and
-- the evidence order of fact-timeline members.
--
-- Migration 1 made the FTS5 tables contentless with contentless_delete = 1. Such a table deletes by
-- tombstone: the row's terms stay in the segment pages (*_fts_data) until a merge rewrites them, so
-- a permanently deleted text left its words behind. A plain contentless table deletes with the
-- row's tokens ('delete' command), and in secure-delete mode removes its entries from the pages in
-- the same statement.
--
-- The rows are the analysis module's terms, already normalized and lower-cased, separated by
-- spaces. The 'ascii' tokenizer splits them only on ASCII non-alphanumerics and keeps every other
-- character, so the index holds those terms as they are (unicode61 also split terms on characters
-- that were not letters in Unicode 6.1: combining marks, CJK extensions E and later).
--
-- The new tables start empty. index_state has no row for them yet, so the index that owns them
-- (dev.jiyi.fts5.Fts5Index) rebuilds them from the authoritative text the first time the database
-- is opened with it attached, and again whenever its version (tokenization included) changes.

DROP TABLE memories_fts;
DROP TABLE events_fts;

CREATE VIRTUAL TABLE memories_fts USING fts5(
    tokens, content = '', tokenize = 'ascii'
);
CREATE VIRTUAL TABLE events_fts USING fts5(
    tokens, content = '', tokenize = 'ascii'
);
INSERT INTO memories_fts (memories_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO events_fts (events_fts, rank) VALUES ('secure-delete', 1);

-- One row per derived index kept in this file: the version its rows were built with.
CREATE TABLE index_state (
    name     TEXT NOT NULL PRIMARY KEY,
    version  TEXT NOT NULL,
    built_at TEXT NOT NULL
) WITHOUT ROWID;

-- Fact timelines (T4, T5, C2). Members with equal starts are ordered by when their evidence entered
-- the archive (the sequence of the event the fact was stated in), then by lineage_id: the ID of the
-- first memory of its correction lineage. A correction copies both from the mistaken memory, so
-- correcting a misread fact does not move it in its timeline. closed_by is the member whose start
-- closed this interval (NULL: open, or ended where it was stated to end); stated_invalid_at is the end
-- that was stated, if any, which a closing may cut short. Revoking a member undoes only the closings
-- it caused, back to the stated end.
ALTER TABLE memories ADD COLUMN evidence_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN lineage_id TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN closed_by TEXT;
ALTER TABLE memories ADD COLUMN stated_invalid_at TEXT;
-- A memory whose event is missing (a broken foreign key, for doctor to report) sorts first.
UPDATE memories SET evidence_seq = coalesce((SELECT e.sequence FROM events e WHERE e.id = memories.event_id), 0),
                    lineage_id = id;
-- Before migration 4 nobody recorded who closed an interval: an end equal to the start of a later
-- member of the same timeline was that member's doing (the rule timelines followed); any other end
-- was stated.
UPDATE memories SET closed_by = (
        SELECT n.id FROM memories n
        WHERE n.persona_id = memories.persona_id AND n.project_id = memories.project_id
          AND n.subject = memories.subject AND n.fact_key = memories.fact_key
          AND n.revoked_at IS NULL AND n.id <> memories.id AND n.valid_at = memories.invalid_at
        ORDER BY n.evidence_seq, n.lineage_id, n.id LIMIT 1)
    WHERE fact_key IS NOT NULL AND invalid_at IS NOT NULL;
UPDATE memories SET stated_invalid_at = invalid_at WHERE closed_by IS NULL;
DROP INDEX memories_fact_timeline;
CREATE INDEX memories_fact_timeline ON memories (persona_id, project_id, subject, fact_key, valid_at, evidence_seq)
    WHERE fact_key IS NOT NULL;
