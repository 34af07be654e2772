package dev.jiyi.lucene;

import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.ChangeLogFollower;
import dev.jiyi.authority.index.ChangeLogFollower.Position;

import org.apache.lucene.document.Document;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.LiveIndexWriterConfig;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.store.FSDirectory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import java.util.stream.IntStream;

/**
 * Keeps the Lucene index current with the authority's change log ({@link ChangeLogFollower}'s
 * target) and builds it whole. An entry names a row; the follower reads the row's current state
 * from the snapshot the search runs in and replaces or deletes its document. A commit after a
 * deletion first merges away the deleted documents, so that no term of the deleted text stays in
 * the files (D1). Used under the lock of its {@link LuceneIndex}.
 *
 * <p><b>When it commits.</b> What a search applied is visible to this process's next search at once
 * (the searchers read the writer's near-real-time view); it is made durable (a Lucene commit, with
 * its fsyncs) when it applied a deletion (D1 must hold when the deletion returns), when asked
 * ({@link LuceneIndex#catchUp}, closing), or when a search applies something and the last commit is
 * {@link #COMMIT_EVERY} old (a process that stops searching holds what it applied until it closes;
 * the MCP server applies and commits between calls, {@link LuceneIndex#keepUp}).
 * A search then does not pay a commit for each turn ingested between two recalls (at 1,000,000
 * memories, those commits were the p99 of whole recall). The index is derived and re-applying an
 * entry is harmless: a process killed with work not yet committed leaves the next one to apply it
 * again from the last commit's position; a process reading beside the holder sees the holder's
 * commits, so it may be up to that interval further behind, and says how far.
 */
final class LuceneFollower implements ChangeLogFollower.Target {

    /** Documents per write from which they are analyzed on every core. */
    private static final int PARALLEL_FROM = 64;

    /** The age of the last commit from which a search that applied something commits (see the class comment). */
    static final long COMMIT_EVERY = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    /** How long a purge waits for background merges that hold a segment with deleted text. */
    private static final long PURGE_WAIT = java.util.concurrent.TimeUnit.SECONDS.toNanos(120);

    private final Handles h;
    private final ChangeLogFollower follower;
    private final List<String> notices = new ArrayList<>();
    /** Keys deleted since the last commit: the segments holding them are rewritten before it (D1). */
    private final List<Term> removed = new ArrayList<>();
    private LuceneStatus status = new LuceneStatus(0, 0, false);
    /** Whether the commit that ends the current follow must be durable ({@link #follow}'s argument). */
    private boolean durable;
    /** Whether the writer holds applied work (and its position) that no commit has made durable. */
    private boolean uncommitted;
    /** {@link System#nanoTime()} of the last commit this follower made. */
    private long committedAt = System.nanoTime();
    /** The kind of the documents written since the last flush this follower knows of, or null. */
    private String buffered;

    LuceneFollower(Handles handles) {
        this.h = handles;
        this.follower = new ChangeLogFollower(ChangeLogFollower.PAGE, handles.options.catchUpBudget());
    }

    LuceneStatus status() {
        return status;
    }

    /** Messages about what the index did on its own, oldest first; taking them empties the list. */
    List<String> takeNotices() {
        List<String> out = List.copyOf(notices);
        notices.clear();
        return out;
    }

    /**
     * Brings the index up to the snapshot's change log, as far as the budget allows; with
     * {@code durable}, what is applied (now or before) is committed before it returns.
     */
    LuceneStatus follow(Snapshot s, boolean durable) {
        try {
            h.reopenIfStale();
            if (h.problem != null) {
                rebuild(s, h.problem);
            }
            if (h.writer == null) {
                h.refreshReadOnly();
                status = new LuceneStatus(Math.max(0, h.applied.seq()), s.changeLogHead(), true);
                return status;
            }
            this.durable = durable;
            ChangeLogFollower.Outcome o = follower.follow(s, this);
            if (durable) {
                flush();
            }
            status = new LuceneStatus(o.applied(), o.head(), false);
            return status;
        } catch (IOException e) {
            throw new StorageException("following the authority in the Lucene index", e);
        }
    }

    /** Rebuilds on demand ({@code reindex --lucene}), telling {@code fed} of the rows written. */
    LuceneIndex.Rebuilt rebuild(Snapshot s, LongConsumer fed) {
        LuceneIndex.Rebuilt r = build(s, fed);
        h.openCurrent();
        status = new LuceneStatus(h.applied.seq(), r.head(), h.writer == null);
        return r;
    }

    @Override
    public Position position() {
        return h.applied;
    }

    @Override
    public void rebuild(Snapshot s, String reason) throws IOException {
        notices.add("lucene index rebuilt from the authority: " + reason);
        build(s, rows -> { });
        h.openCurrent();
        if (h.problem != null) {
            throw new StorageException("opening the rebuilt Lucene index", new IOException(h.problem));
        }
    }

    /**
     * Applies entries: deletions by row key first, then every event and memory the entries touched,
     * as it is now (absent means deleted, and a later entry of this batch says so).
     */
    @Override
    public void apply(Snapshot s, List<ChangeLog.Entry> entries) throws IOException {
        List<Term> gone = new ArrayList<>();
        Set<String> events = new LinkedHashSet<>();
        Set<String> memories = new LinkedHashSet<>();
        for (ChangeLog.Entry e : entries) {
            switch (e.entity()) {
                case EVENT -> {
                    if (e.op() == ChangeLog.Op.DELETE) {
                        gone.add(e.rowId() != null ? Documents.eventKey(e.rowId())
                                : Documents.id(Documents.EVENT, e.entityId()));
                    } else {
                        events.add(e.entityId());
                    }
                }
                case MEMORY -> {
                    if (e.op() == ChangeLog.Op.DELETE) {
                        gone.add(e.rowId() != null ? Documents.memoryKey(e.rowId())
                                : Documents.id(Documents.MEMORY, e.entityId()));
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
        if (!gone.isEmpty()) {
            h.writer.deleteDocuments(gone.toArray(Term[]::new));
            removed.addAll(gone);
        }
        List<Term> eventKeys = new ArrayList<>();
        List<Document> eventDocs = new ArrayList<>();
        for (Event e : s.eventsById(events)) {
            eventKeys.add(Documents.eventKey(e.sequence()));
            eventDocs.add(Documents.event(e));
        }
        List<Memory> current = s.memoriesById(memories);
        List<Term> memoryKeys = new ArrayList<>();
        for (Memory m : current) {
            memoryKeys.add(Documents.memoryKey(m.rowId()));
        }
        List<Document> memoryDocs = Documents.memories(s, current);
        // The kind the buffer holds first, so that a page costs at most one flush (the keys of the two
        // kinds never meet, so their order does not matter).
        if (Documents.MEMORY.equals(buffered)) {
            write(Documents.MEMORY, memoryKeys, memoryDocs);
            write(Documents.EVENT, eventKeys, eventDocs);
        } else {
            write(Documents.EVENT, eventKeys, eventDocs);
            write(Documents.MEMORY, memoryKeys, memoryDocs);
        }
    }

    /**
     * Replaces documents of one kind, after flushing the writer's buffer if it may hold the other
     * kind, so that no flushed segment holds both ({@link OneKindMerges}). A flush of a few documents
     * (the next one: a refresh, a commit or this kind switch) is one compound file, a larger one its
     * own files ({@link Handles#COMPOUND_DOCS}); a flush the buffer's size forces while writing is large.
     */
    private void write(String kind, List<Term> keys, List<Document> docs) throws IOException {
        if (docs.isEmpty()) {
            return;
        }
        if (buffered != null && !buffered.equals(kind)) {
            h.writer.flush();
        }
        buffered = kind;
        LiveIndexWriterConfig live = h.writer.getConfig();
        live.setUseCompoundFile(false);
        write(h.writer, keys, docs);
        live.setUseCompoundFile(h.writer.numRamDocs() <= Handles.COMPOUND_DOCS);
    }

    /**
     * Publishes what was applied with the position it reaches, and commits it when it must (see the
     * class comment). After a deletion, segments holding deleted documents are merged first, and the
     * searcher is refreshed so that the old files are released and removed: then no byte of the
     * deleted text is left in the directory (D1).
     */
    @Override
    public void commit(Position reached) throws IOException {
        h.applied = reached;
        IndexWriter writer = h.writer;
        writer.setLiveCommitData(h.commitData(reached));
        uncommitted = true;
        boolean deleted = !removed.isEmpty();
        if (!deleted && !durable && System.nanoTime() - committedAt < COMMIT_EVERY) {
            h.searchers.maybeRefreshBlocking();
            buffered = null; // the refresh flushed the buffer
            return;
        }
        if (deleted) {
            PurgePolicy policy = (PurgePolicy) writer.getConfig().getMergePolicy();
            try {
                purge(writer, policy);
            } finally {
                policy.done();
            }
            removed.clear(); // on a failure, the next commit purges them again
        }
        writer.commit();
        uncommitted = false;
        committedAt = System.nanoTime();
        buffered = null;
        h.searchers.maybeRefreshBlocking();
        if (deleted) {
            writer.deleteUnusedFiles();
            h.home.removeStale(); // an older directory (before a rebuild) may still hold the text
        }
    }

    /**
     * Rewrites the segments that hold a removed key. A segment a background merge is rewriting
     * meanwhile is passed over; its merge carries the deleted documents into a new segment, which the
     * next round names and rewrites once the merges are done.
     */
    private void purge(IndexWriter writer, PurgePolicy policy) throws IOException {
        long deadline = System.nanoTime() + PURGE_WAIT;
        while (true) {
            policy.purge(segmentsHolding(removed));
            writer.forceMergeDeletes(true);
            if (!policy.passedOver()) {
                return;
            }
            while (!writer.getMergingSegments().isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("a merge held a segment with deleted text past " + PURGE_WAIT / 1_000_000_000L + " s");
                }
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("waiting for merges before a purge");
                }
            }
        }
    }

    /**
     * Commits what was applied and not yet committed, if anything (an explicit catch-up, closing); a
     * purge that failed before is made first (D1), as the commit after a deletion makes it.
     */
    void flush() throws IOException {
        if (!removed.isEmpty() && h.writer != null) {
            commit(h.applied);
            return;
        }
        if (uncommitted && h.writer != null) {
            h.writer.commit();
            uncommitted = false;
            committedAt = System.nanoTime();
        }
    }

    /**
     * The segments that hold a document with any of these keys, deleted or not (postings ignore
     * deletions): those hold the deleted text, or an older version of it. The searcher is refreshed
     * first, so that documents still in the writer's buffer are flushed into a segment and named too.
     */
    private List<String> segmentsHolding(List<Term> keys) throws IOException {
        h.searchers.maybeRefreshBlocking();
        return h.withSearcher(searcher -> {
            List<String> out = new ArrayList<>();
            for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
                Terms terms = leaf.reader().terms(Documents.KEY);
                Terms ids = leaf.reader().terms(Documents.ID);
                for (Term key : keys) {
                    Terms field = key.field().equals(Documents.KEY) ? terms : ids;
                    if (field != null && field.iterator().seekExact(key.bytes())) {
                        out.add(((SegmentReader) FilterLeafReader.unwrap(leaf.reader())).getSegmentName());
                        break;
                    }
                }
            }
            return out;
        });
    }

    /**
     * Builds the whole index from the snapshot into a fresh directory, commits it with the log's
     * head, and points the home at it. The caller reopens.
     */
    private LuceneIndex.Rebuilt build(Snapshot s, LongConsumer fed) {
        Path fresh = null;
        try {
            fresh = h.home.fresh();
            Position head = ChangeLogFollower.head(s);
            long events = 0;
            long memories = 0;
            long vectors = 0;
            try (FSDirectory dir = FSDirectory.open(fresh);
                 IndexWriter w = new IndexWriter(dir, h.config(IndexWriterConfig.OpenMode.CREATE))) {
                for (List<Event> page = s.eventsAfter(0, ChangeLogFollower.PAGE); !page.isEmpty();
                     page = s.eventsAfter(page.getLast().sequence(), ChangeLogFollower.PAGE)) {
                    List<Document> docs = new ArrayList<>(page.size());
                    for (Event e : page) {
                        docs.add(Documents.event(e));
                    }
                    write(w, null, docs);
                    events += page.size();
                    fed.accept(page.size());
                }
                w.flush(); // no segment holds both kinds (OneKindMerges)
                for (List<Memory> page = s.memoriesAfter(0, ChangeLogFollower.PAGE); !page.isEmpty();
                     page = s.memoriesAfter(page.getLast().rowId(), ChangeLogFollower.PAGE)) {
                    List<Document> docs = Documents.memories(s, page);
                    for (Document d : docs) {
                        vectors += d.getFields().stream().filter(f -> f.fieldType().vectorDimension() > 0).count();
                    }
                    write(w, null, docs);
                    memories += page.size();
                    fed.accept(page.size());
                }
                w.setLiveCommitData(h.commitData(head));
                w.commit();
            }
            h.home.swapTo(fresh);
            return new LuceneIndex.Rebuilt(events, memories, vectors, head.seq());
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

    /**
     * Adds documents ({@code keys} null) or replaces those with these keys. Analysis (jieba) is most
     * of the cost and happens inside the writer, which takes concurrent writes, so a large batch is
     * written on every core; the documents have distinct keys, so their order does not matter.
     */
    private static void write(IndexWriter w, List<Term> keys, List<Document> docs) throws IOException {
        IntConsumer one = i -> {
            try {
                if (keys == null) {
                    w.addDocument(docs.get(i));
                } else {
                    w.updateDocument(keys.get(i), docs.get(i));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        try {
            IntStream range = IntStream.range(0, docs.size());
            (docs.size() >= PARALLEL_FROM ? range.parallel() : range).forEach(one);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
