package dev.jiyi.cli;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Times;
import dev.jiyi.engine.BatchRunner;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.JsonLine;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;
import dev.jiyi.ranking.Evidence;
import dev.jiyi.ranking.Presentation;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;
import dev.jiyi.ranking.RecalledItem;
import dev.jiyi.ranking.Signal;
import dev.jiyi.ranking.Status;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** {@code jiyi recall}: memories (and raw fallback events) for a query, with inspectable scores. */
@Command(name = "recall", description = {"Recall memories for a query, best first, with provenance.",
        "With --batch, one JSON request per line in, one JSON result per line out (same order):",
        "{\"query\", \"mode\"?, \"index\"?, \"limit\"?, \"as_of\"?, \"include_history\"?, \"persona\"?, \"project\"?, \"tag\"?}"})
final class RecallCommand extends Verb {

    static final Set<String> BATCH_FIELDS = Set.of("query", "dialogue", "mode", "index", "limit", "as_of",
            "include_history", "persona", "project", "tag");

    @Parameters(index = "0", arity = "0..1", paramLabel = "QUERY", description = "What to recall (Chinese, English or mixed).")
    String query;

    @Option(names = "--batch", paramLabel = "FILE|-", description = "JSON-lines requests, - for stdin.")
    Path batch;

    @Option(names = "--dialogue", paramLabel = "FILE|-",
            description = "Recall for a dialogue (- for stdin): a JSON array of turns, or one turn per line, oldest "
                    + "first; the newest turn weighs most.")
    Path dialogue;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "fast",
            description = "fast (default), semantic or deep.")
    RecallMode mode;

    @Option(names = "--index", paramLabel = "INDEX",
            description = "fts5, lucene or opensearch (default: the recall.index setting, else fts5).")
    String index;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "10", description = "Results at most (default: 10).")
    int limit;

    @Option(names = "--as-of", paramLabel = "TIME", description = "Evaluate validity and age at this time.")
    String asOf;

    @Option(names = "--include-history", description = "Also return expired and future facts, labeled.")
    boolean includeHistory;

    @Option(names = "--explain", description = "Show each signal's value, weight and contribution.")
    boolean explain;

    @Override
    int run(Jiyi jiyi, Output out) throws IOException {
        if ((query != null ? 1 : 0) + (batch != null ? 1 : 0) + (dialogue != null ? 1 : 0) != 1) {
            throw new InvalidInputException("query", "give exactly one of QUERY, --dialogue or --batch");
        }
        var config = jiyi.recallConfig();
        if (batch != null) {
            return batch(jiyi, config, out);
        }
        Instant at = asOf == null ? null : Times.parse("as_of", asOf);
        RecallRequest request = dialogue != null
                ? RecallRequest.dialogue(scope(), readDialogue(), mode, limit, at, includeHistory)
                : new RecallRequest(scope(), query, mode, limit, at, includeHistory);
        String query = request.query();
        RecallResult result = jiyi.recall(index, config, Clock.systemDefaultZone(), request);
        jiyi.takeNotices().forEach(out::notice);
        if (out.json()) {
            out.json(Views.recall(null, query, result, explain));
        } else {
            printHuman(out, result);
        }
        return ExitCode.OK;
    }

    private int batch(Jiyi jiyi, dev.jiyi.ranking.RecallConfig config, Output out) throws IOException {
        // A line without "index" uses --index, else recall.index: a bad setting fails before any line.
        String fallback = index != null ? index : jiyi.recallIndex(null).name();
        int failures = 0;
        try (InputStream in = BatchRunner.open(batch, root().stdin(), "batch")) {
            BatchRunner.LineInput lines = new BatchRunner.LineInput(in);
            byte[] bytes;
            int number = 0;
            while ((bytes = lines.next()) != null) {
                number++;
                String tag = null;
                String q = null;
                try {
                    String line = BatchRunner.decode(bytes);
                    if (line.isBlank()) {
                        continue;
                    }
                    JsonLine json = JsonLine.parse(line, BATCH_FIELDS);
                    tag = json.string("tag");
                    List<String> turns = json.strings("dialogue");
                    q = turns.isEmpty() ? json.requiredString("query") : json.string("query");
                    if (!turns.isEmpty() && q != null) {
                        throw new InvalidInputException("query", "give query or dialogue, not both");
                    }
                    Long lim = json.integer("limit");
                    if (lim != null && (lim < 1 || lim > RecallRequest.MAX_LIMIT)) {
                        throw new InvalidInputException("limit", "must be between 1 and " + RecallRequest.MAX_LIMIT);
                    }
                    String m = json.string("mode");
                    String asOfText = json.string("as_of");
                    Boolean history = json.bool("include_history");
                    Scope scope = new Scope(Objects.requireNonNullElse(json.string("persona"), scope().personaId()),
                            Objects.requireNonNullElse(json.string("project"), scope().projectId()));
                    String lineIndex = Objects.requireNonNullElse(json.string("index"), fallback);
                    RecallMode lineMode = m == null ? mode : RecallMode.parse("mode", m);
                    int lineLimit = lim == null ? limit : lim.intValue();
                    Instant lineAt = asOfText == null ? null : Times.parse("as_of", asOfText);
                    boolean lineHistory = history == null ? includeHistory : history;
                    RecallRequest request = turns.isEmpty()
                            ? new RecallRequest(scope, q, lineMode, lineLimit, lineAt, lineHistory)
                            : RecallRequest.dialogue(scope, turns, lineMode, lineLimit, lineAt, lineHistory);
                    q = request.query();
                    RecallResult result = jiyi.recall(lineIndex, config, Clock.systemDefaultZone(), request);
                    jiyi.takeNotices().forEach(out::notice);
                    out.json(Views.recall(tag, q, result, explain));
                } catch (JiyiException e) {
                    jiyi.takeNotices().forEach(out::notice);
                    failures++;
                    Map<String, Object> error = new LinkedHashMap<>();
                    if (tag != null) {
                        error.put("tag", tag);
                    }
                    error.put("line", number);
                    error.put("error", ExitCode.name(ExitCode.of(e)));
                    error.put("message", e.getMessage());
                    out.json(error);
                }
            }
        }
        if (failures > 0) {
            out.error(ExitCode.INVALID, failures + " request line(s) were rejected; see their result lines");
            return ExitCode.INVALID;
        }
        return ExitCode.OK;
    }

    /**
     * The turns of {@code --dialogue}: a JSON array of strings (or of objects with a "text"), or plain
     * text with one turn per line.
     */
    List<String> readDialogue() {
        String text = TextInput.read(null, dialogue, root().stdin(), "dialogue", RecallRequest.MAX_QUERY).strip();
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1).strip();
        }
        if (!text.startsWith("[")) {
            return List.of(text.split("\r?\n"));
        }
        tools.jackson.databind.JsonNode node;
        try {
            node = Output.mapper().readTree(text);
        } catch (RuntimeException e) {
            return List.of(text.split("\\r?\\n")); // "[10:00] Alice: ..." is a line, not JSON
        }
        if (node == null || !node.isArray()) {
            return List.of(text.split("\\r?\\n"));
        }
        List<String> turns = new ArrayList<>();
        for (tools.jackson.databind.JsonNode turn : node) {
            tools.jackson.databind.JsonNode t = turn.isObject() ? turn.get("text") : turn;
            if (t == null || !t.isString()) {
                throw new InvalidInputException("dialogue", "each turn must be a string or an object with a text");
            }
            turns.add(t.asString());
        }
        return turns;
    }

    private void printHuman(Output out, RecallResult result) {
        result.warnings().forEach(out::warn);
        if (result.items().isEmpty()) {
            out.text("no evidence found for this query");
            return;
        }
        int n = 0;
        for (RecalledItem i : result.items()) {
            n++;
            String label = i.type() == RecalledItem.Type.RAW_EVENT
                    ? "raw_event, " + i.category().code() + (i.truncated() ? ", truncated" : "")
                    : i.kind().code() + (i.presentation() == Presentation.FULL ? "" : ", " + i.presentation().code().replace('_', ' '));
            out.text(String.format(Locale.ROOT, "%2d. [%s] %s", n, label, oneLine(i.text())));
            StringBuilder meta = new StringBuilder("    score ").append(String.format(Locale.ROOT, "%.3f", i.score()))
                    .append(" · ").append(i.timeLabel()).append(" · event ").append(i.sourceEventId());
            if (i.memoryId() != null) {
                meta.append(" · ").append(i.memoryId()).append(" · ").append(i.basis().code())
                        .append(" · confidence ").append(i.confidence());
            }
            if (i.status() != Status.CURRENT) {
                meta.append(" · ").append(i.status().code().toUpperCase(Locale.ROOT));
            }
            if (i.evidence() != Evidence.MEMORY && i.evidence() != Evidence.RAW_EVENT) {
                meta.append(" · via ").append(i.evidence().code().replace('_', ' '));
            }
            out.text(meta.toString());
            if (explain) {
                StringBuilder sb = new StringBuilder("    ");
                for (Signal.Value s : i.signals()) {
                    sb.append(String.format(Locale.ROOT, "%s %.3f×%.2f=%.3f  ", s.name(), s.value(), s.weight(),
                            s.contribution()));
                }
                out.text(sb.toString().stripTrailing());
            }
        }
    }

    private static String oneLine(String text) {
        String flat = text.replaceAll("\\s+", " ").strip();
        return flat.codePointCount(0, flat.length()) > 200 ? flat.substring(0, flat.offsetByCodePoints(0, 200)) + "…" : flat;
    }

}
