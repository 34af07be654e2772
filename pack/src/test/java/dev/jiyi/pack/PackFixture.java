package dev.jiyi.pack;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Checkpoint;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.fts5.Fts5Index;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallMode;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A real authority on a temporary SQLite file with the FTS5 index, a recall and a context pack that
 * share one fixed clock, and independent counters (jtokkit used directly, UTF-8 bytes) to check the
 * pack's counts against. Not a test itself.
 *
 * <p>The pack's clock is an hour after the wall clock: jiyi stamps corrections and checkpoints with
 * the wall clock, and they must lie in the pack's past.
 */
final class PackFixture implements AutoCloseable {

    /** The canonical component order of the context after the framing (P2). */
    static final List<String> ORDER = List.of("persona", "checkpoint", "agreements_and_growth", "recalled_memories",
            "current_emotion", "recent_events");
    static final String ABOUT = "about";

    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final EncodingRegistry REGISTRY = Encodings.newDefaultEncodingRegistry();

    final Path dir;
    final Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS).plus(Duration.ofHours(1));
    final Authority authority;
    final Fts5Index index = new Fts5Index();
    final Recall recall;
    final ContextPack contextPack;
    private int next;

    PackFixture(Path dir) {
        this.dir = dir;
        this.authority = Authority.open(dir.resolve("jiyi.db"), List.of(index));
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        this.recall = new Recall(authority, new RecallIndex(index, new ExactVectorScan()), RecallConfig.DEFAULT, clock);
        this.contextPack = new ContextPack(authority, recall, clock);
    }

    @Override
    public void close() {
        authority.close();
    }

    // ------------------------------------------------------------------ archive builders

    Instant ago(Duration d) {
        return now.minus(d);
    }

    Instant minutesAgo(long m) {
        return now.minus(Duration.ofMinutes(m));
    }

    Event event(Scope scope, String session, Role role, String text, Instant at) {
        String id = "ev" + (++next);
        return authority.submitEvent(new EventSubmission(id, scope, role, text, "test", Category.CONVERSATION, session, at))
                .event();
    }

    /** A memory derived from {@code source} with the whole event text as its quote. */
    Memory memory(Scope scope, Event source, Kind kind, String text) {
        Basis basis = source.role() == Role.ASSISTANT ? Basis.ASSISTANT_EXPRESSION : Basis.USER_STATEMENT;
        return authority.addMemory(scope, MemoryDraft.builder(source.id()).kind(kind).basis(basis).text(text)
                .quote(source.text()).build());
    }

    /** A user turn and a memory of {@code kind} from it, said {@code minutesAgo} minutes before the pack's clock. */
    Memory said(Scope scope, String session, Kind kind, String text, long minutesAgo) {
        Event e = event(scope, session, Role.USER, text, minutesAgo(minutesAgo));
        return memory(scope, e, kind, text);
    }

    /** An assistant turn expressing an emotion, and its emotion memory. */
    Memory expressed(Scope scope, String session, String text, Emotion emotion, Instant at) {
        Event e = event(scope, session, Role.ASSISTANT, text, at);
        return authority.addMemory(scope, MemoryDraft.builder(e.id()).kind(Kind.EMOTION).basis(Basis.ASSISTANT_EXPRESSION)
                .text(text).quote(text).emotion(emotion).build());
    }

    Checkpoint checkpoint(Scope scope, String session, String goal, List<String> pending, String next, long covered) {
        return authority.saveCheckpoint(scope, new CheckpointDraft(session, goal, List.of("done step"), pending,
                List.of(), next, covered));
    }

    // ------------------------------------------------------------------ packing

    Pack pack(Scope scope, int budget, String model, String query, String session) {
        return contextPack.pack(new PackRequest(scope, budget, model, query, session, RecallMode.FAST));
    }

    // ------------------------------------------------------------------ independent counts and JSON

    static int cl100k(String text) {
        return REGISTRY.getEncoding(EncodingType.CL100K_BASE).countTokensOrdinary(text);
    }

    static int o200k(String text) {
        return REGISTRY.getEncoding(EncodingType.O200K_BASE).countTokensOrdinary(text);
    }

    static int utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    /** The independent count for the encoding a model name documents (TokenCounter's class comment). */
    static int independentCount(String model, String text) {
        String expected = expectedTokenizer(model);
        return switch (expected) {
            case "cl100k_base" -> cl100k(text);
            case "o200k_base" -> o200k(text);
            default -> utf8(text);
        };
    }

    /** The documented mapping for the handful of model names the tests use. */
    static String expectedTokenizer(String model) {
        if (model == null) {
            return "utf8_bytes";
        }
        return switch (model) {
            case "gpt-4", "gpt-4-turbo", "gpt-3.5-turbo", "GPT-4", "openai/gpt-4" -> "cl100k_base";
            case "gpt-4o", "gpt-4o-mini", "GPT-4o", "openai/gpt-4o", "o3-mini", "gpt-5" -> "o200k_base";
            default -> "utf8_bytes";
        };
    }

    /** The context parsed, insertion order kept. */
    static JsonNode parse(String context) {
        return JSON.readTree(context);
    }

    static List<String> keys(JsonNode node) {
        return new ArrayList<>(node.propertyNames());
    }

    /** The context as an ordered map of key to its (parsed) value. */
    static Map<String, JsonNode> components(String context) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        JsonNode n = parse(context);
        for (String k : n.propertyNames()) {
            out.put(k, n.get(k));
        }
        return out;
    }

    /** The compact JSON of an ordered map of parts. */
    static String write(Map<String, JsonNode> parts) {
        tools.jackson.databind.node.ObjectNode o = JSON.createObjectNode();
        parts.forEach(o::set);
        return JSON.writeValueAsString(o);
    }

    /** A component's value as compact JSON text, to search it for strings. */
    static String text(JsonNode node) {
        return JSON.writeValueAsString(node);
    }

    /** Every string value inside a node, depth first, in document order. */
    static List<String> strings(JsonNode node) {
        List<String> out = new ArrayList<>();
        collect(node, out);
        return out;
    }

    private static void collect(JsonNode node, List<String> out) {
        if (node.isString()) {
            out.add(node.stringValue());
        } else if (node.isArray() || node.isObject()) {
            for (JsonNode child : node) {
                collect(child, out);
            }
        }
    }
}
