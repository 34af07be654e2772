package dev.jiyi.authority;

import java.time.Instant;

/**
 * Where a host instance's capture stands (H1): the stable ID of the last message it captured into
 * its scope and that message's time (a watermark: a line that occurred before it was captured
 * before, or deleted since), and the version a compare-and-set advances, so that a competing writer
 * of the same instance is detected. Archives keep it (D4): a replay after a restore skips what was
 * captured, and so never brings back an event deleted since.
 *
 * @param occurredAt null for a cursor written before migration 12 whose message was gone by then
 * @param idsAt the messages captured at exactly {@code occurredAt}
 */
public record CaptureCursor(String instanceId, Scope scope, String position, Instant occurredAt,
                            java.util.List<String> idsAt, long version, Instant updatedAt) {

    public CaptureCursor {
        idsAt = java.util.List.copyOf(idsAt);
    }

    /** Whether a message was captured before: the cursor's own, one at its time it lists, or one that occurred earlier. */
    public boolean covers(String id, Instant at) {
        if (id.equals(position)) {
            return true;
        }
        if (occurredAt == null) {
            return false;
        }
        return at.isBefore(occurredAt) || (at.equals(occurredAt) && idsAt.contains(id));
    }

    /** What a capture's last transaction did: the cursor as it now is, and its checkpoints saved and skipped. */
    public record Advanced(CaptureCursor cursor, int checkpointsSaved, int checkpointsSkipped) {
    }
}
