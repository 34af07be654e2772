package dev.jiyi.authority.archive;

import dev.jiyi.authority.TableCounts;

import java.nio.file.Path;

/**
 * What {@link Archives#backup} made (O5): the file, its size in bytes, and the rows of each
 * authoritative table in it, counted in the copy itself.
 */
public record Backup(Path file, long bytes, TableCounts tableCounts) {
}
