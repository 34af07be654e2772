package dev.jiyi.opensearch;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.analysis.QueryCoverage;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.ChangeLogFollower;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.SearchCounts;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.Closeable;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * A home's lexical index on an OpenSearch cluster: the documents a {@link Follower} keeps current,
 * searched by a {@link Searcher}. Like the Lucene index, it follows the change log once per recall
 * snapshot before it searches, and recall rechecks every answer against the authority (L4).
 */
public final class OpenSearchIndex implements LexicalIndex, Closeable {

    /** What a rebuild wrote. */
    public record Rebuilt(long events, long memories, long head) {
    }

    /** Where the home's documents stand: applied against the log's head after the last follow. */
    public record Status(long applied, long head) {

        public long behind() {
            return Math.max(0, head - applied);
        }
    }

    private final Cluster cluster;
    private final OpenSearchOptions options;
    private final Follower follower;
    private final Searcher searcher;
    private WeakReference<Snapshot> followed = new WeakReference<>(null);
    private Status status = new Status(0, 0);

    private OpenSearchIndex(Cluster cluster, OpenSearchOptions options, Follower follower) {
        this.cluster = cluster;
        this.options = options;
        this.follower = follower;
        this.searcher = new Searcher(cluster, options.index(), () -> follower.state().home());
    }

    /**
     * Connects to the cluster for the home whose state lives in {@code folder} (made on first use:
     * the home's ID in the cluster). Nothing is sent before the first search or rebuild.
     */
    static OpenSearchIndex open(Path folder, OpenSearchOptions options) {
        try {
            HomeState state = HomeState.read(folder)
                    .orElse(new HomeState(HomeState.randomId(), "", ChangeLogFollower.Position.START, "",
                            folder.toAbsolutePath().normalize().toString()));
            Cluster cluster = Cluster.connect(options);
            return new OpenSearchIndex(cluster, options, new Follower(cluster, options, folder, state));
        } catch (IOException e) {
            throw new StorageException("reading the OpenSearch state of the home", e);
        }
    }

    /** The home's ID in the cluster: its documents' routing, and the first part of their IDs and terms. */
    public String home() {
        return follower.state().home();
    }

    /** The shared index the home's documents live in. */
    public String indexName() {
        return options.index();
    }

    @Override
    public String name() {
        return "opensearch";
    }

    @Override
    public SearchCounts searchCounts() {
        return searcher.counts;
    }

    public synchronized Status status() {
        return status;
    }

    public synchronized List<String> takeNotices() {
        return follower.takeNotices();
    }

    /** Applies what is new in the change log (one time budget); where the home's documents stand. */
    public Status catchUp(Authority authority) {
        return authority.read(this::followNow);
    }

    private synchronized Status followNow(Snapshot s) {
        followed = new WeakReference<>(s);
        searcher.forget();
        try {
            ChangeLogFollower.Outcome o = follower.follow(s);
            status = new Status(o.applied(), o.head());
            return status;
        } catch (IOException e) {
            throw new StorageException("following the authority in the OpenSearch index", e);
        }
    }

    private void follow(Snapshot s) {
        if (s != followed.get()) {
            followNow(s);
        }
    }

    /**
     * Makes the purge a deletion owes if it is due (see {@link Follower}); whether one is still owed.
     * Every follow does this too; a caller that must see D1 hold on the nodes' disks waits with it.
     */
    public synchronized boolean purgeIfDue() {
        searcher.forget(); // a purge merges deleted documents away: the statistics change
        try {
            return follower.purgeIfDue();
        } catch (IOException e) {
            throw new StorageException("purging deleted documents in the OpenSearch index", e);
        }
    }

    /** Whether a deletion's purge is still owed (its text may be on the nodes' disks, never searchable). */
    public synchronized boolean purgeOwed() {
        return follower.purgeOwed();
    }

    /** Rebuilds the home's documents from the authority ({@code reindex --opensearch}). */
    public Rebuilt rebuild(Authority authority, LongConsumer fed) {
        return authority.read(s -> {
            synchronized (this) {
                try {
                    searcher.forget();
                    long[] r = follower.build(s, fed);
                    followed = new WeakReference<>(s);
                    status = new Status(r[2], r[2]);
                    return new Rebuilt(r[0], r[1], r[2]);
                } catch (IOException e) {
                    throw new StorageException("rebuilding the OpenSearch index", e);
                }
            }
        });
    }

    /** The query's terms, each a list of pieces (a phrase when more than one): the Lucene index's. */
    static List<List<String>> phrases(String query) {
        return ChineseTokens.queryPieces(query);
    }

    @Override
    public synchronized List<Candidate> memories(Snapshot snapshot, String query, Eligibility filter, int limit) {
        List<List<String>> phrases = phrases(query);
        if (phrases.isEmpty() || limit == 0) {
            return List.of();
        }
        follow(snapshot);
        try {
            return searcher.memories(phrases, filter, limit);
        } catch (IOException e) {
            throw new StorageException("searching the OpenSearch index", e);
        }
    }

    /** R9: the rows' own search ({@link Searcher#memoriesAmong}). */
    @Override
    public synchronized List<Candidate> memoriesAmong(Snapshot snapshot, String query, Scope scope,
                                                      Collection<Long> rows, int limit) {
        List<List<String>> phrases = phrases(query);
        if (phrases.isEmpty() || rows.isEmpty() || limit == 0) {
            return List.of();
        }
        follow(snapshot);
        try {
            return searcher.memoriesAmong(phrases, scope, rows, limit);
        } catch (IOException e) {
            throw new StorageException("searching the OpenSearch index", e);
        }
    }

    @Override
    public synchronized List<Candidate> events(Snapshot snapshot, String query, Scope scope, int limit) {
        List<List<String>> phrases = phrases(query);
        if (phrases.isEmpty() || limit == 0) {
            return List.of();
        }
        follow(snapshot);
        try {
            return searcher.events(phrases, scope, limit);
        } catch (IOException e) {
            throw new StorageException("searching the OpenSearch index", e);
        }
    }

    @Override
    public synchronized Coverage coverage(Snapshot snapshot, String query, Eligibility filter) {
        List<List<String>> words = words(phrases(query));
        if (words.isEmpty()) {
            return Coverage.NONE;
        }
        follow(snapshot);
        return Coverage.of(words.size(), () -> {
            synchronized (this) {
                try {
                    return searcher.held(words, filter);
                } catch (IOException e) {
                    throw new StorageException("searching the OpenSearch index", e);
                }
            }
        });
    }

    private static List<List<String>> words(List<List<String>> phrases) {
        return QueryCoverage.wordPieces(phrases);
    }

    /**
     * The home's documents in the cluster by type (a count of each, routed to the home's shard), and
     * the cluster's health for the index (green, yellow, red).
     */
    public synchronized Report report() {
        try {
            JsonNode health = cluster.call("reading the cluster's health", "GET", "/_cluster/health/" + options.index(),
                    Map.of("timeout", "5s"), null);
            long memories = count(Documents.MEMORY);
            long events = count(Documents.EVENT);
            return new Report(health.path("status").asString("unknown"), health.path("number_of_nodes").asInt(0),
                    memories, events);
        } catch (IOException e) {
            throw new StorageException("asking the OpenSearch cluster", e);
        }
    }

    private long count(String type) throws IOException {
        ObjectNode body = Cluster.object();
        var filter = body.putObject("query").putObject("bool").putArray("filter");
        filter.add(Documents.term("home", home()));
        filter.add(Documents.term("type", type));
        return cluster.call("counting the home's documents", "POST", "/" + options.index() + "/_count",
                Map.of("routing", home()), body).path("count").asLong(0);
    }

    /** What {@code doctor} shows of the cluster. */
    public record Report(String health, int nodes, long memories, long events) {
    }

    @Override
    public synchronized void close() {
        try {
            cluster.close();
        } catch (IOException e) {
            // connections only; nothing of the home's is lost
        }
    }
}
