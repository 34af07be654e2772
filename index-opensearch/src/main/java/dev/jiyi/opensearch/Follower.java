package dev.jiyi.opensearch;

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
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * Keeps a home's documents in the cluster current with the authority's change log
 * ({@link ChangeLogFollower}'s target), in bulk requests, and builds them whole. An entry names a
 * row; the follower reads the row's current state from the snapshot and indexes or deletes its
 * document by ID, so a page applied twice (after a lost connection or a killed process) changes
 * nothing. Each page is made searchable before the follow returns (a refresh of the home's shard);
 * its position is then written to the cluster's meta document of the home and to the home's own
 * state file, in that order. A deletion is not searchable once the follow that applied it returns
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

    private Map<String, String> routed() {
        return Map.of("routing", state.home());
    }

    /**
     * Brings the home's documents up to the snapshot's log as far as the budget allows. A cluster
     * that does not hold the home's current build (never built, lost, restored from elsewhere) is
     * rebuilt first.
     */
    ChangeLogFollower.Outcome follow(Snapshot s) throws IOException {
        purgeIfDue();
        if (!clusterHoldsBuild()) {
            rebuild(s, state.build().isEmpty() ? "first use" : "the cluster does not hold this home's documents");
        }
        return follower.follow(s, this);
    }

    private boolean clusterHoldsBuild() throws IOException {
        if (state.build().isEmpty() || !cluster.exists("checking the index", "/" + index)) {
            return false;
        }
        JsonNode meta = cluster.call("reading the home's meta document", "GET",
                "/" + index + "/_doc/" + encode(Documents.metaId(state.home())), Map.of("routing", state.home(),
                        "ignore", "404"), null);
        return meta.path("found").asBoolean(false) && state.build().equals(meta.path("_source").path("build").asString(""));
    }

    @Override
    public Position position() {
        return state.position();
    }

    @Override
    public void apply(Snapshot s, List<ChangeLog.Entry> entries) throws IOException {
        StringBuilder bulk = new StringBuilder();
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
                        delete(bulk, Documents.eventId(state.home(), e.rowId()));
                    } else {
                        goneById.add(Documents.EVENT + ":" + e.entityId());
                    }
                }
                case MEMORY -> {
                    if (!delete) {
                        memories.add(e.entityId());
                    } else if (e.rowId() != null) {
                        delete(bulk, Documents.memoryId(state.home(), e.rowId()));
                    } else {
                        goneById.add(Documents.MEMORY + ":" + e.entityId());
                    }
                }
                default -> {
                    // personas, relations, checkpoints, vectors: nothing of them is indexed here
                }
            }
        }
        if (bulk.length() > 0 || !goneById.isEmpty()) {
            deleted = true;
        }
        for (Event e : s.eventsById(events)) {
            put(bulk, Documents.eventId(state.home(), e.sequence()), Documents.event(state.home(), e));
        }
        for (Memory m : s.memoriesById(memories)) {
            put(bulk, Documents.memoryId(state.home(), m.rowId()), Documents.memory(state.home(), m));
        }
        send(bulk, "applying the change log");
        if (!goneById.isEmpty()) {
            ObjectNode ids = Cluster.object();
            var terms = ids.putObject("terms").putArray("id");
            goneById.forEach(terms::add);
            deleteMatching(ids, "deleting documents by ID");
        }
    }

    /**
     * Deletes the home's documents that {@code query} matches, a page of IDs at a time (a search,
     * then a bulk delete), so that no plugin beyond the core is needed ({@code _delete_by_query} is
     * the reindex module's).
     */
    private void deleteMatching(ObjectNode query, String what) throws IOException {
        JsonNode after = null;
        while (true) {
            ObjectNode body = Cluster.object();
            body.put("size", ChangeLogFollower.PAGE);
            body.put("_source", false);
            var filter = body.putObject("query").putObject("bool").putArray("filter");
            filter.add(Documents.term("home", state.home()));
            filter.add(query);
            var sort = body.putArray("sort");
            sort.addObject().put("type", "asc");
            sort.addObject().putObject("row").put("order", "asc").put("missing", "_first");
            if (after != null) {
                body.set("search_after", after);
            }
            JsonNode hits = cluster.call(what, "POST", "/" + index + "/_search", routed(), body).path("hits").path("hits");
            if (hits.isEmpty()) {
                return;
            }
            StringBuilder bulk = new StringBuilder();
            for (JsonNode hit : hits) {
                delete(bulk, hit.path("_id").asString());
            }
            send(bulk, what);
            deleted = true;
            after = hits.get(hits.size() - 1).path("sort");
        }
    }

    /** Writes the position to the cluster's meta document, then to the home; after a deletion, purges first. */
    @Override
    public void commit(Position reached) throws IOException {
        writeMeta(state.build(), reached);
        state = state.at(reached);
        if (deleted) {
            state = state.owing(owed(state.purge(), shardSeqNos(false)));
            deleted = false;
        }
        state.write(folder);
        purgeIfDue();
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
        if (state.purge().isEmpty() || !cluster.exists("checking the index", "/" + index)) {
            return false;
        }
        Map<Integer, Long> leases = shardSeqNos(true);
        for (String part : state.purge().split(",")) {
            String[] shardSeq = part.split(":");
            Long lease = leases.get(Integer.parseInt(shardSeq[0]));
            if (lease != null && lease <= Long.parseLong(shardSeq[1])) {
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
            out.put(Integer.parseInt(shard.getKey()), value);
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
        String build = HomeState.randomId();
        deleteMatching(Cluster.object().set("match_all", Cluster.object()), "removing the home's old documents");
        long events = 0;
        long memories = 0;
        for (List<Event> page = s.eventsAfter(0, ChangeLogFollower.PAGE); !page.isEmpty();
             page = s.eventsAfter(page.getLast().sequence(), ChangeLogFollower.PAGE)) {
            StringBuilder bulk = new StringBuilder();
            for (Event e : page) {
                put(bulk, Documents.eventId(state.home(), e.sequence()), Documents.event(state.home(), e));
            }
            send(bulk, "writing events");
            events += page.size();
            fed.accept(page.size());
        }
        for (List<Memory> page = s.memoriesAfter(0, ChangeLogFollower.PAGE); !page.isEmpty();
             page = s.memoriesAfter(page.getLast().rowId(), ChangeLogFollower.PAGE)) {
            StringBuilder bulk = new StringBuilder();
            for (Memory m : page) {
                put(bulk, Documents.memoryId(state.home(), m.rowId()), Documents.memory(state.home(), m));
            }
            send(bulk, "writing memories");
            memories += page.size();
            fed.accept(page.size());
        }
        writeMeta(build, head);
        state = state.rebuilt(build, head).owing(owed(state.purge(), shardSeqNos(false)));
        state.write(folder);
        deleted = false;
        purgeIfDue();
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

    private void put(StringBuilder bulk, String id, ObjectNode doc) {
        ObjectNode action = Cluster.object();
        action.putObject("index").put("_id", id).put("routing", state.home());
        bulk.append(Cluster.JSON.writeValueAsString(action)).append('\n');
        bulk.append(Cluster.JSON.writeValueAsString(doc)).append('\n');
    }

    private void delete(StringBuilder bulk, String id) {
        ObjectNode action = Cluster.object();
        action.putObject("delete").put("_id", id).put("routing", state.home());
        bulk.append(Cluster.JSON.writeValueAsString(action)).append('\n');
    }

    /** One bulk request, made searchable before it returns; any item's failure fails it (a delete of nothing is fine). */
    private void send(StringBuilder bulk, String what) throws IOException {
        if (bulk.length() == 0) {
            return;
        }
        JsonNode r = cluster.bulk(what, "/" + index + "/_bulk", Map.of("refresh", "true"), bulk.toString());
        if (!r.path("errors").asBoolean(false)) {
            return;
        }
        for (JsonNode item : r.path("items")) {
            for (Map.Entry<String, JsonNode> op : item.properties()) {
                int status = op.getValue().path("status").asInt(0);
                if (status >= 300 && !(op.getKey().equals("delete") && status == 404)) {
                    throw new IOException(what + ": the cluster refused a document with " + status + " ("
                            + op.getValue().path("error").path("type").asString("") + ")");
                }
            }
        }
    }

    static String encode(String id) {
        return java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8);
    }
}
