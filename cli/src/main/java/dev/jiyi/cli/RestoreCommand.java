package dev.jiyi.cli;

import dev.jiyi.authority.archive.ArchiveReport;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.PhasedProgress;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;

/**
 * {@code jiyi restore FILE} (O5): a backup made by {@code jiyi backup} into an empty home, through
 * the checks of an import (the backup itself is never opened in place, nor changed), then indexed.
 */
@Command(name = "restore", description = {"Load a backup made by backup into an empty home.",
        "The backup is copied, checked by SQLite, migrated if older, and loaded through the same",
        "checks as import (the backup file is not changed). FTS5 (and Lucene, if the home has",
        "one) is rebuilt; vectors need reindex --vectors."})
final class RestoreCommand extends Verb {

    @Parameters(paramLabel = "FILE", description = "The backup file.")
    Path file;

    @Override
    int run(Jiyi jiyi, Output out) {
        long started = System.nanoTime();
        ArchiveReport report;
        try (PhasedProgress progress = new PhasedProgress(out)) {
            report = jiyi.authority().archives().restore(file, progress);
            progress.finished();
        }
        return ImportCommand.report(jiyi, out, "restored", report, started);
    }
}
