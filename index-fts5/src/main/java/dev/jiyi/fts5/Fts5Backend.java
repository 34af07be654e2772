package dev.jiyi.fts5;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.RecallIndex;

import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * FTS5 as a backend: it lives in the authority's file and changes in its transactions, so it is
 * always current, always built, and checked by the authority's own doctor. Recall pairs it with the
 * exact scan of the vector cache.
 */
public final class Fts5Backend implements Backend {

    private final RecallIndex index;

    /** @param attached the FTS5 index the authority was opened with */
    public Fts5Backend(Fts5Index attached) {
        this.index = new RecallIndex(attached, new ExactVectorScan());
    }

    @Override
    public String name() {
        return index.name();
    }

    @Override
    public RecallIndex recallIndex() {
        return index;
    }

    @Override
    public Optional<String> folder() {
        return Optional.empty();
    }

    @Override
    public boolean built() {
        return true;
    }

    /** Rebuilds every index in the authority's file (FTS5 is the one there). */
    @Override
    public Rebuilt rebuild(Authority authority, LongConsumer fed) {
        Authority.Rebuilt r = authority.rebuildIndexes(fed);
        return new Rebuilt(r.events(), r.memories(), 0, -1, Optional.empty());
    }

    @Override
    public Optional<Health> health(Authority authority, TableCounts counts) {
        return Optional.empty();
    }
}
