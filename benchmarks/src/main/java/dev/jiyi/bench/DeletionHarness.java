package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Home;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.fts5.Fts5Segments;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;

/**
 * What a permanent deletion costs as the archive grows: {@code ./jiyi bench delete}. For each size
 * it fills a scratch home with chat events, one memory derived from every second event and a
 * correction of every hundredth memory, then deletes {@code --deletions} random events one at a
 * time (each with its memories and correction lineage) and prints per-deletion latency percentiles.
 * It also times a full rebuild of the FTS5 index on open (what migration 4, or a change of
 * tokenization, costs an existing archive once).
 */
@Command(name = "deletion-harness", mixinStandardHelpOptions = true,
        description = "Measures jiyi's permanent deletion latency at several archive sizes.")
public final class DeletionHarness implements Callable<Integer> {

    @Option(names = "--sizes", paramLabel = "N,N", split = ",", defaultValue = "10000,100000",
            description = "Archive sizes in events (default: ${DEFAULT-VALUE}).")
    int[] sizes;

    @Option(names = "--deletions", paramLabel = "K", defaultValue = "20",
            description = "Deletions timed per size (default: ${DEFAULT-VALUE}).")
    int deletions;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "" + ChatCorpus.DEFAULT_SEED,
            description = "Corpus seed (default: ${DEFAULT-VALUE}).")
    long seed;

    private final PrintStream out;

    public DeletionHarness(PrintStream out) {
        this.out = out;
    }

    /** The timings at one archive size. */
    public record Result(int events, int memories, long databaseBytes, long p50Nanos, long p95Nanos, long maxNanos,
                         long rebuildNanos, double removedPerDeletion, int merges) {
    }

    @Override
    public Integer call() {
        ChineseTokens.warmUp();
        Runtime rt = Runtime.getRuntime();
        out.printf(Locale.ROOT, "jiyi deletion harness: seed %d, Java %s, %d processors, max heap %d MiB%n", seed,
                System.getProperty("java.version"), rt.availableProcessors(), rt.maxMemory() >> 20);
        out.println("load average at start: " + IngestHarness.loadAverage());
        for (int size : sizes) {
            try (ScratchHome scratch = ScratchHome.create("delete-" + size)) {
                Result r = run(scratch, new ChatCorpus(seed, "delete" + size), size, deletions, new Random(seed));
                out.printf(Locale.ROOT, "%,d events, %,d memories, database %.1f MiB: deletion p50 %.1f ms, p95 %.1f ms, "
                                + "max %.1f ms (%d deletions, %.1f rows removed each, %d merged a table to purge a page-key trace); "
                                + "FTS5 index rebuild on open %.1f s%n",
                        r.events(), r.memories(), r.databaseBytes() / 1048576.0, r.p50Nanos() / 1e6, r.p95Nanos() / 1e6,
                        r.maxNanos() / 1e6, deletions, r.removedPerDeletion(), r.merges(), r.rebuildNanos() / 1e9);
            }
        }
        out.println("load average at end: " + IngestHarness.loadAverage());
        return 0;
    }

    /** Fills {@code scratch} with {@code size} events and times {@code k} deletions of random ones. */
    public static Result run(ScratchHome scratch, ChatCorpus corpus, int size, int k, Random random) {
        if (size < 2 || k < 1 || k > size / 2) {
            throw new IllegalArgumentException("need at least 2 events and 1..size/2 deletions");
        }
        Home home = scratch.home();
        List<String> derivedFrom = new ArrayList<>();
        int memories = 0;
        try (Jiyi jiyi = Jiyi.open(home)) {
            for (int done = 0; done < size; ) {
                int n = Math.min(500, size - done);
                List<EventSubmission> events = corpus.nextEvents(n);
                require(jiyi.authority().submitEvents(events));
                List<Derivation> drafts = new ArrayList<>();
                for (int i = 0; i < events.size(); i += 2) {
                    EventSubmission e = events.get(i);
                    String quote = e.text().substring(0, Math.min(12, e.text().length()));
                    if (Character.isHighSurrogate(quote.charAt(quote.length() - 1))) {
                        quote = quote.substring(0, quote.length() - 1);
                    }
                    drafts.add(new Derivation(Scope.DEFAULT, MemoryDraft.builder(e.id()).kind(Kind.OBSERVATION)
                            .basis(Basis.INFERENCE).text(e.text()).quote(quote).build()));
                    derivedFrom.add(e.id());
                }
                List<Memory> added = require(jiyi.authority().addMemories(drafts));
                memories += added.size();
                for (int i = 0; i < added.size(); i += 100) {
                    jiyi.authority().correctMemory(Scope.DEFAULT, added.get(i).id(),
                            new CorrectionDraft("更正 corrected: " + added.get(i).text(), null, null));
                    memories++;
                }
                done += n;
            }
            long[] each = new long[k];
            long removed = 0;
            List<String> targets = new ArrayList<>(derivedFrom);
            java.util.Collections.shuffle(targets, random);
            int merges = 0;
            for (int i = 0; i < k; i++) {
                Fts5Segments before = jiyi.authority().read(Fts5Segments::of);
                long t = System.nanoTime();
                Deletion d = jiyi.authority().deleteEvent(Scope.DEFAULT, targets.get(i));
                each[i] = System.nanoTime() - t;
                removed += d.eventIds().size() + d.memoryIds().size();
                Fts5Segments after = jiyi.authority().read(Fts5Segments::of);
                // the page-key check merged a table to purge a trace
                if (before.events() > 1 && after.events() == 1) {
                    merges++;
                }
                if (before.memories() > 1 && after.memories() == 1) {
                    merges++;
                }
            }
            Arrays.sort(each);
            long rebuild = rebuild(jiyi);
            return new Result(size, memories, scratch.databaseBytes(), IngestHarness.percentile(each, 50),
                    IngestHarness.percentile(each, 95), each[k - 1], rebuild, removed / (double) k, merges);
        }
    }

    static <T> List<T> require(BatchResult<T> result) {
        if (result.error() != null) {
            throw new IllegalStateException("the benchmark corpus was rejected", result.error());
        }
        return result.committed();
    }

    /**
     * Marks the FTS5 index stale and times opening the home, which rebuilds it from the stored text.
     * Runs while the harness's own connection is still open, as a second process would.
     */
    private static long rebuild(Jiyi jiyi) {
        Home home = jiyi.home();
        jiyi.authority().markIndexStale("fts5");
        long t = System.nanoTime();
        try (Jiyi reopened = Jiyi.open(home)) {
            return System.nanoTime() - t;
        }
    }
}
