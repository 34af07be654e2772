package dev.jiyi.cli;

import dev.jiyi.authority.Category;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.Times;
import dev.jiyi.engine.BatchRunner;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Ingest;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code jiyi event submit}: store original conversation events (E1-E4). */
@Command(name = "event", description = "Submit original events.", subcommands = EventCommand.Submit.class)
final class EventCommand {

    /** Fields of one {@code event submit --batch} line. */

    @Command(name = "submit", description = {"Store one original event, or many with --batch.",
            "A batch is one JSON object per line: {\"id\", \"role\", \"text\", \"session\",",
            "\"occurred_at\", \"source\"?, \"category\"?, \"persona\"?, \"project\"?}."})
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

        @Option(names = "--extract", description = {"After the event commits, extract memories through the configured model",
                "(JIYI_EXTRACT_URL, JIYI_EXTRACT_MODEL); on failure the event stays saved and pending (exit 5)."})
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
            if (extract) {
                Ingest.Outcome outcome = jiyi.ingest().submit(submission);
                if (out.json()) {
                    Map<String, Object> m = Views.submission(outcome.event(), outcome.created());
                    m.put("extraction", Views.ingest(outcome));
                    out.json(m);
                } else {
                    out.text(acknowledgement(new SubmitResult(outcome.event(), outcome.created())));
                }
                return IngestOutput.report(out, outcome);
            }
            SubmitResult result = jiyi.authority().submitEvent(submission);
            if (out.json()) {
                out.json(Views.submission(result.event(), result.created()));
            } else {
                out.text(acknowledgement(result));
            }
            return ExitCode.OK;
        }

        private static String acknowledgement(SubmitResult result) {
            return (result.created() ? "created" : "already stored, nothing changed:") + " event "
                    + result.event().id() + " (sequence " + result.event().sequence() + ", " + result.event().role().code()
                    + ", occurred " + Times.format(result.event().occurredAt()) + ")";
        }

        private int batch(Jiyi jiyi, Output out) {
            Scope defaults = scope();
            Ingest ingest = jiyi.ingest();
            if (extract) {
                ingest.checkConfiguration(); // a configuration mistake: before any line commits
            }
            BatchRunner.Outcome<SubmitResult> outcome = jiyi.submitBatch(mode.batch, root().stdin(), defaults, extract,
                    chunkSize, out);
            long created = outcome.committed().stream().filter(SubmitResult::created).count();
            long existing = outcome.committed().size() - created;
            Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("committed", outcome.committed().size());
            summary.put("created", created);
            summary.put("existing", existing);
            if (outcome.error() != null) {
                summary.put("failed_line", outcome.failedLine());
            }
            // With --extract: every committed event is queued (E5); now extract them, in order.
            List<Ingest.Outcome> extractions = List.of();
            int code = ExitCode.OK;
            int untried = 0;
            if (extract) {
                Ingest.Retry done = ingest.extractQueued(outcome.committed());
                extractions = done.outcomes();
                untried = done.untried();
                Map<Ingest.Status, Long> counts = new java.util.EnumMap<>(Ingest.Status.class);
                for (Ingest.Outcome o : extractions) {
                    counts.merge(o.status(), 1L, Long::sum);
                }
                for (Ingest.Status status : Ingest.Status.values()) {
                    summary.put(status.name().toLowerCase(java.util.Locale.ROOT), counts.getOrDefault(status, 0L));
                }
                summary.put("untried", untried);
            }
            if (out.json()) {
                out.json(extract ? IngestOutput.json(extractions, summary) : Map.of("summary", summary));
            } else {
                out.text("submitted " + outcome.committed().size() + " event(s): " + created + " new, " + existing
                        + " already stored");
                for (Ingest.Outcome o : extractions) {
                    Views.ingestText(o).forEach(out::text);
                }
                if (untried > 0) {
                    out.text(untried + " more event(s) saved and pending, not tried after the endpoint failed");
                }
            }
            for (Ingest.Outcome o : extractions) {
                code = Math.max(code, IngestOutput.warn(out, o));
            }
            if (outcome.error() != null) {
                int failure = ExitCode.of(outcome.error());
                out.error(failure, "line " + outcome.failedLine() + ": " + outcome.error().getMessage()
                        + " (" + outcome.committed().size() + " line(s) before it committed)");
                return failure;
            }
            return code;
        }

    }
}
