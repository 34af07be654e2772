package dev.jiyi.cli;

import dev.jiyi.authority.archive.Backup;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Progress;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code jiyi backup FILE} (O5): a consistent copy of the whole database through SQLite's online
 * backup API, while other processes may keep writing; never overwrites FILE (exit 4 when it exists).
 */
@Command(name = "backup", description = {"Copy the whole database into a new file through SQLite's online backup.",
        "Other processes may keep writing: the copy holds every commit made before it began.",
        "FILE must not exist (exit 4); it holds no configuration, and no Lucene index (rebuilt on use)."})
final class BackupCommand extends Verb {

    @Parameters(paramLabel = "FILE", description = "The backup file to create.")
    Path file;

    /**
     * The backup is one step of SQLite's API (see {@link dev.jiyi.authority.archive.Archives#backup}), which
     * reports nothing until it ends: it runs on a thread of its own while this one shows the bytes
     * written to FILE so far, out of the database's size.
     */
    private Backup withProgress(Jiyi jiyi, Output out) {
        java.util.concurrent.CompletableFuture<Backup> running =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> jiyi.authority().archives().backup(file));
        Path db = jiyi.home().database();
        long total = size(db) + size(db.resolveSibling(db.getFileName() + "-wal")); // the copy holds both
        try (Progress progress = out.progress("backup (bytes)", total)) {
            while (true) {
                try {
                    Backup made = running.get(100, java.util.concurrent.TimeUnit.MILLISECONDS);
                    progress.advanceTo(made.bytes());
                    return made;
                } catch (java.util.concurrent.TimeoutException e) {
                    progress.advanceTo(size(file));
                } catch (java.util.concurrent.ExecutionException e) {
                    progress.stop();
                    if (e.getCause() instanceof RuntimeException failure) {
                        throw failure;
                    }
                    throw new IllegalStateException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    progress.stop();
                    throw new IllegalStateException("interrupted while backing up", e);
                }
            }
        }
    }

    private static long size(Path f) {
        try {
            return java.nio.file.Files.size(f);
        } catch (java.io.IOException e) {
            return 0; // not created yet, or removed after a failure
        }
    }

    @Override
    int run(Jiyi jiyi, Output out) {
        long t = System.nanoTime();
        Backup made = withProgress(jiyi, out);
        long millis = (System.nanoTime() - t) / 1_000_000;
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("file", made.file().toString());
            m.put("bytes", made.bytes());
            m.put("millis", millis);
            m.put("table_counts", made.tableCounts().byName());
            out.json(m);
        } else {
            out.text(String.format("backed up to %s: %,d bytes in %d ms", made.file(), made.bytes(), millis));
            made.tableCounts().byName().forEach((table, rows) -> out.text(String.format("  %-16s %d", table, rows)));
        }
        return ExitCode.OK;
    }
}
