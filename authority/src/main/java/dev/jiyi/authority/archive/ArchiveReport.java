package dev.jiyi.authority.archive;

import dev.jiyi.authority.TableCounts;

import java.nio.file.Path;

/**
 * What an export wrote or an import read: the archive file (null when read from a stream), its
 * size in bytes, its format version, and the rows of each archived table.
 */
public record ArchiveReport(Path file, long bytes, int version, TableCounts rows) {

    /** Rows of all tables. */
    public long total() {
        return rows.total();
    }
}
