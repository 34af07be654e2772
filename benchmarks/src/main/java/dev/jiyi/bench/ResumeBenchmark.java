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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code session_resume} (B1): one whole context pack of {@link PackRequest#DEFAULT_BUDGET}, counted
 * in bytes, on a copy of the realistic archive ({@link ZipfCorpus}, {@link JmhArchives#openZipf})
 * with a live session on top in its largest scope (the 40 turns that continue the archive,
 * agreements, growth, an emotion, a checkpoint: what {@link ResumeHarness} adds), its recalled
 * memories found on FTS5 ({@link #fts5}) or on Lucene ({@link #lucene}), recalled by what
 * {@code basis} says: the next of a cycle of held-out topical questions of that scope
 * ({@link Basis#QUERY}), or no query, so the checkpoint and the latest user turn
 * ({@link Basis#LATEST}).
 */
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8", "-Xmx3g"})
@Warmup(iterations = 2, time = 2, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 4, time = 2, timeUnit = TimeUnit.SECONDS)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ResumeBenchmark {

    static final int QUERIES = 200;

    /** The scope of the live session: the archive's largest. */
    static final Scope SCOPE = ZipfCorpus.SCOPES.getFirst();

    /** What a pack recalls by. */
    public enum Basis {
        /** A held-out topical question of the session's scope. */
        QUERY,
        /** No query: the pack recalls by the checkpoint and the latest user turn. */
        LATEST
    }

    @State(org.openjdk.jmh.annotations.Scope.Benchmark)
    public static class Session {

        @Param({"10000", "100000", "1000000"})
        public int size;

        @Param({"QUERY", "LATEST"})
        public Basis basis;

        ScratchHome scratch;
        Jiyi jiyi;
        ContextPack fts5;
        ContextPack lucene;
        List<String> queries;
        private int fts5Next;
        private int luceneNext;

        @Setup(Level.Trial)
        public void open() {
            scratch = JmhArchives.copy(JmhArchives.openZipf(size), "resume");
            jiyi = Jiyi.open(scratch.home());
            ZipfCorpus corpus = new ZipfCorpus(ChatCorpus.DEFAULT_SEED, size);
            ResumeHarness.addSession(jiyi.authority(), ChatCorpus.DEFAULT_SEED, SCOPE,
                    corpus.events(size, size + ResumeHarness.SESSION_TURNS));
            LuceneRecallHarness.catchUp(jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index(), jiyi.authority());
            Clock clock = Clock.systemUTC();
            fts5 = new ContextPack(jiyi.authority(), jiyi.recall("fts5", RecallConfig.DEFAULT, clock), clock);
            lucene = new ContextPack(jiyi.authority(), jiyi.recall("lucene", RecallConfig.DEFAULT, clock), clock);
            queries = queries(corpus, QUERIES);
        }

        @TearDown(Level.Trial)
        public void close() {
            jiyi.close();
            scratch.close();
        }

        PackRequest nextForFts5() {
            return request(basis == Basis.QUERY ? queries.get(fts5Next++ % queries.size()) : null);
        }

        PackRequest nextForLucene() {
            return request(basis == Basis.QUERY ? queries.get(luceneNext++ % queries.size()) : null);
        }

        private static PackRequest request(String query) {
            return new PackRequest(SCOPE, PackRequest.DEFAULT_BUDGET, null, query, ResumeHarness.SESSION, RecallMode.FAST);
        }
    }

    @Benchmark
    public Pack fts5(Session s) {
        return s.fts5.pack(s.nextForFts5());
    }

    @Benchmark
    public Pack lucene(Session s) {
        return s.lucene.pack(s.nextForLucene());
    }

    /** The texts of the first {@code n} held-out topical questions of {@link #SCOPE}. */
    static List<String> queries(ZipfCorpus corpus, int n) {
        return questions(corpus, n).stream().map(ZipfCorpus.Query::text).toList();
    }

    /** The first {@code n} held-out topical questions the corpus asks in {@link #SCOPE}. */
    static List<ZipfCorpus.Query> questions(ZipfCorpus corpus, int n) {
        List<ZipfCorpus.Query> out = new ArrayList<>(n);
        for (int i = 0; out.size() < n; i++) {
            ZipfCorpus.Query q = corpus.query(ZipfCorpus.QueryKind.TOPICAL, i);
            if (q.scope().equals(SCOPE)) {
                out.add(q);
            }
        }
        return out;
    }
}
