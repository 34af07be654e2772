-- Migration 12: a host-capture cursor keeps the time of the message it points at.
--
-- host-ingest skips what an instance captured before, so that a message deleted since is not
-- brought back by a replay of the host's history (D4). Finding the cursor's message in the input
-- is not enough: a host may send only what is new, and the cursor's message may have left the
-- host's history (regenerated, edited, trimmed), after which every older line would look new. The
-- cursor's message time is a watermark that needs no such message: a line that occurred before it
-- was captured before (or deleted since). NULL for a cursor written before this migration.

ALTER TABLE capture_cursors ADD COLUMN occurred_at TEXT;
