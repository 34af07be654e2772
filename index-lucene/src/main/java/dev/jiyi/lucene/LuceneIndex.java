package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.Neighbours;
import dev.jiyi.authority.index.SearchCounts;
import dev.jiyi.authority.index.VectorIndex;
import dev.jiyi.authority.index.VectorQuery;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.FSDirectory;

import java.io.Closeable;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The derived Lucene index (L1-L5): BM25 over the same Chinese token stream as FTS5, HNSW vectors
 * for deep recall, kept in {@code $JIYI_HOME/lucene} and following the authority's change log.
 *
 * <p><b>Following.</b> Every search first applies the change-log entries after the last one the
 * index has applied (kept in its commit user data, with a mark of that entry so that a log that does
 * not continue the index, as after a restore, is noticed), for at most {@link LuceneOptions#catchUpBudget}.
 * An entry names a row; the index reads the row's current state from the same snapshot the search
 * runs in and replaces or deletes its document, so applying an entry twice is harmless and a process
 * killed between commits simply applies the same entries again. What a search applies is searched
 * at once and committed by the first search {@link LuceneFollower#COMMIT_EVERY} or more after the
 * last commit (or by {@link #catchUp} and {@link #close}; an idle process holds it until then). A
 * long-running process applies between calls what its next search would ({@link #keepUp}), and
 * commits with {@link #catchUp} once writes pause. A catch-up that applied a deletion commits at once, first
 * merging away the deleted documents, so that no term of the deleted text stays in the files (D1).
 *
 * <p><b>Scores</b> are coverage (R11, {@link LexicalIndex}): BM25 divided by the query's ideal,
 * read from the same point-in-time view as the search.
 *
 * <p><b>Two processes.</b> Lucene allows one writer per directory. When another process holds the
 * write lock (a running {@code jiyi mcp}), this one searches the last commit the holder made, reports
 * how far behind the log it is ({@link #status}) and never writes; recall's recheck against the
 * authority keeps anything deleted meanwhile out of its answers.
 *
 * <p><b>Rebuilding.</b> A missing, unreadable or outdated index (another analysis, vector format or
 * Lucene version) is rebuilt from the authority into a fresh directory, which then replaces the
 * current one atomically ({@link IndexHome}); {@link #rebuild} does the same on demand. Nothing of
 * this is ever fatal to recall.
 *
 * <p>One instance serves one thread at a time (its methods are synchronized): a CLI command or the
 * MCP server's request loop.
 */
public final class LuceneIndex implements LexicalIndex, VectorIndex, Closeable {

    /** What a rebuild fed the index. */
    public record Rebuilt(long events, long memories, long vectors, long head) {
    }

    /**
     * Lucene tells, through java.util.logging on stderr, that the JVM was started without the
     * incubating Vector API ({@code --add-modules jdk.incubator.vector}, which the benchmarks pass).
     * jiyi's stderr is for jiyi's own messages, so that notice is silenced; the logger is held here
     * because java.util.logging keeps only weak references to loggers.
     */
    private static final Logger VECTORIZATION_LOG = Logger.getLogger("org.apache.lucene.internal.vectorization");

    static {
        VECTORIZATION_LOG.setLevel(Level.SEVERE);
        // A long query is many OR'ed terms; FTS5 takes any number, so Lucene must take them too.
        IndexSearcher.setMaxClauseCount(Math.max(IndexSearcher.getMaxClauseCount(), 1 << 16));
    }

    private final Handles handles;
    private final LuceneFollower follower;
    private final LuceneSearcher searcher;
    private final LuceneVectors vectors;
    /**
     * The snapshot the index last followed the change log in: one recall follows it once, not per
     * search. Held weakly: a closed snapshot is nobody's to keep.
     */
    private WeakReference<Snapshot> followed = new WeakReference<>(null);
    /** The last query analyzed and its terms: one recall asks for the same query's terms several times. */
    private String analyzed;
    private List<List<String>> analyzedPhrases = List.of();

    private LuceneIndex(Path root, LuceneOptions options) {
        this.handles = new Handles(root, options);
        this.follower = new LuceneFollower(handles);
        this.searcher = new LuceneSearcher(handles);
        this.vectors = new LuceneVectors(handles);
    }

    /**
     * Opens the index in {@code root} ({@code $JIYI_HOME/lucene}) without touching the authority: a
     * missing, unreadable or outdated index is rebuilt at the first search or {@link #catchUp}.
     */
    public static LuceneIndex open(Path root, LuceneOptions options) {
        LuceneIndex index = new LuceneIndex(root, options);
        synchronized (index) {
            index.handles.openCurrent();
        }
        return index;
    }

    @Override
    public String name() {
        return "lucene";
    }

    @Override
    public SearchCounts searchCounts() {
        return searcher.counts;
    }

    /** This index's format: its analysis, vector format and Lucene version; a change rebuilds. */
    public String version() {
        return handles.version;
    }

    public LuceneOptions options() {
        return handles.options;
    }

    /** Where the index stood after its last catch-up. */
    public synchronized LuceneStatus status() {
        return follower.status();
    }

    /**
     * Messages for the person running jiyi about what the index did on its own (a rebuild and why),
     * oldest first; taking them empties the list.
     */
    public synchronized List<String> takeNotices() {
        return follower.takeNotices();
    }

    /** Commits what searches applied and did not commit yet, then lets go of the index. */
    @Override
    public synchronized void close() {
        try {
            follower.flush();
        } catch (IOException | RuntimeException e) {
            // derived: the next process applies the same entries again from the last commit
        } finally {
            handles.close();
        }
    }

    /**
     * Applies what is new in the authority's change log (bounded in time) and commits it; returns
     * where it stands.
     */
    public LuceneStatus catchUp(Authority authority) {
        return authority.read(this::followDurably);
    }

    /**
     * Applies what is new in the change log as a search would, without searching: searchable at once,
     * committed only when the last commit is {@link LuceneFollower#COMMIT_EVERY} old or a deletion
     * asks for it.
     */
    public LuceneStatus keepUp(Authority authority) {
        return authority.read(this::followNow);
    }

    private synchronized LuceneStatus followNow(Snapshot s) {
        return follow(s);
    }

    private synchronized LuceneStatus followDurably(Snapshot s) {
        followed = new WeakReference<>(s);
        return follower.follow(s, true);
    }

    /**
     * Follows the change log in {@code s}, unless this index already followed it in {@code s}: a
     * snapshot's log does not move, so the searches of one recall (one snapshot) follow it once.
     */
    private LuceneStatus follow(Snapshot s) {
        if (s == followed.get()) {
            return follower.status();
        }
        LuceneStatus status = follower.follow(s, false);
        followed = new WeakReference<>(s);
        return status;
    }

    /** The query's terms as this index analyzes them ({@link LuceneSearcher#phrases}), the last query's kept. */
    private List<List<String>> phrases(String query) {
        if (!query.equals(analyzed)) {
            analyzedPhrases = searcher.phrases(query);
            analyzed = query;
        }
        return analyzedPhrases;
    }

    /**
     * Rebuilds the index from the authority into a fresh directory and swaps it in ({@code reindex
     * --lucene}); the old one is removed once no process writes it.
     */
    public Rebuilt rebuild(Authority authority) {
        return rebuild(authority, rows -> { });
    }

    /** {@link #rebuild(Authority)}, telling {@code fed} of the events and memories written as it goes (progress). */
    public Rebuilt rebuild(Authority authority, LongConsumer fed) {
        return authority.read(s -> {
            synchronized (this) {
                followed = new WeakReference<>(null);
                return follower.rebuild(s, fed);
            }
        });
    }

    @Override
    public synchronized List<Candidate> memories(Snapshot snapshot, String query, Eligibility filter, int limit) {
        List<List<String>> phrases = phrases(query);
        if (phrases.isEmpty() || limit == 0) {
            return List.of();
        }
        follow(snapshot);
        return searcher.memories(phrases, filter, limit);
    }

    /** R9: the rows' own search ({@link LuceneSearcher#memoriesAmong}). */
    @Override
    public synchronized List<Candidate> memoriesAmong(Snapshot snapshot, String query, Scope scope,
                                                      Collection<Long> rows, int limit) {
        List<List<String>> phrases = phrases(query);
        if (phrases.isEmpty() || rows.isEmpty() || limit == 0) {
            return List.of();
        }
        follow(snapshot);
        return searcher.memoriesAmong(phrases, scope, rows, limit);
    }

    @Override
    public synchronized List<Candidate> events(Snapshot snapshot, String query, Scope scope, int limit) {
        List<List<String>> phrases = phrases(query);
        if (phrases.isEmpty() || limit == 0) {
            return List.of();
        }
        follow(snapshot);
        return searcher.events(phrases, scope, limit);
    }

    @Override
    public synchronized Coverage coverage(Snapshot snapshot, String query, Eligibility filter) {
        List<List<String>> words = LuceneSearcher.words(phrases(query));
        if (words.isEmpty()) {
            return Coverage.NONE;
        }
        follow(snapshot);
        return Coverage.of(words.size(), () -> {
            synchronized (this) {
                return searcher.held(words, filter);
            }
        }, share -> {
            synchronized (this) {
                return searcher.reaches(words, filter, share);
            }
        });
    }

    /** Deep mode: the HNSW graph's nearest eligible memories; semantic mode: the newest, compared exactly. */
    @Override
    public synchronized Neighbours nearest(Snapshot snapshot, VectorQuery q) {
        if (q.k() == 0) {
            return new Neighbours(List.of(), 0);
        }
        follow(snapshot);
        return vectors.nearest(snapshot, q);
    }

    /** The index as {@code doctor} reports it: presence, applied against head, live documents by type. */
    public LuceneReport report(Authority authority) {
        return authority.read(this::reportAt);
    }

    private synchronized LuceneReport reportAt(Snapshot s) {
        return LuceneReport.of(handles, s);
    }

    /** How many segments of a committed index hold only events, only memories, or both ({@link OneKindMerges}). */
    public record Layout(int events, int memories, int mixed) {
    }

    /** The segments of the last commit by kind (doctor's, tests' and benchmarks' diagnostic); all zero without a commit. */
    public Layout layout() {
        Optional<Path> dir = directory();
        if (dir.isEmpty()) {
            return new Layout(0, 0, 0);
        }
        try (FSDirectory d = FSDirectory.open(dir.get())) {
            if (!DirectoryReader.indexExists(d)) {
                return new Layout(0, 0, 0);
            }
            return layout(d);
        } catch (IOException e) {
            throw new StorageException("reading the Lucene index's segments", e);
        }
    }

    private static Layout layout(FSDirectory d) throws IOException {
        try (DirectoryReader reader = DirectoryReader.open(d)) {
            int[] kinds = new int[OneKindMerges.Kind.values().length];
            for (LeafReaderContext leaf : reader.leaves()) {
                kinds[OneKindMerges.kindOf(leaf.reader().getFieldInfos()).ordinal()]++;
            }
            return new Layout(kinds[OneKindMerges.Kind.EVENTS.ordinal()], kinds[OneKindMerges.Kind.MEMORIES.ordinal()],
                    kinds[OneKindMerges.Kind.MIXED.ordinal()]);
        }
    }

    /** The current index directory (for tests and benchmarks that inspect its files), if any. */
    public synchronized Optional<Path> directory() {
        try {
            return handles.home.current();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether the home has an index at all (a pointer naming a directory that exists). */
    public static boolean exists(Path root) {
        try {
            return new IndexHome(root).current().isPresent();
        } catch (IOException e) {
            return false;
        }
    }
}
