package dev.jiyi.engine;

import dev.jiyi.authority.index.Backend;
import dev.jiyi.authority.index.Settings;
import dev.jiyi.fts5.Fts5Backend;
import dev.jiyi.fts5.Fts5Index;
import dev.jiyi.lucene.LuceneBackend;
import dev.jiyi.opensearch.OpenSearchBackend;

import java.nio.file.Path;

/** Where each {@link IndexKind} gets its backend: one line per kind. */
final class Backends {

    private Backends() {
    }

    /**
     * The backend of {@code kind} for a home.
     *
     * @param home     the home's directory (a derived backend keeps its folder there)
     * @param settings the home's settings (a backend reads its own keys)
     * @param fts5     the FTS5 index the authority was opened with
     */
    static Backend open(IndexKind kind, Path home, Settings settings, Fts5Index fts5) {
        return switch (kind) {
            case FTS5 -> new Fts5Backend(fts5);
            case LUCENE -> new LuceneBackend(home, settings);
            case OPENSEARCH -> new OpenSearchBackend(home, settings);
        };
    }
}
