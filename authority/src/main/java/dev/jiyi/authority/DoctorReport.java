package dev.jiyi.authority;

import java.util.List;

/**
 * What {@code doctor} found (O6).
 *
 * @param integrity the lines of {@code PRAGMA integrity_check} ({@code ok} when healthy)
 * @param foreignKeyViolations one line per violating row: table, rowid, referenced table
 * @param tableCounts row counts of every authoritative table, in a fixed order
 * @param pendingExtractions events whose extraction is pending
 * @param indexProblems what the attached indexes found wrong with their rows, one line each
 */
public record DoctorReport(
        int schemaVersion,
        List<String> integrity,
        List<String> foreignKeyViolations,
        TableCounts tableCounts,
        long pendingExtractions,
        List<String> indexProblems) {

    public DoctorReport {
        integrity = List.copyOf(integrity);
        indexProblems = List.copyOf(indexProblems);
        foreignKeyViolations = List.copyOf(foreignKeyViolations);
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
