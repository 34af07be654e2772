-- Migration 2: authored gists, cue keys (photo/text identifiers and labels) and lookup indexes.

ALTER TABLE memories ADD COLUMN gist TEXT;
ALTER TABLE memories ADD COLUMN cue_keys TEXT NOT NULL DEFAULT '[]';

CREATE INDEX events_scope_session ON events (persona_id, project_id, session_id, sequence);
CREATE INDEX events_scope_occurred ON events (persona_id, project_id, occurred_at);
CREATE INDEX events_pending ON events (extraction_state) WHERE extraction_state = 'pending';
CREATE INDEX memories_event ON memories (event_id);
CREATE INDEX memories_scope_kind ON memories (persona_id, project_id, kind, valid_at);
CREATE INDEX memories_fact_timeline ON memories (persona_id, project_id, subject, fact_key, valid_at)
    WHERE fact_key IS NOT NULL;
CREATE INDEX relations_to ON relations (to_id, type);
CREATE INDEX checkpoints_scope_session ON checkpoints (persona_id, project_id, session_id, id);
CREATE INDEX change_log_entity ON change_log (entity, entity_id);
