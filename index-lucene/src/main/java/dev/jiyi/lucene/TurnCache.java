package dev.jiyi.lucene;

import org.apache.lucene.codecs.lucene90.compressing.Lucene90CompressingStoredFieldsWriter;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FlushInfo;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.NRTCachingDirectory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * The index's directory: its files on disk, and the small segments written since the last commit
 * in memory. A recall follows the change log before it searches, and in a conversation the log
 * moves every turn, so the search applies a turn and reopens its view: each time the writer flushes
 * two segments of one document (one per kind, {@link OneKindMerges}), a dozen and more new files
 * each (three since such small flushes are compound files, {@link Handles#COMPOUND_DOCS}), and
 * merges such segments every few turns, deleting their files. Written to disk, that churn made such
 * a recall at 1,000,000 turns about twice as slow (docs/benchmarks.md, "Recall in a conversation").
 * Here a flushed segment, and a merge of small ones, up to {@link #SEGMENT_MB} each and
 * {@link #CACHED_MB} in all, stays in memory until a commit syncs it (Lucene's
 * {@link NRTCachingDirectory}), and so do the few files a flush writes before its size is known
 * that stay a few bytes in jiyi (the stored fields, none being stored, and the field infos); other
 * files opened so, such as a segment's vectors, which can be large, are written to disk as before.
 * Nothing durable changes: what is not committed is applied again from the log after a crash either
 * way, a commit writes and syncs every file it names, and a process reading beside the writer sees
 * only commits. A deletion's purge (D1) drops the merged-away segment's files wherever they are, and
 * closing drops what no commit named, so deleted text that was only in memory never reaches the
 * disk. Below the memory, each file on disk is synced once ({@link SyncedOnce}).
 */
final class TurnCache extends NRTCachingDirectory {

    /** Flushed or merged segments up to this size are kept in memory until a commit. */
    static final double SEGMENT_MB = 4;

    /** The most those segments hold in memory together; past it, they are written to files. */
    static final double CACHED_MB = 32;

    /**
     * The files a flush writes with no size known that stay a few bytes in jiyi: the stored fields
     * (none are stored), opened at a segment's first document, and the field infos.
     */
    private static final Set<String> UNSIZED_SMALL = Set.of(Lucene90CompressingStoredFieldsWriter.FIELDS_EXTENSION,
            Lucene90CompressingStoredFieldsWriter.INDEX_EXTENSION, Lucene90CompressingStoredFieldsWriter.META_EXTENSION,
            "fnm");

    /** Such a file counted as a flush of nothing: kept in memory while the cache has room. */
    private static final IOContext SMALL = IOContext.flush(new FlushInfo(1, 0));

    TurnCache(Path dir) throws IOException {
        this(FSDirectory.open(dir));
    }

    /** Around {@code disk}, the index's folder, each of whose files is synced once ({@link SyncedOnce}). */
    TurnCache(Directory disk) {
        super(new SyncedOnce(disk), SEGMENT_MB, CACHED_MB);
    }

    @Override
    public IndexOutput createOutput(String name, IOContext context) throws IOException {
        String extension = IndexFileNames.getExtension(name); // null for segments_N and pending_segments_N
        boolean small = extension != null && UNSIZED_SMALL.contains(extension);
        return super.createOutput(name, small && unsized(context) ? SMALL : context);
    }

    @Override
    public IndexOutput createTempOutput(String prefix, String suffix, IOContext context) throws IOException {
        // The stored fields' index is written through two temporary files first.
        boolean stored = suffix.startsWith(Lucene90CompressingStoredFieldsWriter.INDEX_CODEC_NAME);
        return super.createTempOutput(prefix, suffix, stored && unsized(context) ? SMALL : context);
    }

    private static boolean unsized(IOContext context) {
        return context.context() == IOContext.Context.DEFAULT && context.mergeInfo() == null
                && context.flushInfo() == null;
    }

    /**
     * Drops what is still in memory before closing, where {@link NRTCachingDirectory} would write it
     * out: a commit syncs every file it names, so these are files no commit holds (a writer closed
     * without its last work committed), which the next writer would delete anyway.
     */
    @Override
    public void close() throws IOException {
        for (String name : listCachedFiles()) {
            deleteFile(name);
        }
        super.close();
    }
}
