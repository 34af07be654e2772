package dev.jiyi.cli;

import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.StorageException;
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
        CommandLine cli = new CommandLine(root)
                .setOut(outWriter)
                .setErr(errWriter)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(Main::parameterError)
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
        } else if (e instanceof StorageException) {
            out.error(code, e.getMessage());
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
    private static int parameterError(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        boolean json = false;
        Object rootObject = cmd.getCommandSpec().root().userObject();
        if (rootObject instanceof JiyiCommand root) {
            json = root.json;
        }
        Output out = new Output(cmd.getOut(), cmd.getErr(), json);
        String message;
        if (ex instanceof UnmatchedArgumentException unmatched) {
            long options = unmatched.getUnmatched().stream().filter(a -> a.startsWith("-")).count();
            String names = String.join(", ", unmatched.getUnmatched().stream().filter(a -> a.startsWith("--")).toList());
            message = options > 0 && !names.isEmpty()
                    ? "unknown option " + names + " (see --help)"
                    : "unexpected argument(s) (see --help)";
        } else if (ex.getArgSpec() != null && ex.getMessage() != null && ex.getMessage().startsWith("Invalid value")) {
            message = argName(ex.getArgSpec()) + ": " + conversionRule(ex);
        } else {
            message = ex.getMessage();
        }
        out.error(ExitCode.INVALID, message);
        if (!json) {
            cmd.getErr().println("Usage: " + cmd.getCommandSpec().qualifiedName() + " --help");
            cmd.getErr().flush();
        }
        return ExitCode.INVALID;
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
