package dev.jiyi.langchain4j;

import dev.jiyi.engine.Jiyi;
import dev.jiyi.ranking.RecallMode;

import java.nio.file.Path;

/**
 * What every builder of this module sets alike: the home to open (or the engine to share), the
 * scope, and the index and mode recall uses.
 *
 * @param <B> the builder itself, so that each setter returns it
 */
abstract class MemorySettings<B extends MemorySettings<B>> {

    private Path home;
    private Jiyi engine;
    private String persona;
    private String project;
    private String index;
    private RecallMode mode;

    abstract B self();

    /** The jiyi home to open (and close with the component). */
    public B home(Path home) {
        this.home = home;
        return self();
    }

    /** An engine opened elsewhere and shared (the component never closes it). */
    public B engine(Jiyi engine) {
        this.engine = engine;
        return self();
    }

    /** The persona whose memories are used ({@code default} unless set). */
    public B persona(String persona) {
        this.persona = persona;
        return self();
    }

    /** The project whose memories are used ({@code default} unless set). */
    public B project(String project) {
        this.project = project;
        return self();
    }

    /** {@code fts5} or {@code lucene}; unset, the home's {@code recall.index} (FTS5 unless configured). */
    public B index(String index) {
        this.index = index;
        return self();
    }

    /** Fast (lexical, the default), semantic or deep recall. */
    public B mode(RecallMode mode) {
        this.mode = mode;
        return self();
    }

    /** The engine and scope these settings name, checked. */
    Memory memory() {
        return Memory.of(home, engine, persona, project, index, mode);
    }
}
