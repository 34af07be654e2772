package dev.jiyi.authority.internal;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.PhaseProgress;
import dev.jiyi.authority.Database;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.Times;
import dev.jiyi.authority.index.TransactionalIndex;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The indexes attached to the authority's writes ({@link TransactionalIndex}) and their state in
 * {@code index_state}: every indexed row goes through here, and an index whose stored version is
 * not its own is rebuilt from the authoritative rows.
 *
 * <p>A rebuild at open (after a migration replaced an index's tables, or when its version changed) is
 * a <em>build</em> that goes in steps ({@link #buildStep}), each its own short write transaction, so
 * that other processes write between them instead of waiting past their busy timeout for one long
 * transaction (migration 11). A build starts by clearing the index and noting the largest event and
 * memory keys (its targets); each step feeds the next rows up to them and notes how far it came.
 * Rows added meanwhile have larger keys and are indexed by their writers as usual; a row removed
 * meanwhile that the build has not reached is left out of the index's removal (it holds nothing of
 * it; removing tokens it never got would damage an FTS5 index), and the build does not find it.
 * Whoever opens the database finishes a build it finds (several processes share the steps), so a
 * process reads a partial index only if it was already open when another one began a build.
 */
public final class Indexes {

    /** Rows a build step feeds at most (the JVM property {@code jiyi.index.build.step} lowers it for tests). */
    private static final int STEP_ROWS = 20_000;
    /** A build step also ends once it has taken this long: other processes wait for no longer. */
    private static final long STEP_NANOS = 200_000_000L;
    /** Between steps the builder lets go of the lock for half a step's time, within these bounds. */
    private static final long STEP_PAUSE_MIN = 10_000_000L;
    private static final long STEP_PAUSE_MAX = 100_000_000L;

    private final Sql sql;
    private final List<TransactionalIndex> attached;
    /** The builds in progress, by index name, as read at the start of the current write. */
    private final Map<String, Build> builds = new HashMap<>();

    /**
     * How far a build has come: rows with keys up to {@code eventsBuilt} / {@code memoriesBuilt} are
     * in the index, rows with keys above the targets were added after it began; those between are not.
     */
    public record Build(long eventsBuilt, long eventsTarget, long memoriesBuilt, long memoriesTarget) {
        boolean lacksEvent(long sequence) {
            return sequence > eventsBuilt && sequence <= eventsTarget;
        }

        boolean lacksMemory(long seq) {
            return seq > memoriesBuilt && seq <= memoriesTarget;
        }

        long remaining() {
            return eventsTarget - eventsBuilt + memoriesTarget - memoriesBuilt;
        }
    }

    /**
     * What a migration that replaces index tables runs in its own transaction: it begins their
     * builds (records them only: no tokenizer is needed under the lock); the builds go on in steps
     * other processes can write between, when the authority opens ({@link #catchUp}).
     */
    public static Database.AfterMigration migrationHook(List<TransactionalIndex> attached) {
        return migrated -> {
            Sql inMigration = new Sql(migrated);
            try {
                new Indexes(inMigration, attached).beginBuilds();
            } finally {
                inMigration.closeStatements();
            }
        };
    }

    public Indexes(Sql sql, List<TransactionalIndex> attached) {
        this.sql = sql;
        this.attached = List.copyOf(attached);
    }

    public List<TransactionalIndex> attached() {
        return attached;
    }

    /** Loads what the indexes need before a write that adds rows (outside any lock). */
    public void prepare() {
        for (TransactionalIndex index : attached) {
            index.prepare();
        }
    }

    /** {@link #prepare}, and hands the indexes what the write will insert, to analyze ahead. */
    public void prepare(List<EventSubmission> events, List<MemoryDraft> memories) {
        for (TransactionalIndex index : attached) {
            index.prepare();
            index.analyzeAhead(events, memories);
        }
    }

    public void eventAdded(Event event) throws SQLException {
        each(index -> index.eventAdded(sql, event));
    }

    public void eventRemoved(Event event) throws SQLException {
        for (TransactionalIndex index : attached) {
            Build build = builds.get(index.name());
            if (build == null || !build.lacksEvent(event.sequence())) {
                index.eventRemoved(sql, event);
            }
        }
    }

    public void memoryAdded(Memory memory) throws SQLException {
        each(index -> index.memoryAdded(sql, memory));
    }

    public void memoryRemoved(Memory memory) throws SQLException {
        for (TransactionalIndex index : attached) {
            Build build = builds.get(index.name());
            if (build == null || !build.lacksMemory(memory.rowId())) {
                index.memoryRemoved(sql, memory);
            }
        }
    }

    public void removalsDone(List<Event> events, List<Memory> memories) throws SQLException {
        for (TransactionalIndex index : attached) {
            Build build = builds.get(index.name());
            index.removalsDone(sql, build == null ? events : events.stream().filter(e -> !build.lacksEvent(e.sequence())).toList(),
                    build == null ? memories : memories.stream().filter(m -> !build.lacksMemory(m.rowId())).toList());
        }
    }

    /** The end of a write transaction, just before its commit ({@link TransactionalIndex#beforeCommit}). */
    public void beforeCommit() throws SQLException {
        each(index -> index.beforeCommit(sql));
    }

    @FunctionalInterface
    private interface Call {
        void on(TransactionalIndex index) throws SQLException;
    }

    private void each(Call call) throws SQLException {
        for (TransactionalIndex index : attached) {
            call.on(index);
        }
    }

    /** The attached, versioned indexes whose stored version is not their own (read outside a write). */
    public List<TransactionalIndex> stale() throws SQLException {
        List<TransactionalIndex> out = new java.util.ArrayList<>();
        for (TransactionalIndex index : attached) {
            String version = index.version();
            if (!index.installed(sql) || (version != null && !current(version, storedVersion(index.name())))) {
                out.add(index);
            }
        }
        return out;
    }

    /**
     * At open: begins a build of every stale index (rechecked under the lock: another process may
     * have begun it), then finishes every build in progress, one short write transaction per step.
     */
    public void catchUp(Transactions tx, PhaseProgress progress) {
        if (tx.read("reading index state", () -> stale().isEmpty() && !building())) {
            return;
        }
        prepare();
        long rows = tx.write("starting index builds", () -> {
            beginBuilds();
            return builds.values().stream().mapToLong(Build::remaining).sum();
        });
        if (rows == 0) {
            return; // rechecked under the lock: nothing (left) to build
        }
        progress.begin("building the search index", rows);
        while (true) {
            long started = System.nanoTime();
            if (!tx.write("building the indexes", () -> buildStep(progress::advance))) {
                return;
            }
            // A waiting writer retries on its own clock (SQLite's busy handler sleeps up to 100 ms
            // between tries): taking the lock straight back would keep it waiting for the whole build.
            long pause = Math.clamp((System.nanoTime() - started) / 2, STEP_PAUSE_MIN, STEP_PAUSE_MAX);
            try {
                Thread.sleep(java.time.Duration.ofNanos(pause));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StorageException("building the indexes", new java.io.InterruptedIOException("interrupted"));
            }
        }
    }

    /** Whether an attached index has a build in progress (read outside a write). */
    public boolean building() throws SQLException {
        readState();
        return !builds.isEmpty();
    }

    /**
     * Inside a write transaction that adds or removes indexed rows: makes every attached index current
     * before the write touches it, notes the builds in progress so that the write's removals respect
     * them, and forgets the state of every index kept in this file that is not attached here (it
     * would miss this write, so the next process that attaches it rebuilds it). An index is deleted from by its rows' tokens, so writing to an index built by
     * another version (a newer jiyi, another JDK's Unicode tables) would leave entries behind:
     * found here, in a process that was already open, it is rebuilt inside this write, whole.
     */
    public void sync() throws SQLException {
        sync(false);
    }

    /**
     * In a migration's transaction, or at open: begins a build, in steps, of every attached index
     * whose version is not its own ({@link #buildStep} goes on with it).
     */
    public void beginBuilds() throws SQLException {
        sync(true);
    }

    private void sync(boolean inSteps) throws SQLException {
        Map<String, String> stored = readState();
        for (TransactionalIndex index : attached) {
            String version = index.version();
            boolean installed = index.installed(sql);
            if (!installed) {
                index.install(sql);
            }
            if (version != null && (!current(version, stored.remove(index.name())) || !installed)) {
                if (inSteps) {
                    beginBuild(index);
                } else {
                    rebuild(index, rows -> { });
                }
            }
        }
        for (String unattached : stored.keySet()) {
            PreparedStatement delete = sql.prepare("DELETE FROM index_state WHERE name = ?");
            delete.setString(1, unattached);
            delete.executeUpdate();
        }
    }

    /** Reads every stored index version, and the builds in progress of the attached indexes. */
    private Map<String, String> readState() throws SQLException {
        Map<String, String> stored = new HashMap<>();
        builds.clear();
        try (ResultSet rs = sql.prepare("SELECT name, version, events_built, events_target, memories_built, "
                + "memories_target FROM index_state").executeQuery()) {
            while (rs.next()) {
                String name = rs.getString(1);
                String version = rs.getString(2);
                stored.put(name, version);
                boolean own = attached.stream().anyMatch(i -> i.name().equals(name) && building(i).equals(version));
                rs.getLong(4);
                if (own && !rs.wasNull()) {
                    builds.put(name, new Build(rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6)));
                }
            }
        }
        return stored;
    }

    /**
     * The version an index's build in progress is stored under: its own, marked, so that a process
     * of another version (or a jiyi before migration 11, which knows no builds) sees a version not
     * its own and rebuilds whole rather than take a partial index for complete or feed it its tokens.
     */
    private static String building(TransactionalIndex index) {
        return index.version() + "#building";
    }

    /** Whether a stored version is this index's own: complete, or its own build in progress. */
    private static boolean current(String version, String stored) {
        return version.equals(stored) || (version + "#building").equals(stored);
    }

    /** Clears the index and records a build up to today's largest keys (complete at once when there are none). */
    private void beginBuild(TransactionalIndex index) throws SQLException {
        index.clear(sql);
        long events = Long.parseLong(Sql.strings(sql.prepare("SELECT coalesce(max(sequence), 0) FROM events")).getFirst());
        long memories = Long.parseLong(Sql.strings(sql.prepare("SELECT coalesce(max(seq), 0) FROM memories")).getFirst());
        Build build = events == 0 && memories == 0 ? null : new Build(0, events, 0, memories);
        saveState(index, build);
        if (build != null) {
            builds.put(index.name(), build);
        }
    }

    /**
     * One step of every build in progress, in the open write transaction: feeds the next events, then
     * memories, in key order up to the build's targets, for at most {@link #STEP_ROWS} rows or
     * {@link #STEP_NANOS}, and records how far it came; true while rows are left.
     */
    public boolean buildStep(java.util.function.LongConsumer rowsFed) throws SQLException {
        readState();
        long deadline = System.nanoTime() + STEP_NANOS;
        boolean more = false;
        for (TransactionalIndex index : attached) {
            Build build = builds.get(index.name());
            if (build == null) {
                continue;
            }
            int budget = Integer.getInteger("jiyi.index.build.step", STEP_ROWS);
            long events = feed(index, true, build.eventsBuilt(), build.eventsTarget(), budget, deadline, rowsFed);
            long memories = build.memoriesBuilt();
            if (events == build.eventsTarget()) {
                memories = feed(index, false, build.memoriesBuilt(), build.memoriesTarget(), budget, deadline, rowsFed);
            }
            Build next = new Build(events, build.eventsTarget(), memories, build.memoriesTarget());
            saveState(index, next.remaining() == 0 ? null : next);
            more |= next.remaining() > 0;
        }
        return more;
    }

    /** A feed with no time limit (a rebuild in one transaction). */
    private static final long NO_DEADLINE = Long.MAX_VALUE;

    /**
     * Feeds rows with keys in (from, to], in order, within the budget of rows and time ({@link
     * #NO_DEADLINE}: none); returns the key fed up to.
     */
    private long feed(TransactionalIndex index, boolean events, long from, long to, int budget, long deadline,
                      java.util.function.LongConsumer rowsFed) throws SQLException {
        String query = events
                ? "SELECT " + Rows.EVENT_COLUMNS + " FROM events WHERE sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?"
                : "SELECT " + Rows.MEMORY_COLUMNS + " FROM memories WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?";
        long reached = from;
        int fed = 0;
        // Statements of their own (not Sql's shared ones): the index's writes run between the rows.
        try (PreparedStatement ps = sql.connection().prepareStatement(query)) {
            ps.setLong(1, from);
            ps.setLong(2, to);
            ps.setInt(3, budget);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (events) {
                        Event e = Rows.event(rs);
                        index.eventAdded(sql, e);
                        reached = e.sequence();
                    } else {
                        Memory m = Rows.memory(rs);
                        index.memoryAdded(sql, m);
                        reached = m.rowId();
                    }
                    rowsFed.accept(1);
                    if (++fed % 64 == 0 && deadline != NO_DEADLINE && System.nanoTime() - deadline > 0) {
                        return reached;
                    }
                }
            }
        }
        return fed < budget ? to : reached; // fewer rows than asked: none is left up to the target
    }

    /** Writes the index's version with its build in progress, or complete (null). */
    private void saveState(TransactionalIndex index, Build build) throws SQLException {
        PreparedStatement ps = sql.prepare("INSERT INTO index_state (name, version, built_at, events_built, events_target, "
                + "memories_built, memories_target) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
                + "version = excluded.version, built_at = excluded.built_at, events_built = excluded.events_built, "
                + "events_target = excluded.events_target, memories_built = excluded.memories_built, "
                + "memories_target = excluded.memories_target");
        ps.setString(1, index.name());
        ps.setString(2, build == null ? index.version() : building(index));
        ps.setString(3, Times.format(Times.now()));
        for (int i = 0; i < 4; i++) {
            if (build == null) {
                ps.setNull(4 + i, java.sql.Types.INTEGER);
            }
        }
        if (build != null) {
            ps.setLong(4, build.eventsBuilt());
            ps.setLong(5, build.eventsTarget());
            ps.setLong(6, build.memoriesBuilt());
            ps.setLong(7, build.memoriesTarget());
        }
        ps.executeUpdate();
    }

    /** Rebuilds every attached, versioned index in the open transaction; what the last was fed. */
    public Authority.Rebuilt rebuildAll(java.util.function.LongConsumer rowsFed) throws SQLException {
        Authority.Rebuilt fed = new Authority.Rebuilt(0, 0);
        for (TransactionalIndex index : attached) {
            if (index.version() != null) {
                fed = rebuild(index, rowsFed);
            }
        }
        return fed;
    }

    /**
     * Doctor's look at the attached indexes that claim to be complete (neither stale nor being built:
     * those are rebuilt, or finished, by the next open that attaches them): what each finds wrong
     * with its rows against {@code counts} ({@link TransactionalIndex#check}).
     */
    public List<String> check(TableCounts counts) throws SQLException {
        List<String> problems = new java.util.ArrayList<>();
        for (TransactionalIndex index : attached) {
            String version = index.version();
            if (version != null && version.equals(storedVersion(index.name())) && index.installed(sql)) {
                problems.addAll(index.check(sql, counts));
            }
        }
        return problems;
    }

    /** Marks an index stale: the next write (or open) that attaches it rebuilds it. */
    public void markStale(String name) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE index_state SET version = 'stale' WHERE name = ?");
        ps.setString(1, name);
        ps.executeUpdate();
    }

    /**
     * Clears the index and feeds it every event and memory in insertion order, in the open
     * transaction (reindex, import, a stale version found by a process already open); returns how
     * many of each.
     */
    private Authority.Rebuilt rebuild(TransactionalIndex index, java.util.function.LongConsumer rowsFed)
            throws SQLException {
        long[] fed = new long[1];
        java.util.function.LongConsumer counted = n -> {
            fed[0] += n;
            rowsFed.accept(n);
        };
        if (!index.installed(sql)) {
            index.install(sql);
        }
        index.clear(sql);
        feed(index, true, 0, Long.MAX_VALUE, Integer.MAX_VALUE, NO_DEADLINE, counted);
        long events = fed[0];
        feed(index, false, 0, Long.MAX_VALUE, Integer.MAX_VALUE, NO_DEADLINE, counted);
        long memories = fed[0] - events;
        saveState(index, null);
        builds.remove(index.name());
        return new Authority.Rebuilt(events, memories);
    }

    private String storedVersion(String name) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT version FROM index_state WHERE name = ?");
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
