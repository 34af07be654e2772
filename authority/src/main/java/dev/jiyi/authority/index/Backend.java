package dev.jiyi.authority.index;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.TableCounts;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * An index backend as the engine and its front ends see it: what recall searches through it, and
 * how it is kept, rebuilt, checked and warned about. A backend either lives in the authority's own
 * file and changes in its transactions (FTS5, a {@link TransactionalIndex}), or is derived: it lives
 * in a folder of the home, follows the change log ({@link ChangeLogFollower}) and can be rebuilt
 * from the authority at any time (Lucene). Nobody outside a backend's module needs its class.
 *
 * <p>A derived backend opens lazily: asking whether it is {@link #built} or for its
 * {@link #health} never creates it, and settings it cannot use fail when it is first searched.
 */
public interface Backend extends AutoCloseable {

    /** The name {@code --index}, {@code recall.index} and reports use: {@code fts5}, {@code lucene}. */
    String name();

    /** What recall searches through this backend (opening it on first use). */
    RecallIndex recallIndex();

    /** The folder of the home it lives in; empty when it lives in the authority's own file. */
    Optional<String> folder();

    /** Whether the home holds it at all (a backend in the authority's file always does). */
    boolean built();

    /**
     * Rebuilds it whole from the authority, telling {@code fed} of the events and memories written as
     * it goes. A backend in the authority's file is rebuilt with every other one there.
     */
    Rebuilt rebuild(Authority authority, LongConsumer fed);

    /**
     * What {@code doctor} says about it, against the authority's row counts; empty when the
     * authority's own check covers it ({@link TransactionalIndex#check}). Never builds it.
     */
    Optional<Health> health(Authority authority, TableCounts counts);

    /** The lag warning after its last search (L5): behind the change log; empty when current. */
    default Optional<String> warning() {
        return Optional.empty();
    }

    /** What it did on its own since last asked (a rebuild and why), oldest first; taking empties them. */
    default List<String> takeNotices() {
        return List.of();
    }

    /** Loads what its first search would (a server's warm-up); nothing for a backend with nothing to load. */
    default void warmUp(Authority authority) {
    }

    /** What {@link #keepUp} returns for a backend with nothing of the change log to apply here. */
    long CURRENT = Long.MAX_VALUE;

    /**
     * Applies what the change log holds beyond it, as its next search would, and with {@code durable}
     * commits it (a deletion it applies is purged and committed at once). A long-running process
     * calls this after each write and again once writes pause, so that a search at a conversation's
     * pace finds nothing left to apply or commit. Returns the change-log sequence it has applied
     * through afterwards, or {@link #CURRENT} when there is nothing for it to follow here: a backend
     * in the authority's own file (it changes in each write's transaction), one not opened yet (its
     * first search catches up), or one another process writes.
     */
    default long keepUp(Authority authority, boolean durable) {
        return CURRENT;
    }

    /** Lets go of its files; what it applied is committed. */
    @Override
    default void close() {
    }

    /**
     * What a rebuild fed the backend.
     *
     * @param vectors   vectors written (0 for a backend that keeps none)
     * @param head      the change-log sequence it reflects afterwards (-1: it does not follow the log)
     * @param directory the directory it was built into, when it has one of its own
     */
    record Rebuilt(long events, long memories, long vectors, long head, Optional<Path> directory) {
    }

    /** What {@code doctor} reports about a derived backend. */
    interface Health {

        /** Its object in {@code doctor --json}, under the backend's name. */
        Map<String, Object> json();

        /** Its section of {@code doctor}'s text. */
        List<String> lines();

        /** What is wrong, in doctor's words with what to run; empty when nothing is. */
        Optional<String> problem();
    }
}
