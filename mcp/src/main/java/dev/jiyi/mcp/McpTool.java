package dev.jiyi.mcp;

import dev.jiyi.authority.ConflictException;
import dev.jiyi.authority.Ids;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.ExitCode;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One tool of {@code jiyi mcp}: what a host shows the model (name, title, description, the input
 * schema made from {@link #params}, behaviour hints) and what the tool does with the engine. Every
 * tool also takes {@code persona} and {@code project} (S1), which default to the server's
 * {@code --persona} and {@code --project}.
 */
record McpTool(String name, String title, String description, List<McpParam> params, Hints hints, Handler handler) {

    /** What the tool does: the checked arguments and the scope in, a JSON object (CLI {@code --json} shape) out. */
    @FunctionalInterface
    interface Handler {
        Map<String, Object> call(McpArguments args, Scope scope);
    }

    /** The MCP behaviour hints a host may use to decide whether to ask the person first. */
    enum Hints {
        /** Reads only (persona_read may create the neutral first version of an absent persona, S3). */
        READ_ONLY,
        /** Adds data; calling it again with the same arguments changes nothing more (E2). */
        ADDITIVE_IDEMPOTENT,
        /** Adds data; each call adds more. */
        ADDITIVE,
        /** Revokes or removes data. */
        DESTRUCTIVE
    }

    /** The rule of an ID that names nothing: in another scope or absent are the same to the caller (S7). */
    static final String NO_MEMORY = "no memory with this ID in this persona and project";
    static final String NO_EVENT = "no event with this ID in this persona and project";

    /** The scope arguments every tool takes (S1). */
    static final List<McpParam> SCOPE = List.of(
            McpParam.string("persona", "Persona ID (scope partition). Default: the server's --persona, normally "
                    + "\"default\".").maxLength(Ids.MAX_ID_LENGTH),
            McpParam.string("project", "Project ID (scope partition). Default: the server's --project, normally "
                    + "\"default\".").maxLength(Ids.MAX_ID_LENGTH));

    McpTool {
        List<McpParam> all = new ArrayList<>(params);
        all.addAll(SCOPE);
        params = List.copyOf(all);
    }

    /** The tool as {@code tools/list} shows it. */
    McpSchema.Tool definition() {
        McpSchema.ToolAnnotations annotations = McpSchema.ToolAnnotations.builder()
                .title(title)
                .readOnlyHint(hints == Hints.READ_ONLY)
                .destructiveHint(hints == Hints.DESTRUCTIVE)
                .idempotentHint(hints == Hints.READ_ONLY || hints == Hints.ADDITIVE_IDEMPOTENT)
                .openWorldHint(false)
                .build();
        return McpSchema.Tool.builder(name, McpParam.objectSchema(params))
                .title(title)
                .description(description)
                .annotations(annotations)
                .outputSchema(Map.of("type", "object"))
                .build();
    }

    /**
     * A failure reported to the model as a tool error: a stable code (as {@code --json} errors name
     * them) and a message that names the field and the rule, never the value.
     */
    static final class Failure extends RuntimeException {
        private final String code;

        Failure(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }

        String code() {
            return code;
        }
    }

    /**
     * Runs {@code work}, reporting a missing or conflicting thing under the argument that named it
     * (the authority's own messages quote the ID; a tool error never echoes a value).
     *
     * @param missing the rule when the thing is not found ("no memory with this ID in this scope")
     * @param conflict the rule a {@link ConflictException} broke, or null when the work cannot conflict
     */
    static <T> T naming(String field, String missing, String conflict, Supplier<T> work) {
        try {
            return work.get();
        } catch (NotFoundException e) {
            throw new Failure(ExitCode.name(ExitCode.NOT_FOUND), field + ": " + missing);
        } catch (ConflictException e) {
            if (conflict == null) {
                throw e;
            }
            throw new Failure(ExitCode.name(ExitCode.CONFLICT), field + ": " + conflict);
        }
    }
}
