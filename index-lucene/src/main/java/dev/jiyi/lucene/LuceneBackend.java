package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.authority.index.Settings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * The derived Lucene index as a backend of a home: kept in its {@value #FOLDER} folder, opened on
 * first use with the home's {@code lucene.*} settings, rebuilt from the authority at any time. The
 * only place those settings are read.
 */
public final class LuceneBackend implements Backend {

    /** The folder of the home the index lives in. */
    public static final String FOLDER = "lucene";

    private final Path root;
    private final Settings settings;
    private LuceneIndex index;
    private RecallIndex recallIndex;

    /** @param home the home's directory; the index is its {@value #FOLDER} folder */
    public LuceneBackend(Path home, Settings settings) {
        this.root = home.resolve(FOLDER);
        this.settings = settings;
    }

    /**
     * The index's settings: {@code lucene.analyzer} (jiyi or smartcn), {@code lucene.vectors} (float
     * or int8), {@code lucene.knn_candidates} and {@code lucene.catch_up_ms}.
     */
    public static LuceneOptions options(Settings settings) {
        LuceneOptions d = LuceneOptions.defaults();
        String analyzer = settings.text("lucene.analyzer");
        String vectors = settings.text("lucene.vectors");
        return new LuceneOptions(
                analyzer == null ? d.analysis() : Analysis.parse(analyzer),
                vectors == null ? d.vectors() : LuceneOptions.VectorFormat.parse(vectors),
                settings.positiveInteger("lucene.knn_candidates", d.knnCandidates()),
                Duration.ofMillis(settings.positiveInteger("lucene.catch_up_ms", (int) d.catchUpBudget().toMillis())));
    }

    /** The index, opened once with the home's settings; it catches up with the authority at each search. */
    public synchronized LuceneIndex index() {
        if (index == null) {
            index = LuceneIndex.open(root, options(settings));
            recallIndex = new RecallIndex(index, index);
        }
        return index;
    }

    /** The index if it has been opened. */
    synchronized Optional<LuceneIndex> opened() {
        return Optional.ofNullable(index);
    }

    @Override
    public String name() {
        return "lucene";
    }

    @Override
    public synchronized RecallIndex recallIndex() {
        index();
        return recallIndex;
    }

    @Override
    public Optional<String> folder() {
        return Optional.of(FOLDER);
    }

    @Override
    public boolean built() {
        return LuceneIndex.exists(root);
    }

    @Override
    public Rebuilt rebuild(Authority authority, LongConsumer fed) {
        LuceneIndex i = index();
        LuceneIndex.Rebuilt r = i.rebuild(authority, fed);
        return new Rebuilt(r.events(), r.memories(), r.vectors(), r.head(), i.directory());
    }

    @Override
    public Optional<Health> health(Authority authority, TableCounts counts) {
        return Optional.of(LuceneHealth.check(this, authority, counts));
    }

    @Override
    public Optional<String> warning() {
        return opened().flatMap(i -> i.status().warning());
    }

    @Override
    public List<String> takeNotices() {
        return opened().map(LuceneIndex::takeNotices).orElse(List.of());
    }

    /** Opens the index and brings it up to the change log (one time budget). */
    @Override
    public void warmUp(Authority authority) {
        index().catchUp(authority);
    }

    /**
     * Applies the change log as a search would (committing when due), or with {@code durable} commits
     * it; an index not opened yet is left for its first search, and one another process holds is that
     * process's to keep up.
     */
    @Override
    public long keepUp(Authority authority, boolean durable) {
        LuceneIndex lucene = opened().orElse(null);
        if (lucene == null) {
            return CURRENT;
        }
        LuceneStatus status = durable ? lucene.catchUp(authority) : lucene.keepUp(authority);
        return status.readOnly() ? CURRENT : status.applied();
    }

    @Override
    public synchronized void close() {
        if (index != null) {
            index.close();
        }
    }
}
