package dev.jiyi.authority;

import java.time.Instant;
import java.util.List;

/**
 * A host-reported task checkpoint (K1). It records what the host says; it does not prove that any
 * of the work happened.
 *
 * @param coveredSequence the last event sequence the checkpoint covers, in the same scope and session
 * @param invalidatedAt set when a correction or deletion in the scope invalidated it, else null
 */
public record Checkpoint(
        long id,
        Scope scope,
        String sessionId,
        String goal,
        List<String> done,
        List<String> pending,
        List<String> constraints,
        String nextAction,
        long coveredSequence,
        Instant createdAt,
        Instant invalidatedAt) {

    public Checkpoint {
        done = List.copyOf(done);
        pending = List.copyOf(pending);
        constraints = List.copyOf(constraints);
    }
}
