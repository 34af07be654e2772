package dev.jiyi.engine;

import dev.jiyi.authority.archive.ArchiveFormat;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.PhaseProgress;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.archive.ArchiveReport;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.fts5.Fts5Index;
import dev.jiyi.pack.ContextPack;
import dev.jiyi.pack.Pack;
import dev.jiyi.pack.PackRequest;
import dev.jiyi.providers.Embedders;
import dev.jiyi.providers.Extractor;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * jiyi as a Java program uses it: a home opened with its settings, the authority in its database
 * with the FTS5 index attached, the index backends ({@link IndexKind}), the providers, and the
 * operations every front end shares (the CLI's verbs, the MCP server's tools, a host that embeds
 * jiyi). Providers and derived backends are opened on first use only: a fast recall never creates
 * (or loads) an embedding model (R4), and a home that never searched Lucene has no Lucene index.
 *
 * <p>One engine may serve many threads: the authority serializes its writes and reads snapshots,
 * and each backend and provider is created once under this object's lock. docs/engine.md shows a
 * whole program.
 */
public final class Jiyi implements AutoCloseable {

    private final Home home;
    private final Authority authority;
    private final Fts5Index fts5;
    private final Map<String, String> env;
    private final Map<IndexKind, Backend> backends = new EnumMap<>(IndexKind.class);
    private Config config;
    private Embedders embedders;
    private Extractor extractor;
    private boolean extractorResolved;

    private Jiyi(Home home, Authority authority, Fts5Index fts5, Map<String, String> env) {
        this.home = home;
        this.authority = authority;
        this.fts5 = fts5;
        this.env = Map.copyOf(env);
    }

    /**
     * Opens the home. Settings (its config.properties and this environment) are read when first
     * needed, so that a broken settings file never stands between an operator and delete or doctor.
     */
    public static Jiyi open(Home home, Map<String, String> env) {
        return open(home, env, PhaseProgress.NONE);
    }

    /** {@link #open(Home, Map)}, reporting an index build that opening finishes to {@code building}. */
    public static Jiyi open(Home home, Map<String, String> env, PhaseProgress building) {
        Fts5Index fts5 = new Fts5Index();
        return new Jiyi(home, Authority.open(home.database(), List.of(fts5), building), fts5, env);
    }

    /** Opens the home with settings from its config.properties only (no environment). */
    public static Jiyi open(Home home) {
        return open(home, Map.of());
    }

    /** Opens the home in {@code dir} with settings from its config.properties only. */
    public static Jiyi open(Path dir) {
        return open(new Home(dir));
    }

    private synchronized Config config() {
        if (config == null) {
            config = Config.load(home, env);
        }
        return config;
    }

    // ------------------------------------------------------------------ backends

    /** The backend of {@code kind}, created once (a derived one opens its files on first search). */
    public synchronized Backend backend(IndexKind kind) {
        return backends.computeIfAbsent(kind, k -> Backends.open(k, home.dir(), config(), fts5));
    }

    /**
     * The backend of {@code kind} as its own class, for code that measures or inspects that backend
     * itself (benchmarks, its tests); an error when {@code kind} has another class.
     */
    public <B extends Backend> B backend(IndexKind kind, Class<B> type) {
        return type.cast(backend(kind));
    }

    /** {@code recall.index}: the backend recall uses when a request names none (FTS5 unless set). */
    public IndexKind defaultIndex() {
        return config().recallIndex();
    }

    /** The named backend's index ({@code fts5} or {@code lucene}; null means {@code recall.index}). */
    public RecallIndex recallIndex(String indexName) {
        return backend(kind(indexName)).recallIndex();
    }

    private IndexKind kind(String indexName) {
        return indexName == null ? defaultIndex() : IndexKind.parse("index", indexName);
    }

    /** Every backend of the home that exists or this engine opened, in {@link IndexKind} order. */
    public List<Backend> builtBackends() {
        List<Backend> out = new ArrayList<>();
        for (IndexKind kind : IndexKind.values()) {
            Backend b = backend(kind);
            if (b.built()) {
                out.add(b);
            }
        }
        return out;
    }

    /** What the opened backends did on their own since last asked (a rebuild and why), oldest first. */
    public synchronized List<String> takeNotices() {
        List<String> out = new ArrayList<>();
        for (Backend b : backends.values()) {
            out.addAll(b.takeNotices());
        }
        return out;
    }

    // ------------------------------------------------------------------ recall and packs

    /** Recall over the named index ({@code fts5} or {@code lucene}; null means {@code recall.index}). */
    public Recall recall(String indexName, RecallConfig config, Clock clock) {
        return recall(recallIndex(indexName), config, clock);
    }

    /** Recall over an index already chosen with {@link #recallIndex}. */
    public Recall recall(RecallIndex index, RecallConfig config, Clock clock) {
        return new Recall(authority, index, config, clock, this::embedders);
    }

    /**
     * Recalls for {@code request} through the named index with the home's recall settings, the
     * backend's lag warning (L5) among the result's warnings.
     */
    public RecallResult recall(String indexName, RecallRequest request) {
        return recall(indexName, recallConfig(), Clock.systemDefaultZone(), request);
    }

    /** {@link #recall(String, RecallRequest)} with these settings and this clock. */
    public RecallResult recall(String indexName, RecallConfig config, Clock clock, RecallRequest request) {
        Backend backend = backend(kind(indexName));
        return withWarning(backend, recall(backend.recallIndex(), config, clock).recall(request));
    }

    private static RecallResult withWarning(Backend searched, RecallResult result) {
        return searched.warning().map(w -> {
            List<String> warnings = new ArrayList<>(result.warnings());
            warnings.add(w);
            return new RecallResult(result.items(), warnings);
        }).orElse(result);
    }

    /** A context pack through the named index (null: {@code recall.index}), with its lag warning as recall has. */
    public Pack pack(String indexName, PackRequest request) {
        Backend backend = backend(kind(indexName));
        ContextPack packer = new ContextPack(authority,
                recall(backend.recallIndex(), recallConfig(), Clock.systemDefaultZone()), Clock.systemUTC());
        Pack pack = packer.pack(request);
        return backend.warning().map(w -> {
            List<String> warnings = new ArrayList<>(pack.warnings());
            warnings.add(w);
            return new Pack(pack.status(), pack.context(), pack.tokens(), pack.budget(), pack.tokenizer(),
                    pack.included(), pack.omitted(), pack.empty(), pack.recalledBy(), warnings);
        }).orElse(pack);
    }

    /** Recall settings of this home and environment. */
    public RecallConfig recallConfig() {
        return config().recall();
    }

    // ------------------------------------------------------------------ writing

    /** The ingest pipeline over this engine's authority and providers. */
    public Ingest ingest() {
        return new Ingest(authority, this::extractor, this::embedders);
    }

    /** Stores an event and derives its memories (with the extraction model, when one is configured). */
    public Ingest.Outcome submit(EventSubmission submission) {
        return ingest().submit(submission);
    }

    /**
     * Submits a file of event lines ({@link EventLines}; {@code -} reads {@code stdin}) in chunks of
     * at most {@code chunkSize} lines per transaction, as {@code event submit --batch} does: with
     * {@code forExtraction}, each event is queued for extraction (E5), which the caller then runs.
     * A bad line stops the load; the lines before it stay committed.
     */
    public BatchRunner.Outcome<SubmitResult> submitBatch(Path file, java.io.InputStream stdin, Scope defaults,
                                                         boolean forExtraction, int chunkSize, Output out) {
        BatchRunner<EventSubmission, SubmitResult> runner = new BatchRunner<>(EventLines.FIELDS,
                line -> EventLines.parse(line, defaults),
                forExtraction ? authority::submitEventsForExtraction : authority::submitEvents,
                EventLines::ack, chunkSize);
        return runner.run(file, stdin, out, "event submit --batch");
    }

    /** Derives the memories of a stored event again (its extraction pending or failed). */
    public Ingest.Outcome derive(Scope scope, String eventId) {
        return ingest().retry(scope, eventId);
    }

    /** Deletes an event and everything derived from it (D1). */
    public Deletion deleteEvent(Scope scope, String eventId) {
        return authority.deleteEvent(scope, eventId);
    }

    /** Deletes a memory and what was derived from it (D1). */
    public Deletion deleteMemory(Scope scope, String memoryId) {
        return authority.deleteMemory(scope, memoryId);
    }

    /** Writes an archive of {@code scope} (null: every scope) from one snapshot; {@code file} must not exist. */
    public ArchiveReport export(Path file, ArchiveFormat format, Scope scope) {
        return authority.archives().export(file, format, scope, PhaseProgress.NONE);
    }

    // ------------------------------------------------------------------ providers

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

    /** The embedding models (an endpoint or a user's model when configured, else the bundled pair), created once. */
    public synchronized Embedders embedders() {
        if (embedders == null) {
            embedders = ProviderSettings.embedders(config());
        }
        return embedders;
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
                for (Backend b : backends.values()) {
                    b.close();
                }
            }
        } finally {
            authority.close();
        }
    }
}
