package dev.jiyi.cli;

import dev.jiyi.authority.DoctorReport;
import picocli.CommandLine.Command;

import java.util.Map;

/** {@code jiyi doctor}: integrity, foreign keys, table counts, pending extractions (O6). */
@Command(name = "doctor", description = "Check the database; exits 6 when something is wrong.")
final class DoctorCommand extends Verb {

    @Override
    int run(Jiyi jiyi, Output out) {
        DoctorReport report = jiyi.authority().doctor();
        if (out.json()) {
            out.json(Views.doctor(report));
        } else {
            out.text("database: " + jiyi.home().database());
            out.text("schema version: " + report.schemaVersion());
            out.text("integrity: " + String.join("; ", report.integrity()));
            out.text("foreign keys: " + (report.foreignKeyViolations().isEmpty() ? "ok"
                    : report.foreignKeyViolations().size() + " violation(s)"));
            out.text("pending extractions: " + report.pendingExtractions());
            for (Map.Entry<String, Long> e : report.tableCounts().entrySet()) {
                out.text(String.format("  %-16s %d", e.getKey(), e.getValue()));
            }
            out.text(report.healthy() ? "healthy" : "PROBLEMS:");
            report.problems().forEach(p -> out.text("  - " + p));
        }
        return report.healthy() ? ExitCode.OK : ExitCode.UNHEALTHY;
    }
}
