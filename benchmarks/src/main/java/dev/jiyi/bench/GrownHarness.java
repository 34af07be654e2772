package dev.jiyi.bench;

import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.bench.ZipfCorpus.QueryKind;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.lucene.LuceneBackend;
import dev.jiyi.lucene.LuceneIndex;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallRequest;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * Fast recall and deletion on a Lucene index grown the way a home in use grows it: the realistic
 * archive's turns ingested in groups of {@value #GROUP} (their events, then their memories, so that each
 * page the follower applies holds both kinds, as a page of a home's change log does), with the index
 * catching up every {@code --batch} turns. The JMH archives' indexes are rebuilt in one pass (all
 * events, then all memories); a grown index is what a user's recall pays for. The grown home is kept
 * in {@code --home} with a marker of its size, and reused by later runs of the same size (growing
 * 1,000,000 turns takes about ten minutes on two cores); the deletions change it.
 */
@Command(name = "grown", mixinStandardHelpOptions = true,
        description = "Fast recall and deletion on a Lucene index grown by ingest and catch-ups, as a home in use grows it.")
public final class GrownHarness implements Callable<Integer> {

    @Option(names = "--size", paramLabel = "N", defaultValue = "1000000",
            description = "Archive size in turns (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--home", paramLabel = "DIR", required = true,
            description = "The grown home: grown there when absent, reused when present.")
    Path home;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "5000",
            description = "Turns ingested between two catch-ups while growing (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "5",
            description = "Rounds of the 200 queries of each kind; the first two are warm-up (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--deletions", paramLabel = "N", defaultValue = "20",
            description = "Turns deleted at the end, each followed by Lucene's catch-up (default: ${DEFAULT-VALUE}).")
    int deletions;

    /** Turns submitted together: their events in one transaction, then their memories in another. */
    static final int GROUP = 100;

    /** The file in a grown home that says what it holds; written once the growth is caught up. */
    static final String MARKER = "grown.properties";

    private final PrintStream out;

    public GrownHarness(PrintStream out) {
        this.out = out;
    }

    public static CommandLine command(PrintStream out) {
        return new CommandLine(new GrownHarness(out));
    }

    /** One kind's rounds after the warm-up: mean, p50 and p99 of single calls, and each round's mean, in ms. */
    record Timing(QueryKind kind, double mean, double p50, double p99, double[] roundMeans) {
    }

    /** What a run measured. */
    record Result(LuceneIndex.Layout layout, List<Timing> recall, long[] deletionNanos) {
    }

    @Override
    public Integer call() {
        if (size < 2 || batch < 1 || rounds < 3 || deletions < 0) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--size must be at least 2, --batch at least 1, --rounds at least 3, --deletions at least 0");
        }
        if (Files.exists(home) && !marker(size).equals(markerIn(home))) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--home holds no finished growth of --size " + size + " (grow it in a new folder)");
        }
        out.printf(Locale.ROOT, "jiyi grown harness: %,d turns in %s, load average %s%n", size, home,
                IngestHarness.loadAverage());
        Result r = run(size, home, batch, rounds, deletions, out);
        out.printf(Locale.ROOT, "segments while recall was timed: %d of events, %d of memories, %d of both%n",
                r.layout().events(), r.layout().memories(), r.layout().mixed());
        for (Timing t : r.recall()) {
            out.printf(Locale.ROOT, "fast recall, %s: mean %.2f p50 %.2f p99 %.2f ms; mean per round %s%n",
                    t.kind().name().toLowerCase(Locale.ROOT), t.mean(), t.p50(), t.p99(),
                    Arrays.stream(t.roundMeans()).mapToObj(m -> String.format(Locale.ROOT, "%.2f", m)).toList());
        }
        if (r.deletionNanos().length > 0) {
            long[] d = r.deletionNanos().clone();
            Arrays.sort(d);
            out.printf(Locale.ROOT, "deletion (the authority's, then Lucene's catch-up with its purge), %d turns:"
                    + " p50 %.0f mean %.0f max %.0f ms%n", d.length, IngestHarness.percentile(d, 50) / 1e6,
                    Arrays.stream(d).average().orElse(0) / 1e6, d[d.length - 1] / 1e6);
        }
        out.println("load average at end: " + IngestHarness.loadAverage());
        return 0;
    }

    static Result run(int size, Path home, int batch, int rounds, int deletions, PrintStream out) {
        ZipfCorpus corpus = new ZipfCorpus(ChatCorpus.DEFAULT_SEED, size);
        boolean grow = !Files.exists(home);
        try (Jiyi jiyi = Jiyi.open(home)) {
            LuceneIndex lucene = jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index();
            if (grow) {
                grow(jiyi, lucene, corpus, batch, home, out);
            }
            Recall recall = jiyi.recall("lucene", RecallConfig.DEFAULT, Clock.systemUTC());
            List<Timing> timings = new ArrayList<>();
            for (QueryKind kind : List.of(QueryKind.KNOWN_ITEM, QueryKind.TOPICAL)) {
                List<RecallRequest> requests = FastRecallBenchmark.requests(corpus, kind, FastRecallBenchmark.QUERIES);
                long[] measured = new long[(rounds - 2) * requests.size()];
                double[] roundMeans = new double[rounds - 2];
                for (int round = 0, n = 0; round < rounds; round++) {
                    long roundTotal = 0;
                    for (RecallRequest request : requests) {
                        long start = System.nanoTime();
                        recall.recall(request);
                        long took = System.nanoTime() - start;
                        roundTotal += took;
                        if (round >= 2) {
                            measured[n++] = took;
                        }
                    }
                    if (round >= 2) {
                        roundMeans[round - 2] = roundTotal / 1e6 / requests.size();
                    }
                }
                Arrays.sort(measured);
                timings.add(new Timing(kind, Arrays.stream(measured).average().orElse(0) / 1e6,
                        IngestHarness.percentile(measured, 50) / 1e6, IngestHarness.percentile(measured, 99) / 1e6,
                        roundMeans));
            }
            LuceneIndex.Layout layout = lucene.layout();
            return new Result(layout, timings, delete(jiyi, lucene, corpus, deletions));
        }
    }

    private static void grow(Jiyi jiyi, LuceneIndex lucene, ZipfCorpus corpus, int batch, Path home,
                             PrintStream out) {
        long start = System.nanoTime();
        for (long n = 0; n < corpus.size(); n += GROUP) {
            List<EventSubmission> events = corpus.events(n, Math.min(n + GROUP, corpus.size()));
            DeletionHarness.require(jiyi.authority().submitEvents(events));
            List<Derivation> memories = new ArrayList<>(events.size());
            for (int i = 0; i < events.size(); i++) {
                memories.add(corpus.memory(events.get(i), n + i));
            }
            DeletionHarness.require(jiyi.authority().addMemories(memories));
            long done = n + events.size();
            if (done % batch < GROUP || done == corpus.size()) {
                lucene.catchUp(jiyi.authority());
            }
        }
        // Each catch-up has a time budget; the growth is done when the index holds all of it.
        for (long behind = Long.MAX_VALUE, now = lucene.catchUp(jiyi.authority()).behind(); now > 0 && now < behind;
             behind = now, now = lucene.catchUp(jiyi.authority()).behind()) {
            out.printf(Locale.ROOT, "catching up: %,d change(s) behind%n", now);
        }
        try {
            Files.writeString(home.resolve(MARKER), marker(corpus.size()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        out.printf(Locale.ROOT, "grown: %,d turns in %.0f s%n", corpus.size(), (System.nanoTime() - start) / 1e9);
    }

    /** The marker a home holds, or an empty string when it holds none. */
    private static String markerIn(Path home) {
        try {
            return Files.readString(home.resolve(MARKER));
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /** What the marker of a finished growth of {@code size} turns says. */
    static String marker(long size) {
        return "size=" + size + "\nseed=" + ChatCorpus.DEFAULT_SEED + "\ngroup=" + GROUP + "\n";
    }

    /** Deletes turns picked by a seeded random (skipping those an earlier run deleted), each with Lucene's catch-up. */
    private static long[] delete(Jiyi jiyi, LuceneIndex lucene, ZipfCorpus corpus, int deletions) {
        SplittableRandom random = new SplittableRandom(ChatCorpus.DEFAULT_SEED);
        long[] nanos = new long[deletions];
        int done = 0;
        for (int tries = 0; done < deletions && tries < deletions * 100; tries++) {
            EventSubmission victim = corpus.event(random.nextLong(corpus.size()));
            long start = System.nanoTime();
            try {
                jiyi.authority().deleteEvent(victim.scope(), victim.id());
            } catch (NotFoundException e) {
                continue;
            }
            lucene.catchUp(jiyi.authority());
            nanos[done++] = System.nanoTime() - start;
        }
        return Arrays.copyOf(nanos, done);
    }
}
