-- Migration 9: conversation context is computed when recalling, not kept in an index.
--
-- Migration 8 kept, per dialogue turn, the terms of the turns around it (context_fts). Keeping that
-- table exact made every arriving turn rewrite the rows of the turns before it, which cost FTS5 more
-- than ten times its ingestion rate. Recall now finds a turn through the matches of the turns around
-- it, read from the events table when it recalls (dev.jiyi.authority.TurnContext): as good on the
-- benchmarks, and free at ingestion. The table is derived data; the connection's secure_delete
-- overwrites the pages it frees with zeros, so no copy of a turn's text stays in the file.

DROP TABLE IF EXISTS context_fts;
