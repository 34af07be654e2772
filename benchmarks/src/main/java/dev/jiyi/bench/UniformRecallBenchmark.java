package dev.jiyi.bench;

import dev.jiyi.authority.Scope;
import dev.jiyi.bench.LuceneRecallHarness.QueryKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;
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

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The worst case of fast recall (B1), kept by name: the whole of it (memory and event candidates,
 * recheck, rows, ranking, limit 10) on FTS5 and on Lucene over the uniform {@link ChatCorpus}
 * archive, 60 fixed sentences repeated, where every term's document frequency is a fixed share of the
 * archive and no engine can prune; {@link FastRecallBenchmark} measures the realistic archive. The
 * same queries: {@link #fts5} and
 * {@link #lucene} at each {@code size} and {@code kind} ({@link QueryKind}: corpus windows,
 * all-common-character queries, the most frequent words, long mixed texts). Each invocation takes the
 * next of {@value #QUERIES} seeded queries, the same sequence for both indexes; the clock is fixed
 * at setup so that eligibility does not move during a trial.
 *
 * <p>Sample time: the score is the mean per recall, and JMH's percentiles (p50, p99) come with it.
 */
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8", "-Xmx3g"})
@Warmup(iterations = 2, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 4, time = 2, timeUnit = TimeUnit.SECONDS)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class UniformRecallBenchmark {

    /** Queries per trial, cycled. */
    static final int QUERIES = 200;

    @State(org.openjdk.jmh.annotations.Scope.Benchmark)
    public static class Archive {

        @Param({"10000", "100000", "1000000"})
        public int size;

        @Param({"WINDOW", "COMMON", "FREQUENT", "LONG"})
        public QueryKind kind;

        Jiyi jiyi;
        Recall fts5;
        Recall lucene;
        List<String> queries;
        private int fts5Next;
        private int luceneNext;

        @Setup(Level.Trial)
        public void open() {
            CachedArchive archive = JmhArchives.open(size, false);
            jiyi = Jiyi.open(archive.home());
            Clock clock = Clock.fixed(Instant.now(), ZoneOffset.UTC);
            fts5 = jiyi.recall("fts5", RecallConfig.DEFAULT, clock);
            lucene = jiyi.recall("lucene", RecallConfig.DEFAULT, clock);
            queries = LuceneRecallHarness.queries(kind, new ChatCorpus(ChatCorpus.DEFAULT_SEED, "query-" + kind), QUERIES,
                    new SplittableRandom(ChatCorpus.DEFAULT_SEED + kind.ordinal()));
        }

        @TearDown(Level.Trial)
        public void close() {
            jiyi.close();
        }

        String nextForFts5() {
            return queries.get(fts5Next++ % queries.size());
        }

        String nextForLucene() {
            return queries.get(luceneNext++ % queries.size());
        }
    }

    @Benchmark
    public RecallResult fts5(Archive a) {
        return a.fts5.recall(request(a.nextForFts5()));
    }

    @Benchmark
    public RecallResult lucene(Archive a) {
        return a.lucene.recall(request(a.nextForLucene()));
    }

    static RecallRequest request(String query) {
        return new RecallRequest(Scope.DEFAULT, query, RecallMode.FAST, LuceneRecallHarness.RECALL_LIMIT, null, false);
    }
}
