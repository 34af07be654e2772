package dev.jiyi.cli;

import dev.jiyi.authority.Scope;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Home;
import dev.jiyi.engine.Output;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The root {@code jiyi} command: global options, inherited by every subcommand. Run without a
 * command it prints the command list (the same as {@code --help}) and exits 0.
 */
@Command(name = "jiyi",
        scope = ScopeType.INHERIT,
        mixinStandardHelpOptions = true,
        version = "jiyi 0.1.0",
        description = "记忆 jiyi: a local long-term memory engine for chat assistants and agents.",
        footer = {"",
                "Run 'jiyi COMMAND --help' for a command's options; docs/cli.md has them all.",
                "Exit codes: 0 ok, 1 not found, 2 invalid input, 3 conflict, 4 refused,",
                "5 provider failure (data saved, work pending), 6 doctor found a problem.",
                "Scope IDs (persona, project) are partitions, not security boundaries."})
public final class JiyiCommand implements Callable<Integer> {

    /**
     * The commands, in help order. They are registered in {@link Main}: only the one being run
     * when a command is named (building picocli's model of every command costs start-up time).
     */
    static final Map<String, Class<?>> COMMANDS = orderedCommands();

    private static Map<String, Class<?>> orderedCommands() {
        Map<String, Class<?>> m = new java.util.LinkedHashMap<>();
        m.put("persona", PersonaCommand.class);
        m.put("event", EventCommand.class);
        m.put("retry", RetryCommand.class);
        m.put("memory", MemoryCommand.class);
        m.put("relate", RelateCommand.class);
        m.put("delete", DeleteCommand.class);
        m.put("recall", RecallCommand.class);
        m.put("checkpoint", CheckpointCommand.class);
        m.put("resume", ResumeCommand.class);
        m.put("reindex", ReindexCommand.class);
        m.put("doctor", DoctorCommand.class);
        m.put("export", ExportCommand.class);
        m.put("import", ImportCommand.class);
        m.put("backup", BackupCommand.class);
        m.put("restore", RestoreCommand.class);
        m.put("host-ingest", HostIngestCommand.class);
        m.put("mcp", McpCommand.class);
        m.put("probe", ProbeCommand.class);
        m.put("bench", BenchCommand.class);
        m.put("demo", DemoCommand.class);
        return java.util.Collections.unmodifiableMap(m);
    }

    @Option(names = "--home", scope = ScopeType.INHERIT, paramLabel = "DIR",
            description = "Data directory (default: $JIYI_HOME, else $XDG_DATA_HOME/jiyi, else ~/.local/share/jiyi).")
    Path home;

    @Option(names = "--persona", scope = ScopeType.INHERIT, paramLabel = "ID", defaultValue = Scope.DEFAULT_ID,
            description = "Persona scope (default: ${DEFAULT-VALUE}).")
    String persona;

    @Option(names = "--project", scope = ScopeType.INHERIT, paramLabel = "ID", defaultValue = Scope.DEFAULT_ID,
            description = "Project scope (default: ${DEFAULT-VALUE}).")
    String project;

    @Option(names = "--json", scope = ScopeType.INHERIT,
            description = "Machine-readable JSON on stdout (one document per line).")
    boolean json;

    @Option(names = "--quiet", scope = ScopeType.INHERIT,
            description = "No progress on stderr for long work (batches, reindexing); results and errors still show.")
    boolean quiet;

    @Spec
    CommandSpec spec;

    private final InputStream stdin;
    private final Map<String, String> env;

    public JiyiCommand(InputStream stdin, Map<String, String> env) {
        this.stdin = stdin;
        this.env = env;
    }

    InputStream stdin() {
        return stdin;
    }

    Map<String, String> env() {
        return env;
    }

    Home resolveHome() {
        return Home.resolve(home, env);
    }

    /**
     * No command: the command list, as {@code --help} prints it, on stdout; with {@code --json}, one
     * object {@code {"commands": [{"name", "summary"}, ...]}}. Exit 0: help was asked for by asking
     * for nothing. ({@link Main} registers every command when none is named.)
     */
    @Override
    public Integer call() {
        CommandLine cli = spec.commandLine();
        if (!json) {
            cli.usage(cli.getOut());
            cli.getOut().flush();
            return ExitCode.OK;
        }
        List<Map<String, String>> commands = new ArrayList<>();
        cli.getSubcommands().forEach((name, sub) -> {
            Map<String, String> c = new LinkedHashMap<>();
            c.put("name", name);
            c.put("summary", summary(sub.getCommandSpec()));
            commands.add(c);
        });
        new Output(cli.getOut(), cli.getErr(), true).json(Map.of("commands", commands));
        return ExitCode.OK;
    }

    /** A command's one-line summary: the first line of its description, as the command list shows it. */
    static String summary(CommandSpec command) {
        String[] description = command.usageMessage().description();
        return description.length == 0 ? "" : description[0];
    }
}
