package dev.jiyi.bench.quality;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * One recall-quality scenario: the events a host would have submitted, the memories derived from
 * them by hand, what was corrected or deleted afterwards, and the questions with their gold evidence
 * events.
 *
 * @param now the query time (the day after the data's last event), so freshness is deterministic
 * @param skipped questions left out because their evidence resolves to no event
 * @param changes corrections and deletions applied after loading, in order
 */
record Scenario(String name, List<EventSpec> events, List<MemorySpec> memories, List<Question> questions,
                Instant now, int skipped, List<Change> changes) {

    Scenario(String name, List<EventSpec> events, List<MemorySpec> memories, List<Question> questions, Instant now,
             int skipped) {
        this(name, events, memories, questions, now, skipped, List.of());
    }

    record EventSpec(String id, Scope scope, Role role, String text, String session, Instant occurredAt) {
    }

    /**
     * A memory derived from an event; {@code subject} and {@code factKey} (both or neither) make it a
     * member of a fact timeline, valid from {@code validAt} (null: from its event).
     */
    record MemorySpec(String eventId, Scope scope, Kind kind, Basis basis, String text, String quote, String subject,
                      String factKey, Instant validAt) {

        MemorySpec(String eventId, Scope scope, Kind kind, Basis basis, String text, String quote) {
            this(eventId, scope, kind, basis, text, quote, null, null, null);
        }
    }

    /** What happens to an archive after it is loaded: a memory corrected, an event deleted. */
    sealed interface Change permits Correct, Delete {
    }

    /** The memories derived from {@code eventId} are corrected to {@code text}, quoting {@code quote}. */
    record Correct(Scope scope, String eventId, String text, String quote) implements Change {
    }

    /** The event {@code eventId} is deleted with everything derived from it. */
    record Delete(Scope scope, String eventId) implements Change {
    }

    /**
     * A question, its scope, and the IDs of the events that hold its evidence.
     *
     * @param turns the dialogue the query is made of, oldest first (MADial); empty for a question
     * @param forbidden texts none of the top 10 results may contain: a deleted event's words, a
     *                  corrected mistake, a fact no longer valid. A question may have only these
     *                  (no gold): it then counts toward the leak rate only.
     */
    record Question(String id, Scope scope, String query, Set<String> gold, String category, List<String> turns,
                    Set<String> forbidden) {

        Question(String id, Scope scope, String query, Set<String> gold, String category) {
            this(id, scope, query, gold, category, List.of(), Set.of());
        }

        Question(String id, Scope scope, String query, Set<String> gold, String category, List<String> turns) {
            this(id, scope, query, gold, category, turns, Set.of());
        }
    }
}
