package dev.jiyi.cli;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.ExactVectorScan;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.RecallIndex;
import dev.jiyi.fts5.Fts5Index;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Extractor;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;

import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The engine that commands (and later the MCP server) share: the authority opened on the home's
 * database with the FTS5 index always attached, the settings, and the providers. Providers are
 * built on first use only: a fast recall never creates (or loads) an embedding model (R4).
 */
public final class Jiyi implements AutoCloseable {

    private final Home home;
    private final Authority authority;
    private final RecallIndex fts5;
    private final Map<String, String> env;
    private Config config;
    private Embedder embedder;

    private Jiyi(Home home, Authority authority, Fts5Index fts5, Map<String, String> env) {
        this.home = home;
        this.authority = authority;
        this.fts5 = new RecallIndex(fts5, new ExactVectorScan());
        this.env = Map.copyOf(env);
    }

    /**
     * Opens the home. Settings (its config.properties and this environment) are read when first
     * needed, so that a broken settings file never stands between an operator and delete or doctor.
     */
    public static Jiyi open(Home home, Map<String, String> env) {
        Fts5Index fts5 = new Fts5Index();
        return new Jiyi(home, Authority.open(home.database(), List.of(fts5)), fts5, env);
    }

    private synchronized Config config() {
        if (config == null) {
            config = Config.load(home, env);
        }
        return config;
    }

    /** Opens the home with settings from its config.properties only (no environment). */
    public static Jiyi open(Home home) {
        return open(home, Map.of());
    }

    /** Recall over the named index ({@code fts5}; {@code lucene} arrives with its module). */
    public Recall recall(String indexName, RecallConfig config, Clock clock) {
        return new Recall(authority, recallIndex(indexName), config, clock, this::embedder);
    }

    /**
     * The named index recall searches: {@code fts5} (the default when null), paired with the exact
     * scan of the vector cache.
     */
    public RecallIndex recallIndex(String indexName) {
        if (indexName != null && !indexName.equals("fts5")) {
            throw new InvalidInputException("index", indexName.equals("lucene")
                    ? "lucene is not available in this build yet; use fts5"
                    : "must be fts5 or lucene");
        }
        return fts5;
    }

    /** Recall settings of this home and environment. */
    public RecallConfig recallConfig() {
        return config().recall();
    }

    /** The ingest pipeline over this engine's authority and providers. */
    public Ingest ingest() {
        return new Ingest(authority, this::extractor, this::embedder);
    }

    /** The extraction client, or null when none is configured. */
    public synchronized Extractor extractor() {
        return ProviderSettings.extractor(config());
    }

    /** The embedding model (remote when configured, else the local one), created once. */
    public synchronized Embedder embedder() {
        if (embedder == null) {
            embedder = ProviderSettings.embedder(config());
        }
        return embedder;
    }

    public Home home() {
        return home;
    }

    public Authority authority() {
        return authority;
    }

    @Override
    public void close() {
        authority.close();
    }
}
