package dev.jiyi.mcp;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Ids;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Views;
import dev.jiyi.pack.PackRequest;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;

import java.util.List;

/**
 * The tools of {@code jiyi mcp} that read: {@code memory_recall}, {@code memory_read},
 * {@code session_resume} and {@code persona_read}. Their results are the CLI's {@code --json}
 * documents ({@link Views#recall}, {@link Views#memoryView}, {@link Views#pack},
 * {@link Views#persona}).
 */
final class McpReadTools {

    private McpReadTools() {
    }

    static final String[] MODES = {"fast", "semantic", "deep"};
    static final String[] INDEXES = IndexKind.codes();

    static McpParam mode(String what) {
        return McpParam.string("mode", what + ": fast (default; lexical index and links, never embeds the query), "
                + "semantic (also compares the query's embedding with the most recent 2,000 memory vectors) or deep "
                + "(with all of them).").oneOf(MODES);
    }

    static McpParam index() {
        return McpParam.string("index", "The index that finds lexical candidates: fts5 (SQLite, always present) "
                + "lucene (derived; built on first use) or opensearch (derived, on the cluster index.opensearch.url names). Default: the home's recall.index setting, else fts5.")
                .oneOf(INDEXES);
    }

    static RecallMode recallMode(McpArguments args) {
        return RecallMode.parse("mode", args.string("mode", "fast"));
    }

    static McpTool recall(Jiyi jiyi) {
        return new McpTool("memory_recall", "Recall memories",
                "Search long-term memory for what is relevant to a query (Chinese, English or mixed), best first. "
                        + "Each result has its text, type (memory or raw_event: an original message that no memory was "
                        + "derived from), kind, basis (user_statement, assistant_expression, inference), confidence "
                        + "(ranking metadata, not a probability), validity, a time label, its memory_id and the "
                        + "source_event_id it came from. Query text is searched literally: quotes, *, AND, NEAR( and "
                        + "the like are plain text. No evidence gives an empty list, never unrelated items. Use "
                        + "memory_read with a memory_id to see the original message.",
                List.of(McpParam.string("query", "What to recall, in the user's words (or give dialogue instead).")
                                .maxLength(RecallRequest.MAX_QUERY),
                        McpParam.strings("dialogue", "Instead of query: the conversation so far, oldest turn first, as "
                                + "passed before replying; the newest turn weighs most, older turns add context."),
                        mode("How candidates are found"),
                        index(),
                        McpParam.integer("limit", "Results at most (default 10).").between(1, RecallRequest.MAX_LIMIT),
                        McpParam.string("as_of", "Evaluate validity and age at this time instead of now, ISO-8601 "
                                + "with an offset or zone, e.g. 2024-05-01T10:00:00+08:00.").time().maxLength(100),
                        McpParam.bool("include_history", "Also return facts that have expired or start later, "
                                + "labeled (default false)."),
                        McpParam.bool("explain", "Add each result's score signals: value, weight, contribution "
                                + "(default false).")),
                McpTool.Hints.READ_ONLY,
                (args, scope) -> {
                    String query = args.string("query");
                    List<String> turns = args.strings("dialogue");
                    if ((query == null) == turns.isEmpty()) {
                        throw new InvalidInputException("query", "give exactly one of query or dialogue");
                    }
                    int limit = (int) args.integer("limit", 10);
                    boolean history = args.bool("include_history", false);
                    RecallRequest request = turns.isEmpty()
                            ? new RecallRequest(scope, query, recallMode(args), limit, args.time("as_of"), history)
                            : RecallRequest.dialogue(scope, turns, recallMode(args), limit, args.time("as_of"), history);
                    query = request.query();
                    RecallResult result = jiyi.recall(args.string("index"), request);
                    return Views.recall(null, query, result, args.bool("explain", false));
                });
    }

    static McpTool read(Jiyi jiyi) {
        return new McpTool("memory_read", "Read a memory with its source",
                "Read one memory in full: its fields, the original message it was derived from (paged, "
                        + Authority.DEFAULT_PAGE_SIZE + " characters a page, with page and total_pages), the other "
                        + "memories derived from the same message, its relations and its correction lineage "
                        + "(corrects / corrected_by).",
                List.of(McpParam.string("memory_id", "The memory's ID (memory_id of a recall result).").required()
                                .maxLength(Ids.MAX_ID_LENGTH),
                        McpParam.integer("page", "Page of the source text (default 1).").atLeast(1)),
                McpTool.Hints.READ_ONLY,
                (args, scope) -> {
                    String id = Ids.check("memory_id", args.string("memory_id"));
                    int page = (int) Math.min(Integer.MAX_VALUE, args.integer("page", 1));
                    return McpTool.naming("memory_id", McpTool.NO_MEMORY, null, () -> Views.memoryView(
                            jiyi.authority().readMemory(scope, id, page, Authority.DEFAULT_PAGE_SIZE)));
                });
    }

    static McpTool resume(Jiyi jiyi) {
        return new McpTool("session_resume", "Resume a session: context pack",
                "Build the context to put before the next model call, within a budget: the persona, the session's "
                        + "checkpoint, recent agreements and growth, memories recalled by the query (without one: by "
                        + "the checkpoint and the latest user turn), the current emotion and the last few turns, in "
                        + "that order; each part is included whole or omitted. Returns status (ok or "
                        + "insufficient_budget), context (the text to use), tokens, budget, tokenizer, and which "
                        + "parts were included, omitted (did not fit) or empty. Call it at the start of a session or "
                        + "when the conversation changes topic.",
                List.of(McpParam.integer("budget", "Most tokens the context may take (default "
                                + PackRequest.DEFAULT_BUDGET + ").").between(1, PackRequest.MAX_BUDGET),
                        McpParam.string("model", "The model the context is for: OpenAI model names count tokens "
                                + "(cl100k_base, o200k_base); any other name, or none, counts UTF-8 bytes.")
                                .maxLength(PackRequest.MAX_MODEL),
                        McpParam.string("query", "Recall by this (default: the checkpoint and the latest user turn).")
                                .maxLength(RecallRequest.MAX_QUERY),
                        McpParam.string("session", "The session whose checkpoint and recent turns to pack "
                                + "(default: the whole persona and project).").maxLength(Ids.MAX_ID_LENGTH),
                        index(),
                        mode("How the recalled memories are found")),
                McpTool.Hints.READ_ONLY,
                (args, scope) -> Views.pack(jiyi.pack(args.string("index"),
                        new PackRequest(scope, (int) args.integer("budget", PackRequest.DEFAULT_BUDGET),
                                args.string("model"), args.string("query"), args.string("session"),
                                recallMode(args)))));
    }

    static McpTool persona(Jiyi jiyi) {
        return new McpTool("persona_read", "Read the persona",
                "Read the persona (who the assistant is, as the user set it): the latest version, or the one "
                        + "asked for. A persona that was never set reads as a neutral default, version 1. This "
                        + "server cannot change a persona; the user does that with the jiyi command line "
                        + "(jiyi persona edit / rollback).",
                List.of(McpParam.integer("version", "The version to read (default: the latest).").atLeast(1)),
                McpTool.Hints.READ_ONLY,
                (args, scope) -> {
                    Integer version = args.has("version")
                            ? (int) Math.min(Integer.MAX_VALUE, args.integer("version")) : null;
                    return McpTool.naming("version", "this persona has no such version", null,
                            () -> Views.persona(jiyi.authority().persona(scope.personaId(), version)));
                });
    }
}
