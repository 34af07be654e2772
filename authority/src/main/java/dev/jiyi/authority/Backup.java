package dev.jiyi.authority;

import java.nio.file.Path;
import java.util.Map;

/**
 * What {@link Authority#backup} made (O5): the file, its size in bytes, and the rows of each
 * authoritative table in it, counted in the copy itself.
 */
public record Backup(Path file, long bytes, Map<String, Long> tableCounts) {
}
