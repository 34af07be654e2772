package dev.jiyi.cli;

import dev.jiyi.authority.Limits;
import dev.jiyi.authority.Persona;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;

/** {@code jiyi persona show|history|edit|rollback}: versioned personas (S2-S5). */
@Command(name = "persona", description = "Read and edit the persona (immutable versions).",
        subcommands = {PersonaCommand.Show.class, PersonaCommand.History.class, PersonaCommand.Edit.class,
                PersonaCommand.Rollback.class})
final class PersonaCommand {

    private static void print(Output out, Persona p) {
        if (out.json()) {
            out.json(Views.persona(p));
        } else {
            out.text("persona " + p.personaId() + " version " + p.version() + " (" + p.note() + ", "
                    + dev.jiyi.authority.Times.format(p.createdAt()) + ")");
            out.text(p.content());
        }
    }

    @Command(name = "show", description = "Show the latest (or a given) version; an absent persona starts neutral.")
    static final class Show extends Verb {
        @Option(names = "--version", paramLabel = "N", description = "Version to show (default: latest).")
        Integer version;

        @Override
        int run(Jiyi jiyi, Output out) {
            print(out, jiyi.authority().persona(scope().personaId(), version));
            return ExitCode.OK;
        }
    }

    @Command(name = "history", description = "List every version, oldest first.")
    static final class History extends Verb {
        @Override
        int run(Jiyi jiyi, Output out) {
            List<Persona> history = jiyi.authority().personaHistory(scope().personaId());
            if (out.json()) {
                out.json(Views.personas(history));
            } else {
                for (Persona p : history) {
                    String firstLine = p.content().lines().findFirst().orElse("");
                    out.text(String.format("v%-4d %s  %-28s %s", p.version(),
                            dev.jiyi.authority.Times.format(p.createdAt()), p.note(),
                            firstLine.length() > 60 ? firstLine.substring(0, 60) + "…" : firstLine));
                }
            }
            return ExitCode.OK;
        }
    }

    @Command(name = "edit", description = "Append a new version with new text.")
    static final class Edit extends Verb {
        @ArgGroup(exclusive = true, multiplicity = "1")
        Content content;

        static final class Content {
            @Option(names = "--text", paramLabel = "T", required = true, description = "Persona text.")
            String text;
            @Option(names = "--file", paramLabel = "F", required = true, description = "UTF-8 file with the text, - for stdin.")
            Path file;
        }

        @Override
        int run(Jiyi jiyi, Output out) {
            String text = TextInput.read(content.text, content.file, root().stdin(), "text", Limits.MAX_PERSONA_TEXT);
            print(out, jiyi.authority().editPersona(scope().personaId(), text));
            return ExitCode.OK;
        }
    }

    @Command(name = "rollback", description = "Append a new version equal to version N; history is kept.")
    static final class Rollback extends Verb {
        @Option(names = "--to", paramLabel = "N", required = true, description = "The version to return to.")
        int to;

        @Override
        int run(Jiyi jiyi, Output out) {
            print(out, jiyi.authority().rollbackPersona(scope().personaId(), to));
            return ExitCode.OK;
        }
    }
}
