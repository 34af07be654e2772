package dev.jiyi.authority;

import java.time.Instant;

/**
 * A memory loaded for recall, with what ranking needs from its source event.
 *
 * @param rowId the memory's internal row number
 * @param occurredAt when its source event happened
 */
public record RecallRow(long rowId, Memory memory, Instant occurredAt) {
}
