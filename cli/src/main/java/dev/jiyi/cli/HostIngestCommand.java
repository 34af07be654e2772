package dev.jiyi.cli;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.CaptureCursor;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jiyi host-ingest} (H1, D4): a host's visible messages, with the stable IDs the host gave
 * them, and its checkpoints, captured into one scope through the instance's cursor.
 *
 * <p>The cursor is the ID of the last message captured. Lines up to and including it are already
 * captured and are skipped, so a message deleted since (D1) is not brought back by a replay of the
 * host's history; when the input does not hold the cursor's message, every line is new. New
 * messages commit first, in chunks as they arrive (as {@code event submit --batch}: a chunk
 * commits when full or when no more input is waiting). At the end of the input, the checkpoints
 * are saved and the cursor moved to the last message, in one transaction, only if no other capture
 * of the instance moved it since this one read it (compare-and-set on its version; otherwise exit
 * 3). A run interrupted before that leaves the cursor where it was: its replay resubmits the same
 * IDs, which stores nothing twice (E2).
 */
@Command(name = "host-ingest", description = {"Capture a host's visible messages and checkpoints through the instance's cursor.",
        "One JSON object per line: a message {\"id\", \"role\", \"text\", \"session\", \"occurred_at\",",
        "\"source\"?, \"category\"?} or {\"checkpoint\": {\"session\", \"goal\", \"done\"?, \"pending\"?,",
        "\"constraints\"?, \"next\"?, \"covered_seq\" or \"covered_id\"}}. Lines through the cursor's",
        "message are skipped; messages commit first; the cursor moves last, by compare-and-set",
        "(exit 3 when another capture of the instance moved it meanwhile: run again)."})
final class HostIngestCommand extends Verb {

    /** Fields of a host-ingest line: a message's (as {@code event submit --batch}) or a checkpoint. */
    static final Set<String> FIELDS;
    static final Set<String> CHECKPOINT_FIELDS = Set.of("session", "goal", "done", "pending", "constraints", "next",
            "covered_seq", "covered_id");

    static {
        Set<String> fields = new HashSet<>(EventCommand.BATCH_FIELDS);
        fields.add("checkpoint");
        FIELDS = Set.copyOf(fields);
    }

    @Option(names = "--instance", required = true, paramLabel = "ID",
            description = "The host installation whose cursor this capture advances.")
    String instance;

    @Option(names = "--file", paramLabel = "F", description = "JSON-lines file (default: standard input).")
    Path file;

    @Option(names = "--chunk-size", paramLabel = "N", defaultValue = "500",
            description = "Messages per transaction at most (default: ${DEFAULT-VALUE}).")
    int chunkSize;

    /** A parsed line: a message or a checkpoint, with its line number. */
    private record Line(int number, EventSubmission message, JsonLine checkpoint) {
    }

    @Override
    int run(Jiyi jiyi, Output out) throws IOException {
        if (chunkSize < 1) {
            throw new InvalidInputException("chunk_size", "must be at least 1");
        }
        Scope scope = scope();
        Authority authority = jiyi.authority();
        Optional<CaptureCursor> cursor = authority.captureCursor(instance);
        if (cursor.isPresent() && !cursor.get().scope().equals(scope)) {
            throw new InvalidInputException("instance", "captures into another persona and project: one instance has one scope");
        }
        Capture capture = new Capture(authority, out, cursor.map(CaptureCursor::position).orElse(null));
        try (InputStream in = BatchRunner.open(file == null ? Path.of("-") : file, root().stdin());
             Progress progress = out.progress("host-ingest", 0)) {
            BatchRunner.LineInput input = new BatchRunner.LineInput(in);
            int number = 0;
            for (byte[] next = input.next(); next != null; next = input.next()) {
                number++;
                byte[] bytes = next;
                String text = atLine(number, () -> BatchRunner.decode(bytes));
                if (!text.isBlank()) {
                    int n = number;
                    capture.accept(atLine(number, () -> parse(n, text, scope)), progress);
                }
                if (!input.waiting()) {
                    capture.flush(progress); // a host streaming lines gets each acknowledged as soon as it is durable
                }
            }
            capture.endOfInput(progress);
        }
        long version = cursor.map(CaptureCursor::version).orElse(0L);
        List<CheckpointDraft> drafts = new ArrayList<>();
        for (Line line : capture.checkpoints) {
            drafts.add(atLine(line.number(), () -> draft(authority, scope, line.checkpoint())));
        }
        String position = capture.lastMessage != null ? capture.lastMessage : capture.position;
        CaptureCursor moved = null;
        if (capture.lastMessage != null || !drafts.isEmpty()) {
            if (position == null) {
                throw new InvalidInputException("checkpoint", "must follow a captured message: this instance has captured none");
            }
            moved = authority.advanceCapture(scope, instance, version, position, drafts);
        }
        report(out, capture, drafts.size(), moved != null ? moved : cursor.orElse(null));
        return ExitCode.OK;
    }

    /** Runs {@code work}, naming the line in any error it reports. */
    private static <T> T atLine(int number, java.util.function.Supplier<T> work) {
        try {
            return work.get();
        } catch (InvalidInputException e) {
            throw new InvalidInputException("line " + number + ": " + e.field(), e.rule());
        }
    }

    private static Line parse(int number, String text, Scope scope) {
        JsonLine line = JsonLine.parse(text, FIELDS);
        JsonLine checkpoint = line.object("checkpoint", CHECKPOINT_FIELDS);
        if (checkpoint != null) {
            for (String other : EventCommand.BATCH_FIELDS) {
                if (line.has(other)) {
                    throw new InvalidInputException("checkpoint", "must be alone on its line, not beside a message's fields");
                }
            }
            return new Line(number, null, checkpoint);
        }
        EventSubmission message = EventCommand.Submit.parse(line, scope);
        if (!message.scope().equals(scope)) {
            throw new InvalidInputException("persona", "must be the capture's scope (--persona/--project): "
                    + "one instance captures into one scope");
        }
        return new Line(number, message, null);
    }

    private static CheckpointDraft draft(Authority authority, Scope scope, JsonLine c) {
        Long seq = c.integer("covered_seq");
        String coveredId = c.string("covered_id");
        if ((seq == null) == (coveredId == null)) {
            throw new InvalidInputException("checkpoint", "give exactly one of covered_seq or covered_id");
        }
        if (coveredId != null) {
            Event covered = authority.event(scope, coveredId).orElseThrow(() -> new InvalidInputException(
                    "checkpoint.covered_id", "must be the ID of a message captured into this scope"));
            seq = covered.sequence();
        }
        return new CheckpointDraft(c.requiredString("session"), c.requiredString("goal"), c.strings("done"),
                c.strings("pending"), c.strings("constraints"), c.string("next"), seq);
    }

    /** The capture in progress: what is skipped, held, committed and still to save. */
    private final class Capture {
        private final Authority authority;
        private final Output out;
        private final String position;
        /** Lines read while the cursor's message may still be ahead: captured or not, unknown yet. */
        private final List<Line> held = new ArrayList<>();
        private final List<Line> chunk = new ArrayList<>();
        private final List<Line> checkpoints = new ArrayList<>();
        private boolean skipping;
        private long skipped;
        private long created;
        private long existing;
        private String lastMessage;

        Capture(Authority authority, Output out, String position) {
            this.authority = authority;
            this.out = out;
            this.position = position;
            this.skipping = position != null;
        }

        void accept(Line line, Progress progress) {
            if (skipping) {
                if (line.message() != null && line.message().id().equals(position)) {
                    skipped += held.size() + 1; // through the cursor's message: captured before
                    held.clear();
                    skipping = false;
                    progress.advance(skipped);
                } else {
                    held.add(line);
                }
                return;
            }
            take(line, progress);
        }

        /** The input ended: if the cursor's message never came, every line held is new. */
        void endOfInput(Progress progress) {
            if (skipping) {
                skipping = false;
                for (Line line : held) {
                    take(line, progress);
                }
                held.clear();
            }
            flush(progress);
        }

        private void take(Line line, Progress progress) {
            if (line.checkpoint() != null) {
                checkpoints.add(line);
                progress.advance();
                return;
            }
            chunk.add(line);
            lastMessage = line.message().id();
            if (chunk.size() >= chunkSize) {
                flush(progress);
            }
        }

        void flush(Progress progress) {
            if (chunk.isEmpty()) {
                return;
            }
            BatchResult<SubmitResult> result = authority.submitEvents(chunk.stream().map(Line::message).toList());
            for (int i = 0; i < result.committed().size(); i++) {
                SubmitResult r = result.committed().get(i);
                if (r.created()) {
                    created++;
                } else {
                    existing++;
                }
                if (out.json()) {
                    Map<String, Object> ack = new LinkedHashMap<>();
                    ack.put("line", chunk.get(i).number());
                    ack.put("status", r.created() ? "created" : "existing");
                    ack.put("id", r.event().id());
                    ack.put("sequence", r.event().sequence());
                    out.json(ack);
                }
            }
            progress.advance(result.committed().size());
            if (result.failed()) {
                progress.stop();
                JiyiException e = result.error();
                int line = chunk.get(result.failedAt()).number();
                if (e instanceof InvalidInputException invalid) {
                    throw new InvalidInputException("line " + line + ": " + invalid.field(), invalid.rule());
                }
                throw e; // a conflict (exit 3): an ID stored with another payload; the cursor stays
            }
            chunk.clear();
        }
    }

    private void report(Output out, Capture capture, int checkpoints, CaptureCursor cursor) {
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("instance", instance);
            m.put("skipped", capture.skipped);
            m.put("created", capture.created);
            m.put("existing", capture.existing);
            m.put("checkpoints", checkpoints);
            m.put("cursor", cursor == null ? null : Map.of("position", cursor.position(), "version", cursor.version()));
            out.json(Map.of("summary", m));
        } else {
            out.text("captured for instance " + instance + ": " + capture.created + " new message(s), " + capture.existing
                    + " already stored, " + capture.skipped + " line(s) skipped as captured before, " + checkpoints
                    + " checkpoint(s); cursor "
                    + (cursor == null ? "not set" : "at " + cursor.position() + " (version " + cursor.version() + ")"));
        }
    }
}
