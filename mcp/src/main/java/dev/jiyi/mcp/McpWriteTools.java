package dev.jiyi.mcp;

import dev.jiyi.authority.Category;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Ids;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.engine.Ingest;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Views;

import java.util.List;
import java.util.Map;

/**
 * The tools of {@code jiyi mcp} that write: {@code event_submit}, {@code checkpoint_save},
 * {@code memory_correct} and {@code memory_delete}. None of them changes a persona (S6). Their
 * results are the CLI's {@code --json} documents ({@link Views#submission}, {@link Views#ingest},
 * {@link Views#checkpoint}, {@link Views#correction}, {@link Views#deletion}).
 */
final class McpWriteTools {

    private McpWriteTools() {
    }

    static McpTool submit(Jiyi jiyi) {
        return new McpTool("event_submit", "Remember a message",
                "Store one original conversation message (or reference material) in long-term memory, exactly as "
                        + "written. Submit each visible user and assistant message once, with the host's stable ID: "
                        + "submitting the same ID and content again changes nothing and returns the stored event; the "
                        + "same ID with different content is a conflict. The event is saved before anything else "
                        + "happens. With extract true, memories are then derived from it by the configured extraction "
                        + "model; if that fails, the event stays saved and its extraction pending (see extraction).",
                List.of(McpParam.string("id", "The host's stable, unique ID of this message.").required()
                                .maxLength(Ids.MAX_ID_LENGTH),
                        McpParam.string("role", "Who wrote it.").required().oneOf("user", "assistant", "system"),
                        McpParam.string("text", "The original text, unaltered.").required()
                                .maxLength(Limits.MAX_EVENT_TEXT),
                        McpParam.string("session", "The conversation (session) ID.").required()
                                .maxLength(Ids.MAX_ID_LENGTH),
                        McpParam.string("occurred_at", "When it was written: ISO-8601 with an offset or zone, e.g. "
                                + "2024-05-01T10:00:00+08:00 or 2024-05-01T02:00:00Z.").required().time().maxLength(100),
                        McpParam.string("source", "Where it came from (default \"cli\"), e.g. the host's name.")
                                .maxLength(Limits.MAX_LABEL),
                        McpParam.string("category", "conversation (default), reference (a document: searchable, never "
                                + "turned into lived-experience memories), persona (material about the persona; "
                                + "archived only, it changes no persona) or correction.")
                                .oneOf("conversation", "reference", "persona", "correction"),
                        McpParam.bool("extract", "Derive memories now through the configured extraction model "
                                + "(default false).")),
                McpTool.Hints.ADDITIVE_IDEMPOTENT,
                (args, scope) -> {
                    String category = args.string("category");
                    EventSubmission submission = new EventSubmission(args.string("id"), scope,
                            Role.parse("role", args.string("role")), args.string("text"), args.string("source"),
                            category == null ? null : Category.parse("category", category), args.string("session"),
                            args.time("occurred_at"));
                    String conflict = "an event with this ID already exists with a different payload or scope; "
                            + "nothing was changed";
                    if (!args.bool("extract", false)) {
                        SubmitResult r = McpTool.naming("id", McpTool.NO_EVENT, conflict,
                                () -> jiyi.authority().submitEvent(submission));
                        return Views.submission(r.event(), r.created());
                    }
                    Ingest.Outcome o = McpTool.naming("id", McpTool.NO_EVENT, conflict,
                            () -> jiyi.ingest().submit(submission));
                    Map<String, Object> m = Views.submission(o.event(), o.created());
                    m.put("extraction", Views.ingest(o));
                    return m;
                });
    }

    static McpTool checkpoint(Jiyi jiyi) {
        return new McpTool("checkpoint_save", "Save a task checkpoint",
                "Record where a task stands, as the host sees it: the goal, steps done and pending, constraints, "
                        + "the next action, and covered_seq, the sequence of the last event (message) it covers, "
                        + "which must be an event of this persona, project and session (its sequence is in "
                        + "event_submit's result). session_resume shows the newest valid checkpoint. A checkpoint is "
                        + "a report, not a proof that the work happened; a correction or deletion in the scope "
                        + "invalidates it.",
                List.of(McpParam.string("session", "The session the checkpoint belongs to.").required()
                                .maxLength(Ids.MAX_ID_LENGTH),
                        McpParam.string("goal", "The task's goal.").required().maxLength(Limits.MAX_CHECKPOINT_TEXT),
                        items("done", "Completed steps."),
                        items("pending", "Steps still to do."),
                        items("constraints", "Constraints the work must respect."),
                        McpParam.string("next", "The next action.").maxLength(Limits.MAX_CHECKPOINT_TEXT),
                        McpParam.integer("covered_seq", "Sequence of the last event this checkpoint covers.")
                                .required().atLeast(1)),
                McpTool.Hints.ADDITIVE,
                (args, scope) -> Views.checkpoint(jiyi.authority().saveCheckpoint(scope, new CheckpointDraft(
                        args.string("session"), args.string("goal"), args.strings("done"), args.strings("pending"),
                        args.strings("constraints"), args.string("next"), args.integer("covered_seq")))));
    }

    private static McpParam items(String name, String description) {
        return McpParam.strings(name, description + " Default: none.").maxItems(Limits.MAX_CHECKPOINT_ITEMS)
                .maxLength(Limits.MAX_CHECKPOINT_TEXT);
    }

    static McpTool correct(Jiyi jiyi) {
        return new McpTool("memory_correct", "Correct a mistaken memory",
                "Correct a memory that was wrong (the user says it is mistaken): the corrected text is recorded as "
                        + "a new correction event, the mistaken memory is revoked (it no longer appears in recall), "
                        + "a corrected memory replaces it with a 'corrects' link, and the scope's checkpoints are "
                        + "invalidated. For a fact that changed (the user moved, changed a preference), submit the "
                        + "new message with event_submit instead: the timeline keeps both.",
                List.of(McpParam.string("memory_id", "The mistaken memory's ID.").required()
                                .maxLength(Ids.MAX_ID_LENGTH),
                        McpParam.string("text", "The corrected memory text.").required()
                                .maxLength(Limits.MAX_MEMORY_TEXT),
                        McpParam.string("quote", "An exact substring of text to quote as evidence (default: all of "
                                + "it).").maxLength(Limits.MAX_QUOTE),
                        McpParam.string("valid_at", "When the corrected memory starts to hold, ISO-8601 with an "
                                + "offset or zone (default: the mistaken memory's start).").time().maxLength(100)),
                McpTool.Hints.DESTRUCTIVE,
                (args, scope) -> {
                    String id = Ids.check("memory_id", args.string("memory_id"));
                    CorrectionDraft draft = new CorrectionDraft(args.string("text"), args.string("quote"),
                            args.time("valid_at"));
                    return Views.correction(McpTool.naming("memory_id", McpTool.NO_MEMORY,
                            "this memory is already revoked by a correction; correct the memory that replaced it",
                            () -> jiyi.authority().correctMemory(scope, id, draft)));
                });
    }

    static McpTool delete(Jiyi jiyi) {
        return new McpTool("memory_delete", "Permanently forget",
                "Permanently delete what the user asks to forget. Give exactly one of event_id or memory_id: the "
                        + "source event, every memory derived from it and the whole correction lineage are removed, "
                        + "with their search entries and vectors, in one step; memories only 'related' to them stay. "
                        + "Afterwards no recall returns the deleted text. The scope's checkpoints are invalidated. "
                        + "Cannot be undone.",
                List.of(McpParam.string("event_id", "Delete starting from this event (a message's ID).")
                                .maxLength(Ids.MAX_ID_LENGTH),
                        McpParam.string("memory_id", "Delete starting from this memory.").maxLength(Ids.MAX_ID_LENGTH)),
                McpTool.Hints.DESTRUCTIVE,
                (args, scope) -> {
                    if (args.has("event_id") == args.has("memory_id")) {
                        throw new InvalidInputException("event_id", "give exactly one of event_id or memory_id");
                    }
                    if (args.has("event_id")) {
                        String id = Ids.check("event_id", args.string("event_id"));
                        return Views.deletion(McpTool.naming("event_id", McpTool.NO_EVENT, null,
                                () -> jiyi.authority().deleteEvent(scope, id)));
                    }
                    String id = Ids.check("memory_id", args.string("memory_id"));
                    return Views.deletion(McpTool.naming("memory_id", McpTool.NO_MEMORY, null,
                            () -> jiyi.authority().deleteMemory(scope, id)));
                });
    }
}
