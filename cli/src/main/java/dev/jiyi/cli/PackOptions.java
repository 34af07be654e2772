package dev.jiyi.cli;

import dev.jiyi.authority.Scope;
import dev.jiyi.pack.PackRequest;
import dev.jiyi.ranking.RecallMode;
import picocli.CommandLine.Option;

/** The options of a context pack that {@code resume} and {@code probe} share (a picocli mixin). */
final class PackOptions {

    @Option(names = "--budget", paramLabel = "N", defaultValue = "" + PackRequest.DEFAULT_BUDGET,
            description = "Most tokens the context may take, by the model's own count (default: ${DEFAULT-VALUE}).")
    int budget;

    @Option(names = "--session", paramLabel = "S", description = "Session whose checkpoint and turns to pack (default: any).")
    String session;

    @Option(names = "--index", paramLabel = "INDEX",
            description = "fts5, lucene or opensearch (default: the recall.index setting, else fts5).")
    String index;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "fast",
            description = "Recall mode for the recalled memories: fast (default), semantic or deep.")
    RecallMode mode;

    /** The request for a pack of {@code scope} for {@code model}, recalled by {@code query}. */
    PackRequest request(Scope scope, String model, String query) {
        return new PackRequest(scope, budget, model, query, session, mode);
    }
}
