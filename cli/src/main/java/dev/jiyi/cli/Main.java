package dev.jiyi.cli;

import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.StorageException;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Entry point of {@code jiyi}. {@code System.exit} is called here and nowhere else. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.in, System.out, System.err, System.getenv()));
    }

    /** Runs one command line and returns its exit code; used by {@code main}, tests and the demo. */
    public static int execute(String[] args, InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        PrintWriter outWriter = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true);
        PrintWriter errWriter = new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true);
        JiyiCommand root = new JiyiCommand(in, env);
        CommandLine cli = new CommandLine(root);
        String named = commandName(args);
        for (Map.Entry<String, Class<?>> c : JiyiCommand.COMMANDS.entrySet()) {
            if (named == null || named.equals(c.getKey())) {
                cli.addSubcommand(c.getKey(), c.getValue());
            }
        }
        if (cli.getSubcommands().containsKey("recall")) {
            // A recall query is free text: "-书" or "--x" is searched, not parsed as an option (R2).
            cli.getSubcommands().get("recall").setUnmatchedOptionsArePositionalParams(true);
        }
        if (cli.getSubcommands().containsKey("bench")) {
            // `jiyi bench lucene --sizes 1000` gets the launcher's explanation, not an unknown-option error.
            cli.getSubcommands().get("bench").setUnmatchedOptionsArePositionalParams(true);
        }
        // Settings after the subcommands are added: picocli applies them to the commands present.
        cli.setOut(outWriter)
                .setErr(errWriter)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler((ex, a) -> parameterError(ex, a, jsonRequested(args)))
                .setExecutionExceptionHandler((e, commandLine, parseResult) -> executionError(e, commandLine, root));
        int code = cli.execute(args);
        outWriter.flush();
        errWriter.flush();
        return code;
    }

    private static int executionError(Exception e, CommandLine commandLine, JiyiCommand root) {
        Output out = new Output(commandLine.getOut(), commandLine.getErr(), root.json);
        int code = ExitCode.of(e);
        if (e instanceof JiyiException && !(e instanceof StorageException)) {
            out.error(code, e.getMessage());
        } else if (e instanceof StorageException || e instanceof dev.jiyi.providers.ProviderException) {
            out.error(code, e.getMessage()); // provider messages are jiyi's own words (X2)
        } else {
            // Unexpected: name the failure, never echo input. The stack trace is for developers.
            out.error(code, "internal error: " + e.getClass().getName());
            if (System.getenv("JIYI_DEBUG") != null) {
                e.printStackTrace(commandLine.getErr());
            }
        }
        return code;
    }

    /**
     * Picocli's own messages may quote the offending value ("... but was 'xyz'"); ours name the
     * option and the rule only (O7).
     */
    /**
     * The command the arguments name (the first argument that is not a global option or its
     * value), when it is a known command; null otherwise, and then every command is registered.
     */
    static String commandName(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--home") || a.equals("--persona") || a.equals("--project")) {
                i++;
            } else if (!a.startsWith("-")) {
                return JiyiCommand.COMMANDS.containsKey(a) ? a : null;
            } else if (a.equals("--")) {
                return null;
            }
        }
        return null;
    }

    /** True when {@code --json} appears among the options, so that even a parse error is JSON. */
    private static boolean jsonRequested(String[] args) {
        for (String a : args) {
            if (a.equals("--")) {
                return false;
            }
            if (a.equals("--json")) {
                return true;
            }
        }
        return false;
    }

    private static int parameterError(ParameterException ex, String[] args, boolean json) {
        CommandLine cmd = ex.getCommandLine();
        Output out = new Output(cmd.getOut(), cmd.getErr(), json);
        String message;
        if (ex instanceof UnmatchedArgumentException unmatched) {
            List<String> names = unmatched.getUnmatched().stream()
                    .filter(a -> a.startsWith("--"))
                    .map(a -> a.contains("=") ? a.substring(0, a.indexOf('=')) : a)
                    .filter(a -> a.length() <= 40)
                    .distinct().toList();
            message = !names.isEmpty()
                    ? "unknown option " + String.join(", ", names) + " (see --help)"
                    : "unexpected argument(s) (see --help)";
        } else if (ex.getArgSpec() != null && ex.getMessage() != null && ex.getMessage().startsWith("Invalid value")) {
            message = argName(ex.getArgSpec()) + ": " + conversionRule(ex);
        } else {
            message = withoutValues(ex.getMessage(), args, cmd);
        }
        out.error(ExitCode.INVALID, message);
        if (!json) {
            cmd.getErr().println("Usage: " + cmd.getCommandSpec().qualifiedName() + " --help");
            cmd.getErr().flush();
        }
        return ExitCode.INVALID;
    }

    /**
     * Picocli's remaining messages (missing options, mutually exclusive options) may quote the values
     * given. If any given value appears in the message, it is replaced by one naming only the known
     * options that were used (O7).
     */
    private static String withoutValues(String message, String[] args, CommandLine cmd) {
        String text = message == null ? "invalid command line" : message.replaceFirst("^Error: ", "");
        boolean echoes = false;
        List<String> options = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("--")) {
                String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
                if (cmd.getCommandSpec().findOption(name) != null && !options.contains(name)) {
                    options.add(name);
                }
                if (a.contains("=") && text.contains(a.substring(a.indexOf('=') + 1))) {
                    echoes = true;
                }
            } else if (!a.isEmpty() && !a.startsWith("-") && cmd.getCommandSpec().subcommands().get(a) == null
                    && !isCommandName(cmd, a) && text.contains(a)) {
                echoes = true;
            }
        }
        if (!echoes) {
            return text;
        }
        String kind = text.startsWith("Missing") ? "missing required options"
                : "these options cannot be used together";
        return kind + " (options given: " + String.join(", ", options) + "; see --help)";
    }

    private static boolean isCommandName(CommandLine cmd, String a) {
        for (CommandLine c = cmd; c != null; c = c.getParent()) {
            if (c.getCommandName().equals(a)) {
                return true;
            }
        }
        return false;
    }

    private static String argName(ArgSpec spec) {
        return spec instanceof OptionSpec option ? option.longestName() : spec.paramLabel();
    }

    private static String conversionRule(ParameterException ex) {
        Class<?> type = ex.getArgSpec().type();
        if (type.isEnum()) {
            StringBuilder sb = new StringBuilder("must be one of ");
            Object[] constants = type.getEnumConstants();
            for (int i = 0; i < constants.length; i++) {
                sb.append(i == 0 ? "" : ", ").append(constants[i].toString().toLowerCase(java.util.Locale.ROOT));
            }
            return sb.toString();
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "must be an integer";
        }
        if (type == double.class || type == Double.class) {
            return "must be a number";
        }
        return "invalid value for its type";
    }
}
