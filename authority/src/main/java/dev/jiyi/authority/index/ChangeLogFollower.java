package dev.jiyi.authority.index;

import dev.jiyi.authority.Snapshot;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The protocol by which an index that lives outside SQLite follows the authority through its
 * {@link ChangeLog} (L2): read the entries after the last one applied, a page at a time, apply each
 * page against the same snapshot, and commit the position reached, for at most a time budget.
 *
 * <p>A position is a sequence and a <em>mark</em> of the entry at it. When the log does not continue
 * what the target holds (its sequence is past the head, or the entry at its sequence is another
 * one, as after a restore or a replaced archive), the target is rebuilt from the snapshot instead.
 * A page applied twice is harmless (an entry names a row, and the target reads the row's current
 * state), so a process killed between commits applies the same entries again.
 *
 * <p>The budget bounds one call, not one page: a page once started is applied and committed. What
 * is left is applied by the next call.
 */
public final class ChangeLogFollower {

    /** Entries read per page. */
    public static final int PAGE = 1_000;

    /** What a follower keeps current: a store with a position it commits with what it applied. */
    public interface Target {

        /** The position the target's last commit (or rebuild) reflects. */
        Position position();

        /**
         * Applies one page of entries, reading the rows they name from {@code snapshot}: a named row
         * that is gone was deleted (and a delete entry of the page says so).
         */
        void apply(Snapshot snapshot, List<ChangeLog.Entry> page) throws IOException;

        /** Makes what was applied since the last commit durable, with the position it reaches. */
        void commit(Position reached) throws IOException;

        /**
         * Builds the target again from the whole snapshot; afterwards {@link #position()} is the
         * snapshot's head. {@code reason} says why, for the person running jiyi.
         */
        void rebuild(Snapshot snapshot, String reason) throws IOException;
    }

    /**
     * Where a target stands in the log.
     *
     * @param seq  the last entry applied (0: none)
     * @param mark {@link #mark} of that entry ("" at 0)
     */
    public record Position(long seq, String mark) {

        public static final Position START = new Position(0, "");

        public Position {
            Objects.requireNonNull(mark, "mark");
        }
    }

    /**
     * What one call did.
     *
     * @param applied the sequence the target reflects afterwards
     * @param head    the snapshot's newest sequence
     * @param pages   pages applied (and committed together)
     * @param rebuilt whether the target was rebuilt first
     */
    public record Outcome(long applied, long head, int pages, boolean rebuilt) {

        /** Entries of the snapshot's log the target has not applied (the budget ran out). */
        public long behind() {
            return Math.max(0, head - applied);
        }
    }

    private final int page;
    private final Duration budget;

    /**
     * @param page   entries per page (at least 1)
     * @param budget how long one call may apply pages before it commits and returns
     */
    public ChangeLogFollower(int page, Duration budget) {
        if (page < 1) {
            throw new IllegalArgumentException("page must be at least 1");
        }
        this.page = page;
        this.budget = Objects.requireNonNull(budget, "budget");
    }

    /** Brings {@code target} up to {@code snapshot}'s log, as far as the budget allows. */
    public Outcome follow(Snapshot snapshot, Target target) throws IOException {
        long head = snapshot.changeLogHead();
        Position at = target.position();
        boolean rebuilt = false;
        if (at.seq() > head || !at.mark().equals(mark(snapshot, at.seq()))) {
            target.rebuild(snapshot, "the change log does not continue it (a restored or replaced archive)");
            rebuilt = true;
            at = target.position();
        }
        long deadline = System.nanoTime() + budget.toNanos();
        int pages = 0;
        while (at.seq() < head) {
            List<ChangeLog.Entry> entries = snapshot.changesAfter(at.seq(), page);
            if (entries.isEmpty()) {
                break;
            }
            target.apply(snapshot, entries);
            ChangeLog.Entry last = entries.getLast();
            at = new Position(last.seq(), mark(last));
            pages++;
            if (System.nanoTime() > deadline) {
                break;
            }
        }
        if (pages > 0) {
            target.commit(at);
        }
        return new Outcome(at.seq(), head, pages, rebuilt);
    }

    /** The snapshot's head as a position: what a target built from the whole snapshot reflects. */
    public static Position head(Snapshot snapshot) {
        long head = snapshot.changeLogHead();
        return new Position(head, mark(snapshot, head));
    }

    /** Identifies the entry at {@code seq}, so that a log that does not continue a target is noticed. */
    public static String mark(Snapshot snapshot, long seq) {
        if (seq <= 0) {
            return "";
        }
        List<ChangeLog.Entry> at = snapshot.changesAfter(seq - 1, 1);
        return at.isEmpty() || at.get(0).seq() != seq ? "(none)" : mark(at.get(0));
    }

    /** The mark of one entry: what it is about, what happened, when. */
    public static String mark(ChangeLog.Entry e) {
        return e.entity() + ":" + e.entityId() + ":" + e.op() + ":" + e.at();
    }
}
