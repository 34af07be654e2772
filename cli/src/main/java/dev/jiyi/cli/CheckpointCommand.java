package dev.jiyi.cli;

import dev.jiyi.authority.Checkpoint;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.Times;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@code jiyi checkpoint save|show}: host-reported task checkpoints (K1). */
@Command(name = "checkpoint", description = "Save and show host-reported task checkpoints.",
        subcommands = {CheckpointCommand.Save.class, CheckpointCommand.Show.class})
final class CheckpointCommand {

    static void print(Output out, Checkpoint c) {
        if (out.json()) {
            out.json(Views.checkpoint(c));
            return;
        }
        out.text("checkpoint " + c.id() + " of session " + c.sessionId() + " (covers through sequence "
                + c.coveredSequence() + ", saved " + Times.format(c.createdAt()) + "; host-reported)");
        out.text("  goal: " + c.goal());
        c.done().forEach(s -> out.text("  done: " + s));
        c.pending().forEach(s -> out.text("  pending: " + s));
        c.constraints().forEach(s -> out.text("  constraint: " + s));
        if (c.nextAction() != null) {
            out.text("  next: " + c.nextAction());
        }
    }

    @Command(name = "save", description = "Save a checkpoint covering events up to a sequence of the same session.")
    static final class Save extends Verb {
        @Option(names = "--session", required = true, paramLabel = "S", description = "Session ID.")
        String session;
        @Option(names = "--goal", required = true, paramLabel = "G", description = "The task's goal.")
        String goal;
        @Option(names = "--done", paramLabel = "STEP", description = "A completed step; repeatable.")
        List<String> done = new ArrayList<>();
        @Option(names = "--pending", paramLabel = "STEP", description = "A pending step; repeatable.")
        List<String> pending = new ArrayList<>();
        @Option(names = "--constraint", paramLabel = "C", description = "A constraint; repeatable.")
        List<String> constraints = new ArrayList<>();
        @Option(names = "--next", paramLabel = "ACTION", description = "The next action.")
        String next;
        @Option(names = "--covered-seq", required = true, paramLabel = "N",
                description = "Last event sequence covered; must be an event of this scope and session.")
        long coveredSeq;

        @Override
        int run(Jiyi jiyi, Output out) {
            CheckpointDraft draft = new CheckpointDraft(session, goal, done, pending, constraints, next, coveredSeq);
            print(out, jiyi.authority().saveCheckpoint(scope(), draft));
            return ExitCode.OK;
        }
    }

    @Command(name = "show", description = "Show the newest valid checkpoint (of a session, when given).")
    static final class Show extends Verb {
        @Option(names = "--session", paramLabel = "S", description = "Session ID (default: any session).")
        String session;

        @Override
        int run(Jiyi jiyi, Output out) {
            Optional<Checkpoint> c = jiyi.authority().latestCheckpoint(scope(), session);
            if (c.isEmpty()) {
                out.error(ExitCode.NOT_FOUND, "no checkpoint in this scope" + (session == null ? "" : " and session"));
                return ExitCode.NOT_FOUND;
            }
            print(out, c.get());
            return ExitCode.OK;
        }
    }
}
