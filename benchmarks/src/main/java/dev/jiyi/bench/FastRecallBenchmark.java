package dev.jiyi.bench;

import dev.jiyi.bench.ZipfCorpus.Query;
import dev.jiyi.bench.ZipfCorpus.QueryKind;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Fast recall (B1), the whole of it (memory, timeline and event candidates, evidence, context,
 * recheck, rows, ranking, limit 10), on FTS5 and on Lucene over the realistic archive
 * ({@link ZipfCorpus}: Zipfian vocabulary, topics and names, four scopes, superseded and future
 * facts) at each {@code size}, for each {@code kind} of held-out query ({@link QueryKind}: known
 * items, topics, long mixed texts, dialogues), each in its own scope. The clock is the real one, so
 * eligibility moves from call to call as it does in use, and a background ingest adds one turn a
 * second while the trial runs ({@link BackgroundIngest}), on a copy of the cached archive.
 *
 * <p>Each invocation takes the next of {@value #QUERIES} seeded queries, the same sequence for both
 * indexes. Sample time: the score is the mean per recall, and JMH's percentiles (p50, p99) come
 * with it. The uniform archive of the earlier benchmark is kept as the named worst case,
 * {@link UniformRecallBenchmark}.
 */
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8", "-Xmx3g"})
@Warmup(iterations = 2, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 4, time = 2, timeUnit = TimeUnit.SECONDS)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class FastRecallBenchmark {

    /** Queries per trial, cycled. */
    static final int QUERIES = 200;

    /** Milliseconds between the background ingest's turns. */
    static final long INGEST_PERIOD = 1_000;

    @State(org.openjdk.jmh.annotations.Scope.Benchmark)
    public static class Archive {

        @Param({"10000", "100000", "1000000"})
        public int size;

        @Param({"KNOWN_ITEM", "TOPICAL", "LONG", "DIALOGUE"})
        public QueryKind kind;

        /** Whether a turn a second is ingested while measuring (the smoke test turns it off). */
        boolean ingest = true;

        ScratchHome home;
        Jiyi jiyi;
        Recall fts5;
        Recall lucene;
        List<RecallRequest> requests;
        BackgroundIngest background;
        private int fts5Next;
        private int luceneNext;

        @Setup(Level.Trial)
        public void open() {
            CachedArchive archive = JmhArchives.openZipf(size);
            home = JmhArchives.copy(archive, "fast-recall");
            jiyi = Jiyi.open(home.home());
            Clock clock = Clock.systemUTC();
            fts5 = jiyi.recall("fts5", RecallConfig.DEFAULT, clock);
            lucene = jiyi.recall("lucene", RecallConfig.DEFAULT, clock);
            ZipfCorpus corpus = new ZipfCorpus(ChatCorpus.DEFAULT_SEED, size);
            requests = requests(corpus, kind, QUERIES);
            if (ingest) {
                background = new BackgroundIngest(jiyi.authority(), corpus, INGEST_PERIOD);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            if (background != null) {
                background.close();
            }
            jiyi.close();
            home.close();
        }

        RecallRequest nextForFts5() {
            return requests.get(fts5Next++ % requests.size());
        }

        RecallRequest nextForLucene() {
            return requests.get(luceneNext++ % requests.size());
        }
    }

    @Benchmark
    public RecallResult fts5(Archive a) {
        return a.fts5.recall(a.nextForFts5());
    }

    @Benchmark
    public RecallResult lucene(Archive a) {
        return a.lucene.recall(a.nextForLucene());
    }

    /** The first {@code n} queries of a kind as fast recall requests (limit 10), each in its own scope. */
    static List<RecallRequest> requests(ZipfCorpus corpus, QueryKind kind, int n) {
        List<RecallRequest> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Query q = corpus.query(kind, i);
            out.add(q.dialogue().isEmpty()
                    ? new RecallRequest(q.scope(), q.text(), RecallMode.FAST, LuceneRecallHarness.RECALL_LIMIT, null, false)
                    : RecallRequest.dialogue(q.scope(), q.dialogue(), RecallMode.FAST, LuceneRecallHarness.RECALL_LIMIT,
                            null, false));
        }
        return out;
    }
}
