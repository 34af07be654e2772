package dev.jiyi.engine;

import dev.jiyi.authority.Category;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.Times;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The event line: one JSON object per original message, as {@code event submit --batch} and
 * {@code host-ingest} read it and a host writes it. The one parser of it.
 */
public final class EventLines {

    /** Fields of one line. */
    public static final Set<String> FIELDS = Set.of("id", "role", "text", "session", "occurred_at", "source",
            "category", "persona", "project");

    private EventLines() {
    }

    /** One line as the event it submits; persona and project default to {@code defaults}. */
    public static EventSubmission parse(JsonLine line, Scope defaults) {
        Scope scope = new Scope(
                Objects.requireNonNullElse(line.string("persona"), defaults.personaId()),
                Objects.requireNonNullElse(line.string("project"), defaults.projectId()));
        String category = line.string("category");
        return new EventSubmission(
                line.requiredString("id"),
                scope,
                Role.parse("role", line.requiredString("role")),
                line.requiredString("text"),
                line.string("source"),
                category == null ? null : Category.parse("category", category),
                line.requiredString("session"),
                Times.parse("occurred_at", line.requiredString("occurred_at")));
    }

    /** The acknowledgement of one committed line ({@code --json}). */
    public static Map<String, Object> ack(SubmitResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", r.created() ? "created" : "existing");
        m.put("id", r.event().id());
        m.put("sequence", r.event().sequence());
        return m;
    }
}
