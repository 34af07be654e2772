package dev.jiyi.authority;

import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.ChangeLogFollower;
import dev.jiyi.authority.index.Eligibility;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.SESSION;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.raw;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.t;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * L2: a toy derived index that follows the authority the way the Lucene index must, through the
 * change log only. It reads the entries after the last sequence it applied and then, in the same
 * snapshot, the current rows they name ({@link Snapshot#memoriesById}, {@link Snapshot#eventsById},
 * vector presence through {@link Snapshot#scanVectors}); a row named by a delete entry is dropped by
 * the row number that entry carries. After every catch-up its state must equal the authority's
 * tables, read independently with plain SQL.
 */
class ChangeLogFollowerTest {

    private static final String FP = "toy-fingerprint";

    @TempDir
    Path dir;

    // ------------------------------------------------------------------ the toy follower

    /** What the toy index knows of a memory row; {@code vector}: a vector a search could use (not revoked). */
    record MemoryState(long row, String id, Scope scope, String eventId, String text, Validity validity,
                       Instant revokedAt, boolean vector) {
    }

    /** What the toy index knows of an event row. */
    record EventState(long row, String id, Scope scope, String text, boolean amended, ExtractionState extraction) {
    }

    /** An index outside SQLite, keyed by row number, fed only by the change log and reads by ID. */
    static final class Follower {
        long applied;
        ChangeLogFollower.Position position = ChangeLogFollower.Position.START;
        final Map<Long, MemoryState> memories = new TreeMap<>();
        final Map<Long, EventState> events = new TreeMap<>();
        /** Rows with a vector according to the vector entries alone (insert adds, delete removes). */
        final Set<Long> vectorRowsByLog = new TreeSet<>();
        final List<ChangeLog.Entry> seen = new ArrayList<>();

        /**
         * Applies every entry after {@link #applied} through {@link ChangeLogFollower}, in pages of
         * {@code pageSize}; returns them.
         */
        List<ChangeLog.Entry> catchUp(Authority a, int pageSize) {
            return a.read(s -> {
                List<ChangeLog.Entry> batch = new ArrayList<>();
                ChangeLogFollower.Target target = new ChangeLogFollower.Target() {
                    @Override
                    public ChangeLogFollower.Position position() {
                        return position;
                    }

                    @Override
                    public void apply(Snapshot snapshot, List<ChangeLog.Entry> page) {
                        assertThat(page.size()).isLessThanOrEqualTo(pageSize);
                        batch.addAll(page);
                    }

                    @Override
                    public void commit(ChangeLogFollower.Position reached) {
                        absorb(s, batch);
                        position = reached;
                    }

                    @Override
                    public void rebuild(Snapshot snapshot, String reason) {
                        fail("the log continues the toy index, yet it was rebuilt: %s", reason);
                    }
                };
                long before = position.seq();
                ChangeLogFollower.Outcome o;
                try {
                    o = new ChangeLogFollower(pageSize, Duration.ofDays(1)).follow(s, target);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                assertThat(o.applied()).as("a catch-up reaches the head of its own snapshot")
                        .isEqualTo(Math.max(before, s.changeLogHead()));
                applied = o.applied();
                seen.addAll(batch);
                return batch;
            });
        }

        /** Takes in a batch: rows its delete entries name dropped, the rows it names read as they are now. */
        private void absorb(Snapshot s, List<ChangeLog.Entry> batch) {
            Set<String> memoryIds = new LinkedHashSet<>();
            Set<String> eventIds = new LinkedHashSet<>();
            Set<String> deletedMemoryIds = new LinkedHashSet<>();
            Set<String> deletedEventIds = new LinkedHashSet<>();
            List<Long> removedMemoryRows = new ArrayList<>();
            List<Long> removedEventRows = new ArrayList<>();
            for (ChangeLog.Entry e : batch) {
                switch (e.entity()) {
                    case EVENT -> {
                        assertThat(e.rowId()).as("row of %s", e).isNotNull();
                        eventIds.add(e.entityId());
                        if (e.op() == ChangeLog.Op.DELETE) {
                            deletedEventIds.add(e.entityId());
                            removedEventRows.add(e.rowId());
                        }
                    }
                    case MEMORY -> {
                        assertThat(e.rowId()).as("row of %s", e).isNotNull();
                        memoryIds.add(e.entityId());
                        if (e.op() == ChangeLog.Op.DELETE) {
                            deletedMemoryIds.add(e.entityId());
                            removedMemoryRows.add(e.rowId());
                        }
                    }
                    case VECTOR -> {
                        assertThat(e.rowId()).as("row of %s", e).isNotNull();
                        memoryIds.add(e.entityId());
                        switch (e.op()) {
                            case INSERT -> vectorRowsByLog.add(e.rowId());
                            case DELETE -> vectorRowsByLog.remove(e.rowId());
                            case UPDATE -> fail("a vector is stored or removed, never updated: %s", e);
                        }
                    }
                    default -> {
                        // personas, relations and checkpoints are not indexed
                    }
                }
            }
            // Rows a delete entry names are dropped by the row number it carries.
            removedMemoryRows.forEach(memories::remove);
            removedEventRows.forEach(events::remove);

            Map<String, Memory> currentMemories = new LinkedHashMap<>();
            s.memoriesById(memoryIds).forEach(m -> currentMemories.put(m.id(), m));
            Map<String, Event> currentEvents = new LinkedHashMap<>();
            s.eventsById(eventIds).forEach(e -> currentEvents.put(e.id(), e));
            for (String id : memoryIds) {
                if (!currentMemories.containsKey(id)) {
                    assertThat(deletedMemoryIds).as("memory %s is gone, so a delete entry says so", id).contains(id);
                }
            }
            for (String id : eventIds) {
                if (!currentEvents.containsKey(id)) {
                    assertThat(deletedEventIds).as("event %s is gone, so a delete entry says so", id).contains(id);
                }
            }
            checkRowIds(batch, currentMemories, currentEvents);

            Set<Long> withVector = new TreeSet<>();
            currentMemories.values().stream().map(Memory::scope).distinct()
                    .sorted(Comparator.comparing(Scope::personaId).thenComparing(Scope::projectId))
                    .forEach(scope -> s.scanVectors(Eligibility.anyTime(scope), FP, 0, (row, v) -> withVector.add(row)));
            for (Memory m : currentMemories.values()) {
                memories.put(m.rowId(), new MemoryState(m.rowId(), m.id(), m.scope(), m.eventId(), m.text(),
                        m.validity(), m.revokedAt(), withVector.contains(m.rowId())));
            }
            for (Event e : currentEvents.values()) {
                events.put(e.sequence(), new EventState(e.sequence(), e.id(), e.scope(), e.text(), e.amended(),
                        e.extraction()));
            }
        }

        /**
         * Each entry names the row it is about: a memory's entries (and its vector's) carry the row
         * the memory still has; an event's entries after its last deletion carry the current row.
         */
        private static void checkRowIds(List<ChangeLog.Entry> batch, Map<String, Memory> memories, Map<String, Event> events) {
            Map<String, Integer> lastEventDelete = new LinkedHashMap<>();
            for (int i = 0; i < batch.size(); i++) {
                ChangeLog.Entry e = batch.get(i);
                if (e.entity() == ChangeLog.Entity.EVENT && e.op() == ChangeLog.Op.DELETE) {
                    lastEventDelete.put(e.entityId(), i);
                }
            }
            for (int i = 0; i < batch.size(); i++) {
                ChangeLog.Entry e = batch.get(i);
                if ((e.entity() == ChangeLog.Entity.MEMORY || e.entity() == ChangeLog.Entity.VECTOR)
                        && memories.containsKey(e.entityId())) {
                    assertThat(e.rowId()).as("row of %s", e).isEqualTo(memories.get(e.entityId()).rowId());
                }
                if (e.entity() == ChangeLog.Entity.EVENT && events.containsKey(e.entityId())
                        && i > lastEventDelete.getOrDefault(e.entityId(), -1)) {
                    assertThat(e.rowId()).as("row of %s", e).isEqualTo(events.get(e.entityId()).sequence());
                }
            }
        }
    }

    // ------------------------------------------------------------------ the authority's state, read with plain SQL

    /** Every memory row; {@code vector} when it has a vector of {@link #FP} and is not revoked. */
    static Map<Long, MemoryState> memoryTruth(Path file) throws SQLException {
        Map<Long, MemoryState> out = new TreeMap<>();
        try (Connection c = raw(file); PreparedStatement ps = c.prepareStatement("SELECT m.seq, m.id, m.persona_id, "
                + "m.project_id, m.event_id, m.text, m.valid_at, m.invalid_at, m.revoked_at, "
                + "EXISTS (SELECT 1 FROM embeddings e WHERE e.memory_seq = m.seq AND e.fingerprint = ?) FROM memories m")) {
            ps.setString(1, FP);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Instant revoked = Times.read(rs.getString(9));
                    out.put(rs.getLong(1), new MemoryState(rs.getLong(1), rs.getString(2),
                            new Scope(rs.getString(3), rs.getString(4)), rs.getString(5), rs.getString(6),
                            new Validity(Times.read(rs.getString(7)), Times.read(rs.getString(8))), revoked,
                            rs.getBoolean(10) && revoked == null));
                }
            }
        }
        return out;
    }

    static Map<Long, EventState> eventTruth(Path file) throws SQLException {
        Map<Long, EventState> out = new TreeMap<>();
        try (Connection c = raw(file); PreparedStatement ps = c.prepareStatement(
                "SELECT sequence, id, persona_id, project_id, text, amended, extraction_state FROM events");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getLong(1), new EventState(rs.getLong(1), rs.getString(2),
                        new Scope(rs.getString(3), rs.getString(4)), rs.getString(5), rs.getInt(6) == 1,
                        ExtractionState.parse("extraction_state", rs.getString(7))));
            }
        }
        return out;
    }

    /** Memory rows that have a vector of any fingerprint, revoked or not. */
    static Set<Long> vectorRows(Path file) throws SQLException {
        Set<Long> out = new TreeSet<>();
        try (Connection c = raw(file); PreparedStatement ps = c.prepareStatement("SELECT memory_seq FROM embeddings");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    /** The authority's full state as a follower should know it. */
    record Truth(Map<Long, MemoryState> memories, Map<Long, EventState> events, Set<Long> vectors) {
        static Truth read(Path file) throws SQLException {
            return new Truth(memoryTruth(file), eventTruth(file), vectorRows(file));
        }
    }

    static void assertFollowerCurrent(Follower f, Path file) throws SQLException {
        Truth truth = Truth.read(file);
        assertThat(f.memories).as("memories the follower knows (row -> state)").isEqualTo(truth.memories());
        assertThat(f.events).as("events the follower knows (row -> state)").isEqualTo(truth.events());
        assertThat(f.vectorRowsByLog).as("rows with a vector according to the vector entries").isEqualTo(truth.vectors());
    }

    private static long head(Authority a) {
        return a.read(Snapshot::changeLogHead);
    }

    private static List<String> described(List<ChangeLog.Entry> entries, ChangeLog.Entity entity) {
        return entries.stream().filter(e -> e.entity() == entity)
                .map(e -> e.op() + ":" + e.entityId() + "#" + e.rowId()).sorted().toList();
    }

    private static float[] vector(Random random) {
        float[] v = new float[4];
        for (int i = 0; i < v.length; i++) {
            v[i] = random.nextFloat() * 2 - 1;
        }
        return v;
    }

    private static MemoryDraft fact(Event source, String text, String subject, String key, Instant validAt) {
        return MemoryDraft.builder(source.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT).text(text)
                .quote(source.text()).subject(subject).factKey(key).validAt(validAt).build();
    }

    // ------------------------------------------------------------------ pinned scenarios

    @Test
    @DisplayName("L2 T4 C1 a closing and a revocation are memory update entries carrying the row; the follower sees the new interval and the revocation")
    void closingsAndRevocationsReachTheFollower() throws Exception {
        Path file = dbFile(dir);
        Follower f = new Follower();
        try (Authority a = open(dir)) {
            Event e1 = submit(a, event("e1", CJK_SCOPE, Role.USER, "我住在南京", t("2020-01-01T00:00:00Z")));
            Memory nanjing = a.addMemory(CJK_SCOPE, fact(e1, "住在南京", "我", "城市", t("2020-01-01T00:00:00Z")));
            f.catchUp(a, 10);
            assertFollowerCurrent(f, file);
            assertThat(f.memories.get(nanjing.rowId()).validity().open()).isTrue();

            Event e2 = submit(a, event("e2", CJK_SCOPE, Role.USER, "我搬到了苏州 moved to Suzhou", t("2022-01-01T00:00:00Z")));
            Memory suzhou = a.addMemory(CJK_SCOPE, fact(e2, "住在苏州 lives in Suzhou", "我", "城市", t("2022-01-01T00:00:00Z")));
            List<ChangeLog.Entry> closing = f.catchUp(a, 1);
            assertThat(described(closing, ChangeLog.Entity.MEMORY)).as("T4 the closing is logged with the closed row")
                    .containsExactlyInAnyOrder("insert:" + suzhou.id() + "#" + suzhou.rowId(),
                            "update:" + nanjing.id() + "#" + nanjing.rowId());
            assertFollowerCurrent(f, file);
            assertThat(f.memories.get(nanjing.rowId()).validity().invalidAt()).isEqualTo(t("2022-01-01T00:00:00Z"));

            // A late historical fact closes its predecessor at its start and is closed by its successor (T4).
            Event e3 = submit(a, event("e3", CJK_SCOPE, Role.USER, "2021年其实住在上海", t("2021-01-01T00:00:00Z")));
            Memory shanghai = a.addMemory(CJK_SCOPE, fact(e3, "住在上海", "我", "城市", t("2021-01-01T00:00:00Z")));
            f.catchUp(a, 3);
            assertFollowerCurrent(f, file);
            assertThat(f.memories.get(nanjing.rowId()).validity().invalidAt()).isEqualTo(t("2021-01-01T00:00:00Z"));
            assertThat(f.memories.get(shanghai.rowId()).validity())
                    .isEqualTo(new Validity(t("2021-01-01T00:00:00Z"), t("2022-01-01T00:00:00Z")));

            // C1: the revocation is an update of the mistaken row; the corrected memory and event are inserts.
            Correction c = a.correctMemory(CJK_SCOPE, shanghai.id(), new CorrectionDraft("2021年住在杭州 Hangzhou", null, null));
            List<ChangeLog.Entry> corrected = f.catchUp(a, 2);
            assertThat(described(corrected, ChangeLog.Entity.MEMORY))
                    .contains("update:" + shanghai.id() + "#" + shanghai.rowId(),
                            "insert:" + c.corrected().id() + "#" + c.corrected().rowId());
            assertThat(described(corrected, ChangeLog.Entity.EVENT))
                    .contains("insert:" + c.event().id() + "#" + c.event().sequence(), "update:e3#" + e3.sequence());
            assertFollowerCurrent(f, file);
            assertThat(f.memories.get(shanghai.rowId()).revokedAt()).isNotNull();
            assertThat(f.memories.get(c.corrected().rowId()).text()).isEqualTo("2021年住在杭州 Hangzhou");
            assertThat(f.events.get(e3.sequence()).amended()).isTrue();
            assertThat(f.catchUp(a, 5)).as("nothing new after a full catch-up").isEmpty();
        }
    }

    @Test
    @DisplayName("L2 V3 D1 stored vectors are logged one insert each (none for a skipped one), a deletion logs the vector delete with the memory's row")
    void vectorEntries() throws Exception {
        Path file = dbFile(dir);
        Follower f = new Follower();
        try (Authority a = open(dir)) {
            Event e = submit(a, event("ev", ALICE_WORK, Role.USER, "I keep bees 我养蜜蜂"));
            Memory bees = a.addMemory(ALICE_WORK, userFact(e, "keeps bees 养蜜蜂").build());
            Memory honey = a.addMemory(ALICE_WORK, userFact(e, "sells honey").build());
            Event other = submit(a, event("other", ALICE_WORK, Role.USER, "喜欢绿茶 likes green tea"));
            Memory tea = a.addMemory(ALICE_WORK, userFact(other, "喜欢绿茶").build());
            f.catchUp(a, 50);
            assertFollowerCurrent(f, file);

            long before = head(a);
            VectorCache.Stored stored = a.storeVectors(FP, List.of(
                    new VectorCache.NewVector(bees.id(), VectorCache.contentHash(bees.text()), new float[] {1, 0}),
                    new VectorCache.NewVector(honey.id(), VectorCache.contentHash("not the stored text"), new float[] {0, 1}),
                    new VectorCache.NewVector(tea.id(), VectorCache.contentHash(tea.text()), new float[] {1, 1})));
            assertThat(stored).isEqualTo(new VectorCache.Stored(2, 1));
            List<ChangeLog.Entry> logged = a.changesAfter(before, 100);
            assertThat(logged).as("only vector entries").allSatisfy(x -> assertThat(x.entity()).isEqualTo(ChangeLog.Entity.VECTOR));
            assertThat(described(logged, ChangeLog.Entity.VECTOR)).containsExactlyInAnyOrder(
                    "insert:" + bees.id() + "#" + bees.rowId(), "insert:" + tea.id() + "#" + tea.rowId());
            assertThat(logged).allSatisfy(x -> assertThat(x.personaId() + "/" + x.projectId()).isEqualTo("alice/work"));
            f.catchUp(a, 1);
            assertFollowerCurrent(f, file);
            assertThat(f.memories.get(bees.rowId()).vector()).isTrue();
            assertThat(f.memories.get(honey.rowId()).vector()).isFalse();
            // What a follower reads for a vector entry: the vector itself and the model that made it (V1).
            List<VectorCache.StoredVector> read = a.read(s -> s.vectorsByMemoryRow(
                    List.of(tea.rowId(), honey.rowId(), bees.rowId())));
            assertThat(read).extracting(v -> v.memoryRow() + ":" + v.memoryId() + ":" + v.fingerprint())
                    .containsExactly(bees.rowId() + ":" + bees.id() + ":" + FP, tea.rowId() + ":" + tea.id() + ":" + FP);
            assertThat(read.get(1).vector()).containsExactly(1f, 1f);
            List<VectorCache.StoredVector> none = a.read(s -> s.vectorsByMemoryRow(List.of()));
            assertThat(none).isEmpty();

            // D1: deleting the event removes both memories; only the one with a vector logs a vector delete.
            before = head(a);
            Deletion d = a.deleteEvent(ALICE_WORK, "ev");
            assertThat(d.vectorsRemoved()).isEqualTo(1);
            logged = a.changesAfter(before, 100);
            assertThat(described(logged, ChangeLog.Entity.VECTOR)).containsExactly("delete:" + bees.id() + "#" + bees.rowId());
            assertThat(described(logged, ChangeLog.Entity.MEMORY)).containsExactlyInAnyOrder(
                    "delete:" + bees.id() + "#" + bees.rowId(), "delete:" + honey.id() + "#" + honey.rowId());
            assertThat(described(logged, ChangeLog.Entity.EVENT)).containsExactly("delete:ev#" + e.sequence());
            f.catchUp(a, 4);
            assertFollowerCurrent(f, file);
            assertThat(f.memories).containsOnlyKeys(tea.rowId());
            assertThat(f.vectorRowsByLog).containsExactly(tea.rowId());
            assertThat(f.events.values()).extracting(EventState::id).containsExactly("other");
        }
    }

    @Test
    @DisplayName("L2 D1 delete entries carry the deleted rows' numbers, and an event ID submitted again after deletion is a new row")
    void deleteEntriesCarryRows() throws Exception {
        Path file = dbFile(dir);
        Follower f = new Follower();
        try (Authority a = open(dir)) {
            Event e = submit(a, event("again", ALICE_WORK, Role.USER, "第一次 first time"));
            Memory m = a.addMemory(ALICE_WORK, userFact(e, "first").build());
            Correction c = a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft("更正 corrected", null, null));
            f.catchUp(a, 7);
            assertFollowerCurrent(f, file);

            // Deleting the corrected memory removes the whole lineage (D1): both events, both memories.
            long before = head(a);
            Deletion d = a.deleteMemory(ALICE_WORK, c.corrected().id());
            assertThat(d.memoryIds()).containsExactlyInAnyOrder(m.id(), c.corrected().id());
            assertThat(d.eventIds()).containsExactlyInAnyOrder("again", c.event().id());
            List<ChangeLog.Entry> logged = a.changesAfter(before, 100);
            assertThat(described(logged, ChangeLog.Entity.MEMORY)).containsExactlyInAnyOrder(
                    "delete:" + m.id() + "#" + m.rowId(), "delete:" + c.corrected().id() + "#" + c.corrected().rowId());
            assertThat(described(logged, ChangeLog.Entity.EVENT)).containsExactlyInAnyOrder(
                    "delete:again#" + e.sequence(), "delete:" + c.event().id() + "#" + c.event().sequence());

            Event reborn = submit(a, event("again", ALICE_WORK, Role.USER, "第二次 second time"));
            assertThat(reborn.sequence()).isGreaterThan(c.event().sequence());
            List<ChangeLog.Entry> batch = f.catchUp(a, 2);
            assertThat(described(batch, ChangeLog.Entity.EVENT)).contains("insert:again#" + reborn.sequence());
            assertFollowerCurrent(f, file);
            assertThat(f.memories).isEmpty();
            assertThat(f.events).containsOnlyKeys(reborn.sequence());
            assertThat(f.events.get(reborn.sequence()).text()).isEqualTo("第二次 second time");
        }
    }

    @Test
    @DisplayName("L2 entries of rows no index keys (persona, relation, checkpoint) carry no row number, indexed ones theirs")
    void entriesOfUnindexedRowsCarryNoRow() throws Exception {
        try (Authority a = open(dir)) {
            a.persona("alice", null);
            Event e = submit(a, event("e1", ALICE_WORK, Role.USER, "我喜欢猫 I like cats"));
            Memory cats = a.addMemory(ALICE_WORK, userFact(e, "喜欢猫").build());
            Memory pets = a.addMemory(ALICE_WORK, userFact(e, "likes pets").build());
            a.relate(ALICE_WORK, cats.id(), pets.id());
            Checkpoint cp = a.saveCheckpoint(ALICE_WORK, new CheckpointDraft(SESSION, "目标 goal", List.of(), List.of(),
                    List.of(), null, e.sequence()));
            assertThat(AuthorityTestKit.count(dbFile(dir), "SELECT count(*) FROM change_log "
                    + "WHERE entity IN ('persona', 'relation', 'checkpoint') AND row_id IS NOT NULL"))
                    .as("stored row_id of unindexed rows").isZero();
            List<ChangeLog.Entry> log = a.changesAfter(0, 100);
            Map<String, Long> rows = new LinkedHashMap<>();
            log.forEach(x -> rows.put(x.entity() + ":" + x.entityId(), x.rowId()));
            assertThat(rows).containsEntry("event:e1", e.sequence())
                    .containsEntry("memory:" + cats.id(), cats.rowId())
                    .containsEntry("memory:" + pets.id(), pets.rowId())
                    .containsEntry("persona:alice@1", null)
                    .containsEntry("relation:" + cats.id() + "->" + pets.id(), null)
                    .containsEntry("checkpoint:" + cp.id(), null);
        }
    }

    // ------------------------------------------------------------------ the random workload

    private static final Scope[] SCOPES = {ALICE_WORK, CJK_SCOPE};
    private static final String[] ZH = {"我住在南京", "搬到了苏州", "喜欢喝乌龙茶", "在一家面包店工作", "周末去爬山",
        "女儿上小学了", "正在学习日语", "对花生过敏", "养了一只橘猫", "明天去北京出差"};
    private static final String[] EN = {"I live in Berlin", "moved to Lisbon", "prefers green tea", "works at a bakery",
        "training for a marathon", "allergic to peanuts", "learning Rust", "adopted a cat"};
    private static final String[] SUBJECTS = {"我", "alice"};
    private static final String[] KEYS = {"city", "城市"};

    enum Op { SUBMIT, SUBMIT_BATCH, SUBMIT_EXTRACT, MEMORY, TIMELINE, CORRECT, RELATE, VECTORS, DELETE_EVENT, DELETE_MEMORY,
        RESUBMIT_DELETED, MARK_PENDING }

    /** The workload's driver: what it did, the rows it was given, and a per-write check of the log. */
    private final class Workload {
        final Random random;
        final Authority a;
        final Path file;
        final Map<String, Long> memoryRows = new LinkedHashMap<>();
        final Map<String, Set<Long>> eventRows = new LinkedHashMap<>();
        final List<String> deletedEvents = new ArrayList<>();
        final Set<String> deletedMemories = new LinkedHashSet<>();
        final Map<Op, Integer> succeeded = new EnumMap<>(Op.class);
        int counter;

        Workload(Random random, Authority a, Path file) {
            this.random = random;
            this.a = a;
            this.file = file;
        }

        String text() {
            counter++;
            return switch (random.nextInt(3)) {
                case 0 -> ZH[random.nextInt(ZH.length)] + "，第" + counter + "条";
                case 1 -> EN[random.nextInt(EN.length)] + ", note " + counter;
                default -> ZH[random.nextInt(ZH.length)] + " " + EN[random.nextInt(EN.length)] + " "
                        + new String(Character.toChars(0x1F600 + random.nextInt(40))) + " #" + counter;
            };
        }

        Instant time() {
            return Instant.parse("2015-01-01T00:00:00Z").plusSeconds(86_400L * random.nextInt(3650));
        }

        Scope scope() {
            return SCOPES[random.nextInt(SCOPES.length)];
        }

        <T> T pick(List<T> items) {
            return items.isEmpty() ? null : items.get(random.nextInt(items.size()));
        }

        void noteEvent(Event e) {
            eventRows.computeIfAbsent(e.id(), k -> new LinkedHashSet<>()).add(e.sequence());
        }

        void noteMemory(Memory m) {
            Long previous = memoryRows.put(m.id(), m.rowId());
            assertThat(previous == null || previous == m.rowId()).as("a memory keeps its row").isTrue();
        }

        /** One random write, with its log entries checked against what changed in the tables. */
        void step() throws SQLException {
            Op op = Op.values()[random.nextInt(Op.values().length)];
            if ((op == Op.DELETE_EVENT || op == Op.DELETE_MEMORY) && random.nextInt(3) != 0) {
                op = Op.SUBMIT; // deletions are rarer, so that the archive grows
            }
            Truth before = Truth.read(file);
            long headBefore = head(a);
            boolean done;
            try {
                done = run(op, before);
            } catch (JiyiException rejected) {
                assertThat(head(a)).as("a rejected %s logs nothing (%s)", op, rejected.getMessage()).isEqualTo(headBefore);
                assertThat(Truth.read(file)).as("a rejected %s changes nothing", op).isEqualTo(before);
                return;
            }
            if (done) {
                succeeded.merge(op, 1, Integer::sum);
            }
            checkLogged(op, before, Truth.read(file), a.changesAfter(headBefore, 100_000));
        }

        private boolean run(Op op, Truth now) throws SQLException {
            Scope scope = scope();
            List<EventState> userEvents = now.events().values().stream()
                    .filter(e -> e.scope().equals(scope) && !e.id().startsWith("bot-")).toList();
            List<MemoryState> memories = now.memories().values().stream().filter(m -> m.scope().equals(scope)).toList();
            List<MemoryState> live = memories.stream().filter(m -> m.revokedAt() == null).toList();
            switch (op) {
                case SUBMIT -> {
                    boolean bot = random.nextInt(5) == 0;
                    noteEvent(submit(a, event((bot ? "bot-" : "ev-") + (++counter), scope, bot ? Role.ASSISTANT : Role.USER,
                            text(), time())));
                    return true;
                }
                case SUBMIT_BATCH -> {
                    List<EventSubmission> batch = new ArrayList<>();
                    for (int i = 0; i < 2 + random.nextInt(3); i++) {
                        batch.add(event("ev-" + (++counter), scope, Role.USER, text(), time()));
                    }
                    BatchResult<SubmitResult> r = a.submitEvents(batch);
                    assertThat(r.failed()).isFalse();
                    r.committed().forEach(s -> noteEvent(s.event()));
                    return true;
                }
                case SUBMIT_EXTRACT -> {
                    SubmitResult r = a.submitForExtraction(event("ev-" + (++counter), scope, Role.USER, text(), time()));
                    assertThat(r.event().extraction()).isEqualTo(ExtractionState.PENDING);
                    noteEvent(r.event());
                    return true;
                }
                case MARK_PENDING -> {
                    EventState e = pick(userEvents);
                    if (e == null) {
                        return false;
                    }
                    a.markExtractionPending(e.id(), "timeout");
                    return true;
                }
                case MEMORY -> {
                    EventState e = pick(userEvents);
                    if (e == null) {
                        return false;
                    }
                    Event source = a.event(scope, e.id()).orElseThrow();
                    noteMemory(a.addMemory(scope, userFact(source, text()).build()));
                    return true;
                }
                case TIMELINE -> {
                    EventState e = pick(userEvents);
                    if (e == null) {
                        return false;
                    }
                    Event source = a.event(scope, e.id()).orElseThrow();
                    String subject = SUBJECTS[random.nextInt(SUBJECTS.length)];
                    String key = KEYS[random.nextInt(KEYS.length)];
                    noteMemory(a.addMemory(scope, fact(source, subject + " " + key + " " + text(), subject, key, time())));
                    return true;
                }
                case CORRECT -> {
                    MemoryState m = pick(live);
                    if (m == null) {
                        return false;
                    }
                    Correction c = a.correctMemory(scope, m.id(),
                            new CorrectionDraft("更正 corrected " + text(), null, random.nextBoolean() ? null : time()));
                    assertThat(c.revoked().revoked()).isTrue();
                    noteEvent(c.event());
                    noteMemory(c.corrected());
                    return true;
                }
                case RELATE -> {
                    MemoryState x = pick(memories);
                    MemoryState y = pick(memories);
                    if (x == null || x.id().equals(y.id())) {
                        return false;
                    }
                    a.relate(scope, x.id(), y.id());
                    return true;
                }
                case VECTORS -> {
                    return storeVectors(scope, now);
                }
                case DELETE_EVENT -> {
                    EventState e = pick(now.events().values().stream().filter(x -> x.scope().equals(scope)).toList());
                    if (e == null) {
                        return false;
                    }
                    checkDeletion(a.deleteEvent(scope, e.id()), now);
                    return true;
                }
                case DELETE_MEMORY -> {
                    MemoryState m = pick(memories);
                    if (m == null) {
                        return false;
                    }
                    checkDeletion(a.deleteMemory(scope, m.id()), now);
                    return true;
                }
                case RESUBMIT_DELETED -> {
                    String id = pick(deletedEvents.stream().filter(x -> !x.startsWith("bot-")).toList());
                    if (id == null || now.events().values().stream().anyMatch(e -> e.id().equals(id))) {
                        return false;
                    }
                    Event e = submit(a, event(id, scope, Role.USER, "重新提交 resubmitted " + text(), time()));
                    assertThat(eventRows.get(id)).as("a resubmitted ID gets a new row").doesNotContain(e.sequence());
                    noteEvent(e);
                    return true;
                }
                default -> throw new IllegalStateException(op.name());
            }
        }

        /** V3: fresh, stale, revoked, gone and repeated vectors; entries for exactly those stored. */
        private boolean storeVectors(Scope scope, Truth now) {
            List<VectorCache.NewVector> batch = new ArrayList<>();
            List<String> expectStored = new ArrayList<>();
            int expectSkipped = 0;
            for (VectorCache.Task task : a.memoriesWithoutVectors(scope, FP, 0, 1 + random.nextInt(4))) {
                batch.add(new VectorCache.NewVector(task.memoryId(), task.contentHash(), vector(random)));
                expectStored.add(task.memoryId());
            }
            List<MemoryState> inScope = now.memories().values().stream().filter(m -> m.scope().equals(scope)).toList();
            MemoryState again = pick(inScope.stream().filter(MemoryState::vector).toList());
            if (again != null && random.nextBoolean()) {
                batch.add(new VectorCache.NewVector(again.id(), VectorCache.contentHash(again.text()), vector(random)));
                expectStored.add(again.id());
            }
            MemoryState revoked = pick(inScope.stream().filter(m -> m.revokedAt() != null).toList());
            if (revoked != null && random.nextBoolean()) {
                batch.add(new VectorCache.NewVector(revoked.id(), VectorCache.contentHash(revoked.text()), vector(random)));
                expectSkipped++;
            }
            MemoryState stale = pick(inScope);
            if (stale != null && random.nextInt(3) == 0) {
                batch.add(0, new VectorCache.NewVector(stale.id(), VectorCache.contentHash("旧文本 old text"), vector(random)));
                expectSkipped++;
            }
            String gone = pick(List.copyOf(deletedMemories));
            if (gone != null && random.nextInt(3) == 0) {
                batch.add(new VectorCache.NewVector(gone, VectorCache.contentHash("gone"), vector(random)));
                expectSkipped++;
            }
            if (batch.isEmpty()) {
                return false;
            }
            long before = head(a);
            VectorCache.Stored stored = a.storeVectors(FP, batch);
            assertThat(stored).as("V3 stored and skipped").isEqualTo(new VectorCache.Stored(expectStored.size(), expectSkipped));
            List<ChangeLog.Entry> logged = a.changesAfter(before, 1000);
            assertThat(described(logged, ChangeLog.Entity.VECTOR)).as("V3 one vector insert per stored vector")
                    .isEqualTo(expectStored.stream().map(id -> "insert:" + id + "#" + memoryRows.get(id)).sorted().toList());
            assertThat(logged).as("storing vectors logs nothing else")
                    .allSatisfy(e -> assertThat(e.entity()).isEqualTo(ChangeLog.Entity.VECTOR));
            return !expectStored.isEmpty();
        }

        /** D1: every removed memory and event has a delete entry with its row, every removed vector too. */
        private void checkDeletion(Deletion d, Truth before) throws SQLException {
            deletedEvents.addAll(d.eventIds());
            deletedMemories.addAll(d.memoryIds());
            List<ChangeLog.Entry> logged = a.changesAfter(0, 1_000_000).stream()
                    .filter(e -> e.op() == ChangeLog.Op.DELETE).toList();
            Map<String, Long> rowOf = new LinkedHashMap<>();
            before.memories().values().forEach(m -> rowOf.put(m.id(), m.row()));
            List<String> expectedVectors = d.memoryIds().stream().filter(id -> before.vectors().contains(rowOf.get(id)))
                    .map(id -> "delete:" + id + "#" + rowOf.get(id)).sorted().toList();
            assertThat(d.vectorsRemoved()).isEqualTo(expectedVectors.size());
            assertThat(described(logged, ChangeLog.Entity.VECTOR)).as("D1 vector delete entries").containsAll(expectedVectors);
            assertThat(described(logged, ChangeLog.Entity.MEMORY)).as("D1 memory delete entries")
                    .containsAll(d.memoryIds().stream().map(id -> "delete:" + id + "#" + memoryRows.get(id)).toList());
            Map<String, Long> eventRowOf = new LinkedHashMap<>();
            before.events().values().forEach(e -> eventRowOf.put(e.id(), e.row()));
            assertThat(described(logged, ChangeLog.Entity.EVENT)).as("D1 event delete entries")
                    .containsAll(d.eventIds().stream().map(id -> "delete:" + id + "#" + eventRowOf.get(id)).toList());
            assertThat(memoryTruth(file).values()).extracting(MemoryState::id).noneMatch(d.memoryIds()::contains);
        }

        /**
         * Every row that this write added, changed or removed has an entry of this write naming it by
         * ID and row: memories and events (insert, update, delete), vectors (insert, delete).
         */
        private void checkLogged(Op op, Truth before, Truth after, List<ChangeLog.Entry> logged) {
            Set<String> entries = new TreeSet<>();
            for (ChangeLog.Entry e : logged) {
                entries.add(e.entity() + ":" + e.op() + ":" + e.entityId() + "#" + e.rowId());
            }
            Set<Long> memoryRowsTouched = new TreeSet<>(before.memories().keySet());
            memoryRowsTouched.addAll(after.memories().keySet());
            for (long row : memoryRowsTouched) {
                MemoryState was = masked(before.memories().get(row));
                MemoryState is = masked(after.memories().get(row));
                if (Objects.equals(was, is)) {
                    continue;
                }
                ChangeLog.Op expected = was == null ? ChangeLog.Op.INSERT : is == null ? ChangeLog.Op.DELETE : ChangeLog.Op.UPDATE;
                String id = (is != null ? is : was).id();
                assertThat(entries).as("%s changed memory row %d (%s -> %s)", op, row, was, is)
                        .contains(ChangeLog.Entity.MEMORY + ":" + expected + ":" + id + "#" + row);
            }
            Set<Long> vectorsTouched = new TreeSet<>(before.vectors());
            vectorsTouched.addAll(after.vectors());
            for (long row : vectorsTouched) {
                boolean had = before.vectors().contains(row);
                boolean has = after.vectors().contains(row);
                if (had != has) {
                    MemoryState m = has ? after.memories().get(row) : before.memories().get(row);
                    assertThat(entries).as("%s changed the vector of row %d", op, row).contains(ChangeLog.Entity.VECTOR + ":"
                            + (has ? ChangeLog.Op.INSERT : ChangeLog.Op.DELETE) + ":" + m.id() + "#" + row);
                }
            }
            Set<Long> eventRowsTouched = new TreeSet<>(before.events().keySet());
            eventRowsTouched.addAll(after.events().keySet());
            for (long row : eventRowsTouched) {
                EventState was = before.events().get(row);
                EventState is = after.events().get(row);
                if (Objects.equals(was, is)) {
                    continue;
                }
                ChangeLog.Op expected = was == null ? ChangeLog.Op.INSERT : is == null ? ChangeLog.Op.DELETE : ChangeLog.Op.UPDATE;
                String id = (is != null ? is : was).id();
                assertThat(entries).as("%s changed event row %d (%s -> %s)", op, row, was, is)
                        .contains(ChangeLog.Entity.EVENT + ":" + expected + ":" + id + "#" + row);
            }
        }

        private static MemoryState masked(MemoryState m) {
            return m == null ? null : new MemoryState(m.row(), m.id(), m.scope(), m.eventId(), m.text(), m.validity(),
                    m.revokedAt(), false);
        }
    }

    @Test
    @DisplayName("L2 D1 T4 C1 V3 a follower of the change log catching up at random points always equals the authority")
    void randomWorkloadFollowerEqualsAuthority() throws Exception {
        Random random = SeededRandom.create("ChangeLogFollowerTest.randomWorkloadFollowerEqualsAuthority");
        Path file = dbFile(dir);
        Follower f = new Follower();
        int catchUps = 0;
        try (Authority a = open(dir)) {
            Workload w = new Workload(random, a, file);
            int[] gaps = {1, 1, 1, 2, 3, 8, 25, 80};
            int untilCatchUp = gaps[random.nextInt(gaps.length)];
            for (int step = 0; step < 400; step++) {
                w.step();
                if (--untilCatchUp == 0) {
                    f.catchUp(a, 1 + random.nextInt(40));
                    assertFollowerCurrent(f, file);
                    catchUps++;
                    untilCatchUp = gaps[random.nextInt(gaps.length)];
                }
            }
            f.catchUp(a, 1 + random.nextInt(40));
            assertFollowerCurrent(f, file);
            assertThat(f.catchUp(a, 10)).as("a current follower finds nothing new").isEmpty();

            // A follower starting from nothing reaches the same state in one catch-up.
            Follower late = new Follower();
            late.catchUp(a, 1000);
            assertThat(late.memories).isEqualTo(f.memories);
            assertThat(late.events).isEqualTo(f.events);
            assertThat(late.vectorRowsByLog).isEqualTo(f.vectorRowsByLog);

            // Every entry names the row the workload was given for that ID, deleted rows included.
            for (ChangeLog.Entry e : f.seen) {
                switch (e.entity()) {
                    case MEMORY, VECTOR -> assertThat(e.rowId()).as("row of %s", e).isEqualTo(w.memoryRows.get(e.entityId()));
                    case EVENT -> assertThat(w.eventRows.get(e.entityId())).as("rows of event %s", e).contains(e.rowId());
                    default -> {
                        // rows no index keys: see entriesOfUnindexedRowsCarryNoRow
                    }
                }
            }
            assertThat(w.deletedMemories).as("memories deleted by the workload").isNotEmpty();
            assertThat(f.memories.values()).extracting(MemoryState::id).noneMatch(w.deletedMemories::contains);
            // The workload did what this test claims to cover.
            assertThat(w.succeeded).as("successful writes by kind").allSatisfy((op, n) -> assertThat(n).isPositive());
            assertThat(w.succeeded.keySet()).as("every kind of write succeeded at least once").containsAll(
                    List.of(Op.SUBMIT, Op.SUBMIT_BATCH, Op.SUBMIT_EXTRACT, Op.MEMORY, Op.TIMELINE, Op.CORRECT, Op.RELATE,
                            Op.VECTORS, Op.DELETE_EVENT, Op.DELETE_MEMORY, Op.MARK_PENDING));
            assertThat(f.seen).extracting(e -> e.entity() + ":" + e.op()).contains("vector:insert", "vector:delete",
                    "memory:update", "memory:delete", "event:update", "event:delete");
            assertThat(f.memories.values()).as("some memories were closed by later facts (T4)")
                    .anySatisfy(m -> assertThat(m.validity().open()).isFalse());
            assertThat(f.memories.values()).as("some memories were revoked (C1)")
                    .anySatisfy(m -> assertThat(m.revokedAt()).isNotNull());
            assertThat(catchUps).isGreaterThan(5);
            System.out.println("[ChangeLogFollowerTest] writes " + w.succeeded + ", catch-ups " + catchUps
                    + ", entries " + f.seen.size());
        }
    }
}
