package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.bench.CachedArchive.Distribution;
import dev.jiyi.bench.CachedArchive.VectorSpec;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.lucene.LuceneBackend;
import dev.jiyi.lucene.LuceneIndex;

import java.nio.file.Path;

/**
 * The seeded archives the JMH benchmarks run on: the same {@link CachedArchive}s as the harnesses
 * (chat archives of {@link ChatCorpus#DEFAULT_SEED}, one memory per event, under
 * {@link CachedArchive#DEFAULT_ROOT} unless the system property {@value #ROOT_PROPERTY} names
 * another directory), each with the Lucene index a home keeps ({@code lucene/} beside the database,
 * what {@link Jiyi#lucene} opens), built once and caught up before any measurement.
 *
 * <p>A benchmark's first trial at a new size builds that archive (a million memories take about 15
 * minutes on 2 cores); later trials and runs reuse it. Benchmarks that change an archive work on a
 * copy ({@link #copy}).
 */
final class JmhArchives {

    /** System property naming the directory archives are kept in (JMH passes it to its forks with {@code -jvmArgsAppend}). */
    static final String ROOT_PROPERTY = "jiyi.bench.archives";

    /**
     * The arguments every benchmark's {@code @Fork} appends. JMH takes a fork's extra arguments from
     * the command line or from {@code @Fork}, never both, so whoever passes {@code -jvmArgsAppend}
     * passes these too.
     */
    static final String[] FORK_ARGS = {"--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8", "-Xmx3g"};

    /** Vectors of the semantic archives: 512 dimensions (the local model's) near a 32-dimensional subspace, as text embeddings lie. */
    static final VectorSpec VECTORS = new VectorSpec(512, Distribution.LOWRANK);

    /** Events and memories per batch call while building. */
    private static final int CHUNK = 2_000;

    private static final String LUCENE = "lucene";
    private static final String LUCENE_BUILD = "luceneBuildNanos.jiyi";

    private JmhArchives() {
    }

    /** Where archives are kept: {@value #ROOT_PROPERTY} if set, else {@link CachedArchive#DEFAULT_ROOT}. */
    static Path root() {
        String dir = System.getProperty(ROOT_PROPERTY);
        return dir == null || dir.isBlank() ? CachedArchive.DEFAULT_ROOT : Path.of(dir);
    }

    /**
     * The chat archive of {@code size} memories (with {@link #VECTORS} when {@code vectors}), cached
     * or built now, with its Lucene index built and caught up. Loads the jieba dictionary first, so
     * that no measurement pays for it.
     */
    static CachedArchive open(int size, boolean vectors) {
        ChineseTokens.warmUp();
        CachedArchive archive = CachedArchive.open(root(), size, ChatCorpus.DEFAULT_SEED, vectors ? VECTORS : null, CHUNK,
                System.out);
        try (Jiyi jiyi = Jiyi.open(archive.home())) {
            ensureLucene(archive, jiyi);
        }
        return archive;
    }

    /**
     * The realistic archive of {@code size} turns ({@link ZipfCorpus} of {@link ChatCorpus#DEFAULT_SEED}),
     * cached or built now, with its Lucene index built and caught up.
     */
    static CachedArchive openZipf(int size) {
        ChineseTokens.warmUp();
        CachedArchive archive = CachedArchive.openZipf(root(), size, ChatCorpus.DEFAULT_SEED, CHUNK, System.out);
        try (Jiyi jiyi = Jiyi.open(archive.home())) {
            ensureLucene(archive, jiyi);
        }
        return archive;
    }

    /**
     * Builds the home's Lucene index (timed into {@code archive.properties}) unless the archive has a
     * complete one, then catches it up with the authority: a search must never pay for indexing.
     */
    static void ensureLucene(CachedArchive archive, Jiyi jiyi) {
        Authority authority = jiyi.authority();
        Path dir = archive.dir().resolve(LUCENE);
        if (!LuceneIndex.exists(dir) || archive.figure(LUCENE_BUILD) < 0) {
            System.out.printf("building the Lucene index of %s ...%n", archive.dir());
            long t = System.nanoTime();
            jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index().rebuild(authority);
            archive.record(LUCENE_BUILD, System.nanoTime() - t);
        }
        LuceneRecallHarness.catchUp(jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index(), authority, "lucene catch-up", false);
    }

    /** A scratch home holding a copy of {@code archive} (database and Lucene index), for a benchmark that changes it. */
    static ScratchHome copy(CachedArchive archive, String purpose) {
        ScratchHome scratch = ScratchHome.create(purpose);
        archive.copyTo(scratch.dir());
        return scratch;
    }
}
