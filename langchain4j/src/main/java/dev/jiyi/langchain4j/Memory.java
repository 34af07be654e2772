package dev.jiyi.langchain4j;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.ranking.RecallMode;

import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * What every LangChain4j component of jiyi shares: the engine it works through (opened from a home
 * and then owned, or handed in and then shared with the other components that were given it), the
 * scope it reads and writes, and the index and mode recall uses.
 *
 * <p>Errors cross into LangChain4j as its own kind: a value jiyi refuses is an
 * {@link IllegalArgumentException} (what LangChain4j's {@code ValidationUtils} throws), with jiyi's
 * field and rule as the message and never the value.
 */
final class Memory implements AutoCloseable {

    private final Jiyi engine;
    private final boolean owned;
    private final Scope scope;
    private final String index;
    private final RecallMode mode;

    private Memory(Jiyi engine, boolean owned, Scope scope, String index, RecallMode mode) {
        this.engine = engine;
        this.owned = owned;
        this.scope = scope;
        this.index = index;
        this.mode = mode;
    }

    /**
     * The engine over {@code home} (opened here, closed by {@link #close}) or {@code engine} (shared,
     * never closed here): exactly one of them.
     */
    static Memory of(Path home, Jiyi engine, String persona, String project, String index, RecallMode mode) {
        if ((home == null) == (engine == null)) {
            throw new IllegalArgumentException("home: give exactly one of a home or an engine");
        }
        Scope scope = refused(() -> new Scope(persona == null ? Scope.DEFAULT_ID : persona,
                project == null ? Scope.DEFAULT_ID : project));
        if (index != null) {
            refused(() -> IndexKind.parse("index", index));
        }
        RecallMode m = mode == null ? RecallMode.FAST : mode;
        return engine != null ? new Memory(engine, false, scope, index, m)
                : new Memory(refused(() -> Jiyi.open(home)), true, scope, index, m);
    }

    Jiyi engine() {
        return engine;
    }

    Scope scope() {
        return scope;
    }

    /** The index recall searches: {@code fts5}, {@code lucene}, or null for the home's {@code recall.index}. */
    String index() {
        return index;
    }

    RecallMode mode() {
        return mode;
    }

    /** Runs {@code work}, turning jiyi's refusal of a value into LangChain4j's. */
    static <T> T refused(Supplier<T> work) {
        try {
            return work.get();
        } catch (InvalidInputException e) {
            throw refused(e);
        }
    }

    /** jiyi's refusal of a value as LangChain4j's: an {@link IllegalArgumentException} with the same field and rule. */
    static IllegalArgumentException refused(InvalidInputException e) {
        return new IllegalArgumentException(e.getMessage(), e);
    }

    @Override
    public void close() {
        if (owned) {
            engine.close();
        }
    }
}
