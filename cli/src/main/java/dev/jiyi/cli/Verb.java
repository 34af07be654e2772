package dev.jiyi.cli;

import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.PhasedProgress;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * Base of every leaf command: gives access to the global options, the output and the engine. A verb
 * implements {@link #run(Jiyi, Output)} and returns its exit code; domain exceptions become exit
 * codes in {@link Main}.
 */
abstract class Verb implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    JiyiCommand root() {
        return (JiyiCommand) spec.root().userObject();
    }

    Output output() {
        return new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), root().json, root().quiet);
    }

    /** The scope the global options name (S1). */
    Scope scope() {
        return new Scope(root().persona, root().project);
    }

    @Override
    public Integer call() throws Exception {
        Output out = output();
        Jiyi opened;
        try (PhasedProgress building = new PhasedProgress(out)) { // an index build at open, if any
            opened = Jiyi.open(root().resolveHome(), root().env(), building);
            building.finished();
        }
        try (Jiyi jiyi = opened) {
            return run(jiyi, out);
        }
    }

    abstract int run(Jiyi jiyi, Output out) throws Exception;
}
