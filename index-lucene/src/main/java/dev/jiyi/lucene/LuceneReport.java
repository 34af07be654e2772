package dev.jiyi.lucene;

import dev.jiyi.authority.Snapshot;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.TermQuery;

import java.io.IOException;

/**
 * What {@code doctor} reports about the Lucene index: presence, applied against head, live
 * documents by type, and why it cannot be used when it cannot.
 */
public record LuceneReport(boolean present, String directory, String version, long applied, long head,
                           long memories, long events, boolean readOnly, String problem) {

    /** The index behind {@code h} as it stands against the snapshot's log (under its index's lock). */
    static LuceneReport of(Handles h, Snapshot s) {
        long head = s.changeLogHead();
        boolean readOnly = h.writer == null;
        if (h.problem != null || h.searchers == null) {
            return new LuceneReport(false, h.dirName, h.version, 0, head, 0, 0, readOnly, h.problem);
        }
        try {
            h.searchers.maybeRefresh();
            return h.withSearcher(searcher -> {
                long memories = searcher.count(new TermQuery(new Term(Documents.TYPE, Documents.MEMORY)));
                long events = searcher.count(new TermQuery(new Term(Documents.TYPE, Documents.EVENT)));
                long at = readOnly ? Long.parseLong(((DirectoryReader) searcher.getIndexReader()).getIndexCommit()
                        .getUserData().getOrDefault(Handles.SEQ, "0")) : h.applied.seq();
                return new LuceneReport(true, h.dirName, h.version, at, head, memories, events, readOnly, null);
            });
        } catch (IOException | RuntimeException e) {
            return new LuceneReport(false, h.dirName, h.version, 0, head, 0, 0, readOnly,
                    "it could not be read (" + e.getClass().getSimpleName() + ")");
        }
    }
}
