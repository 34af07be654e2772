package dev.jiyi.lucene;

import org.apache.lucene.index.FilterMergePolicy;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The merge policy that makes a deletion leave nothing behind (D1) at the cost of the segments that
 * held the deleted text, not of the whole index. Lucene deletes by marking; the text stays in a
 * segment's files until the segment is rewritten. Replacing a document (a revocation, a stored
 * vector) leaves marked documents everywhere, so merging away every marked document would rewrite
 * nearly the whole index at each deletion. Instead the index names the segments that hold a deleted
 * row's documents ({@link #purge}), and {@code forceMergeDeletes} rewrites exactly those, each on
 * its own. Every other merge decision is the wrapped policy's.
 */
final class PurgePolicy extends FilterMergePolicy {

    private final Set<String> purge = ConcurrentHashMap.newKeySet();
    /** Whether the last purge passed over a named segment that a merge was rewriting meanwhile. */
    private volatile boolean passedOver;

    PurgePolicy(MergePolicy in) {
        super(in);
    }

    /** The segments (by name) that the next {@code forceMergeDeletes} rewrites. */
    void purge(Collection<String> segments) {
        purge.addAll(segments);
        passedOver = false;
    }

    /**
     * Whether the last {@code forceMergeDeletes} passed over a named segment with deleted documents
     * because a background merge was rewriting it. That merge carries the deleted documents, marked,
     * into its new segment, whose files then hold the deleted text until it is purged in turn.
     */
    boolean passedOver() {
        return passedOver;
    }

    /** Forgets the segments named for the last purge (they are rewritten, or were dropped whole). */
    void done() {
        purge.clear();
        passedOver = false;
    }

    @Override
    public MergeSpecification findForcedDeletesMerges(SegmentInfos infos, MergeContext context) throws IOException {
        MergeSpecification spec = null;
        for (SegmentCommitInfo info : infos) {
            if (purge.contains(info.info.name) && context.numDeletesToMerge(info) > 0) {
                if (context.getMergingSegments().contains(info)) {
                    passedOver = true;
                    continue;
                }
                if (spec == null) {
                    spec = new MergeSpecification();
                }
                spec.add(new OneMerge(List.of(info)));
            }
        }
        return spec;
    }
}
