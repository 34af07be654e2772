package dev.jiyi.cli;

import dev.jiyi.authority.Category;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.Times;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** {@code jiyi event submit}: store original conversation events (E1-E4). */
@Command(name = "event", description = "Submit original events.", subcommands = EventCommand.Submit.class)
final class EventCommand {

    /** Fields of one {@code event submit --batch} line. */
    static final Set<String> BATCH_FIELDS = Set.of("id", "role", "text", "session", "occurred_at", "source",
            "category", "persona", "project");

    static final String NO_EXTRACTOR = "no extraction provider is available in this build; event saved with extraction pending";

    @Command(name = "submit", description = {"Store one event, or many with --batch (one JSON object per line:",
            "{\"id\", \"role\", \"text\", \"session\", \"occurred_at\", \"source\"?, \"category\"?, \"persona\"?, \"project\"?})."})
    static final class Submit extends Verb {

        @ArgGroup(exclusive = true, multiplicity = "1")
        Mode mode;

        static final class Mode {
            @ArgGroup(exclusive = false)
            Single single;

            @Option(names = "--batch", paramLabel = "FILE|-", required = true,
                    description = "JSON-lines file of events, - for stdin.")
            Path batch;
        }

        static final class Single {
            @Option(names = "--id", required = true, paramLabel = "ID", description = "Host-supplied event ID, unique in the database.")
            String id;

            @Option(names = "--role", required = true, paramLabel = "ROLE", description = "user, assistant or system.")
            Role role;

            @Option(names = "--text", paramLabel = "T", description = "The original text.")
            String text;

            @Option(names = "--file", paramLabel = "F", description = "UTF-8 file with the original text, - for stdin.")
            Path file;

            @Option(names = "--source", paramLabel = "S", description = "Where it came from (default: cli).")
            String source;

            @Option(names = "--category", paramLabel = "C",
                    description = "conversation (default), reference, persona or correction.")
            Category category;

            @Option(names = "--session", paramLabel = "S", description = "Session ID (default: default).")
            String session;

            @Option(names = "--occurred-at", paramLabel = "TIME",
                    description = "When it happened, with an offset or zone (default: now; a re-submission keeps the stored time).")
            String occurredAt;
        }

        @Option(names = "--extract", description = "Queue extraction of memories after the event commits.")
        boolean extract;

        @Option(names = "--chunk-size", paramLabel = "N", defaultValue = "500",
                description = "With --batch: lines per transaction at most (default: ${DEFAULT-VALUE}).")
        int chunkSize;

        @Override
        int run(Jiyi jiyi, Output out) {
            return mode.batch != null ? batch(jiyi, out) : single(jiyi, out);
        }

        private int single(Jiyi jiyi, Output out) {
            Single s = mode.single;
            if ((s.text == null) == (s.file == null)) {
                throw new dev.jiyi.authority.InvalidInputException("text", "give exactly one of --text or --file");
            }
            String text = TextInput.read(s.text, s.file, root().stdin(), "text", Limits.MAX_EVENT_TEXT);
            Instant occurred = s.occurredAt == null ? null : Times.parse("occurred_at", s.occurredAt);
            EventSubmission submission = new EventSubmission(s.id, scope(), s.role, text, s.source, s.category,
                    s.session, occurred);
            SubmitResult result = jiyi.authority().submitEvent(submission);
            if (out.json()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("status", result.created() ? "created" : "existing");
                m.put("event", Views.event(result.event()));
                out.json(m);
            } else {
                out.text((result.created() ? "created" : "already stored, nothing changed:") + " event "
                        + result.event().id() + " (sequence " + result.event().sequence() + ", " + result.event().role().code()
                        + ", occurred " + Times.format(result.event().occurredAt()) + ")");
            }
            if (extract) {
                jiyi.authority().markExtractionPending(result.event().id(), NO_EXTRACTOR);
                out.warn(NO_EXTRACTOR + "; run `jiyi retry` once a provider is configured");
                return ExitCode.PROVIDER;
            }
            return ExitCode.OK;
        }

        private int batch(Jiyi jiyi, Output out) {
            if (extract) {
                throw new dev.jiyi.authority.InvalidInputException("extract", "is not supported with --batch");
            }
            Scope defaults = scope();
            BatchRunner<EventSubmission, SubmitResult> runner = new BatchRunner<>(BATCH_FIELDS,
                    line -> parse(line, defaults), jiyi.authority()::submitEvents, Submit::ack, chunkSize);
            BatchRunner.Outcome<SubmitResult> outcome = runner.run(mode.batch, root().stdin(), out);
            long created = outcome.committed().stream().filter(SubmitResult::created).count();
            long existing = outcome.committed().size() - created;
            Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("committed", outcome.committed().size());
            summary.put("created", created);
            summary.put("existing", existing);
            if (outcome.error() != null) {
                summary.put("failed_line", outcome.failedLine());
            }
            if (out.json()) {
                out.json(Map.of("summary", summary));
            } else {
                out.text("submitted " + outcome.committed().size() + " event(s): " + created + " new, " + existing
                        + " already stored");
            }
            if (outcome.error() != null) {
                int code = ExitCode.of(outcome.error());
                out.error(code, "line " + outcome.failedLine() + ": " + outcome.error().getMessage()
                        + " (" + outcome.committed().size() + " line(s) before it committed)");
                return code;
            }
            return ExitCode.OK;
        }

        static EventSubmission parse(JsonLine line, Scope defaults) {
            Scope scope = new Scope(
                    orDefault(line.string("persona"), defaults.personaId()),
                    orDefault(line.string("project"), defaults.projectId()));
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

        private static String orDefault(String value, String fallback) {
            return value == null ? fallback : value;
        }

        private static Map<String, Object> ack(SubmitResult r) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("status", r.created() ? "created" : "existing");
            m.put("id", r.event().id());
            m.put("sequence", r.event().sequence());
            return m;
        }
    }
}
