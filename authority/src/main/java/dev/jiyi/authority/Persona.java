package dev.jiyi.authority;

import java.time.Instant;

/** One immutable persona version (S2). Personas span all projects (S5). */
public record Persona(String personaId, int version, String content, String note, Instant createdAt) {
}
