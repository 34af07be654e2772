-- Migration 7: the latest expressed emotion is found without reading every memory of the scope.
--
-- Every context pack asks for the scope's current emotion (F4): the newest memory with an emotion,
-- expressed by the assistant and not revoked. Without an index of its own that question walks every
-- memory of the scope and looks up each one's event (at 100,000 memories, tens of milliseconds per
-- pack). A partial index holds the emotion memories only, so the question costs what the scope's
-- emotions number, not what its memories do.

CREATE INDEX IF NOT EXISTS memories_scope_emotion ON memories (persona_id, project_id, valid_at)
    WHERE emotion_label IS NOT NULL AND basis = 'assistant_expression';
