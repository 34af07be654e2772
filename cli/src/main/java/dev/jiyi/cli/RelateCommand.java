package dev.jiyi.cli;

import dev.jiyi.authority.Relation;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code jiyi relate A B}: a one-hop related link within one scope (M3). */
@Command(name = "relate", description = "Link two memories of the same scope as related.")
final class RelateCommand extends Verb {

    @Parameters(index = "0", paramLabel = "A", description = "First memory ID.")
    String a;

    @Parameters(index = "1", paramLabel = "B", description = "Second memory ID.")
    String b;

    @Override
    int run(Jiyi jiyi, Output out) {
        Relation relation = jiyi.authority().relate(scope(), a, b);
        if (out.json()) {
            out.json(Views.relation(relation));
        } else {
            out.text("related " + relation.fromId() + " -> " + relation.toId());
        }
        return ExitCode.OK;
    }
}
