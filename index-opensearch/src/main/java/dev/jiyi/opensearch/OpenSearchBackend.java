package dev.jiyi.opensearch;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.Table;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.authority.index.Settings;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * The home's derived index on an OpenSearch cluster ({@code --index opensearch}): the lexical
 * search runs in the cluster, vectors are compared exactly from the authority's cache (semantic and
 * deep mode alike; no k-NN plugin is needed). The home keeps only its state ({@value #FOLDER}
 * folder: its ID in the cluster, the build and the change-log position); the settings are read here
 * and nowhere else ({@link OpenSearchOptions}).
 */
public final class OpenSearchBackend implements Backend {

    /** The folder of the home its state lives in. */
    public static final String FOLDER = "opensearch";

    private final Path folder;
    private final Settings settings;
    private final Map<String, String> environment;
    private OpenSearchIndex index;
    private RecallIndex recallIndex;

    /** @param home the home's directory */
    public OpenSearchBackend(Path home, Settings settings) {
        this(home, settings, System.getenv());
    }

    OpenSearchBackend(Path home, Settings settings, Map<String, String> environment) {
        this.folder = home.resolve(FOLDER);
        this.settings = settings;
        this.environment = environment;
    }

    /** The index, connected once with the home's settings; a missing or bad setting fails here. */
    public synchronized OpenSearchIndex index() {
        if (index == null) {
            index = OpenSearchIndex.open(folder, OpenSearchOptions.of(settings, environment));
            recallIndex = new RecallIndex(index, new ExactVectorScan());
        }
        return index;
    }

    @Override
    public String name() {
        return "opensearch";
    }

    @Override
    public synchronized RecallIndex recallIndex() {
        index();
        return recallIndex;
    }

    /**
     * None: the documents live in the cluster, and the home's {@value #FOLDER} folder keeps only
     * where they stand. After an import or a restore the first query finds that the change log no
     * longer continues them and rebuilds them (a home that no longer names a cluster is not asked to).
     */
    @Override
    public Optional<String> folder() {
        return Optional.empty();
    }

    /** Whether the home has been built in a cluster (its state file exists). */
    @Override
    public boolean built() {
        return HomeState.exists(folder);
    }

    @Override
    public Rebuilt rebuild(Authority authority, LongConsumer fed) {
        OpenSearchIndex.Rebuilt r = index().rebuild(authority, fed);
        return new Rebuilt(r.events(), r.memories(), 0, r.head(), Optional.empty());
    }

    @Override
    public Optional<Health> health(Authority authority, TableCounts counts) {
        if (!built() && !OpenSearchOptions.configured(settings)) {
            return Optional.empty();
        }
        long memories = counts.of(Table.MEMORIES);
        long events = counts.of(Table.EVENTS);
        if (!built()) {
            return Optional.of(new OpenSearchHealth(false, null, null, null, memories, events, null));
        }
        try {
            OpenSearchIndex i = index();
            OpenSearchIndex.Status status = i.catchUp(authority);
            while (status.behind() > 0) {
                OpenSearchIndex.Status next = i.catchUp(authority);
                if (next.applied() <= status.applied()) {
                    break;
                }
                status = next;
            }
            OpenSearchIndex.Report report = i.report();
            String problem = null;
            if (status.behind() > 0) {
                problem = "opensearch index is " + status.behind() + " change(s) behind the authority";
            } else if (report.memories() != memories || report.events() != events) {
                problem = "opensearch index holds " + report.memories() + " memory and " + report.events()
                        + " event document(s) for " + memories + " memories and " + events
                        + " events; run `jiyi reindex --opensearch`";
            } else if (report.health().equals("red")) {
                problem = "opensearch cluster is red for index " + i.indexName();
            }
            return Optional.of(new OpenSearchHealth(true, i, status, report, memories, events, problem));
        } catch (InvalidInputException e) {
            return Optional.of(new OpenSearchHealth(true, null, null, null, memories, events,
                    "opensearch index not checked: " + e.getMessage() + " (fix the setting)"));
        } catch (JiyiException e) {
            return Optional.of(new OpenSearchHealth(true, null, null, null, memories, events,
                    "opensearch index could not be checked: " + e.getMessage()));
        }
    }

    @Override
    public synchronized Optional<String> warning() {
        if (index == null || index.status().behind() == 0) {
            return Optional.empty();
        }
        return Optional.of("opensearch index is " + index.status().behind()
                + " change(s) behind the authority (catch-up ran out of time; it continues on the next query);"
                + " results are rechecked against the authority");
    }

    @Override
    public synchronized List<String> takeNotices() {
        return index == null ? List.of() : index.takeNotices();
    }

    /** Applies the change log now (after a deletion, say); nothing for a home that names no cluster. */
    @Override
    public void warmUp(Authority authority) {
        if (OpenSearchOptions.configured(settings)) {
            index().catchUp(authority);
        }
    }

    /**
     * Applies the change log (durable or not: the cluster makes each write durable itself); an index
     * not connected yet is left for its first search. A deletion's purge that waits for the cluster's
     * retention leases is made by the first follow after they pass ({@link Follower}).
     */
    @Override
    public long keepUp(Authority authority, boolean durable) {
        OpenSearchIndex connected;
        synchronized (this) {
            connected = index;
        }
        return connected == null ? CURRENT : connected.catchUp(authority).applied();
    }

    @Override
    public synchronized void close() {
        if (index != null) {
            index.close();
        }
    }

    /** What {@code doctor} reports: the home's place in the cluster, lag, documents and cluster health. */
    record OpenSearchHealth(boolean built, OpenSearchIndex index, OpenSearchIndex.Status status,
                            OpenSearchIndex.Report report, long memories, long events, String finding)
            implements Health {

        static final String NOT_BUILT = "configured, not built yet (built on first `recall --index opensearch` "
                + "or `reindex --opensearch`)";

        @Override
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("present", report != null);
            m.put("index", index == null ? null : index.indexName());
            m.put("home", index == null ? null : index.home());
            m.put("cluster_health", report == null ? null : report.health());
            m.put("nodes", report == null ? null : report.nodes());
            m.put("applied_seq", status == null ? null : status.applied());
            m.put("change_log_head", status == null ? null : status.head());
            m.put("lag", status == null ? null : status.behind());
            m.put("purge_owed", index != null && index.purgeOwed());
            m.put("memories", report == null ? null : report.memories());
            m.put("events", report == null ? null : report.events());
            m.put("problem", finding);
            m.put("note", built ? null : NOT_BUILT);
            return m;
        }

        @Override
        public List<String> lines() {
            List<String> out = new ArrayList<>();
            if (!built) {
                out.add("opensearch index: " + NOT_BUILT);
                return out;
            }
            if (report == null) {
                out.add("opensearch index: not usable");
                return out;
            }
            out.add("opensearch index: " + index.indexName() + " (home " + index.home() + ")");
            out.add(String.format("  %-16s %s, %d node(s)", "cluster", report.health(), report.nodes()));
            out.add(String.format("  %-16s %d of change-log head %d (lag %d)", "applied seq", status.applied(),
                    status.head(), status.behind()));
            out.add(String.format("  %-16s %d of %d", "memories", report.memories(), memories));
            out.add(String.format("  %-16s %d of %d", "events", report.events(), events));
            if (index.purgeOwed()) {
                out.add("  purge owed: a deletion's terms stay on the nodes' disks (never searchable) until the"
                        + " cluster's retention leases pass it (about 30 s); the next query or doctor purges them");
            }
            return out;
        }

        @Override
        public Optional<String> problem() {
            return Optional.ofNullable(finding);
        }
    }
}
