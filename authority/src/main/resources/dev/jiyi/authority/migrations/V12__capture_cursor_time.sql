-- Migration 12: a host-capture cursor keeps the time of the message it points at.
--
-- host-ingest skips what an instance captured before, so that a message deleted since is not
-- brought back by a replay of the host's history (D4). Finding the cursor's message in the input
-- is not enough: a host may send only what is new, and the cursor's message may have left the
-- host's history (regenerated, edited, trimmed), after which every older line would look new. The
-- cursor's message time is a watermark that needs no such message: a line that occurred before it
-- was captured before (or deleted since). ids_at lists the messages captured at exactly that time
-- (a JSON array), so that one of them deleted since is not taken for a new message of the same
-- instant. A cursor already there gets its message's time, when the message is still stored.

ALTER TABLE capture_cursors ADD COLUMN occurred_at TEXT;
ALTER TABLE capture_cursors ADD COLUMN ids_at TEXT NOT NULL DEFAULT '[]';
UPDATE capture_cursors SET
    occurred_at = (SELECT e.occurred_at FROM events e WHERE e.id = capture_cursors.cursor
                   AND e.persona_id = capture_cursors.persona_id AND e.project_id = capture_cursors.project_id),
    ids_at = json_array(cursor);
