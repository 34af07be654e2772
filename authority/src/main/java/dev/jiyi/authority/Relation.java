package dev.jiyi.authority;

import java.time.Instant;

/** A link between two memories of the same scope (M3). */
public record Relation(String fromId, String toId, RelationType type, Instant createdAt) {
}
