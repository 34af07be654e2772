-- Migration 10: the scope token gets its own FTS5 column, which BM25 does not count.
--
-- Every FTS5 row began with its scope's token, and every search required it ("scope" AND (terms)),
-- so that a search ranks only its scope's rows. But BM25 counted the token as a matched term: in an
-- archive of several personas or projects it is as informative as a content word (a scope holding
-- a tenth of the rows gives it an IDF of about 2), and, like any term, it scores more in short rows.
-- Every search thus favoured short rows, whatever they said. Now the token is in a column of its own,
-- and each table's rank function gives that column weight 0: the filter is the same, only the text's
-- terms score (the token still adds one to each row's length, alike for every row). The text comes
-- first: FTS5 marks every position outside column 0 with its column, so the one scope token per row
-- carries that mark, not every word of the text.
--
-- The tables are derived data. index_state loses their row, so the index that owns them
-- (dev.jiyi.fts5.Fts5Index) rebuilds them from the authoritative text when the database is next
-- opened with it attached. The connection's secure_delete zeroes the pages the old tables free.

DROP TABLE memories_fts;
DROP TABLE events_fts;

CREATE VIRTUAL TABLE memories_fts USING fts5(
    tokens, scope, content = '', tokenize = 'ascii'
);
CREATE VIRTUAL TABLE events_fts USING fts5(
    tokens, scope, content = '', tokenize = 'ascii'
);
INSERT INTO memories_fts (memories_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO events_fts (events_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO memories_fts (memories_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');
INSERT INTO events_fts (events_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');

DELETE FROM index_state WHERE name = 'fts5';
