package dev.jiyi.fts5;

import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.StorageException;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * How many b-tree segments each FTS5 table has: what a merge brings down to one (a diagnostic for
 * benchmarks of deletion, whose key-trace purge merges a table; {@link KeyTraces}).
 */
public record Fts5Segments(int events, int memories) {

    /** The segments of both tables now, read from the key tables only. */
    public static Fts5Segments of(Snapshot snapshot) {
        try {
            int[] out = new int[2];
            String[] tables = {"events_fts_idx", "memories_fts_idx"};
            for (int i = 0; i < 2; i++) {
                try (ResultSet rs = snapshot.sql().prepare("SELECT count(DISTINCT segid) FROM " + tables[i]).executeQuery()) {
                    out[i] = rs.next() ? rs.getInt(1) : 0;
                }
            }
            return new Fts5Segments(out[0], out[1]);
        } catch (SQLException e) {
            throw new StorageException("counting FTS5 segments", e);
        }
    }
}
