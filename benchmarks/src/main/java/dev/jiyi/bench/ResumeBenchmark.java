package dev.jiyi.bench;

import dev.jiyi.authority.Scope;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.lucene.LuceneBackend;
import dev.jiyi.pack.ContextPack;
import dev.jiyi.pack.Pack;
import dev.jiyi.pack.PackRequest;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallMode;
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
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@code session_resume} (B1): one whole context pack of {@link PackRequest#DEFAULT_BUDGET}, counted
 * in bytes, on a copy of a seeded chat archive with a live session on top (40 turns, agreements,
 * growth, an emotion, a checkpoint: what {@link ResumeHarness} adds), its recalled memories found on
 * FTS5 or on Lucene ({@code index}), by the next of a cycle of corpus-window queries or, with
 * {@code query} false, by the checkpoint and the latest user turn.
 */
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8", "-Xmx3g"})
@Warmup(iterations = 2, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 4, time = 2, timeUnit = TimeUnit.SECONDS)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ResumeBenchmark {

    static final int QUERIES = 200;

    @State(org.openjdk.jmh.annotations.Scope.Benchmark)
    public static class Session {

        @Param({"10000", "100000", "1000000"})
        public int size;

        @Param({"fts5", "lucene"})
        public String index;

        @Param({"true", "false"})
        public boolean query;

        ScratchHome scratch;
        Jiyi jiyi;
        ContextPack packer;
        List<String> queries;
        private int next;

        @Setup(Level.Trial)
        public void open() {
            scratch = JmhArchives.copy(JmhArchives.open(size, false), "resume");
            jiyi = Jiyi.open(scratch.home());
            ResumeHarness.addSession(jiyi.authority(), ChatCorpus.DEFAULT_SEED);
            LuceneRecallHarness.catchUp(jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index(), jiyi.authority());
            Clock clock = Clock.systemUTC();
            packer = new ContextPack(jiyi.authority(), jiyi.recall(jiyi.recallIndex(index), RecallConfig.DEFAULT, clock),
                    clock);
            queries = SemanticHarness.queries(new ChatCorpus(ChatCorpus.DEFAULT_SEED, "resume-query"), QUERIES,
                    new SplittableRandom(ChatCorpus.DEFAULT_SEED));
        }

        @TearDown(Level.Trial)
        public void close() {
            jiyi.close();
            scratch.close();
        }

        PackRequest nextRequest() {
            String q = query ? queries.get(next++ % queries.size()) : null;
            return new PackRequest(Scope.DEFAULT, PackRequest.DEFAULT_BUDGET, null, q, ResumeHarness.SESSION,
                    RecallMode.FAST);
        }
    }

    @Benchmark
    public Pack resume(Session s) {
        return s.packer.pack(s.nextRequest());
    }
}
