package dev.jiyi.authority;

import java.time.Instant;

/**
 * Where a host instance's capture stands (H1): the stable ID of the last message it captured into
 * its scope, and the version a compare-and-set advances, so that a competing writer of the same
 * instance is detected. Archives keep it (D4): a replay after a restore skips what was captured,
 * and so never brings back an event deleted since.
 */
public record CaptureCursor(String instanceId, Scope scope, String position, long version, Instant updatedAt) {
}
