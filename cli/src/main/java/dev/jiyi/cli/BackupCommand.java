package dev.jiyi.cli;

import dev.jiyi.authority.Backup;
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

    @Override
    int run(Jiyi jiyi, Output out) {
        long t = System.nanoTime();
        Backup made = jiyi.authority().backup(file);
        long millis = (System.nanoTime() - t) / 1_000_000;
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("file", made.file().toString());
            m.put("bytes", made.bytes());
            m.put("millis", millis);
            m.put("table_counts", made.tableCounts());
            out.json(m);
        } else {
            out.text(String.format("backed up to %s: %,d bytes in %d ms", made.file(), made.bytes(), millis));
            made.tableCounts().forEach((table, rows) -> out.text(String.format("  %-16s %d", table, rows)));
        }
        return ExitCode.OK;
    }
}
