package dev.jiyi.authority;

import java.nio.file.Path;
import java.util.Map;

/**
 * What an export wrote or an import read: the archive file (null when read from a stream), its
 * size in bytes, its format version, and the rows of each archived table, in archive order.
 */
public record ArchiveReport(Path file, long bytes, int version, Map<String, Long> rows) {

    public ArchiveReport {
        rows = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(rows));
    }

    /** Rows of all tables. */
    public long total() {
        return rows.values().stream().mapToLong(Long::longValue).sum();
    }
}
