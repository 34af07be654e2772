package dev.jiyi.bench;

import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.SearchCounts;
import dev.jiyi.bench.ZipfCorpus.QueryKind;
import dev.jiyi.bench.report.Charts;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallRequest;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * What whole fast recall's lexical searches do, per recall, on the realistic archive that
 * {@link FastRecallBenchmark} times: {@code ./jiyi bench hits}. For each size, index and query kind
 * it runs the benchmark's queries once and reports, per recall, the searches made, the hits they
 * visited (rows or documents read and scored) and the hits they collected (candidates returned),
 * from each index's {@link SearchCounts}. Counts do not depend on the machine or its load, so one
 * pass gives them; the JMH run gives the latency beside them. Visited hits are what grows with the
 * archive; collected ones are bounded by the windows recall asks for.
 */
@Command(name = "hits", mixinStandardHelpOptions = true,
        description = "Counts the hits fast recall's searches visit and collect on the realistic archive.")
public final class SearchWorkHarness implements Callable<Integer> {

    static final List<String> INDEXES = List.of("fts5", "lucene");

    @Option(names = "--sizes", paramLabel = "N,N", split = ",", defaultValue = "10000,100000,1000000",
            description = "Archive sizes in turns (default: ${DEFAULT-VALUE}).")
    int[] sizes;

    @Option(names = "--queries", paramLabel = "N", defaultValue = "200",
            description = "Queries of each kind (default: ${DEFAULT-VALUE}, as the JMH benchmark).")
    int queries;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Also write search-work.md, and charts of the hits visited and collected per recall, there.")
    Path outDir;

    private final PrintStream out;

    public SearchWorkHarness(PrintStream out) {
        this.out = out;
    }

    public static CommandLine command(PrintStream out) {
        return new CommandLine(new SearchWorkHarness(out));
    }

    /**
     * The work of one recall on average: searches, hits visited and hits collected, and the hits
     * visited by the memory, event and evidence searches.
     */
    public record Work(double searches, double visited, double collected, double memories, double events,
                       double evidence) {
    }

    @Override
    public Integer call() throws IOException {
        if (queries < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--queries must be at least 1");
        }
        // row "index kind" -> size -> work
        Map<String, Map<Integer, Work>> rows = new LinkedHashMap<>();
        for (int size : sizes) {
            if (size < 2) {
                throw new CommandLine.ParameterException(new CommandLine(this), "--sizes must be at least 2");
            }
            for (Map.Entry<String, Work> e : measure(size, queries).entrySet()) {
                rows.computeIfAbsent(e.getKey(), k -> new LinkedHashMap<>()).put(size, e.getValue());
            }
        }
        String table = table(rows);
        out.print(table);
        if (outDir != null) {
            Files.createDirectories(outDir);
            Files.writeString(outDir.resolve("search-work.md"), table, StandardCharsets.UTF_8);
            chart(outDir.resolve("search-work.png"), rows, "visited", Work::visited);
            chart(outDir.resolve("search-work-collected.png"), rows, "collected", Work::collected);
            out.println("wrote " + outDir.resolve("search-work.md") + ", search-work.png and search-work-collected.png");
        }
        return 0;
    }

    /** Each index and query kind's work per recall on a copy of the realistic archive of {@code size} turns. */
    static Map<String, Work> measure(int size, int queries) {
        Map<String, Work> out = new LinkedHashMap<>();
        CachedArchive archive = JmhArchives.openZipf(size);
        try (ScratchHome home = JmhArchives.copy(archive, "search-work"); Jiyi jiyi = Jiyi.open(home.home())) {
            ZipfCorpus corpus = new ZipfCorpus(ChatCorpus.DEFAULT_SEED, size);
            for (String index : INDEXES) {
                LexicalIndex lexical = jiyi.recallIndex(index).lexical();
                Recall recall = jiyi.recall(index, RecallConfig.DEFAULT, Clock.systemUTC());
                for (QueryKind kind : QueryKind.values()) {
                    List<RecallRequest> requests = FastRecallBenchmark.requests(corpus, kind, queries);
                    SearchCounts counts = lexical.searchCounts();
                    Map<SearchCounts.Search, SearchCounts.Totals> before = new EnumMap<>(SearchCounts.Search.class);
                    for (SearchCounts.Search s : SearchCounts.Search.values()) {
                        before.put(s, counts.totals(s));
                    }
                    SearchCounts.Totals all = counts.totals();
                    for (RecallRequest r : requests) {
                        recall.recall(r);
                    }
                    SearchCounts.Totals done = counts.totals().minus(all);
                    double[] by = new double[3];
                    for (SearchCounts.Search s : SearchCounts.Search.values()) {
                        by[s.ordinal()] = (double) counts.totals(s).minus(before.get(s)).visited() / queries;
                    }
                    out.put(index + " kind=" + kind.name().toLowerCase(Locale.ROOT),
                            new Work((double) done.searches() / queries, (double) done.visited() / queries,
                                    (double) done.collected() / queries, by[0], by[1], by[2]));
                }
            }
        }
        return out;
    }

    static String table(Map<String, Map<Integer, Work>> rows) {
        List<Integer> sizes = new ArrayList<>();
        rows.values().forEach(m -> m.keySet().forEach(s -> {
            if (!sizes.contains(s)) {
                sizes.add(s);
            }
        }));
        StringBuilder b = new StringBuilder();
        table(b, "Fast recall's lexical searches per recall: searches / hits visited / hits collected", sizes, rows,
                w -> String.format(Locale.ROOT, "%.1f / %,.0f / %,.0f", w.searches(), w.visited(), w.collected()), true);
        b.append('\n');
        table(b, "Hits visited per recall, by search: memories / events / evidence", sizes, rows,
                w -> String.format(Locale.ROOT, "%,.0f / %,.0f / %,.0f", w.memories(), w.events(), w.evidence()), false);
        return b.toString();
    }

    /** One Markdown table: a row per recall, a column per size, and the growth of the visited hits if asked. */
    private static void table(StringBuilder b, String title, List<Integer> sizes, Map<String, Map<Integer, Work>> rows,
                              Function<Work, String> cell, boolean growth) {
        b.append(title).append("\n\n| recall |");
        sizes.forEach(s -> b.append(String.format(Locale.ROOT, " %,d |", s)));
        b.append(growth ? " growth of visited |\n|---|" : "\n|---|");
        sizes.forEach(s -> b.append("---:|"));
        b.append(growth ? "---:|\n" : "\n");
        for (Map.Entry<String, Map<Integer, Work>> row : rows.entrySet()) {
            b.append("| ").append(row.getKey()).append(" |");
            for (int s : sizes) {
                Work w = row.getValue().get(s);
                b.append(' ').append(w == null ? "" : cell.apply(w)).append(" |");
            }
            if (growth) {
                Work first = row.getValue().get(sizes.get(0));
                Work last = row.getValue().get(sizes.get(sizes.size() - 1));
                b.append(first == null || last == null || first.visited() == 0 ? " |"
                        : String.format(Locale.ROOT, " %.1f× |", last.visited() / first.visited()));
            }
            b.append('\n');
        }
    }

    /** Hits {@code what} ({@code visited} or {@code collected}) per recall against archive size, log scales. */
    private static void chart(Path png, Map<String, Map<Integer, Work>> rows, String what, ToDoubleFunction<Work> hits)
            throws IOException {
        List<Charts.Series> series = new ArrayList<>();
        for (Map.Entry<String, Map<Integer, Work>> row : rows.entrySet()) {
            double[] x = row.getValue().keySet().stream().mapToDouble(Integer::doubleValue).toArray();
            double[] y = row.getValue().values().stream().mapToDouble(w -> Math.max(1, hits.applyAsDouble(w))).toArray();
            series.add(new Charts.Series(row.getKey(), x, y));
        }
        Charts.line(png, "Hits " + what + " per fast recall (realistic archive)", "archive size (turns, log scale)",
                "hits " + what + " per recall (log scale)", true, series);
    }
}
