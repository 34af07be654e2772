package dev.jiyi.lucene;

import dev.jiyi.authority.index.ChangeLogFollower.Position;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene104.Lucene104HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.util.quantization.QuantizedByteVectorValues;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The open Lucene handles of the current index directory: its writer (none when another process
 * holds the write lock), its searchers, and the change-log position its last commit holds. Opening
 * never fails: an index that cannot be used records why ({@link #problem}), and the follower
 * rebuilds it. Used under the lock of its {@link LuceneIndex}.
 */
final class Handles {

    static final String SEQ = "jiyi.seq";
    static final String MARK = "jiyi.mark";
    static final String VERSION = "jiyi.version";
    private static final int HNSW_M = 16;
    private static final int HNSW_BEAM = 100;
    /**
     * The largest segment merges make, in MB. A deletion rewrites the segments that held the deleted
     * documents (D1, {@link PurgePolicy}), so this bounds what one deletion costs however large the
     * archive (segments a flush writes are bounded by the RAM buffer, 64 MB, about 16 MB on disk);
     * searches pay a little per segment in exchange. Measured at 1,000,000 turns (2026-12-05, the
     * RAM buffer scaled with it): 8 MB made a deletion about 35 % cheaper (p50 330 to 360 ms against
     * 554) and recall's mean (known items, topics) between 8 % cheaper and 38 % dearer in two runs;
     * 4 MB (125 segments)
     * 270 to 300 ms and recall 67 to 78 % dearer.
     */
    static final int MAX_SEGMENT_MB = 16;
    /**
     * A flush of this many documents or fewer is one compound file (with its entries and its segment
     * info: three files instead of about eighteen); the follower sets it per flush
     * ({@link LuceneFollower}). A turn applied in a conversation flushes a segment of one document per
     * kind ({@link OneKindMerges}), and a commit creates and syncs each of its files, which a merge
     * later deletes: at 1,000,000 turns, with a turn before each recall and each catch-up committing
     * (a human pace), recall and commit took 109 to 137 ms at the median with separate files, 97 with
     * {@link SyncedOnce} alone and 42 to 48 with both (2026-12-07); a recall right after a turn with
     * no commit due costs a few ms more (docs/benchmarks.md). Merged segments, and flushes of more
     * documents (a rebuild, a catch-up of pages of the log), keep their own files: a deletion's purge
     * rewrites them (D1), and a compound file would be written twice.
     */
    static final int COMPOUND_DOCS = 64;

    final IndexHome home;
    final LuceneOptions options;
    final Analyzer analyzer;
    final String version;
    /** The memories a current recall may return, kept per segment (used by lexical and vector searches). */
    final EligibleSets eligible = new EligibleSets();

    String dirName;
    Directory directory;
    /** Null when another process holds the write lock. */
    IndexWriter writer;
    SearcherManager searchers;
    Position applied = Position.START;
    /** Why the index must be rebuilt before it is used, or null. */
    String problem;
    private long lastLockAttempt;

    Handles(Path root, LuceneOptions options) {
        this.home = new IndexHome(root);
        this.options = options;
        this.analyzer = options.analysis().analyzer();
        this.version = options.version();
    }

    /** Opens the directory the home points at, or records why it cannot be used. */
    void openCurrent() {
        close();
        problem = null;
        try {
            Optional<Path> current = home.current();
            if (current.isEmpty()) {
                problem = home.pointer().isPresent() ? "its directory is missing" : "there was none yet";
                return;
            }
            dirName = current.get().getFileName().toString();
            directory = new TurnCache(current.get());
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
            close();
        }
    }

    /**
     * Reopens when another process swapped in a rebuilt directory, or, read only, when a second has
     * passed since the write lock was last tried (the other process may have let go of it).
     */
    void reopenIfStale() throws IOException {
        if (!Objects.equals(home.pointer().orElse(null), dirName)) {
            openCurrent();
        } else if (writer == null && problem == null
                && System.nanoTime() - lastLockAttempt > Duration.ofSeconds(1).toNanos()) {
            openCurrent();
        }
    }

    /** Read only: takes the position of the holder's newest commit. */
    void refreshReadOnly() throws IOException {
        searchers.maybeRefresh();
        adopt(committedData());
    }

    /** The commit data that records {@code at} in this index's format. */
    Iterable<Map.Entry<String, String>> commitData(Position at) {
        return Map.of(SEQ, Long.toString(at.seq()), MARK, at.mark(), VERSION, version).entrySet();
    }

    /** Takes the applied position from commit data, or records why the index is unusable. */
    private void adopt(Map<String, String> data) {
        if (!version.equals(data.get(VERSION))) {
            problem = data.get(VERSION) == null ? "it has no version"
                    : "it was built with other settings (" + data.get(VERSION) + ")";
            return;
        }
        long seq;
        try {
            seq = Long.parseLong(data.getOrDefault(SEQ, "-1"));
        } catch (NumberFormatException e) {
            seq = -1;
        }
        if (seq < 0) {
            problem = "its applied change-log sequence is missing";
            return;
        }
        applied = new Position(seq, data.getOrDefault(MARK, ""));
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

    /** The user data of the commit the searchers see. */
    Map<String, String> committedData() throws IOException {
        IndexSearcher s = searchers.acquire();
        try {
            return ((DirectoryReader) s.getIndexReader()).getIndexCommit().getUserData();
        } finally {
            searchers.release(s);
        }
    }

    IndexWriterConfig config(IndexWriterConfig.OpenMode mode) {
        IndexWriterConfig c = new IndexWriterConfig(analyzer);
        c.setOpenMode(mode);
        c.setCommitOnClose(false);
        c.setRAMBufferSizeMB(64);
        TieredMergePolicy tiered = new TieredMergePolicy();
        tiered.setMaxMergedSegmentMB(MAX_SEGMENT_MB);
        // No compound files: a purge then writes its segment once, not a second time into one file.
        tiered.setNoCFSRatio(0.0);
        c.setUseCompoundFile(false);
        c.setMergePolicy(new PurgePolicy(new OneKindMerges(tiered)));
        c.setCodec(codec(options.vectors()));
        return c;
    }

    private static Codec codec(LuceneOptions.VectorFormat format) {
        KnnVectorsFormat vectors = format == LuceneOptions.VectorFormat.INT8
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

    /** Lets go of every handle; what was applied was committed, so nothing is lost. */
    void close() {
        try {
            if (searchers != null) {
                searchers.close();
            }
            if (writer != null) {
                writer.rollback();
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

    /** Runs {@code search} on an acquired searcher, released afterwards. */
    <T> T withSearcher(SearcherFunction<T> search) throws IOException {
        IndexSearcher searcher = searchers.acquire();
        try {
            return search.apply(searcher);
        } finally {
            searchers.release(searcher);
        }
    }

    @FunctionalInterface
    interface SearcherFunction<T> {
        T apply(IndexSearcher searcher) throws IOException;
    }
}
