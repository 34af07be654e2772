package dev.jiyi.authority;

import java.util.List;
import java.util.Map;

/**
 * What {@code doctor} found (O6).
 *
 * @param integrity the lines of {@code PRAGMA integrity_check} ({@code ok} when healthy)
 * @param foreignKeyViolations one line per violating row: table, rowid, referenced table
 * @param tableCounts row counts of every authoritative table, in a fixed order
 * @param pendingExtractions events whose extraction is pending
 * @param indexProblems derived FTS5 rows out of step with the rows they index, one line each
 */
public record DoctorReport(
        int schemaVersion,
        List<String> integrity,
        List<String> foreignKeyViolations,
        Map<String, Long> tableCounts,
        long pendingExtractions,
        List<String> indexProblems) {

    public DoctorReport {
        integrity = List.copyOf(integrity);
        indexProblems = List.copyOf(indexProblems);
        foreignKeyViolations = List.copyOf(foreignKeyViolations);
        tableCounts = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(tableCounts));
    }

    public boolean integrityOk() {
        return integrity.equals(List.of("ok"));
    }

    /** True when nothing is wrong: integrity ok, no broken foreign key, nothing pending, indexes in step. */
    public boolean healthy() {
        return integrityOk() && foreignKeyViolations.isEmpty() && pendingExtractions == 0 && indexProblems.isEmpty();
    }

    /** One line per problem, empty when healthy. */
    public List<String> problems() {
        List<String> out = new java.util.ArrayList<>();
        if (!integrityOk()) {
            out.add("integrity check failed: " + String.join("; ", integrity));
        }
        if (!foreignKeyViolations.isEmpty()) {
            out.add(foreignKeyViolations.size() + " broken foreign key(s): " + String.join("; ", foreignKeyViolations));
        }
        if (pendingExtractions > 0) {
            out.add(pendingExtractions + " event(s) with extraction pending: run `jiyi retry`");
        }
        out.addAll(indexProblems);
        return out;
    }
}
