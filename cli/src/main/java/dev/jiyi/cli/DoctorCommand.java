package dev.jiyi.cli;

import dev.jiyi.authority.DoctorReport;
import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;
import dev.jiyi.providers.Embedders;
import picocli.CommandLine.Command;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code jiyi doctor}: integrity, foreign keys, table counts, pending extractions (O6), the
 * derived Lucene index when there is one, and memories whose vector is the other language's model's.
 */
@Command(name = "doctor", description = "Check the database and the Lucene index; exits 6 when something is wrong.")
final class DoctorCommand extends Verb {

    @Override
    int run(Jiyi jiyi, Output out) {
        DoctorReport report = jiyi.authority().doctor();
        Map<String, Backend.Health> derived = new LinkedHashMap<>();
        for (IndexKind kind : IndexKind.values()) {
            Backend backend = jiyi.backend(kind);
            backend.health(jiyi.authority(), report.tableCounts()).ifPresent(h -> derived.put(backend.name(), h));
        }
        jiyi.takeNotices().forEach(out::notice);
        long otherLanguage = otherLanguage(jiyi, out);
        List<String> problems = new ArrayList<>(report.problems());
        derived.values().forEach(h -> h.problem().ifPresent(problems::add));
        boolean healthy = problems.isEmpty();
        if (out.json()) {
            Map<String, Object> m = Views.doctor(report);
            m.put("healthy", healthy);
            m.put("problems", problems);
            derived.forEach((name, h) -> m.put(name, h.json()));
            if (otherLanguage >= 0) {
                m.put("vectors_of_other_language", otherLanguage);
            }
            out.json(m);
        } else {
            out.text("database: " + jiyi.home().database());
            out.text("schema version: " + report.schemaVersion());
            out.text("integrity: " + String.join("; ", report.integrity()));
            out.text("foreign keys: " + (report.foreignKeyViolations().isEmpty() ? "ok"
                    : report.foreignKeyViolations().size() + " violation(s)"));
            out.text("pending extractions: " + report.pendingExtractions());
            for (Map.Entry<String, Long> e : report.tableCounts().byName().entrySet()) {
                out.text(String.format("  %-16s %d", e.getKey(), e.getValue()));
            }
            derived.values().forEach(h -> h.lines().forEach(out::text));
            if (otherLanguage > 0) {
                out.text("vectors: " + otherLanguage + " memories have the other language's model's vector (embedded "
                        + "before there was a model per language); jiyi reindex --vectors gives each its own");
            }
            out.text(healthy ? "healthy" : "PROBLEMS:");
            problems.forEach(p -> out.text("  - " + p));
        }
        return healthy ? ExitCode.OK : ExitCode.UNHEALTHY;
    }

    /**
     * How many memories have a vector of the other language's model; -1 when a single model embeds
     * every text or the embedding settings cannot be read (a notice says which). Not a problem:
     * such vectors still count, in the other model's space.
     */
    private static long otherLanguage(Jiyi jiyi, Output out) {
        Embedders models;
        try {
            models = jiyi.embedders();
        } catch (JiyiException e) {
            out.notice("vectors not checked: " + e.getMessage());
            return -1;
        }
        if (models.single()) {
            return -1;
        }
        long[] count = {0};
        jiyi.authority().read(s -> {
            s.eachVectorText((text, fingerprint) -> count[0] += models.otherLanguage(text, fingerprint) ? 1 : 0);
            return null;
        });
        return count[0];
    }
}
