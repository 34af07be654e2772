package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.Neighbours;
import dev.jiyi.authority.index.VectorIndex;
import dev.jiyi.authority.index.VectorQuery;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene104.Lucene104HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.util.Version;
import org.apache.lucene.util.quantization.QuantizedByteVectorValues;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The derived Lucene index (L1-L5): BM25 over the same Chinese token stream as FTS5, HNSW vectors
 * for deep recall, kept in {@code $JIYI_HOME/lucene} and following the authority's change log.
 *
 * <p><b>Following.</b> Every search first applies the change-log entries after the last one the
 * index has applied (kept in its commit user data, with a mark of that entry so that a log that does
 * not continue the index, as after a restore, is noticed), for at most {@link Options#catchUpBudget}.
 * An entry names a row; the index reads the row's current state from the same snapshot the search
 * runs in and replaces or deletes its document, so applying an entry twice is harmless and a process
 * killed between commits simply applies the same entries again. Every catch-up that changed the
 * index commits; one that applied a deletion first merges away the deleted documents, so that no
 * term of the deleted text stays in the files (D1).
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

    /** How the vectors are kept: 32-bit floats, or Lucene's scalar-quantized 8-bit form. */
    public enum VectorFormat {
        FLOAT, INT8;

        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Parses {@code lucene.vectors}. */
        public static VectorFormat parse(String value) {
            for (VectorFormat f : values()) {
                if (f.code().equals(value)) {
                    return f;
                }
            }
            throw new dev.jiyi.authority.InvalidInputException("lucene.vectors", "must be float or int8");
        }
    }

    /**
     * How the index is built and searched.
     *
     * @param analysis which analysis makes the terms ({@code lucene.analyzer})
     * @param vectors how vectors are stored ({@code lucene.vectors})
     * @param knnCandidates how many neighbours deep mode takes from the HNSW graph before rescoring
     *                      them by their exact vectors (at least the {@code k} asked for)
     * @param catchUpBudget how long a search may spend applying the change log before it answers
     */
    public record Options(Analysis analysis, VectorFormat vectors, int knnCandidates, Duration catchUpBudget) {

        public Options {
            Objects.requireNonNull(analysis, "analysis");
            Objects.requireNonNull(vectors, "vectors");
            Objects.requireNonNull(catchUpBudget, "catchUpBudget");
            if (knnCandidates < 1) {
                throw new dev.jiyi.authority.InvalidInputException("lucene.knn_candidates", "must be at least 1");
            }
        }

        public static Options defaults() {
            return new Options(Analysis.JIYI, VectorFormat.FLOAT, 100, Duration.ofSeconds(2));
        }

        public Options withAnalysis(Analysis a) {
            return new Options(a, vectors, knnCandidates, catchUpBudget);
        }

        public Options withVectors(VectorFormat v) {
            return new Options(analysis, v, knnCandidates, catchUpBudget);
        }

        public Options withKnnCandidates(int n) {
            return new Options(analysis, vectors, n, catchUpBudget);
        }

        public Options withCatchUpBudget(Duration d) {
            return new Options(analysis, vectors, knnCandidates, d);
        }
    }

    /**
     * Where the index stands against the authority after its last catch-up.
     *
     * @param applied the last change-log sequence the index reflects (its last commit, when read only)
     * @param head the authority's newest change-log sequence
     * @param readOnly another process holds the write lock: this one searches the holder's last commit
     */
    public record Status(long applied, long head, boolean readOnly) {

        /** How many change-log entries the index has not applied yet. */
        public long behind() {
            return Math.max(0, head - applied);
        }

        /** A warning for recall output when the index is behind; empty when it is current. */
        public Optional<String> warning() {
            if (behind() == 0) {
                return Optional.empty();
            }
            return Optional.of("lucene index is " + behind() + " change(s) behind the authority"
                    + (readOnly ? " (another process holds its write lock; answering from its last commit)"
                               : " (catch-up ran out of time; it continues on the next query)")
                    + "; results are rechecked against the authority");
        }
    }

    /** What {@code doctor} reports about the index. */
    public record Report(boolean present, String directory, String version, long applied, long head,
                         long memories, long events, boolean readOnly, String problem) {
    }

    /** What a rebuild fed the index. */
    public record Rebuilt(long events, long memories, long vectors, long head) {
    }

    private static final String SEQ = "jiyi.seq";
    private static final String MARK = "jiyi.mark";
    private static final String VERSION = "jiyi.version";
    private static final int PAGE = 1_000;
    private static final int HNSW_M = 16;
    private static final int HNSW_BEAM = 100;

    /** Best score first; equal scores the newer row: the order of {@link Candidate#BEST_FIRST}. */
    private static final Sort BEST_FIRST = new Sort(SortField.FIELD_SCORE,
            LongField.newSortField(Documents.ROW, true, SortedNumericSelector.Type.MIN));
    private static final Sort NEWEST_FIRST = new Sort(
            LongField.newSortField(Documents.ROW, true, SortedNumericSelector.Type.MIN));

    /**
     * Lucene tells, through java.util.logging on stderr, that the JVM was started without the
     * incubating Vector API ({@code --add-modules jdk.incubator.vector}, which the benchmarks pass).
     * jiyi's stderr is for jiyi's own messages, so that notice is silenced; the logger is held here
     * because java.util.logging keeps only weak references to loggers.
     */
    private static final java.util.logging.Logger VECTORIZATION_LOG =
            java.util.logging.Logger.getLogger("org.apache.lucene.internal.vectorization");

    static {
        VECTORIZATION_LOG.setLevel(java.util.logging.Level.SEVERE);
        // A long query is many OR'ed terms; FTS5 takes any number, so Lucene must take them too.
        IndexSearcher.setMaxClauseCount(Math.max(IndexSearcher.getMaxClauseCount(), 1 << 16));
    }

    private final IndexHome home;
    private final Options options;
    private final Analyzer analyzer;
    private final String version;
    private final List<String> notices = new ArrayList<>();

    private String dirName;
    private FSDirectory directory;
    /** Null when another process holds the write lock. */
    private IndexWriter writer;
    private SearcherManager searchers;
    private long applied;
    private String appliedMark = "";
    /** Why the index must be rebuilt before it is used, or null. */
    private String problem;
    private Status status = new Status(0, 0, false);
    private long lastLockAttempt;
    /** Keys deleted since the last commit: the segments holding them are rewritten before it (D1). */
    private final List<Term> removed = new ArrayList<>();

    private LuceneIndex(Path root, Options options) {
        this.home = new IndexHome(root);
        this.options = options;
        this.analyzer = options.analysis().analyzer();
        this.version = "jiyi-lucene-4/" + options.analysis().version() + "/" + options.vectors().code()
                + "/lucene-" + Version.LATEST;
    }

    /**
     * Opens the index in {@code root} ({@code $JIYI_HOME/lucene}) without touching the authority: a
     * missing, unreadable or outdated index is rebuilt at the first search or {@link #catchUp}.
     */
    public static LuceneIndex open(Path root, Options options) {
        LuceneIndex index = new LuceneIndex(root, options);
        synchronized (index) {
            index.openCurrent();
        }
        return index;
    }

    @Override
    public String name() {
        return "lucene";
    }

    /** This index's format: its analysis, vector format and Lucene version; a change rebuilds. */
    public String version() {
        return version;
    }

    public Options options() {
        return options;
    }

    /** Where the index stood after its last catch-up. */
    public synchronized Status status() {
        return status;
    }

    /**
     * Messages for the person running jiyi about what the index did on its own (a rebuild and why),
     * oldest first; taking them empties the list.
     */
    public synchronized List<String> takeNotices() {
        List<String> out = List.copyOf(notices);
        notices.clear();
        return out;
    }

    // ------------------------------------------------------------------ opening

    private void openCurrent() {
        closeHandles();
        problem = null;
        try {
            Optional<Path> current = home.current();
            if (current.isEmpty()) {
                problem = home.pointer().isPresent() ? "its directory is missing" : "there was none yet";
                return;
            }
            dirName = current.get().getFileName().toString();
            directory = FSDirectory.open(current.get());
            lastLockAttempt = System.nanoTime();
            try {
                writer = new IndexWriter(directory, config(IndexWriterConfig.OpenMode.APPEND));
                Map<String, String> data = userData(writer.getLiveCommitData());
                searchers = new SearcherManager(writer, null);
                adopt(data);
                if (problem == null) {
                    home.removeStale();
                }
            } catch (LockObtainFailedException held) {
                writer = null;
                searchers = new SearcherManager(directory, null);
                adopt(committedData());
            }
        } catch (IndexNotFoundException e) {
            problem = "it has no commit (a build was interrupted)";
        } catch (IOException | RuntimeException e) {
            problem = "it could not be read (" + e.getClass().getSimpleName() + ")";
        }
        if (problem != null) {
            closeHandles();
        }
    }

    /** Takes the applied sequence from commit data, or records why the index is unusable. */
    private void adopt(Map<String, String> data) {
        if (!version.equals(data.get(VERSION))) {
            problem = data.get(VERSION) == null ? "it has no version"
                    : "it was built with other settings (" + data.get(VERSION) + ")";
            return;
        }
        try {
            applied = Long.parseLong(data.getOrDefault(SEQ, "-1"));
        } catch (NumberFormatException e) {
            applied = -1;
        }
        appliedMark = data.getOrDefault(MARK, "");
        if (applied < 0) {
            problem = "its applied change-log sequence is missing";
        }
    }

    private static Map<String, String> userData(Iterable<Map.Entry<String, String>> live) {
        Map<String, String> out = new HashMap<>();
        if (live != null) {
            for (Map.Entry<String, String> e : live) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    private Map<String, String> committedData() throws IOException {
        IndexSearcher s = searchers.acquire();
        try {
            return ((DirectoryReader) s.getIndexReader()).getIndexCommit().getUserData();
        } finally {
            searchers.release(s);
        }
    }

    private IndexWriterConfig config(IndexWriterConfig.OpenMode mode) {
        IndexWriterConfig c = new IndexWriterConfig(analyzer);
        c.setOpenMode(mode);
        c.setCommitOnClose(false);
        c.setRAMBufferSizeMB(64);
        c.setMergePolicy(new PurgePolicy(new TieredMergePolicy()));
        c.setCodec(codec(options.vectors()));
        return c;
    }

    private static Codec codec(VectorFormat format) {
        KnnVectorsFormat vectors = format == VectorFormat.INT8
                ? new Lucene104HnswScalarQuantizedVectorsFormat(QuantizedByteVectorValues.ScalarEncoding.UNSIGNED_BYTE,
                        HNSW_M, HNSW_BEAM)
                : new Lucene99HnswVectorsFormat(HNSW_M, HNSW_BEAM);
        return new Lucene104Codec() {
            @Override
            public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
                return vectors;
            }
        };
    }

    private void closeHandles() {
        try {
            if (searchers != null) {
                searchers.close();
            }
            if (writer != null) {
                writer.rollback(); // everything applied was committed; nothing is lost
            }
            if (directory != null) {
                directory.close();
            }
        } catch (IOException e) {
            // closing a handle we are abandoning; the files on disk are what counts
        } finally {
            searchers = null;
            writer = null;
            directory = null;
        }
    }

    @Override
    public synchronized void close() {
        closeHandles();
    }

    // ------------------------------------------------------------------ following the authority

    /** Applies what is new in the authority's change log (bounded in time); returns where it stands. */
    public Status catchUp(Authority authority) {
        return authority.read(this::follow);
    }

    /**
     * Rebuilds the index from the authority into a fresh directory and swaps it in ({@code reindex
     * --lucene}); the old one is removed once no process writes it.
     */
    public Rebuilt rebuild(Authority authority) {
        return rebuild(authority, rows -> { });
    }

    /** {@link #rebuild(Authority)}, telling {@code fed} of the events and memories written as it goes (progress). */
    public Rebuilt rebuild(Authority authority, java.util.function.LongConsumer fed) {
        return authority.read(s -> {
            synchronized (this) {
                Rebuilt r = rebuildFrom(s, fed);
                openCurrent();
                status = new Status(applied, r.head(), writer == null);
                return r;
            }
        });
    }

    /** Brings the index up to the snapshot's change log, as far as the budget allows. */
    private synchronized Status follow(Snapshot s) {
        try {
            if (!Objects.equals(home.pointer().orElse(null), dirName)) {
                openCurrent(); // another process rebuilt and swapped
            } else if (writer == null && problem == null
                    && System.nanoTime() - lastLockAttempt > Duration.ofSeconds(1).toNanos()) {
                openCurrent(); // the other process may have let go of the lock
            }
            if (problem != null) {
                notices.add("lucene index rebuilt from the authority: " + problem);
                rebuildFrom(s);
                openCurrent();
                if (problem != null) {
                    throw new StorageException("opening the rebuilt Lucene index",
                            new IOException(problem));
                }
            }
            long head = s.changeLogHead();
            if (writer == null) {
                searchers.maybeRefresh();
                adopt(committedData());
                status = new Status(Math.max(0, applied), head, true);
                return status;
            }
            if (applied > head || !appliedMark.equals(mark(s, applied))) {
                notices.add("lucene index rebuilt from the authority: the change log does not continue it "
                        + "(a restored or replaced archive)");
                rebuildFrom(s);
                openCurrent();
                head = s.changeLogHead();
            }
            long deadline = System.nanoTime() + options.catchUpBudget().toNanos();
            boolean changed = false;
            boolean deleted = false;
            while (applied < head) {
                List<ChangeLog.Entry> entries = s.changesAfter(applied, PAGE);
                if (entries.isEmpty()) {
                    break;
                }
                deleted |= apply(s, entries);
                ChangeLog.Entry last = entries.get(entries.size() - 1);
                applied = last.seq();
                appliedMark = mark(last);
                changed = true;
                if (System.nanoTime() > deadline) {
                    break;
                }
            }
            if (changed) {
                commit(deleted);
            }
            status = new Status(applied, head, false);
            return status;
        } catch (IOException e) {
            throw new StorageException("following the authority in the Lucene index", e);
        }
    }

    /**
     * Commits what was applied with the sequence it reaches. After a deletion, segments holding
     * deleted documents are merged first, and the searcher is refreshed so that the old files are
     * released and removed: then no byte of the deleted text is left in the directory (D1).
     */
    private void commit(boolean deleted) throws IOException {
        writer.setLiveCommitData(Map.of(SEQ, Long.toString(applied), MARK, appliedMark, VERSION, version).entrySet());
        if (deleted) {
            PurgePolicy policy = (PurgePolicy) writer.getConfig().getMergePolicy();
            policy.purge(segmentsHolding(removed));
            try {
                writer.forceMergeDeletes(true);
            } finally {
                policy.done();
                removed.clear();
            }
        }
        writer.commit();
        searchers.maybeRefreshBlocking();
        if (deleted) {
            writer.deleteUnusedFiles();
            home.removeStale(); // an older directory (before a rebuild) may still hold the text
        }
    }

    /**
     * The segments that hold a document with any of these keys, deleted or not (postings ignore
     * deletions): those hold the deleted text, or an older version of it. The searcher is refreshed
     * first, so that documents still in the writer's buffer are flushed into a segment and named too.
     */
    private List<String> segmentsHolding(List<Term> keys) throws IOException {
        searchers.maybeRefreshBlocking();
        IndexSearcher searcher = searchers.acquire();
        try {
            List<String> out = new ArrayList<>();
            for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
                org.apache.lucene.index.Terms terms = leaf.reader().terms(Documents.KEY);
                org.apache.lucene.index.Terms ids = leaf.reader().terms(Documents.ID);
                for (Term key : keys) {
                    org.apache.lucene.index.Terms field = key.field().equals(Documents.KEY) ? terms : ids;
                    if (field != null && field.iterator().seekExact(key.bytes())) {
                        out.add(((org.apache.lucene.index.SegmentReader)
                                org.apache.lucene.index.FilterLeafReader.unwrap(leaf.reader())).getSegmentName());
                        break;
                    }
                }
            }
            return out;
        } finally {
            searchers.release(searcher);
        }
    }

    /**
     * Applies entries: deletions by row key first, then every event and memory the entries touched,
     * as it is now (absent means deleted, and a later entry of this batch says so). Returns whether
     * anything was deleted.
     */
    private boolean apply(Snapshot s, List<ChangeLog.Entry> entries) throws IOException {
        boolean deleted = false;
        List<Term> removed = new ArrayList<>();
        Set<String> events = new LinkedHashSet<>();
        Set<String> memories = new LinkedHashSet<>();
        for (ChangeLog.Entry e : entries) {
            switch (e.entity()) {
                case EVENT -> {
                    if (e.op() == ChangeLog.Op.DELETE) {
                        removed.add(e.rowId() != null ? Documents.eventKey(e.rowId())
                                : Documents.id(Documents.EVENT, e.entityId()));
                        deleted = true;
                    } else {
                        events.add(e.entityId());
                    }
                }
                case MEMORY -> {
                    if (e.op() == ChangeLog.Op.DELETE) {
                        removed.add(e.rowId() != null ? Documents.memoryKey(e.rowId())
                                : Documents.id(Documents.MEMORY, e.entityId()));
                        deleted = true;
                    } else {
                        memories.add(e.entityId());
                    }
                }
                case VECTOR -> memories.add(e.entityId()); // the memory's document carries its vectors
                default -> {
                    // personas, relations, checkpoints: nothing of them is indexed
                }
            }
        }
        if (!removed.isEmpty()) {
            writer.deleteDocuments(removed.toArray(Term[]::new));
            this.removed.addAll(removed);
        }
        List<Term> keys = new ArrayList<>();
        List<Document> docs = new ArrayList<>();
        for (Event e : s.eventsById(events)) {
            keys.add(Documents.eventKey(e.sequence()));
            docs.add(Documents.event(e));
        }
        List<Memory> current = s.memoriesById(memories);
        for (Memory m : current) {
            keys.add(Documents.memoryKey(m.rowId()));
        }
        docs.addAll(memoryDocuments(s, current));
        write(writer, keys, docs);
        return deleted;
    }

    /** Documents per write from which they are analyzed on every core. */
    private static final int PARALLEL_FROM = 64;

    /**
     * Adds documents ({@code keys} null) or replaces those with these keys. Analysis (jieba) is most
     * of the cost and happens inside the writer, which takes concurrent writes, so a large batch is
     * written on every core; the documents have distinct keys, so their order does not matter.
     */
    private static void write(IndexWriter w, List<Term> keys, List<Document> docs) throws IOException {
        java.util.function.IntConsumer one = i -> {
            try {
                if (keys == null) {
                    w.addDocument(docs.get(i));
                } else {
                    w.updateDocument(keys.get(i), docs.get(i));
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        try {
            java.util.stream.IntStream range = java.util.stream.IntStream.range(0, docs.size());
            (docs.size() >= PARALLEL_FROM ? range.parallel() : range).forEach(one);
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** The documents of these memories, each with its stored vectors, in their order. */
    private static List<Document> memoryDocuments(Snapshot s, List<Memory> memories) {
        List<Long> rows = new ArrayList<>(memories.size());
        for (Memory m : memories) {
            rows.add(m.rowId());
        }
        Map<Long, List<VectorCache.StoredVector>> vectors = new HashMap<>();
        if (!rows.isEmpty()) {
            for (VectorCache.StoredVector v : s.vectorsByMemoryRow(rows)) {
                vectors.computeIfAbsent(v.memoryRow(), k -> new ArrayList<>()).add(v);
            }
        }
        List<Document> docs = new ArrayList<>(memories.size());
        for (Memory m : memories) {
            docs.add(Documents.memory(m, vectors.getOrDefault(m.rowId(), List.of())));
        }
        return docs;
    }

    /** Identifies the change-log entry at {@code seq}, so that a log that does not continue the index is noticed. */
    private static String mark(Snapshot s, long seq) {
        if (seq <= 0) {
            return "";
        }
        List<ChangeLog.Entry> at = s.changesAfter(seq - 1, 1);
        return at.isEmpty() || at.get(0).seq() != seq ? "(none)" : mark(at.get(0));
    }

    private static String mark(ChangeLog.Entry e) {
        return e.entity() + ":" + e.entityId() + ":" + e.op() + ":" + e.at();
    }

    /**
     * Builds the whole index from the snapshot into a fresh directory, commits it with the log's
     * head, and points the home at it. The caller reopens.
     */
    private Rebuilt rebuildFrom(Snapshot s) {
        return rebuildFrom(s, rows -> { });
    }

    private Rebuilt rebuildFrom(Snapshot s, java.util.function.LongConsumer fed) {
        Path fresh = null;
        try {
            fresh = home.fresh();
            long head = s.changeLogHead();
            long events = 0;
            long memories = 0;
            long vectors = 0;
            try (FSDirectory dir = FSDirectory.open(fresh);
                 IndexWriter w = new IndexWriter(dir, config(IndexWriterConfig.OpenMode.CREATE))) {
                for (List<Event> page = s.eventsAfter(0, PAGE); !page.isEmpty();
                     page = s.eventsAfter(page.get(page.size() - 1).sequence(), PAGE)) {
                    List<Document> docs = new ArrayList<>(page.size());
                    for (Event e : page) {
                        docs.add(Documents.event(e));
                    }
                    write(w, null, docs);
                    events += page.size();
                    fed.accept(page.size());
                }
                for (List<Memory> page = s.memoriesAfter(0, PAGE); !page.isEmpty();
                     page = s.memoriesAfter(page.get(page.size() - 1).rowId(), PAGE)) {
                    List<Document> docs = memoryDocuments(s, page);
                    for (Document d : docs) {
                        vectors += d.getFields().stream().filter(f -> f.fieldType().vectorDimension() > 0).count();
                    }
                    write(w, null, docs);
                    memories += page.size();
                    fed.accept(page.size());
                }
                w.setLiveCommitData(Map.of(SEQ, Long.toString(head), MARK, mark(s, head), VERSION, version).entrySet());
                w.commit();
            }
            home.swapTo(fresh);
            return new Rebuilt(events, memories, vectors, head);
        } catch (IOException e) {
            if (fresh != null) {
                try {
                    IndexHome.deleteTree(fresh);
                } catch (IOException ignored) {
                    // a later cleanup removes it
                }
            }
            throw new StorageException("rebuilding the Lucene index", e);
        }
    }

    // ------------------------------------------------------------------ searching

    @Override
    public synchronized List<Candidate> memories(Snapshot snapshot, String query, Eligibility filter, int limit) {
        List<List<String>> phrases = options.analysis().queryPhrases(query, analyzer);
        if (phrases.isEmpty() || limit == 0) {
            return List.of();
        }
        follow(snapshot);
        Query q = new BooleanQuery.Builder().add(terms(Documents.MEMORY_TEXT, phrases), BooleanClause.Occur.MUST)
                .add(Documents.eligible(filter), BooleanClause.Occur.FILTER).build();
        return ranked(q, Documents.MEMORY_TEXT, filter.scope(), phrases, limit);
    }

    @Override
    public synchronized double evidence(Snapshot snapshot, String query, Eligibility filter) {
        List<List<String>> phrases = options.analysis().queryPhrases(query, analyzer);
        java.util.Map<String, List<String>> byTerm = new java.util.LinkedHashMap<>();
        for (List<String> pieces : phrases) {
            byTerm.put(String.join(" ", pieces), pieces);
        }
        List<List<String>> words = new ArrayList<>();
        for (String word : LexicalIndex.words(new ArrayList<>(byTerm.keySet()))) {
            words.add(byTerm.get(word));
        }
        if (words.isEmpty()) {
            return 0;
        }
        follow(snapshot);
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                IndexReader reader = searcher.getIndexReader();
                if (Documents.scopeDocuments(reader, Documents.MEMORY_TEXT, filter.scope())
                        + Documents.scopeDocuments(reader, Documents.EVENT_TEXT, filter.scope()) < EVIDENCE_MIN_ROWS) {
                    return Double.POSITIVE_INFINITY; // too few documents for IDF to mean anything (LexicalIndex)
                }
            } finally {
                searchers.release(searcher);
            }
        } catch (IOException e) {
            throw new StorageException("searching the Lucene index", e);
        }
        double best = held(words, filter, 1);
        return LexicalIndex.settled(words.size(), best) ? best : held(words, filter, 2);
    }

    /** The most of the query one eligible memory or event of the scope holds, of those holding {@code least} words. */
    private double held(List<List<String>> words, Eligibility filter, int least) {
        return Math.max(held(Documents.MEMORY_TEXT, filter.scope(), words, Documents.eligible(filter), least),
                held(Documents.EVENT_TEXT, filter.scope(), words, Documents.events(filter.scope()), least));
    }

    @Override
    public synchronized List<Candidate> events(Snapshot snapshot, String query, Scope scope, int limit) {
        List<List<String>> phrases = options.analysis().queryPhrases(query, analyzer);
        if (phrases.isEmpty() || limit == 0) {
            return List.of();
        }
        follow(snapshot);
        Query q = new BooleanQuery.Builder().add(terms(Documents.EVENT_TEXT, phrases), BooleanClause.Occur.MUST)
                .add(Documents.events(scope), BooleanClause.Occur.FILTER).build();
        return ranked(q, Documents.EVENT_TEXT, scope, phrases, limit);
    }

    /**
     * The query's terms as literals, OR'ed (R2: no query syntax exists here; a term of several pieces
     * is a phrase, as FTS5 searches it). {@code phrases} is not empty (R6: nothing searchable is no search).
     */
    private static Query terms(String field, List<List<String>> phrases) {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        for (List<String> pieces : phrases) {
            b.add(term(field, pieces), BooleanClause.Occur.SHOULD);
        }
        return b.build();
    }

    private static Query term(String field, List<String> pieces) {
        return pieces.size() == 1 ? new TermQuery(new Term(field, pieces.get(0)))
                : new PhraseQuery(field, pieces.toArray(String[]::new));
    }

    /**
     * The best {@code limit} by BM25, equal scores newest row first, the filter inside the query (L4);
     * each score divided by the query's ideal over {@code field} in the same view ({@link #ideal}).
     * Both count the statistics of {@code scope} ({@link ScopedSearcher}).
     */
    private List<Candidate> ranked(Query query, String field, Scope scope, List<List<String>> phrases, int limit) {
        try {
            IndexSearcher acquired = searchers.acquire();
            try {
                IndexSearcher searcher = ScopedSearcher.of(acquired, field, scope);
                double ideal = ideal(searcher, field, phrases);
                TopFieldDocs top = searcher.search(query, limit, BEST_FIRST, true);
                List<Candidate> out = new ArrayList<>(top.scoreDocs.length);
                for (ScoreDoc hit : top.scoreDocs) {
                    out.add(new Candidate((Long) ((FieldDoc) hit).fields[1], hit.score / ideal));
                }
                return out;
            } finally {
                searchers.release(acquired);
            }
        } catch (IOException e) {
            throw new StorageException("searching the Lucene index", e);
        }
    }

    /** Lucene's BM25 term saturation ({@code IndexSearcher}'s default similarity, b 0.75). */
    private static final double K1 = 1.2;

    /**
     * The query's ideal over one field (see {@link LexicalIndex}): the sum of the
     * {@link LexicalIndex#IDEAL_TERMS} largest scores a document of average length earns holding a
     * term once, which in Lucene's BM25 is the term's IDF over {@code 1 + k1}, IDF being
     * {@code ln(1 + (N - n + 0.5) / (n + 0.5))} with N the documents that have the field and n those
     * that hold the term, both counted as the searcher's BM25 counts them (over the scope, in an
     * index of several: {@link ScopedSearcher}); for a term of several pieces, searched as a phrase,
     * the fewest of any piece. A term no document holds counts too (n 0): a query whose informative
     * words the archive lacks has little evidence, whatever else matches. 1 for a field no document has.
     */
    private static double ideal(IndexSearcher searcher, String field, List<List<String>> phrases) throws IOException {
        Weights w = weights(searcher, field, phrases);
        return w == null ? 1 : LexicalIndex.ideal(w.held(), w.absent());
    }

    /**
     * Each term's score at one occurrence in a document of average length (see {@link #ideal}), by
     * its pieces joined with spaces: those some document holds, and those none does (as if one
     * did). Null for a field no document has.
     */
    private static Weights weights(IndexSearcher searcher, String field, List<List<String>> phrases) throws IOException {
        CollectionStatistics stats = searcher.collectionStatistics(field);
        if (stats == null) {
            return null;
        }
        long docs = stats.docCount();
        java.util.Map<String, Double> held = new java.util.HashMap<>();
        java.util.Map<String, Double> absent = new java.util.HashMap<>();
        for (List<String> pieces : phrases) {
            long n = Long.MAX_VALUE;
            for (String piece : pieces) {
                n = Math.min(n, ScopedSearcher.holding(searcher, new Term(field, piece)));
            }
            long counted = Math.max(1, n); // a term no document holds scores as if one did (LexicalIndex.ideal)
            long total = Math.max(docs, counted);
            (n > 0 ? held : absent).put(String.join(" ", pieces),
                    Math.log(1 + (total - counted + 0.5) / (counted + 0.5)) / (1 + K1));
        }
        return new Weights(held, absent);
    }

    private record Weights(java.util.Map<String, Double> held, java.util.Map<String, Double> absent) {
    }

    /**
     * The most of the query's words one document of {@code filter} holding at least {@code least} of
     * them holds, over their ideal ({@link LexicalIndex#evidence}): each word the document holds counts
     * its {@link #weights} once, however often it occurs and however long the document, the sum over
     * the query's ideal.
     */
    private double held(String field, Scope scope, List<List<String>> words, Query filter, int least) {
        try {
            IndexSearcher acquired = searchers.acquire();
            try {
                IndexSearcher searcher = ScopedSearcher.of(acquired, field, scope);
                Weights w = weights(searcher, field, words);
                if (w == null || w.held().isEmpty()) {
                    return 0;
                }
                BooleanQuery.Builder any = new BooleanQuery.Builder();
                for (List<String> pieces : words) {
                    Double weight = w.held().get(String.join(" ", pieces));
                    if (weight != null) {
                        any.add(new BoostQuery(new ConstantScoreQuery(term(field, pieces)), weight.floatValue()),
                                BooleanClause.Occur.SHOULD);
                    }
                }
                any.setMinimumNumberShouldMatch(least);
                Query q = new BooleanQuery.Builder().add(any.build(), BooleanClause.Occur.MUST)
                        .add(filter, BooleanClause.Occur.FILTER).build();
                TopDocs top = searcher.search(q, 1);
                return top.scoreDocs.length == 0 ? 0 : top.scoreDocs[0].score / LexicalIndex.ideal(w.held(), w.absent());
            } finally {
                searchers.release(acquired);
            }
        } catch (IOException e) {
            throw new StorageException("searching the Lucene index", e);
        }
    }

    /**
     * Deep mode (newest 0): the HNSW graph's nearest eligible memories, searched with the eligibility
     * filter inside the graph walk (Lucene switches to an exact scan of the filtered documents when
     * the filter leaves few), then rescored by their exact vectors from the authority. Semantic mode
     * (newest N) keeps its meaning: the N most recent eligible memories with a vector of the
     * fingerprint, compared exactly. {@link Neighbours#compared} is, in deep mode, the eligible
     * vectors the search covered (all of them, approximately), in semantic mode those compared.
     */
    @Override
    public synchronized Neighbours nearest(Snapshot snapshot, VectorQuery q) {
        if (q.k() == 0) {
            return new Neighbours(List.of(), 0);
        }
        follow(snapshot);
        String field = Documents.vectorField(q.fingerprint(), q.vector().length);
        Query eligible = new BooleanQuery.Builder()
                .add(Documents.eligible(q.filter()), BooleanClause.Occur.FILTER)
                .add(new FieldExistsQuery(field), BooleanClause.Occur.FILTER)
                .build();
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                if (q.newest() > 0) {
                    TopFieldDocs newest = searcher.search(eligible, q.newest(), NEWEST_FIRST, false);
                    List<Long> rows = new ArrayList<>(newest.scoreDocs.length);
                    for (ScoreDoc hit : newest.scoreDocs) {
                        rows.add((Long) ((FieldDoc) hit).fields[0]);
                    }
                    return rescored(snapshot, q, rows, rows.size());
                }
                int n = Math.max(q.k(), options.knnCandidates());
                TopDocs knn = searcher.search(new KnnFloatVectorQuery(field, q.vector(), n, eligible), n);
                return rescored(snapshot, q, rows(searcher, knn.scoreDocs), searcher.count(eligible));
            } finally {
                searchers.release(searcher);
            }
        } catch (IOException e) {
            throw new StorageException("searching vectors in the Lucene index", e);
        }
    }

    /** The rows' exact similarities (their vectors of the query's fingerprint, from the authority), best {@code k} above the threshold. */
    private static Neighbours rescored(Snapshot snapshot, VectorQuery q, List<Long> rows, long compared) {
        List<Candidate> out = new ArrayList<>();
        for (VectorCache.StoredVector v : snapshot.vectorsByMemoryRow(rows)) {
            if (v.fingerprint().equals(q.fingerprint()) && v.vector().length == q.vector().length) {
                double similarity = ExactVectorScan.dot(q.vector(), v.vector());
                if (similarity > q.minSimilarity()) {
                    out.add(new Candidate(v.memoryRow(), similarity));
                }
            }
        }
        out.sort(Candidate.BEST_FIRST);
        return new Neighbours(out.subList(0, Math.min(q.k(), out.size())), compared);
    }

    /** The row numbers of hits, read from the {@code row} doc values. */
    private static List<Long> rows(IndexSearcher searcher, ScoreDoc[] hits) throws IOException {
        ScoreDoc[] byDoc = hits.clone();
        Arrays.sort(byDoc, (a, b) -> Integer.compare(a.doc, b.doc));
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        List<Long> out = new ArrayList<>(hits.length);
        int leaf = -1;
        SortedNumericDocValues values = null;
        for (ScoreDoc hit : byDoc) {
            int i = ReaderUtil.subIndex(hit.doc, leaves);
            if (i != leaf) {
                leaf = i;
                values = DocValues.getSortedNumeric(leaves.get(i).reader(), Documents.ROW);
            }
            if (values.advanceExact(hit.doc - leaves.get(i).docBase)) {
                out.add(values.nextValue());
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ doctor

    /** The index as {@code doctor} reports it: presence, applied against head, live documents by type. */
    public Report report(Authority authority) {
        return authority.read(s -> reportAt(s));
    }

    private synchronized Report reportAt(Snapshot s) {
        {
            long head = s.changeLogHead();
            if (problem != null || searchers == null) {
                return new Report(false, dirName, version, 0, head, 0, 0, writer == null, problem);
            }
            try {
                searchers.maybeRefresh();
                IndexSearcher searcher = searchers.acquire();
                try {
                    long memories = searcher.count(new TermQuery(new Term(Documents.TYPE, Documents.MEMORY)));
                    long events = searcher.count(new TermQuery(new Term(Documents.TYPE, Documents.EVENT)));
                    long at = writer == null ? Long.parseLong(
                            ((DirectoryReader) searcher.getIndexReader()).getIndexCommit().getUserData()
                                    .getOrDefault(SEQ, "0")) : applied;
                    return new Report(true, dirName, version, at, head, memories, events, writer == null, null);
                } finally {
                    searchers.release(searcher);
                }
            } catch (IOException | RuntimeException e) {
                return new Report(false, dirName, version, 0, head, 0, 0, writer == null,
                        "it could not be read (" + e.getClass().getSimpleName() + ")");
            }
        }
    }

    /** The current index directory (for tests and benchmarks that inspect its files), if any. */
    public synchronized Optional<Path> directory() {
        try {
            return home.current();
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
