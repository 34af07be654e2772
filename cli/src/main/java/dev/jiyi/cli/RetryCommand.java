package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Ingest;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code jiyi retry [--event ID]}: resumes pending extractions (X2). There is no daemon: pending
 * work waits until this (or submitting the same event again) runs.
 */
@Command(name = "retry", description = {"Resume pending extractions of the scope, oldest first, or of one event.",
        "Stops at the first endpoint failure; the rest stay pending (exit 5)."})
final class RetryCommand extends Verb {

    @Option(names = "--event", paramLabel = "ID", description = "Extract this event (also one never queued).")
    String event;

    @Override
    int run(Jiyi jiyi, Output out) {
        Ingest ingest = jiyi.ingest();
        List<Ingest.Outcome> outcomes = new ArrayList<>();
        int untried = 0;
        if (event != null) {
            outcomes.add(ingest.retry(scope(), event));
        } else {
            Ingest.Retry retry = ingest.retryPending(scope());
            outcomes.addAll(retry.outcomes());
            untried = retry.untried();
        }
        long pending = outcomes.stream().filter(o -> o.status() == Ingest.Status.PENDING).count() + untried;
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("tried", outcomes.size());
        summary.put("extracted", outcomes.stream().filter(o -> o.status() == Ingest.Status.EXTRACTED).count());
        summary.put("pending", pending);
        if (out.json()) {
            out.json(IngestOutput.json(outcomes, summary));
        } else {
            if (outcomes.isEmpty()) {
                out.text("nothing is pending");
            }
            for (Ingest.Outcome o : outcomes) {
                Views.ingestText(o).forEach(out::text);
            }
            if (untried > 0) {
                out.text(untried + " more pending event(s) not tried after the endpoint failed");
            }
        }
        int code = ExitCode.OK;
        for (Ingest.Outcome o : outcomes) {
            code = Math.max(code, IngestOutput.warn(out, o));
        }
        return untried > 0 ? ExitCode.PROVIDER : code;
    }
}
