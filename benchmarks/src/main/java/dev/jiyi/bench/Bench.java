package dev.jiyi.bench;

import dev.jiyi.bench.quality.RecallQuality;
import dev.jiyi.bench.report.JmhReport;

import picocli.CommandLine;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The one entry point of the benchmarks jar: {@code Bench HARNESS [OPTIONS]}, which {@code ./jiyi
 * bench} runs. Each harness is a picocli command (or, for recall and the JMH report, a plain
 * argument list) that returns its exit code; this class is the only {@code main}.
 */
public final class Bench {

    private Bench() {
    }

    /** A harness: how it runs its options, printing to {@code out}. */
    @FunctionalInterface
    interface Run {
        int run(String[] args, PrintStream out) throws Exception;
    }

    /** The harnesses, by the name after {@code ./jiyi bench}; the launcher lists the same names. */
    enum Harness {
        RECALL((args, out) -> RecallQuality.run(args, out, System.err)),
        HELDOUT((args, out) -> dev.jiyi.bench.quality.HeldOut.run(args, out, System.err)),
        INGEST((args, out) -> new CommandLine(new IngestHarness(out)).execute(args)),
        DELETE((args, out) -> new CommandLine(new DeletionHarness(out)).execute(args)),
        SEMANTIC((args, out) -> SemanticHarness.command(out).execute(args)),
        LUCENE((args, out) -> LuceneRecallHarness.command(out).execute(args)),
        VECTORS((args, out) -> VectorRecallHarness.command(out).execute(args)),
        RESUME((args, out) -> ResumeHarness.command(out).execute(args)),
        MCP((args, out) -> McpLatencyHarness.command(out).execute(args)),
        GUARD((args, out) -> Guard.command(out).execute(args)),
        HITS((args, out) -> SearchWorkHarness.command(out).execute(args)),
        TAIL((args, out) -> TailHarness.command(out).execute(args)),
        GROWN((args, out) -> GrownHarness.command(out).execute(args)),
        JMH((args, out) -> {
            org.openjdk.jmh.Main.main(args); // exits the JVM itself on a failure
            return 0;
        }),
        JMH_REPORT((args, out) -> JmhReport.run(args, out));

        private final Run run;

        Harness(Run run) {
            this.run = run;
        }

        /** Runs the harness with its options; returns its exit code. */
        int run(String[] args, PrintStream out) throws Exception {
            return run.run(args, out);
        }

        /** The name after {@code ./jiyi bench}: {@code recall}, {@code jmh-report}, ... */
        String command() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        static Harness named(String name) {
            for (Harness h : values()) {
                if (h.command().equals(name)) {
                    return h;
                }
            }
            return null;
        }
    }

    public static void main(String[] args) throws Exception {
        Harness h = args.length == 0 ? null : Harness.named(args[0]);
        if (h == null) {
            System.err.println("usage: jiyi bench " + Arrays.stream(Harness.values()).map(Harness::command)
                    .collect(Collectors.joining("|")) + " [OPTIONS] (docs/benchmarks.md)");
            System.exit(2);
        }
        System.exit(h.run(Arrays.copyOfRange(args, 1, args.length), System.out));
    }
}
