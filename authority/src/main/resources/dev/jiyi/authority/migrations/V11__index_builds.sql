-- Migration 11: index builds in steps that other processes can write between.
--
-- An index rebuilt from the authoritative rows (after a migration that replaced its tables, or when
-- its version changed) used to be fed every event and memory in one write transaction: at 200,000
-- events about 30 s, at 1,000,000 over 3 minutes, while every other process's write waited on the
-- lock past its busy timeout. Now a build records how far it has come, and goes on in short
-- transactions (dev.jiyi.authority.Indexes#buildStep): events with sequence <= events_built and
-- memories with seq <= memories_built are in the index, as is every row added after the build
-- began (its key is above the target); rows between are not yet, and a writer that removes one of
-- them leaves the index alone (it holds nothing of it). Both targets NULL: the index is complete.

ALTER TABLE index_state ADD COLUMN events_built INTEGER;
ALTER TABLE index_state ADD COLUMN events_target INTEGER;
ALTER TABLE index_state ADD COLUMN memories_built INTEGER;
ALTER TABLE index_state ADD COLUMN memories_target INTEGER;
