package dev.jiyi.cli;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.fts5.Fts5Index;
import dev.jiyi.lucene.LuceneIndex;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Extractor;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;

import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The engine that commands and the MCP server share: the authority opened on the home's
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
    private Extractor extractor;
    private boolean extractorResolved;
    private LuceneIndex lucene;

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
        return open(home, env, dev.jiyi.authority.PhaseProgress.NONE);
    }

    /** {@link #open(Home, Map)}, reporting an index build that opening finishes to {@code building}. */
    public static Jiyi open(Home home, Map<String, String> env, dev.jiyi.authority.PhaseProgress building) {
        Fts5Index fts5 = new Fts5Index();
        return new Jiyi(home, Authority.open(home.database(), List.of(fts5), building), fts5, env);
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

    /** Recall over the named index ({@code fts5} or {@code lucene}; null means {@code recall.index}). */
    public Recall recall(String indexName, RecallConfig config, Clock clock) {
        return recall(recallIndex(indexName), config, clock);
    }

    /** Recall over an index already chosen with {@link #recallIndex}. */
    public Recall recall(RecallIndex index, RecallConfig config, Clock clock) {
        return new Recall(authority, index, config, clock, this::embedder);
    }

    /**
     * The named index recall searches: {@code fts5}, paired with the exact scan of the vector cache,
     * or {@code lucene}, the derived index that is both (opened on first use). Null means the
     * configured default, {@code recall.index} (FTS5 unless set). The only place an index is chosen.
     */
    public RecallIndex recallIndex(String indexName) {
        String name = indexName != null ? indexName : config().recallIndex();
        return switch (name) {
            case "fts5" -> fts5;
            case "lucene" -> {
                LuceneIndex index = lucene();
                yield new RecallIndex(index, index);
            }
            default -> throw new InvalidInputException("index", "must be fts5 or lucene");
        };
    }

    /**
     * The Lucene index of this home ({@code $JIYI_HOME/lucene}), opened once with the configured
     * settings; it catches up with the authority at each search.
     */
    public synchronized LuceneIndex lucene() {
        if (lucene == null) {
            lucene = LuceneIndex.open(home.dir().resolve("lucene"), config().lucene());
        }
        return lucene;
    }

    /** The Lucene index if this engine opened it, for warnings and notices after a recall. */
    public synchronized java.util.Optional<LuceneIndex> openedLucene() {
        return java.util.Optional.ofNullable(lucene);
    }

    /** Recall settings of this home and environment. */
    public RecallConfig recallConfig() {
        return config().recall();
    }

    /** The ingest pipeline over this engine's authority and providers. */
    public Ingest ingest() {
        return new Ingest(authority, this::extractor, this::embedder);
    }

    /**
     * The extraction client, or null when none is configured; created once, so that a long-lived
     * engine (the MCP server) keeps one HTTP client for every extraction.
     */
    public synchronized Extractor extractor() {
        if (!extractorResolved) {
            extractor = ProviderSettings.extractor(config());
            extractorResolved = true;
        }
        return extractor;
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
        try {
            synchronized (this) {
                if (lucene != null) {
                    lucene.close();
                }
            }
        } finally {
            authority.close();
        }
    }
}
