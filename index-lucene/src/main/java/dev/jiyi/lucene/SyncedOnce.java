package dev.jiyi.lucene;

import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A directory that syncs a file once. Lucene's commit asks its directory to sync every file the
 * commit names, and {@code FSDirectory} calls {@code fsync} on each of them, also on those an
 * earlier commit already synced. Only small flushes are compound files
 * ({@link Handles#COMPOUND_DOCS}), so at 1,000,000 turns a commit names about 700 files: a
 * deletion's commit, and the commit a search makes every ten seconds, spent 60 to 140 ms on this
 * machine calling {@code fsync} on files with nothing to write. Lucene's files are written once and never changed, so a file this directory synced
 * stays on disk as synced; only the files written since are synced again. A name written, renamed
 * or deleted through this directory is forgotten, so a file made again under an old name is synced
 * again. The files of the commit the directory finds when it opens were synced by the process that
 * made it (Lucene writes a commit only after syncing each of its files), so a process's first
 * commit does not sync them again either: a CLI command that applied one turn paid for every file.
 */
final class SyncedOnce extends FilterDirectory {

    private final Set<String> synced = ConcurrentHashMap.newKeySet();

    /**
     * Around {@code in}, whose last commit's files count as synced: a commit is written only after
     * every file it names was synced. If that commit cannot be read, every file is synced as before.
     */
    SyncedOnce(Directory in) {
        super(in);
        try {
            if (SegmentInfos.getLastCommitGeneration(in) >= 0) {
                synced.addAll(SegmentInfos.readLatestCommit(in).files(true));
            }
        } catch (IOException | RuntimeException e) {
            synced.clear(); // the writer opening this directory reports what is wrong
        }
    }

    @Override
    public IndexOutput createOutput(String name, IOContext context) throws IOException {
        synced.remove(name);
        return super.createOutput(name, context);
    }

    @Override
    public IndexOutput createTempOutput(String prefix, String suffix, IOContext context) throws IOException {
        IndexOutput out = super.createTempOutput(prefix, suffix, context);
        synced.remove(out.getName());
        return out;
    }

    @Override
    public void copyFrom(Directory from, String src, String dest, IOContext context) throws IOException {
        synced.remove(dest); // how NRTCachingDirectory writes a file it kept in memory to disk
        super.copyFrom(from, src, dest, context);
    }

    @Override
    public void rename(String source, String dest) throws IOException {
        synced.remove(source);
        synced.remove(dest);
        super.rename(source, dest);
    }

    @Override
    public void deleteFile(String name) throws IOException {
        synced.remove(name);
        super.deleteFile(name);
    }

    /** Syncs the files named that this directory has not synced since they were written. */
    @Override
    public void sync(Collection<String> names) throws IOException {
        List<String> unsynced = names.stream().filter(name -> !synced.contains(name)).toList();
        super.sync(unsynced);
        synced.addAll(unsynced);
    }
}
