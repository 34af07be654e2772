package dev.jiyi.opensearch;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.ChangeLogFollower;
import dev.jiyi.authority.index.ChangeLogFollower.Position;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * Keeps a home's documents in the cluster current with the authority's change log
 * ({@link ChangeLogFollower}'s target), in bulk requests, and builds them whole. An entry names a
 * row; the follower reads the row's current state from the snapshot and indexes or deletes its
 * document by ID, so a page applied twice (after a lost connection or a killed process) changes
 * nothing. Each page is made searchable before the follow returns (a refresh of the home's shard);
 * its position is then written to the home's own state file. A rebuild writes the home's meta
 * document in the cluster (its build), which each process checks once before it follows
 * ({@link #verify}). A deletion is not searchable once the follow that applied it returns
 * (the refresh). The cluster keeps a deleted document on disk (a soft delete) until every copy's
 * retention lease has passed it, which the cluster moves every 30 seconds; so the purge (flush,
 * merge away the segments' deleted documents, refresh, flush) is owed until then, kept in the home's
 * state, and made by the first follow after it is due ({@link #purgeIfDue}): then no byte of the
 * deleted text is left on any node (D1).
 */
final class Follower implements ChangeLogFollower.Target {

    private final Cluster cluster;
    private final String index;
    private final OpenSearchOptions options;
    private final Path folder;
    private final ChangeLogFollower follower;
    private final List<String> notices = new ArrayList<>();
    private HomeState state;
    /** Whether a page applied since the last commit deleted documents (the commit purges them). */
    private boolean deleted;
    /** Whether this process has checked that the cluster holds the home's build ({@link #verify}). */
    private boolean verified;
    /**
     * How often a follow asks whether an owed purge is due (three requests): the leases move every
     * 30 seconds, so asking at every recall would only add requests to each recall of that time.
     */
    private static final long PURGE_CHECK_EVERY = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    /** {@link System#nanoTime()} of the last time a purge was checked for. */
    private long purgeCheckedAt = System.nanoTime() - PURGE_CHECK_EVERY - 1;

    Follower(Cluster cluster, OpenSearchOptions options, Path folder, HomeState state) {
        this.cluster = cluster;
        this.index = options.index();
        this.options = options;
        this.folder = folder;
        this.state = state;
        this.follower = new ChangeLogFollower(ChangeLogFollower.PAGE, options.catchUpBudget());
    }

    HomeState state() {
        return state;
    }

    List<String> takeNotices() {
        List<String> out = List.copyOf(notices);
        notices.clear();
        return out;
    }

    /** A request about the home: its shard, and always the same copy of it (the statistics agree). */
    private Map<String, String> routed() {
        return Map.of("routing", state.home(), "preference", state.home());
    }

    /**
     * Brings the home's documents up to the snapshot's log as far as the budget allows. A cluster
     * that does not hold the home's current build (never built, lost, restored from elsewhere) is
     * rebuilt first.
     */
    ChangeLogFollower.Outcome follow(Snapshot s) throws IOException {
        if (!verified) {
            verify(s);
        }
        try {
            if (System.nanoTime() - purgeCheckedAt > PURGE_CHECK_EVERY) {
                purgeIfDue();
            }
        } catch (IOException e) {
            notices.add("opensearch index: the purge of deleted documents failed and is still owed (" + e.getMessage()
                    + "); the next query tries again");
        }
        try {
            return follower.follow(s, this);
        } catch (IOException e) {
            verified = false; // the index may be gone or another: check it again next time
            throw e;
        }
    }

    /**
     * Checks, once per process (and after a failure), that the cluster holds this home's current
     * build in an index of jiyi's mapping; rebuilds when it does not. A state file copied with its
     * home to another folder names the other home's documents: this home then takes an ID of its
     * own, and the documents of the old ID are removed (the other home, if it still exists, rebuilds
     * itself when it next finds its build gone).
     */
    private void verify(Snapshot s) throws IOException {
        String here = folder.toAbsolutePath().normalize().toString();
        if (!state.path().isEmpty() && !state.path().equals(here)) {
            String old = state.home();
            state = new HomeState(HomeState.randomId(), "", Position.START, state.purge(), here);
            if (cluster.exists("checking the index", "/" + index)) {
                deleteHome(old);
            }
            rebuild(s, "the home was moved or copied from another folder");
        } else if (lacksBuild() != null) {
            state = state.rebuiltSince(folder).orElse(state);
            String lacks = lacksBuild();
            if (lacks != null) {
                rebuild(s, lacks);
            }
        }
        verified = true;
    }

    /**
     * Why the cluster does not hold this home's current build, or null when it does. A build of another
     * token stream ({@link HomeState#analysis}) is not: its documents hold other terms than searched.
     */
    private String lacksBuild() throws IOException {
        if (state.build().isEmpty()) {
            return "first use";
        }
        if (!cluster.exists("checking the index", "/" + index)) {
            return "the cluster does not hold this home's documents";
        }
        checkMapping();
        JsonNode meta = cluster.call("reading the home's meta document", "GET",
                "/" + index + "/_doc/" + encode(Documents.metaId(state.home())), Map.of("routing", state.home(),
                        "preference", state.home(), "ignore", "404"), null);
        JsonNode source = meta.path("_source");
        if (!meta.path("found").asBoolean(false) || !state.build().equals(source.path("build").asString(""))) {
            return "the cluster does not hold this home's documents";
        }
        String analysis = state.analysis();
        if (!ChineseTokens.version().equals(analysis)) {
            return "its documents were analyzed by another release (" + (analysis.isEmpty() ? "none" : analysis) + ")";
        }
        return null;
    }

    /**
     * Refuses an index that jiyi did not make (or one the cluster re-created with a dynamic mapping
     * after it was deleted during a write): its text fields would be stored and its filters match
     * nothing.
     */
    private void checkMapping() throws IOException {
        JsonNode mapping = cluster.call("reading the index's mapping", "GET", "/" + index + "/_mapping", Map.of(), null)
                .path(index).path("mappings");
        JsonNode p = mapping.path("properties");
        boolean ours = p.path("pool").path("type").asString("").equals("keyword")
                && p.path(Documents.MEMORY_TEXT).path("analyzer").asString("").equals("keyword")
                && p.path(Documents.EVENT_TEXT).path("analyzer").asString("").equals("keyword")
                && mapping.path("_source").path("excludes").toString().contains(Documents.MEMORY_TEXT);
        if (!ours) {
            throw new IOException("index " + index + " was not made by jiyi (its mapping differs); delete it or set "
                    + OpenSearchOptions.INDEX + " to another name, then run `jiyi reindex --opensearch`");
        }
    }

    @Override
    public Position position() {
        return state.position();
    }

    @Override
    public void apply(Snapshot s, List<ChangeLog.Entry> entries) throws IOException {
        List<String> bulk = new ArrayList<>();
        Set<String> events = new LinkedHashSet<>();
        Set<String> memories = new LinkedHashSet<>();
        List<String> goneById = new ArrayList<>();
        for (ChangeLog.Entry e : entries) {
            boolean delete = e.op() == ChangeLog.Op.DELETE;
            switch (e.entity()) {
                case EVENT -> {
                    if (!delete) {
                        events.add(e.entityId());
                    } else if (e.rowId() != null) {
                        delete(bulk, Documents.eventId(state.home(), e.rowId()), state.home());
                    } else {
                        goneById.add(Documents.EVENT + ":" + e.entityId());
                    }
                }
                case MEMORY -> {
                    if (!delete) {
                        memories.add(e.entityId());
                    } else if (e.rowId() != null) {
                        delete(bulk, Documents.memoryId(state.home(), e.rowId()), state.home());
                    } else {
                        goneById.add(Documents.MEMORY + ":" + e.entityId());
                    }
                }
                default -> {
                    // personas, relations, checkpoints, vectors: nothing of them is indexed here
                }
            }
        }
        if (!bulk.isEmpty() || !goneById.isEmpty()) {
            deleted = true;
        }
        if (!goneById.isEmpty()) { // entries older than row numbers: by ID, before a later entry re-creates one
            ObjectNode ids = Cluster.object();
            var terms = ids.putObject("terms").putArray("id");
            goneById.forEach(terms::add);
            deleteMatching(state.home(), ids, "deleting documents by ID");
        }
        for (Event e : s.eventsById(events)) {
            put(bulk, Documents.eventId(state.home(), e.sequence()), Documents.event(state.home(), e));
        }
        for (Memory m : s.memoriesById(memories)) {
            put(bulk, Documents.memoryId(state.home(), m.rowId()), Documents.memory(state.home(), m));
        }
        send(bulk, "applying the change log");
    }

    /** Removes every document of a home ID (one this home no longer uses). */
    private void deleteHome(String home) throws IOException {
        deleteMatching(home, Cluster.object().set("match_all", Cluster.object()), "removing the documents of a former home ID");
    }

    /**
     * Deletes the home's documents that {@code query} matches, a page of IDs at a time (a search,
     * then a bulk delete), so that no plugin beyond the core is needed ({@code _delete_by_query} is
     * the reindex module's).
     */
    private void deleteMatching(String home, ObjectNode query, String what) throws IOException {
        JsonNode after = null;
        while (true) {
            ObjectNode body = Cluster.object();
            body.put("size", ChangeLogFollower.PAGE);
            body.put("_source", false);
            var filter = body.putObject("query").putObject("bool").putArray("filter");
            filter.add(Documents.term("home", home));
            filter.add(query);
            var sort = body.putArray("sort");
            sort.addObject().put("type", "asc");
            sort.addObject().putObject("row").put("order", "asc").put("missing", "_first");
            if (after != null) {
                body.set("search_after", after);
            }
            JsonNode hits = cluster.call(what, "POST", "/" + index + "/_search",
                    Map.of("routing", home, "preference", home), body).path("hits").path("hits");
            if (hits.isEmpty()) {
                return;
            }
            List<String> bulk = new ArrayList<>();
            for (JsonNode hit : hits) {
                delete(bulk, hit.path("_id").asString(), home);
            }
            send(bulk, what);
            deleted = true;
            after = hits.get(hits.size() - 1).path("sort");
        }
    }

    /**
     * Writes the position reached to the home's state (the documents are already searchable). The
     * cluster's meta document is written by a rebuild only, so that following writes no document
     * over and over (each rewrite would leave a deleted one for a purge to merge away). When another
     * process has rebuilt the home meanwhile, its build and position stay in the file (with the purge
     * this one owes) and this process checks the build again before it next follows.
     */
    @Override
    public void commit(Position reached) throws IOException {
        Optional<HomeState> rebuilt = state.rebuiltSince(folder);
        HomeState next = rebuilt.orElse(state.at(reached));
        state = next.owing(deleted ? owed(next.purge(), shardSeqNos(false)) : next.purge());
        deleted = false;
        verified &= rebuilt.isEmpty();
        state.write(folder);
    }

    /** Whether a purge is owed (D1 holds on the nodes' disks once it is made). */
    boolean purgeOwed() {
        return !state.purge().isEmpty();
    }

    /**
     * Makes the purge owed once every copy of each shard concerned has a retention lease past the
     * shard's deletions; whether one is still owed afterwards.
     */
    boolean purgeIfDue() throws IOException {
        purgeCheckedAt = System.nanoTime();
        if (state.purge().isEmpty() || !cluster.exists("checking the index", "/" + index)) {
            return false;
        }
        Map<Integer, Long> leases = shardSeqNos(true);
        Map<Integer, Long> now = shardSeqNos(false);
        for (String part : state.purge().split(",")) {
            String[] shardSeq = part.split(":");
            int shard = Integer.parseInt(shardSeq[0]);
            long owedTo = Long.parseLong(shardSeq[1]);
            Long lease = leases.get(shard);
            // A shard past its recorded sequence number is another index (re-created): nothing to wait for.
            boolean recreated = now.getOrDefault(shard, -1L) < owedTo;
            if (lease != null && lease <= owedTo && !recreated) {
                return true;
            }
        }
        purge();
        state = state.owing("");
        state.write(folder);
        return false;
    }

    /**
     * For each shard of the index: its highest sequence number over all copies, or ({@code leases})
     * the lowest sequence number any copy's retention leases still retain.
     */
    private Map<Integer, Long> shardSeqNos(boolean leases) throws IOException {
        JsonNode shards = cluster.call("reading the shards' sequence numbers", "GET", "/" + index + "/_stats",
                Map.of("level", "shards", "filter_path", "indices.*.shards.*.seq_no,indices.*.shards.*.retention_leases"),
                null).path("indices").path(index).path("shards");
        Map<Integer, Long> out = new java.util.TreeMap<>();
        for (Map.Entry<String, JsonNode> shard : shards.properties()) {
            long value = leases ? Long.MAX_VALUE : -1;
            for (JsonNode copy : shard.getValue()) {
                if (leases) {
                    for (JsonNode lease : copy.path("retention_leases").path("leases")) {
                        value = Math.min(value, lease.path("retaining_seq_no").asLong(0));
                    }
                } else {
                    value = Math.max(value, copy.path("seq_no").path("max_seq_no").asLong(-1));
                }
            }
            out.put(Integer.parseInt(shard.getKey()), Math.max(0, value));
        }
        return out;
    }

    /** The purge owed after new deletions: each shard's highest sequence number, kept at the larger. */
    private static String owed(String before, Map<Integer, Long> now) {
        Map<Integer, Long> owed = new java.util.TreeMap<>(now);
        if (!before.isEmpty()) {
            for (String part : before.split(",")) {
                String[] shardSeq = part.split(":");
                owed.merge(Integer.parseInt(shardSeq[0]), Long.parseLong(shardSeq[1]), Math::max);
            }
        }
        StringBuilder b = new StringBuilder();
        owed.forEach((shard, seq) -> b.append(b.isEmpty() ? "" : ",").append(shard).append(':').append(seq));
        return b.toString();
    }

    @Override
    public void rebuild(Snapshot s, String reason) throws IOException {
        notices.add("opensearch index rebuilt from the authority: " + reason);
        build(s, rows -> { });
    }

    /** Rebuilds on demand ({@code reindex --opensearch}); the counts of what was written. */
    long[] build(Snapshot s, LongConsumer fed) throws IOException {
        ensureIndex();
        Position head = ChangeLogFollower.head(s);
        String build = HomeState.newBuild();
        deleteHome(state.home());
        long events = 0;
        long memories = 0;
        for (List<Event> page = s.eventsAfter(0, ChangeLogFollower.PAGE); !page.isEmpty();
             page = s.eventsAfter(page.getLast().sequence(), ChangeLogFollower.PAGE)) {
            List<String> bulk = new ArrayList<>();
            for (Event e : page) {
                put(bulk, Documents.eventId(state.home(), e.sequence()), Documents.event(state.home(), e));
            }
            send(bulk, "writing events");
            events += page.size();
            fed.accept(page.size());
        }
        for (List<Memory> page = s.memoriesAfter(0, ChangeLogFollower.PAGE); !page.isEmpty();
             page = s.memoriesAfter(page.getLast().rowId(), ChangeLogFollower.PAGE)) {
            List<String> bulk = new ArrayList<>();
            for (Memory m : page) {
                put(bulk, Documents.memoryId(state.home(), m.rowId()), Documents.memory(state.home(), m));
            }
            send(bulk, "writing memories");
            memories += page.size();
            fed.accept(page.size());
        }
        writeMeta(build, head);
        String owed = owed(state.purge(), shardSeqNos(false));
        state = state.rebuilt(build, head).owing(owed);
        state.write(folder);
        deleted = false;
        verified = true;
        return new long[] {events, memories, head.seq()};
    }

    /** Creates the shared index when the cluster has none (another home may create it at the same time). */
    private void ensureIndex() throws IOException {
        if (cluster.exists("checking the index", "/" + index)) {
            return;
        }
        try {
            cluster.call("creating the index", "PUT", "/" + index, Map.of(), Documents.definition(options.shards(), options.replicas()));
        } catch (IOException e) {
            if (!cluster.exists("checking the index", "/" + index)) {
                throw e;
            }
        }
    }

    /**
     * Flush (the translog lets go of the deleted operations), merge away every segment's deleted
     * documents, then refresh and flush again, so that no reader or commit keeps the old segments.
     */
    private void purge() throws IOException {
        cluster.call("flushing before a purge", "POST", "/" + index + "/_flush", Map.of("force", "true"), null);
        cluster.call("purging deleted documents", "POST", "/" + index + "/_forcemerge",
                Map.of("only_expunge_deletes", "true"), null);
        cluster.call("refreshing after a purge", "POST", "/" + index + "/_refresh", Map.of(), null);
        cluster.call("flushing after a purge", "POST", "/" + index + "/_flush", Map.of("force", "true"), null);
    }

    private void writeMeta(String build, Position at) throws IOException {
        ObjectNode meta = Cluster.object();
        meta.put("home", state.home());
        meta.put("type", Documents.META);
        meta.put("build", build);
        meta.put("seq", at.seq());
        meta.put("mark", at.mark());
        cluster.call("writing the home's position", "PUT", "/" + index + "/_doc/" + encode(Documents.metaId(state.home())),
                Map.of("routing", state.home(), "refresh", "true"), meta);
    }

    /** One bulk item: its action line and its document line. */
    private void put(List<String> bulk, String id, ObjectNode doc) {
        ObjectNode action = Cluster.object();
        action.putObject("index").put("_id", id).put("routing", state.home());
        bulk.add(Cluster.JSON.writeValueAsString(action) + "\n" + Cluster.JSON.writeValueAsString(doc) + "\n");
    }

    private static void delete(List<String> bulk, String id, String home) {
        ObjectNode action = Cluster.object();
        action.putObject("delete").put("_id", id).put("routing", home);
        bulk.add(Cluster.JSON.writeValueAsString(action) + "\n");
    }

    /**
     * One bulk request, made searchable before it returns. Items a shard refused for load (429)
     * are sent again, with a growing pause; any other item's failure fails it (a delete of nothing
     * is fine).
     */
    private void send(List<String> items, String what) throws IOException {
        long pause = 50;
        for (int attempt = 1; !items.isEmpty(); attempt++) {
            JsonNode r = cluster.bulk(what, "/" + index + "/_bulk", Map.of("refresh", "true"), String.join("", items));
            if (!r.path("errors").asBoolean(false)) {
                return;
            }
            List<String> again = new ArrayList<>();
            int i = 0;
            for (JsonNode item : r.path("items")) {
                for (Map.Entry<String, JsonNode> op : item.properties()) {
                    int status = op.getValue().path("status").asInt(0);
                    if (status == 429 && attempt < 8) {
                        again.add(items.get(i));
                    } else if (status >= 300 && !(op.getKey().equals("delete") && status == 404)) {
                        throw new IOException(what + ": the cluster refused a document with " + status + " ("
                                + op.getValue().path("error").path("type").asString("") + ")");
                    }
                }
                i++;
            }
            items = again;
            if (!items.isEmpty()) {
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while the cluster was busy", e);
                }
                pause *= 2;
            }
        }
    }

    static String encode(String id) {
        return java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8);
    }
}
