package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Ingest;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;

import java.util.List;
import java.util.Map;

/** How {@code event submit --extract} and {@code retry} report pipeline outcomes, and their exit codes. */
final class IngestOutput {

    private IngestOutput() {
    }

    /**
     * Prints one outcome (JSON mode: as a field of {@code extra}) and warns about a pending extraction
     * or missing vectors. Returns 5 when the extraction is pending (the event is saved), else 0.
     */
    static int report(Output out, Ingest.Outcome o) {
        if (!out.json()) {
            Views.ingestText(o).forEach(out::text);
        }
        return warn(out, o);
    }

    /** The warnings of one outcome and its exit code, without printing the outcome itself. */
    static int warn(Output out, Ingest.Outcome o) {
        if (o.status() == Ingest.Status.PENDING) {
            out.warn("event " + o.event().id() + ": extraction pending (" + o.reason() + "); run `jiyi retry`");
            return ExitCode.PROVIDER;
        }
        Ingest.Vectors v = o.vectors();
        if (v.missing() > 0) {
            out.warn("event " + o.event().id() + ": " + v.missing() + " new memory(ies) have no vector ("
                    + v.failure() + "); vector coverage is incomplete until `jiyi reindex --vectors`");
        }
        return ExitCode.OK;
    }

    /** The JSON document of several outcomes. */
    static Map<String, Object> json(List<Ingest.Outcome> outcomes, Map<String, Object> summary) {
        return Map.of("summary", summary, "extractions", outcomes.stream().map(Views::ingest).toList());
    }
}
