package dev.jiyi.bench;

import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Embedders;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Semantic and deep recall (B1) over a seeded chat archive with a vector per memory
 * ({@link JmhArchives#VECTORS}): {@link #exact} pairs FTS5 with the exact scan of the vector cache,
 * {@link #hnsw} is Lucene (its lexical search and its HNSW graph). Semantic compares the query with
 * the most recent 2,000 eligible vectors, deep with all of them (R5).
 *
 * <p>The query's vector comes from a table made at setup (drawn like the archive's vectors, another
 * seed), so the score is recall's own time: embedding a query with the local model costs a few
 * milliseconds more (SemanticHarness measures it).
 */
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8", "-Xmx3g"})
@Warmup(iterations = 2, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 4, time = 2, timeUnit = TimeUnit.SECONDS)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SemanticRecallBenchmark {

    static final int QUERIES = 200;

    @State(org.openjdk.jmh.annotations.Scope.Benchmark)
    public static class Archive {

        @Param({"10000", "100000", "1000000"})
        public int size;

        @Param({"SEMANTIC", "DEEP"})
        public RecallMode mode;

        Jiyi jiyi;
        TableEmbedder embedder;
        Recall exact;
        Recall hnsw;
        List<String> queries;
        private int exactNext;
        private int hnswNext;

        @Setup(Level.Trial)
        public void open() {
            CachedArchive archive = JmhArchives.open(size, true);
            jiyi = Jiyi.open(archive.home());
            queries = SemanticHarness.queries(new ChatCorpus(ChatCorpus.DEFAULT_SEED, "semantic-query"), QUERIES,
                    new SplittableRandom(ChatCorpus.DEFAULT_SEED));
            embedder = new TableEmbedder(queries, ChatCorpus.DEFAULT_SEED + 1);
            Clock clock = Clock.fixed(Instant.now(), ZoneOffset.UTC);
            exact = new Recall(jiyi.authority(), jiyi.recallIndex("fts5"), RecallConfig.DEFAULT, clock, () -> Embedders.of(embedder));
            hnsw = new Recall(jiyi.authority(), jiyi.recallIndex("lucene"), RecallConfig.DEFAULT, clock, () -> Embedders.of(embedder));
        }

        @TearDown(Level.Trial)
        public void close() {
            jiyi.close();
        }
    }

    @Benchmark
    public RecallResult exact(Archive a) {
        return a.exact.recall(request(a.queries.get(a.exactNext++ % a.queries.size()), a.mode));
    }

    @Benchmark
    public RecallResult hnsw(Archive a) {
        return a.hnsw.recall(request(a.queries.get(a.hnswNext++ % a.queries.size()), a.mode));
    }

    static RecallRequest request(String query, RecallMode mode) {
        return new RecallRequest(Scope.DEFAULT, query, mode, SemanticHarness.RECALL_LIMIT, null, false);
    }

    /**
     * Vectors for a known set of queries under the archive's fingerprint, drawn at construction like
     * the archive's own; any other text is refused, so a benchmark cannot silently embed something else.
     */
    static final class TableEmbedder implements Embedder {

        private final Map<String, float[]> vectors = new HashMap<>();
        private int calls;

        TableEmbedder(List<String> texts, long seed) {
            CachedArchive.VectorSource source = new CachedArchive.VectorSource(JmhArchives.VECTORS, seed);
            for (String text : texts) {
                vectors.computeIfAbsent(text, t -> source.next());
            }
        }

        @Override
        public String fingerprint() {
            return JmhArchives.VECTORS.fingerprint();
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            calls++;
            return texts.stream().map(t -> {
                float[] v = vectors.get(t);
                if (v == null) {
                    throw new IllegalArgumentException("no vector for a text outside the benchmark's queries");
                }
                return v;
            }).toList();
        }

        /** How many times recall asked for vectors. */
        int calls() {
            return calls;
        }
    }
}
