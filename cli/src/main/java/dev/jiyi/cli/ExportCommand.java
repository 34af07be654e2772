package dev.jiyi.cli;

import dev.jiyi.authority.Table;
import dev.jiyi.authority.archive.ArchiveFormat;
import dev.jiyi.authority.archive.ArchiveReport;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.PhasedProgress;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code jiyi export} (O3): an archive of the authoritative tables, of the scope of
 * {@code --persona}/{@code --project} or, with {@code --all}, of the whole database, read from one
 * snapshot while other processes may keep writing. The shape is {@code docs/archive.md}'s.
 */
@Command(name = "export", description = {"Write an archive of the stored events, memories and everything they rely on.",
        "Personas, events, memories, relations, checkpoints, extraction records and capture",
        "cursors of the scope (--persona/--project), or of every scope with --all, from one",
        "consistent snapshot. No configuration, vectors or indexes. FILE must not exist (exit 4)."})
final class ExportCommand extends Verb {

    @Option(names = "--format", required = true, paramLabel = "json|jsonl",
            description = "jsonl: a header line, then one row per line; json: one document, one row per line.")
    String format;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "The archive file to create.")
    Path file;

    @Option(names = "--all", description = "Every scope of the database, not only --persona/--project.")
    boolean all;

    @Override
    int run(Jiyi jiyi, Output out) {
        ArchiveFormat archiveFormat = ArchiveFormat.parse("format", format);
        long started = System.nanoTime();
        ArchiveReport report;
        try (PhasedProgress progress = new PhasedProgress(out)) {
            report = jiyi.authority().archives().export(file, archiveFormat, all ? null : scope(), progress);
            progress.finished();
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        long elsewhere = jiyi.authority().tableCounts().of(Table.EVENTS) - report.rows().of(Table.EVENTS);
        if (!all && elsewhere > 0) {
            out.warn("exported one scope; " + elsewhere + " event(s) of other scopes are not in the archive (--all exports every scope)");
        }
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("file", report.file().toString());
            m.put("format", archiveFormat.code());
            m.put("version", report.version());
            m.put("scope", all ? null : Map.of("persona", scope().personaId(), "project", scope().projectId()));
            m.put("bytes", report.bytes());
            m.put("millis", millis);
            m.put("rows", report.rows().byName());
            out.json(m);
        } else {
            out.text(String.format("exported %,d rows (%s) to %s: %,d bytes, format %s version %d, in %d ms",
                    report.total(), all ? "every scope" : "scope " + scope().personaId() + "/" + scope().projectId(),
                    report.file(), report.bytes(), archiveFormat.code(), report.version(), millis));
            report.rows().byName().forEach((table, rows) -> out.text(String.format("  %-16s %d", table, rows)));
        }
        return ExitCode.OK;
    }
}
