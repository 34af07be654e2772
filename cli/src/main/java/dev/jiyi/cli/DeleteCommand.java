package dev.jiyi.cli;

import dev.jiyi.authority.Deletion;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jiyi delete (--event ID | --memory ID)}: permanent deletion (D1-D3). */
@Command(name = "delete", description = {"Permanently delete an event or a memory, with everything derived from it.",
        "It removes the source event, every memory derived from it and the whole",
        "correction lineage, with their search entries, vectors and relation edges, in",
        "one transaction. Memories only 'related' to them survive. The scope's",
        "checkpoints are invalidated. Copies outside this database (exports, backups,",
        "emitted packs) are not touched."})
final class DeleteCommand extends Verb {

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    static final class Target {
        @Option(names = "--event", paramLabel = "ID", description = "Delete starting from this event.")
        String event;

        @Option(names = "--memory", paramLabel = "ID", description = "Delete starting from this memory.")
        String memory;
    }

    @Override
    int run(Jiyi jiyi, Output out) {
        Deletion d = target.event != null
                ? jiyi.authority().deleteEvent(scope(), target.event)
                : jiyi.authority().deleteMemory(scope(), target.memory);
        if (out.json()) {
            out.json(Views.deletion(d));
        } else {
            out.text("deleted " + d.eventIds().size() + " event(s) and " + d.memoryIds().size() + " memory(ies), "
                    + d.relationsRemoved() + " relation edge(s), " + d.vectorsRemoved() + " vector(s)");
            for (String e : d.eventIds()) {
                out.text("  event  " + e);
            }
            for (String m : d.memoryIds()) {
                out.text("  memory " + m);
            }
            if (d.checkpointsRemoved() + d.checkpointsInvalidated() > 0) {
                out.text("checkpoints: " + d.checkpointsRemoved() + " removed (they covered a deleted event), "
                        + d.checkpointsInvalidated() + " invalidated");
            }
        }
        return ExitCode.OK;
    }
}
