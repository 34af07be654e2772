-- Migration 8: the conversation context of dialogue turns, searchable beside the turns.
--
-- A question is often answered by the turn after the one that shares its words, and a turn's own
-- words rarely say all it is about. context_fts holds, per conversation event (rowid = its
-- sequence), the terms of the turns around it in its session (dev.jiyi.authority.TurnContext):
-- the turn before and after in `near`, the two beyond in `far`. Recall weighs the columns below a
-- turn's own text (bm25 column weights chosen per query), so context never outranks direct evidence
-- of the same strength.
--
-- Like the other FTS5 tables it is contentless and in secure-delete mode: a row is deleted with the
-- tokens it was written with, recomputed from the authoritative events, and a deleted event's terms
-- leave the neighbours' rows in the same transaction (D1). The table starts empty; the FTS5 index
-- fills it when it rebuilds, which its new version makes it do on the next open.

CREATE VIRTUAL TABLE IF NOT EXISTS context_fts USING fts5(
    near, far, content = '', tokenize = 'ascii'
);
INSERT INTO context_fts (context_fts, rank) VALUES ('secure-delete', 1);
