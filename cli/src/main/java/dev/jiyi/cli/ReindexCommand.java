package dev.jiyi.cli;

import dev.jiyi.authority.Authority;
import picocli.CommandLine.Command;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code jiyi reindex}: rebuilds the FTS5 index from the stored text, in one transaction. Indexes
 * rebuild themselves when their version changes; this is for an index that {@code doctor} reports
 * out of step.
 */
@Command(name = "reindex", description = {"Rebuild the FTS5 index from the stored events and memories, in one",
        "transaction (readers keep the old index until it commits)."})
final class ReindexCommand extends Verb {

    @Override
    int run(Jiyi jiyi, Output out) {
        long started = System.nanoTime();
        Authority.Rebuilt fed = jiyi.authority().rebuildIndexes();
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rebuilt", "fts5");
            m.put("events", fed.events());
            m.put("memories", fed.memories());
            m.put("millis", millis);
            out.json(m);
        } else {
            out.text("rebuilt the FTS5 index: " + fed.events() + " events, " + fed.memories() + " memories in " + millis + " ms");
        }
        return ExitCode.OK;
    }
}
