package dev.jiyi.bench;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Table;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.lucene.LuceneBackend;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Permanent deletion of one event and the memory derived from it (D1, B1), on a copy of the realistic
 * archive ({@link ZipfCorpus}, {@link JmhArchives#openZipf}: four scopes, one memory per turn): {@link #authority} is the authority's transaction (the rows, their FTS5 entries, the
 * deletion record); {@link #withLucene} adds Lucene's catch-up, which deletes the documents, merges
 * away the segments' deleted documents and commits, as a home with a Lucene index pays before its next
 * search. Each invocation deletes another turn, picked at setup by seeded random turn numbers.
 */
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8", "-Xmx3g"})
@Warmup(iterations = 2, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 4, time = 2, timeUnit = TimeUnit.SECONDS)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class DeleteBenchmark {

    /** Events picked for deletion per trial: enough for the iterations, at most half the archive. */
    static final int POOL = 5_000;

    @State(org.openjdk.jmh.annotations.Scope.Benchmark)
    public static class Archive {

        @Param({"10000", "100000", "1000000"})
        public int size;

        ScratchHome scratch;
        Jiyi jiyi;
        List<ZipfCorpus.Turn> victims;
        private int next;

        @Setup(Level.Trial)
        public void open() {
            scratch = JmhArchives.copy(JmhArchives.openZipf(size), "delete");
            jiyi = Jiyi.open(scratch.home());
            victims = victims(new ZipfCorpus(ChatCorpus.DEFAULT_SEED, size), Math.min(POOL, size / 2),
                    ChatCorpus.DEFAULT_SEED);
        }

        @TearDown(Level.Trial)
        public void close() {
            System.out.printf("%n[delete] %d of %d events deleted%n", next, size);
            jiyi.close();
            scratch.close();
        }

        ZipfCorpus.Turn nextVictim() {
            if (next == victims.size()) {
                throw new IllegalStateException("all " + victims.size() + " events picked for deletion are deleted:"
                        + " shorten the iterations or raise POOL");
            }
            return victims.get(next++);
        }
    }

    @Benchmark
    public Deletion authority(Archive a) {
        return delete(a);
    }

    @Benchmark
    public Deletion withLucene(Archive a) {
        Deletion d = delete(a);
        LuceneRecallHarness.catchUp(a.jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index(), a.jiyi.authority());
        return d;
    }

    private static Deletion delete(Archive a) {
        ZipfCorpus.Turn victim = a.nextVictim();
        Deletion d = a.jiyi.authority().deleteEvent(victim.scope(), ZipfCorpus.eventId(ChatCorpus.DEFAULT_SEED, victim.n()));
        if (d.memoryIds().isEmpty()) {
            throw new IllegalStateException("a deletion removed no memory");
        }
        return d;
    }

    /** {@code n} distinct turns of the archive {@code corpus} made, picked by seeded random numbers. */
    static List<ZipfCorpus.Turn> victims(ZipfCorpus corpus, int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Set<Long> picked = new HashSet<>();
        List<ZipfCorpus.Turn> turns = new ArrayList<>(n);
        while (turns.size() < n) {
            long turn = random.nextLong(corpus.size());
            if (picked.add(turn)) {
                turns.add(corpus.turn(turn));
            }
        }
        return turns;
    }

    /** The IDs of {@code n} distinct events at seeded random sequence numbers. */
    static List<String> victims(Authority authority, int n, long seed) {
        long events = authority.tableCounts().of(Table.EVENTS);
        SplittableRandom random = new SplittableRandom(seed);
        Set<Long> picked = new HashSet<>();
        List<String> ids = new ArrayList<>(n);
        while (ids.size() < n) {
            long sequence = 1 + random.nextLong(events);
            if (picked.add(sequence)) {
                ids.add(authority.read(s -> s.eventsAfter(sequence - 1, 1)).stream().map(Event::id).findFirst()
                        .orElseThrow(() -> new IllegalStateException("no event at sequence " + sequence)));
            }
        }
        return ids;
    }
}
