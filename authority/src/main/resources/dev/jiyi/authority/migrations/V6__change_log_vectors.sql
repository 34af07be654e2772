-- Migration 6: the change log names vectors too, and the row number of what changed.
--
-- An index outside SQLite (Lucene) follows the change log. It needs every change that affects it:
-- vectors stored and removed are now entries of their own (entity 'vector', keyed by the memory's
-- ID), and each event, memory and vector entry carries the row number the indexes key the row by
-- (events.sequence, memories.seq), so that a follower can remove a row it no longer finds. SQLite
-- cannot change a CHECK constraint in place, so the table is rebuilt; entries keep their sequence
-- numbers, and the row numbers of rows that still exist are filled in. An event ID may be submitted
-- again after its event was deleted: an entry followed by a delete of the same ID belongs to a row
-- that is gone, so it gets no row number rather than the new row's.

CREATE TABLE change_log_v6 (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    entity     TEXT    NOT NULL CHECK (entity IN ('persona', 'event', 'memory', 'relation', 'checkpoint', 'vector')),
    entity_id  TEXT    NOT NULL,
    row_id     INTEGER,
    op         TEXT    NOT NULL CHECK (op IN ('insert', 'update', 'delete')),
    persona_id TEXT    NOT NULL,
    project_id TEXT,
    at         TEXT    NOT NULL
);

INSERT INTO change_log_v6 (seq, entity, entity_id, row_id, op, persona_id, project_id, at)
SELECT c.seq, c.entity, c.entity_id,
       CASE WHEN NOT EXISTS (SELECT 1 FROM change_log d WHERE d.entity = c.entity AND d.entity_id = c.entity_id
                             AND d.op = 'delete' AND d.seq >= c.seq) THEN
           CASE c.entity
               WHEN 'event' THEN (SELECT e.sequence FROM events e WHERE e.id = c.entity_id)
               WHEN 'memory' THEN (SELECT m.seq FROM memories m WHERE m.id = c.entity_id)
           END
       END,
       c.op, c.persona_id, c.project_id, c.at
FROM change_log c ORDER BY c.seq;

DROP TABLE change_log;
ALTER TABLE change_log_v6 RENAME TO change_log;
CREATE INDEX change_log_entity ON change_log (entity, entity_id);
