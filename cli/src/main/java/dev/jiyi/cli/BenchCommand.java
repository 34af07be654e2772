package dev.jiyi.cli;

import picocli.CommandLine.Command;

/** Placeholder: being written (issue 12). */
@Command(name = "bench", description = "Not yet available.")
final class BenchCommand extends Verb {

    @Override
    int run(Jiyi jiyi, Output out) {
        out.error(ExitCode.REFUSED, "not yet available");
        return ExitCode.REFUSED;
    }
}
