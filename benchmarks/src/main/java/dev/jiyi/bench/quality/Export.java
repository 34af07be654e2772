package dev.jiyi.bench.quality;

import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A scenario as the public CLI reads it ({@code bench recall --export DIR}), so that the same
 * archive and questions can be measured through {@code jiyi event submit --batch}, {@code jiyi memory
 * add --batch} and {@code jiyi recall --batch} of any build, old or new, as a held-out harness does:
 * {@code DIR/NAME/events.jsonl}, {@code memories.jsonl} and {@code questions.jsonl} (a recall
 * request per line, with its {@code gold} event IDs, which a harness strips before asking; a
 * dialogue question, MADial's, as its {@code dialogue} turns). Corrections and deletions (jiyi's own
 * scenario) and the texts a question must never show are not exported.
 */
final class Export {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Export() {
    }

    static void write(Scenario s, Path dir) throws IOException {
        Path out = dir.resolve(s.name());
        Files.createDirectories(out);
        try (Writer w = Files.newBufferedWriter(out.resolve("events.jsonl"), StandardCharsets.UTF_8)) {
            for (Scenario.EventSpec e : s.events()) {
                Map<String, Object> line = scoped(e.scope());
                line.put("id", e.id());
                line.put("role", e.role().code());
                line.put("text", e.text());
                line.put("session", e.session());
                line.put("occurred_at", e.occurredAt().toString());
                w.write(JSON.writeValueAsString(line) + "\n");
            }
        }
        try (Writer w = Files.newBufferedWriter(out.resolve("memories.jsonl"), StandardCharsets.UTF_8)) {
            for (Scenario.MemorySpec m : s.memories()) {
                Map<String, Object> line = scoped(m.scope());
                line.put("event", m.eventId());
                line.put("kind", m.kind().code());
                line.put("basis", m.basis().code());
                line.put("text", m.text());
                line.put("quote", m.quote());
                if (m.factKey() != null) {
                    line.put("subject", m.subject());
                    line.put("fact_key", m.factKey());
                }
                if (m.validAt() != null) {
                    line.put("valid_at", m.validAt().toString());
                }
                w.write(JSON.writeValueAsString(line) + "\n");
            }
        }
        try (Writer w = Files.newBufferedWriter(out.resolve("questions.jsonl"), StandardCharsets.UTF_8)) {
            for (Scenario.Question q : s.questions()) {
                Map<String, Object> line = scoped(q.scope());
                if (q.turns().size() > 1) {
                    line.put("dialogue", q.turns());
                } else {
                    line.put("query", q.query());
                }
                line.put("tag", q.id() + " " + q.category());
                line.put("as_of", s.now().toString());
                line.put("gold", List.copyOf(q.gold()));
                w.write(JSON.writeValueAsString(line) + "\n");
            }
        }
    }

    private static Map<String, Object> scoped(dev.jiyi.authority.Scope scope) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("persona", scope.personaId());
        line.put("project", scope.projectId());
        return line;
    }
}
