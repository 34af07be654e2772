package dev.jiyi.engine;

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

/**
 * Host capture, as {@code jiyi host-ingest} runs it (H1, D4): a host's visible messages, with the stable IDs the host gave
 * them, and its checkpoints, captured into one scope through the instance's cursor.
 *
 * <p>The cursor is the last message captured: its ID and its time. A message that occurred before
 * that time was captured before (or deleted since, D1) and is skipped, as is the cursor's message
 * itself; the rest is new. So a replay of the host's whole history brings nothing back, whether or
 * not it still holds the cursor's message, and a host may as well send only what is new. New
 * messages commit first, in chunks as they arrive (as {@code event submit --batch}: a chunk commits
 * when full or when no more input is waiting). At the end of the input, the checkpoints are saved
 * (one already saved, or whose message is gone, is skipped) and the cursor moved to the newest
 * message, in one transaction, only if no other capture of the instance moved it since this one
 * read it (compare-and-set on its version; otherwise exit 3). A run interrupted before that leaves
 * the cursor where it was: its replay resubmits the same IDs, which stores nothing twice (E2).
 */
public final class HostCapture {

    /** Fields of a host-ingest line: a message's (as {@code event submit --batch}) or a checkpoint. */
    static final Set<String> FIELDS;
    static final Set<String> CHECKPOINT_FIELDS = Set.of("session", "goal", "done", "pending", "constraints", "next",
            "covered_seq", "covered_id");

    static {
        Set<String> fields = new HashSet<>(EventLines.FIELDS);
        fields.add("checkpoint");
        FIELDS = Set.copyOf(fields);
    }

    private final String instance;
    private final Scope scope;
    private final Path file;
    private final InputStream stdin;
    private final int chunkSize;

    /**
     * @param instance  the host installation whose cursor this capture advances
     * @param scope     the persona and project the instance captures into
     * @param file      the JSON-lines input, or null (or {@code -}) for {@code stdin}
     * @param chunkSize messages per transaction at most
     */
    public HostCapture(String instance, Scope scope, Path file, InputStream stdin, int chunkSize) {
        this.instance = instance;
        this.scope = scope;
        this.file = file;
        this.stdin = stdin;
        this.chunkSize = chunkSize;
    }

    /** A parsed line: a message or a checkpoint, with its line number. */
    private record Line(int number, EventSubmission message, JsonLine checkpoint) {
    }

    /** Captures the input; reports on {@code out}; returns the exit code. */
    public int run(Jiyi jiyi, Output out) throws IOException {
        if (chunkSize < 1) {
            throw new InvalidInputException("chunk_size", "must be at least 1");
        }
        Authority authority = jiyi.authority();
        Optional<CaptureCursor> cursor = authority.captureCursor(instance);
        if (cursor.isPresent() && !cursor.get().scope().equals(scope)) {
            throw new InvalidInputException("instance", "captures into another persona and project: one instance has one scope");
        }
        Capture capture = new Capture(authority, out, cursor.orElse(null));
        try (InputStream in = BatchRunner.open(file == null ? Path.of("-") : file, stdin, "file");
             Progress progress = out.progress("host-ingest", 0)) {
            BatchRunner.LineInput input = new BatchRunner.LineInput(in);
            int number = 0;
            for (byte[] next = input.next(); next != null; next = input.next()) {
                number++;
                byte[] bytes = next;
                int n = number;
                try {
                    String text = atLine(number, () -> BatchRunner.decode(bytes));
                    if (!text.isBlank()) {
                        capture.accept(atLine(number, () -> parse(n, text, scope)), progress);
                    }
                } catch (InvalidInputException e) {
                    capture.flush(progress); // the lines before a bad one stay committed, as in a batch
                    progress.stop();
                    // ...and covered by the cursor, so that one deleted before the next run stays deleted
                    if (capture.newest != null) {
                        try {
                            advance(authority, scope, cursor, capture, List.of());
                        } catch (dev.jiyi.authority.ConflictException lost) {
                            e.addSuppressed(lost); // another run moved it: that run's cursor covers its own
                        }
                    }
                    throw e;
                }
                if (!input.waiting()) {
                    capture.flush(progress); // a host streaming lines gets each acknowledged as soon as it is durable
                }
            }
            capture.flush(progress);
        }
        List<CheckpointDraft> drafts = new ArrayList<>();
        int unresolved = 0;
        for (Line line : capture.checkpoints) {
            CheckpointDraft d = atLine(line.number(), () -> draft(authority, scope, line.checkpoint()));
            if (d == null) {
                unresolved++; // its message is not here (deleted since, or never captured)
            } else {
                drafts.add(d);
            }
        }
        CaptureCursor.Advanced advanced = null;
        if (capture.newest != null || !drafts.isEmpty()) {
            if (capture.newest == null && cursor.isEmpty()) {
                throw new InvalidInputException("checkpoint", "must follow a captured message: this instance has captured none");
            }
            advanced = advance(authority, scope, cursor, capture, drafts);
        }
        int skippedCheckpoints = unresolved + (advanced == null ? 0 : advanced.checkpointsSkipped());
        if (skippedCheckpoints > 0) {
            out.warn(skippedCheckpoints + " checkpoint(s) not saved: saved before, or their message is gone");
        }
        report(out, capture, advanced == null ? 0 : advanced.checkpointsSaved(), skippedCheckpoints,
                advanced != null ? advanced.cursor() : cursor.orElse(null));
        return ExitCode.OK;
    }

    /**
     * Saves the checkpoints and moves the cursor past the capture's newest message (or keeps it where
     * it is when there is none), by compare-and-set on the version read at the start.
     */
    private CaptureCursor.Advanced advance(Authority authority, Scope scope, Optional<CaptureCursor> cursor, Capture capture,
                                           List<CheckpointDraft> drafts) {
        long version = cursor.map(CaptureCursor::version).orElse(0L);
        Line newest = capture.newest;
        if (newest == null) { // checkpoints only: the cursor stays where it is
            CaptureCursor c = cursor.orElseThrow();
            return authority.advanceCapture(scope, instance, version, c.position(), c.occurredAt(), c.idsAt(), drafts);
        }
        java.time.Instant at = newest.message().occurredAt();
        Set<String> ids = new java.util.LinkedHashSet<>();
        if (cursor.isPresent() && at.equals(cursor.get().occurredAt())) {
            ids.addAll(cursor.get().idsAt()); // the same instant: what was captured at it before still was
        }
        ids.addAll(capture.idsAtNewest);
        return authority.advanceCapture(scope, instance, version, newest.message().id(), at, List.copyOf(ids), drafts);
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
            for (String other : EventLines.FIELDS) {
                if (line.has(other)) {
                    throw new InvalidInputException("checkpoint", "must be alone on its line, not beside a message's fields");
                }
            }
            if (checkpoint.has("covered_seq") == checkpoint.has("covered_id")) {
                throw new InvalidInputException("checkpoint", "give exactly one of covered_seq or covered_id");
            }
            if (checkpoint.has("covered_id")) {
                dev.jiyi.authority.Ids.check("checkpoint.covered_id", checkpoint.string("covered_id"));
            }
            // Its shape, now (the covered message is looked up at the end, when it has committed).
            new CheckpointDraft(checkpoint.requiredString("session"), checkpoint.requiredString("goal"),
                    checkpoint.strings("done"), checkpoint.strings("pending"), checkpoint.strings("constraints"),
                    checkpoint.string("next"), checkpoint.has("covered_seq") ? checkpoint.integer("covered_seq") : 1L);
            return new Line(number, null, checkpoint);
        }
        EventSubmission message = EventLines.parse(line, scope);
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
            Optional<Event> covered = authority.event(scope, coveredId);
            if (covered.isEmpty()) {
                return null;
            }
            seq = covered.get().sequence();
        }
        return new CheckpointDraft(c.requiredString("session"), c.requiredString("goal"), c.strings("done"),
                c.strings("pending"), c.strings("constraints"), c.string("next"), seq);
    }

    /** The capture in progress: what is skipped, committed and still to save. */
    private final class Capture {
        private final Authority authority;
        private final Output out;
        private final CaptureCursor cursor;
        private final List<Line> chunk = new ArrayList<>();
        private final List<Line> checkpoints = new ArrayList<>();
        private long skipped;
        private long created;
        private long existing;
        /** The new message that occurred last (the later line of two at the same time): the next cursor. */
        private Line newest;
        /** The new messages at {@link #newest}'s time. */
        private final Set<String> idsAtNewest = new java.util.LinkedHashSet<>();

        Capture(Authority authority, Output out, CaptureCursor cursor) {
            this.authority = authority;
            this.out = out;
            this.cursor = cursor;
        }

        void accept(Line line, Progress progress) {
            if (line.checkpoint() != null) {
                checkpoints.add(line);
                progress.advance();
                return;
            }
            EventSubmission m = line.message();
            if (capturedBefore(m)) {
                skipped++;
                progress.advance();
                return;
            }
            chunk.add(line);
            if (newest == null || m.occurredAt().isAfter(newest.message().occurredAt())) {
                idsAtNewest.clear();
            }
            if (newest == null || !m.occurredAt().isBefore(newest.message().occurredAt())) {
                newest = line;
                idsAtNewest.add(m.id());
            }
            if (chunk.size() >= chunkSize) {
                flush(progress);
            }
        }

        /** Captured before (or deleted since): see {@link CaptureCursor#covers}. */
        private boolean capturedBefore(EventSubmission m) {
            return cursor != null && cursor.covers(m.id(), m.occurredAt());
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

    private void report(Output out, Capture capture, int checkpoints, int checkpointsSkipped, CaptureCursor cursor) {
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("instance", instance);
            m.put("skipped", capture.skipped);
            m.put("created", capture.created);
            m.put("existing", capture.existing);
            m.put("checkpoints", checkpoints);
            m.put("checkpoints_skipped", checkpointsSkipped);
            m.put("cursor", cursor == null ? null : Map.of("position", cursor.position(), "version", cursor.version()));
            out.json(Map.of("summary", m));
        } else {
            out.text("captured for instance " + instance + ": " + capture.created + " new message(s), " + capture.existing
                    + " already stored, " + capture.skipped + " skipped as captured before, " + checkpoints
                    + " checkpoint(s) saved; cursor "
                    + (cursor == null ? "not set" : "at " + cursor.position() + " (version " + cursor.version() + ")"));
        }
    }
}
