package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jiyi bench}: the benchmark harnesses live in the {@code benchmarks} module, which the
 * application jar does not contain (it would add JMH, the datasets' loaders and XChart to every cold
 * start). The {@code ./jiyi} launcher at the root of a source checkout runs them: it builds the
 * benchmarks jar when needed and runs the harness through its one entry point ({@code dev.jiyi.bench.Bench}). This command describes them in
 * {@code --help}; asked to run one, it says where they run and exits 2, touching no data.
 *
 * <p>{@link Harness} is the list shown here; the launcher's {@code case} accepts the same names
 * (a test checks that the two agree, and another that the benchmarks' {@code Bench} runs them).
 */
@Command(name = "bench", description = {"Describe the benchmarks, which run through the ./jiyi launcher.",
        "The harnesses are in the benchmarks module, which this application jar does not",
        "contain. From the root of a source checkout, './jiyi bench HARNESS [OPTIONS]'",
        "builds them when needed and runs one. Results and method: docs/benchmarks.md,",
        "docs/recall-quality.md.",
        "Run from the application jar, 'jiyi bench ...' only says so and exits 2."})
final class BenchCommand implements Callable<Integer> {

    /** The harnesses of {@code ./jiyi bench}, in the launcher's order. */
    enum Harness {
        RECALL("[--datasets jiyi,locomo,...] [--sizes base,10k,100k,1m] [--index fts5,lucene,lucene-smartcn]"
                        + " [--mode fast,semantic,deep] [--growth zipf|chat] [--out DIR] [--check FILE]",
                "Recall quality and latency on archives grown with seeded distractors: R@5/@10, MRR, nDCG@10,"
                        + " off-topic and leak rates, p50/p95/p99; Markdown, JSON and charts; --check fails on a"
                        + " regression."),
        HELDOUT("[--jar JAR] [--datasets events-zh,...] [--mode M] [--index I]",
                "A scenario through any build's command line, as a held-out harness measures it: R@5, any gold"
                        + " in the top 5 and off-topic probes answered, from the source event IDs of recall --batch."),
        INGEST("[options]",
                "Ingestion throughput (single commits and batches) and CLI cold start."),
        DELETE("[--sizes N,N] [--deletions K]",
                "Permanent deletion latency and index rebuild at 10k and 100k events."),
        SEMANTIC("[--sizes N,N]",
                "Local embedding throughput; fast, semantic and deep recall latency at 10k and 100k memories."),
        LUCENE("[--sizes N,N] [--queries N] [--analysis jiyi|smartcn]",
                "Fast recall on FTS5 against Lucene at 10k, 100k and 1M memories; index sizes; deletion."),
        VECTORS("[--sizes N,N] [--formats float,int8]",
                "HNSW vectors (float and int8) against an exact scan at 100k and 1M: latency and recall@10."),
        RESUME("[--sizes N,N] [--packs N] [--budget N]",
                "Context packs (session_resume) in process at 10k and 100k memories: p50, p95 and maximum."),
        MCP("[--sizes N,N]",
                "The MCP server's first-call and steady-state latency for memory_recall and session_resume."),
        GUARD("[--bounds FILE] [--iterations N] [--time MS]",
                "A short JMH pass, then the bounds of a bounds file (p99 and mean times, growth from 10k to 1M,"
                        + " Lucene against FTS5, HNSW against exact): OK or FAIL with the difference; exit 1 on a FAIL."),
        HITS("[--sizes N,N] [--queries N] [--out DIR]",
                "What fast recall's searches visit and collect per recall, by index and query kind, on the realistic"
                        + " archive (counts, not times): a table, and a chart with --out."),
        TAIL("[--size N] [--index fts5|lucene] [--kind KIND] [--seconds S]",
                "Fast recall's slow calls split by cause (a collection, the first recall after an ingest, or"
                        + " neither), alone and beside a writer in the same process, with the writer's write times."),
        GROWN("--home DIR [--size N] [--batch N] [--rounds N] [--deletions N]",
                "Fast recall and deletion on a Lucene index grown by ingest and catch-ups, as a home in use grows"
                        + " it (the JMH archives' indexes are rebuilt in one pass), with its segments by kind."),
        JMH("[BENCHMARK] [JMH options]",
                "The JMH benchmarks (FastRecallBenchmark on the realistic archive, UniformRecallBenchmark,"
                        + " SemanticRecallBenchmark, IngestBenchmark, DeleteBenchmark, ResumeBenchmark) at 10k, 100k"
                        + " and 1M memories; -rf json -rff FILE."),
        JMH_REPORT("RESULTS.json OUT_DIR",
                "A JMH JSON result file as Markdown tables (sizes as columns, growth of the mean) and charts"
                        + " (the mean, and the p99 of sample-time runs).");

        final String options;
        final String summary;

        Harness(String options, String summary) {
            this.options = options;
            this.summary = summary;
        }

        /** The name after {@code ./jiyi bench}. */
        String command() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private CommandSpec spec;

    @Parameters(paramLabel = "HARNESS", arity = "0..*",
            description = "A harness and its options; see the list below (they run only through ./jiyi).")
    List<String> harness;

    /** The harness list, appended to the help from {@link Harness} so that it is written once. */
    @Spec
    void describe(CommandSpec commandSpec) {
        this.spec = commandSpec;
        commandSpec.usageMessage().footerHeading("%nHarnesses (./jiyi bench HARNESS [OPTIONS], from the repository root):%n")
                .footer(harnessLines().stream().map(l -> l.replace("%", "%%")).toArray(String[]::new));
    }

    /**
     * One entry per harness: its name and options, then what it measures, wrapped for an 80-column
     * terminal.
     */
    static List<String> harnessLines() {
        List<String> lines = new ArrayList<>();
        for (Harness h : Harness.values()) {
            lines.add("  " + h.command() + " " + h.options);
            for (String l : SideBySide.wrap(h.summary, 72)) {
                lines.add("      " + l);
            }
        }
        return lines;
    }

    @Override
    public Integer call() {
        JiyiCommand root = (JiyiCommand) spec.root().userObject();
        Output out = new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), root.json);
        List<String> names = new ArrayList<>();
        for (Harness h : Harness.values()) {
            names.add(h.command());
        }
        out.error(ExitCode.INVALID, "bench: benchmarks run only through the ./jiyi launcher in a source checkout"
                + " (./jiyi bench " + String.join("|", names) + " [OPTIONS]); this application jar does not"
                + " contain them");
        if (!out.json()) {
            harnessLines().forEach(spec.commandLine().getErr()::println);
            spec.commandLine().getErr().flush();
        }
        return ExitCode.INVALID;
    }
}
