package dev.jiyi.cli;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Correction;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.MemoryView;
import dev.jiyi.authority.Relation;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Times;
import dev.jiyi.engine.BatchRunner;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.JsonLine;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code jiyi memory add|read|correct}: derive memories by hand (M2), read them with their evidence
 * and lineage (M4), correct a mistaken one (C1, C2).
 */
@Command(name = "memory", description = "Derive memories by hand, read and correct them.",
        subcommands = {MemoryCommand.Add.class, MemoryCommand.Read.class, MemoryCommand.Correct.class})
final class MemoryCommand {

    /** Fields of one {@code memory add --batch} line (the same as the flags, snake_case). */
    static final Set<String> BATCH_FIELDS = Set.of("event", "kind", "basis", "text", "quote", "subject", "fact_key",
            "valid_at", "invalid_at", "confidence", "gist", "cues", "emotion_label", "valence", "arousal",
            "persona", "project");

    static Emotion emotion(String label, Double valence, Double arousal) {
        if (label == null && valence == null && arousal == null) {
            return null;
        }
        if (label == null || valence == null || arousal == null) {
            throw new InvalidInputException("emotion", "emotion_label, valence and arousal go together: give all three or none");
        }
        return new Emotion(label, valence, arousal);
    }

    static void printMemory(Output out, Memory m) {
        out.text(m.id() + "  [" + m.kind().code() + ", " + m.basis().code() + ", confidence " + m.confidence() + "]"
                + (m.revoked() ? "  REVOKED" : ""));
        out.text("  " + m.text());
        out.text("  quote: 「" + m.quote() + "」 from event " + m.eventId());
        out.text("  valid: " + Times.format(m.validity().validAt()) + " .. "
                + (m.validity().invalidAt() == null ? "now" : Times.format(m.validity().invalidAt())));
        if (m.factKey() != null) {
            out.text("  fact: " + m.subject() + " / " + m.factKey());
        }
        if (m.gist() != null) {
            out.text("  gist: " + m.gist());
        }
        if (!m.cueKeys().isEmpty()) {
            out.text("  cues: " + String.join(", ", m.cueKeys()));
        }
        if (m.emotion() != null) {
            out.text("  emotion: " + m.emotion().label() + " (valence " + m.emotion().valence() + ", arousal "
                    + m.emotion().arousal() + ")");
        }
    }

    @Command(name = "add", description = {"Derive a memory from one event by hand, or many with --batch.",
            "The same validation as extraction applies. A batch is one JSON object per line",
            "with the same fields, snake_case; \"cues\" is an array of strings."})
    static final class Add extends Verb {

        @ArgGroup(exclusive = true, multiplicity = "1")
        Mode mode;

        static final class Mode {
            @ArgGroup(exclusive = false)
            Single single;

            @Option(names = "--batch", paramLabel = "FILE|-", required = true,
                    description = "JSON-lines file of memories, - for stdin.")
            Path batch;
        }

        static final class Single {
            @Option(names = "--event", required = true, paramLabel = "ID", description = "Source event ID.")
            String event;
            @Option(names = "--kind", required = true, paramLabel = "K",
                    description = "fact, preference, episode, observation, emotion, agreement or growth.")
            Kind kind;
            @Option(names = "--basis", required = true, paramLabel = "B",
                    description = "user_statement, assistant_expression or inference.")
            Basis basis;
            @Option(names = "--text", required = true, paramLabel = "T", description = "The derived memory text.")
            String text;
            @Option(names = "--quote", required = true, paramLabel = "Q",
                    description = "Exact substring of the source event's text.")
            String quote;
            @Option(names = "--subject", paramLabel = "S", description = "Subject of a single-valued fact.")
            String subject;
            @Option(names = "--fact-key", paramLabel = "K", description = "Key of a single-valued fact (user statements only).")
            String factKey;
            @Option(names = "--valid-at", paramLabel = "TIME", description = "Start of validity (default: the event's time).")
            String validAt;
            @Option(names = "--invalid-at", paramLabel = "TIME", description = "End of validity (exclusive).")
            String invalidAt;
            @Option(names = "--confidence", paramLabel = "C", description = "Ranking metadata in [0, 1] (default: 1.0).")
            Double confidence;
            @Option(names = "--gist", paramLabel = "G", description = "A short gist.")
            String gist;
            @Option(names = "--cue", paramLabel = "C", description = "A cue key (photo/text identifier or label); repeatable.")
            List<String> cues = new ArrayList<>();
            @Option(names = "--emotion-label", paramLabel = "L", description = "Expressed emotion (assistant expressions only).")
            String emotionLabel;
            @Option(names = "--valence", paramLabel = "V", description = "Emotion valence in [-1, 1].")
            Double valence;
            @Option(names = "--arousal", paramLabel = "A", description = "Emotion arousal in [0, 1].")
            Double arousal;
        }

        @Option(names = "--chunk-size", paramLabel = "N", defaultValue = "500",
                description = "With --batch: lines per transaction at most (default: ${DEFAULT-VALUE}).")
        int chunkSize;

        @Override
        int run(Jiyi jiyi, Output out) {
            if (mode.batch != null) {
                return batch(jiyi, out);
            }
            Single s = mode.single;
            MemoryDraft draft = MemoryDraft.builder(s.event)
                    .kind(s.kind).basis(s.basis).text(s.text).quote(s.quote)
                    .subject(s.subject).factKey(s.factKey)
                    .validAt(s.validAt == null ? null : Times.parse("valid_at", s.validAt))
                    .invalidAt(s.invalidAt == null ? null : Times.parse("invalid_at", s.invalidAt))
                    .confidence(s.confidence).gist(s.gist).cues(s.cues)
                    .emotion(emotion(s.emotionLabel, s.valence, s.arousal))
                    .build();
            Memory memory = jiyi.authority().addMemory(scope(), draft);
            if (out.json()) {
                out.json(Map.of("memory", Views.memory(memory)));
            } else {
                out.text("derived memory:");
                printMemory(out, memory);
            }
            return ExitCode.OK;
        }

        private int batch(Jiyi jiyi, Output out) {
            Scope defaults = scope();
            BatchRunner<Derivation, Memory> runner = new BatchRunner<>(BATCH_FIELDS, line -> parse(line, defaults),
                    jiyi.authority()::addMemories, Add::ack, chunkSize);
            BatchRunner.Outcome<Memory> outcome = runner.run(mode.batch, root().stdin(), out, "memory add --batch");
            Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("committed", outcome.committed().size());
            if (outcome.error() != null) {
                summary.put("failed_line", outcome.failedLine());
            }
            if (out.json()) {
                out.json(Map.of("summary", summary));
            } else {
                out.text("derived " + outcome.committed().size() + " memories");
            }
            if (outcome.error() != null) {
                int code = ExitCode.of(outcome.error());
                out.error(code, "line " + outcome.failedLine() + ": " + outcome.error().getMessage()
                        + " (" + outcome.committed().size() + " line(s) before it committed)");
                return code;
            }
            return ExitCode.OK;
        }

        static Derivation parse(JsonLine line, Scope defaults) {
            String persona = line.string("persona");
            String project = line.string("project");
            Scope scope = new Scope(persona == null ? defaults.personaId() : persona,
                    project == null ? defaults.projectId() : project);
            String validAt = line.string("valid_at");
            String invalidAt = line.string("invalid_at");
            MemoryDraft draft = MemoryDraft.builder(line.requiredString("event"))
                    .kind(Kind.parse("kind", line.requiredString("kind")))
                    .basis(Basis.parse("basis", line.requiredString("basis")))
                    .text(line.requiredString("text"))
                    .quote(line.requiredString("quote"))
                    .subject(line.string("subject"))
                    .factKey(line.string("fact_key"))
                    .validAt(validAt == null ? null : Times.parse("valid_at", validAt))
                    .invalidAt(invalidAt == null ? null : Times.parse("invalid_at", invalidAt))
                    .confidence(line.number("confidence"))
                    .gist(line.string("gist"))
                    .cues(line.strings("cues"))
                    .emotion(emotion(line.string("emotion_label"), line.number("valence"), line.number("arousal")))
                    .build();
            return new Derivation(scope, draft);
        }

        private static Map<String, Object> ack(Memory m) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("status", "created");
            a.put("id", m.id());
            a.put("event", m.eventId());
            return a;
        }
    }

    @Command(name = "read", description = "Show a memory, its source text (paged), co-derived memories and relations.")
    static final class Read extends Verb {
        @Parameters(index = "0", paramLabel = "ID", description = "Memory ID.")
        String id;

        @Option(names = "--page", paramLabel = "N", defaultValue = "1", description = "Page of the source text (default: 1).")
        int page;

        @Option(names = "--page-size", paramLabel = "CHARS", defaultValue = "" + Authority.DEFAULT_PAGE_SIZE,
                description = "Characters per page (default: ${DEFAULT-VALUE}).")
        int pageSize;

        @Override
        int run(Jiyi jiyi, Output out) {
            MemoryView view = jiyi.authority().readMemory(scope(), id, page, pageSize);
            if (out.json()) {
                out.json(Views.memoryView(view));
                return ExitCode.OK;
            }
            printMemory(out, view.memory());
            var source = view.source();
            out.text("");
            out.text("source event " + source.id() + " (sequence " + source.sequence() + ", " + source.role().code()
                    + ", session " + source.sessionId() + ", occurred " + Times.format(source.occurredAt()) + ")");
            out.text("page " + view.page().page() + " of " + view.page().totalPages() + " ("
                    + view.page().totalCharacters() + " characters):");
            out.text(view.page().text());
            if (!view.coDerived().isEmpty()) {
                out.text("");
                out.text("also derived from this event:");
                for (Memory m : view.coDerived()) {
                    out.text("  " + m.id() + "  [" + m.kind().code() + "] " + m.text());
                }
            }
            if (!view.relations().isEmpty()) {
                out.text("");
                out.text("relations:");
                for (Relation r : view.relations()) {
                    out.text("  " + r.fromId() + " -" + r.type().code() + "-> " + r.toId());
                }
            }
            printLineage(out, "corrects (the mistakes this memory replaced):", view.corrects());
            printLineage(out, "corrected by (newer corrections of this memory):", view.correctedBy());
            return ExitCode.OK;
        }

        private static void printLineage(Output out, String title, List<Memory> lineage) {
            if (lineage.isEmpty()) {
                return;
            }
            out.text("");
            out.text(title);
            for (Memory m : lineage) {
                out.text("  " + m.id() + (m.revoked() ? "  REVOKED " + Times.format(m.revokedAt()) : "")
                        + "  (event " + m.eventId() + ") " + m.text());
            }
        }
    }

    @Command(name = "correct", description = {"Correct a mistaken memory through a new correction event.",
            "The event holds the corrected text. The mistaken memory is revoked, the",
            "corrected one is derived with a 'corrects' link, the old event is marked",
            "amended and the scope's checkpoints are invalidated. For a fact that changed",
            "(not a mistake), submit a new event instead."})
    static final class Correct extends Verb {
        @Parameters(index = "0", paramLabel = "ID", description = "The mistaken memory's ID.")
        String id;

        @Option(names = "--text", required = true, paramLabel = "T", description = "The corrected memory text.")
        String text;

        @Option(names = "--quote", paramLabel = "Q",
                description = "Exact substring of the corrected text to quote (default: all of it).")
        String quote;

        @Option(names = "--valid-at", paramLabel = "TIME",
                description = "Start of the corrected memory's validity (default: the mistaken memory's start).")
        String validAt;

        @Override
        int run(Jiyi jiyi, Output out) {
            CorrectionDraft draft = new CorrectionDraft(text, quote,
                    validAt == null ? null : Times.parse("valid_at", validAt));
            Correction c = jiyi.authority().correctMemory(scope(), id, draft);
            if (out.json()) {
                out.json(Views.correction(c));
            } else {
                out.text("revoked " + c.revoked().id() + "; corrected memory:");
                printMemory(out, c.corrected());
                out.text("  correction event " + c.event().id() + "; old event " + c.revoked().eventId() + " marked amended");
                if (c.checkpointsInvalidated() > 0) {
                    out.text("invalidated " + c.checkpointsInvalidated() + " checkpoint(s) of this scope");
                }
            }
            return ExitCode.OK;
        }
    }
}
