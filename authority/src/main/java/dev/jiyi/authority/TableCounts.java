package dev.jiyi.authority;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Rows per authoritative table, read from one snapshot: what {@code doctor}, a backup, an export
 * or an import counted. Tables not counted read as 0.
 */
public record TableCounts(Map<Table, Long> counts) {

    public TableCounts {
        counts = Collections.unmodifiableMap(new EnumMap<>(counts.isEmpty() ? new EnumMap<>(Table.class) : counts));
    }

    /** The rows of one table (0 when it was not counted). */
    public long of(Table table) {
        return counts.getOrDefault(table, 0L);
    }

    /** The events and memories: the rows an index of the archive's text holds one document each for. */
    public long indexed() {
        return of(Table.EVENTS) + of(Table.MEMORIES);
    }

    /** Rows of every table counted. */
    public long total() {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The counts by table name, in {@link Table} order: the shape of the JSON outputs. */
    public Map<String, Long> byName() {
        Map<String, Long> out = new LinkedHashMap<>();
        counts.forEach((table, n) -> out.put(table.sqlName(), n));
        return Collections.unmodifiableMap(out);
    }
}
