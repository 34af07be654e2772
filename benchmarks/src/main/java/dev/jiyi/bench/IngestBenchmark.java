package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.engine.Jiyi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Event ingestion through the engine the CLI uses ({@link Jiyi}: the SQLite authority with the FTS5
 * index attached), on a real database file in a temporary directory: empty ({@code size} 0) or a copy
 * of the realistic archive of {@code size} turns, an event and a memory each ({@link ZipfCorpus},
 * {@link JmhArchives#openZipf}).
 *
 * <ul>
 *   <li>{@link #submitOne}: one {@code submitEvent} per invocation, so one BEGIN IMMEDIATE ...
 *   COMMIT (WAL, synchronous=FULL) per event; reported as events per second. The database grows
 *   through the trial (every event is new).</li>
 *   <li>{@link #submitBatch}: {@code events} events through {@code submitEvents} in chunks of
 *   {@code chunkSize}, what {@code jiyi event submit --batch} does, into a fresh copy of the starting
 *   database each iteration; reported as milliseconds per batch.</li>
 * </ul>
 *
 * <p>The events are the turns that continue the archive ({@link ZipfCorpus#events}: its scopes,
 * sessions and Zipfian vocabulary, Chinese, English and mixed), as a host's next conversations would.
 * The jieba dictionary is loaded in setup, outside the measurement.
 */
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8"})
@Warmup(iterations = 3, time = 5, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 5, timeUnit = TimeUnit.SECONDS)
public class IngestBenchmark {

    /** One database for the whole trial; each invocation commits one new event. */
    @State(Scope.Benchmark)
    public static class SingleCommit {

        @Param({"0", "10000", "100000", "1000000"})
        public int size;

        @Param({"20240501"})
        public long seed;

        ScratchHome scratch;
        Jiyi jiyi;
        ZipfCorpus corpus;
        long next;

        @Setup(Level.Trial)
        public void open() {
            ChineseTokens.warmUp();
            scratch = start(size, "single");
            jiyi = Jiyi.open(scratch.home());
            corpus = new ZipfCorpus(seed, size);
            next = size;
        }

        @TearDown(Level.Trial)
        public void close() {
            System.out.printf("%n[single] seed %d, %d events committed onto %d, database %d bytes%n",
                    seed, next - size, size, scratch.databaseBytes());
            jiyi.close();
            scratch.close();
        }
    }

    /** A new empty database for every iteration; the events are generated once per trial. */
    @State(Scope.Benchmark)
    public static class BatchLoad {

        @Param({"0", "10000", "100000", "1000000"})
        public int size;

        @Param({"10000"})
        public int events;

        @Param({"500"})
        public int chunkSize;

        @Param({"20240501"})
        public long seed;

        List<List<EventSubmission>> chunks;
        CachedArchive archive;
        ScratchHome scratch;
        Jiyi jiyi;

        @Setup(Level.Trial)
        public void generate() {
            ChineseTokens.warmUp();
            archive = size == 0 ? null : JmhArchives.openZipf(size);
            List<EventSubmission> all = new ZipfCorpus(seed, size).events(size, size + (long) events);
            chunks = chunk(all, chunkSize);
        }

        @Setup(Level.Iteration)
        public void open() {
            scratch = archive == null ? ScratchHome.create("batch") : JmhArchives.copy(archive, "batch");
            jiyi = Jiyi.open(scratch.home());
        }

        @TearDown(Level.Iteration)
        public void close() {
            long bytes = scratch.databaseBytes();
            jiyi.close();
            System.out.printf("%n[batch] seed %d, %d events in chunks of %d onto %d, database %d bytes before close%n",
                    seed, events, chunkSize, size, bytes);
            scratch.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public SubmitResult submitOne(SingleCommit state) {
        return state.jiyi.authority().submitEvent(state.corpus.event(state.next++));
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public int submitBatch(BatchLoad state) {
        int committed = 0;
        for (List<EventSubmission> chunk : state.chunks) {
            BatchResult<SubmitResult> result = state.jiyi.authority().submitEvents(chunk);
            if (result.failed()) {
                throw new IllegalStateException("batch item " + (committed + result.failedAt()) + " was rejected",
                        result.error());
            }
            committed += result.committed().size();
        }
        return committed;
    }

    /** An empty scratch home, or one holding a copy of the realistic archive of {@code size}. */
    static ScratchHome start(int size, String purpose) {
        return size == 0 ? ScratchHome.create(purpose) : JmhArchives.copy(JmhArchives.openZipf(size), purpose);
    }

    static <T> List<List<T>> chunk(List<T> items, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("chunkSize: must be at least 1, was " + size);
        }
        List<List<T>> chunks = new ArrayList<>();
        for (int from = 0; from < items.size(); from += size) {
            chunks.add(List.copyOf(items.subList(from, Math.min(items.size(), from + size))));
        }
        return List.copyOf(chunks);
    }
}
