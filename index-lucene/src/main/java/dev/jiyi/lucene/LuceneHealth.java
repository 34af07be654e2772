package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.Table;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.index.Backend;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code doctor} finds about the derived Lucene index. None at all is fine: the index is
 * optional and built on first use. One that exists is first brought up to the change log (a missing,
 * unreadable or outdated one is rebuilt then, with a notice), and its memory and event documents are
 * then counted against the authority's rows (L1, L2).
 *
 * @param built whether {@code $JIYI_HOME/lucene} holds an index at all
 * @param directory the index directory in use, when built
 * @param report the index's own report after catching up; null when not built or not checked
 * @param layout its last commit's segments by kind; null when not built or not checked
 * @param memories the authority's memory rows
 * @param events the authority's event rows
 * @param finding what is wrong, in doctor's words with what to run; null when nothing is
 */
record LuceneHealth(boolean built, Path directory, LuceneReport report, LuceneIndex.Layout layout, long memories,
                    long events, String finding) implements Backend.Health {

    static final String NOT_BUILT = "not built (optional; built on first `recall --index lucene` or `reindex --lucene`)";

    private static final String REBUILD = "; run `jiyi reindex --lucene`";

    /**
     * Checks the home's Lucene index against the authority's row counts (doctor's {@code tables}).
     * Never creates an index that does not exist.
     */
    static LuceneHealth check(LuceneBackend backend, Authority authority, TableCounts tableCounts) {
        long memories = tableCounts.of(Table.MEMORIES);
        long events = tableCounts.of(Table.EVENTS);
        if (!backend.built()) {
            return new LuceneHealth(false, null, null, null, memories, events, null);
        }
        LuceneIndex index;
        LuceneReport report;
        LuceneIndex.Layout layout;
        try {
            index = backend.index();
            catchUp(index, authority);
            report = index.report(authority);
            layout = index.layout();
        } catch (InvalidInputException e) {
            return new LuceneHealth(true, null, null, null, memories, events,
                    "lucene index not checked: " + e.getMessage() + " (fix the setting)");
        } catch (JiyiException e) {
            return new LuceneHealth(true, null, null, null, memories, events,
                    "lucene index could not be checked: " + e.getMessage() + REBUILD);
        }
        Path directory = index.directory().orElse(null);
        String problem = null;
        if (report.problem() != null) {
            problem = "lucene index: " + report.problem() + REBUILD;
        } else if (!report.readOnly() && (report.memories() != memories || report.events() != events)) {
            problem = "lucene index holds " + report.memories() + " memory and " + report.events()
                    + " event document(s) for " + memories + " memories and " + events + " events" + REBUILD;
        }
        return new LuceneHealth(true, directory, report, layout, memories, events, problem);
    }

    /**
     * Applies the whole change log, one time budget after another, unless another process holds the
     * write lock (then the index is whatever that process last committed) or a round makes no progress.
     */
    private static void catchUp(LuceneIndex index, Authority authority) {
        LuceneStatus status = index.catchUp(authority);
        while (!status.readOnly() && status.behind() > 0) {
            LuceneStatus next = index.catchUp(authority);
            if (next.applied() <= status.applied()) {
                return;
            }
            status = next;
        }
    }

    /** The {@code lucene} object of {@code doctor --json}; the same keys whether built or not. */
    @Override
    public Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("present", report != null && report.present());
        m.put("directory", directory == null ? null : directory.toString());
        m.put("version", report == null ? null : report.version());
        m.put("applied_seq", report == null ? null : report.applied());
        m.put("change_log_head", report == null ? null : report.head());
        m.put("memories", report == null ? null : report.memories());
        m.put("events", report == null ? null : report.events());
        m.put("read_only", report != null && report.readOnly());
        Map<String, Object> segments = null;
        if (layout != null) {
            segments = new LinkedHashMap<>();
            segments.put("events", layout.events());
            segments.put("memories", layout.memories());
            segments.put("mixed", layout.mixed());
        }
        m.put("segments", segments);
        m.put("problem", finding);
        m.put("note", built ? null : NOT_BUILT);
        return m;
    }

    /** The section of {@code doctor}'s text output. */
    @Override
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        if (!built) {
            out.add("lucene index: " + NOT_BUILT);
            return out;
        }
        if (report == null || !report.present()) {
            out.add("lucene index: not usable");
            return out;
        }
        out.add("lucene index: " + directory);
        out.add(String.format("  %-16s %s", "version", report.version()));
        out.add(String.format("  %-16s %d of change-log head %d", "applied seq", report.applied(), report.head()));
        out.add(String.format("  %-16s %d of %d", "memories", report.memories(), memories));
        out.add(String.format("  %-16s %d of %d", "events", report.events(), events));
        if (layout != null) {
            out.add(String.format("  %-16s %d of events, %d of memories%s", "segments", layout.events(), layout.memories(),
                    layout.mixed() == 0 ? "" : ", " + layout.mixed() + " of both (written before kinds were kept apart;"
                            + " `jiyi reindex --lucene` separates them and makes searches cheaper)"));
        }
        if (report.readOnly()) {
            out.add("  read-only: another process holds its write lock; these are its last commit's figures");
        }
        return out;
    }

    @Override
    public Optional<String> problem() {
        return Optional.ofNullable(finding);
    }
}
