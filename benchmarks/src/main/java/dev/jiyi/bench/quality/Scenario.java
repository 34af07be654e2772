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
 * them by hand, and the questions with their gold evidence events.
 *
 * @param now the query time (the day after the data's last event), so freshness is deterministic
 * @param skipped questions left out because their evidence resolves to no event
 */
record Scenario(String name, List<EventSpec> events, List<MemorySpec> memories, List<Question> questions,
                Instant now, int skipped) {

    record EventSpec(String id, Scope scope, Role role, String text, String session, Instant occurredAt) {
    }

    record MemorySpec(String eventId, Scope scope, Kind kind, Basis basis, String text, String quote) {
    }

    /**
     * A question, its scope, and the IDs of the events that hold its evidence.
     *
     * @param turns the dialogue the query is made of, oldest first (MADial); empty for a question
     */
    record Question(String id, Scope scope, String query, Set<String> gold, String category, List<String> turns) {

        Question(String id, Scope scope, String query, Set<String> gold, String category) {
            this(id, scope, query, gold, category, List.of());
        }
    }
}
