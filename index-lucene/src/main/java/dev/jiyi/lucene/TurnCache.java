package dev.jiyi.lucene;

import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.NRTCachingDirectory;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The index's directory: its files on disk, and the small segments written since the last commit
 * in memory. A recall follows the change log before it searches, and in a conversation the log
 * moves every turn, so the search applies a turn and reopens its view: each time the writer flushes
 * two segments of one document (one per kind, {@link OneKindMerges}), about a dozen new files, and
 * merges such segments every few turns, deleting their files. Written to disk, that churn made such
 * a recall at 1,000,000 turns about twice as slow (docs/benchmarks.md, "Recall in a conversation").
 * Here a flushed segment, and a merge of small ones, up to {@link #SEGMENT_MB} each and
 * {@link #CACHED_MB} in all, stays in memory until a commit syncs it (Lucene's
 * {@link NRTCachingDirectory}), and so do the stored-fields files a segment opens before its size is
 * known (jiyi stores no field, so they stay a few bytes). Nothing durable changes: what is not
 * committed is applied again from the log after a crash either way, a commit writes and syncs every
 * file it names, and a process reading beside the writer sees only commits. A deletion's purge (D1)
 * drops the merged-away segment's files wherever they are, so deleted text that was only in memory
 * never reaches the disk.
 */
final class TurnCache extends NRTCachingDirectory {

    /** Flushed or merged segments up to this size are kept in memory until a commit. */
    static final double SEGMENT_MB = 4;

    /** The most those segments hold in memory together; past it, they are written to files. */
    static final double CACHED_MB = 32;

    private static final long CACHED_BYTES = (long) (CACHED_MB * 1024 * 1024);

    TurnCache(Path dir) throws IOException {
        super(FSDirectory.open(dir), SEGMENT_MB, CACHED_MB);
    }

    @Override
    protected boolean doCacheWrite(String name, IOContext context) {
        if (context.context() == IOContext.Context.DEFAULT && context.mergeInfo() == null
                && context.flushInfo() == null) {
            // A segment's stored fields, opened at its first document, before its size is known.
            return name.startsWith("_") && ramBytesUsed() < CACHED_BYTES;
        }
        return super.doCacheWrite(name, context);
    }
}
