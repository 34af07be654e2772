package dev.jiyi.authority;

import dev.jiyi.authority.index.ChangeLog;
import dev.jiyi.authority.index.TransactionalIndex;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.dump;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.invalidatedAt;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.raw;
import static dev.jiyi.authority.AuthorityTestKit.reference;
import static dev.jiyi.authority.AuthorityTestKit.strings;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.timelineFact;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Permanent deletion (D1, D2), checkpoint removal and invalidation (D3), closed intervals after a
 * deletion (T7), atomicity with attached indexes and database health afterwards.
 */
class DeletionTest {

    @TempDir
    Path dir;

    private static final Instant T2020 = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant T2021 = Instant.parse("2021-01-01T00:00:00Z");
    private static final Instant T2022 = Instant.parse("2022-01-01T00:00:00Z");
    private static final Instant T2023 = Instant.parse("2023-01-01T00:00:00Z");
    private static final Instant T2024 = Instant.parse("2024-01-01T00:00:00Z");

    private int counter;

    // ------------------------------------------------------------------ fixtures

    private Event say(Authority a, Scope scope, String text) {
        return submit(a, event("ev-" + counter++, scope, Role.USER, text, T2020));
    }

    private Event sayIn(Authority a, Scope scope, String session, String text) {
        return submit(a, new EventSubmission("ev-" + counter++, scope, Role.USER, text, "test", Category.CONVERSATION,
                session, T2020));
    }

    /** A plain user fact quoting {@code quote} from its event. */
    private static Memory memo(Authority a, Scope scope, Event e, String text, String quote) {
        return a.addMemory(scope, userFact(e, text).quote(quote).build());
    }

    private static Memory memo(Authority a, Scope scope, Event e, String text) {
        return a.addMemory(scope, userFact(e, text).build());
    }

    private Memory fact(Authority a, Scope scope, String subject, String key, Instant validAt) {
        Event e = submit(a, event("ev-" + counter++, scope, Role.USER, subject + " 的 " + key + " since " + validAt, validAt));
        return a.addMemory(scope, timelineFact(e, subject, key, validAt));
    }

    private static Correction correct(Authority a, Scope scope, Memory m, String text) {
        return a.correctMemory(scope, m.id(), new CorrectionDraft(text, null, null));
    }

    private static Checkpoint checkpoint(Authority a, Scope scope, Event covered) {
        return a.saveCheckpoint(scope, new CheckpointDraft(covered.sessionId(), "清理数据 clean up data",
                List.of("导出 export"), List.of("删除 delete"), List.of("不要丢数据 keep data"), "运行 doctor",
                covered.sequence()));
    }

    private static void embed(Path file, String memoryId) throws SQLException {
        float[] vector = {0.1f, -0.2f, 0.3f, 0.4f};
        ByteBuffer buffer = ByteBuffer.allocate(vector.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : vector) {
            buffer.putFloat(f);
        }
        try (Connection c = raw(file); PreparedStatement ps = c.prepareStatement("INSERT INTO embeddings (memory_seq, "
                + "memory_id, fingerprint, dimensions, vector, content_hash, created_at) "
                + "VALUES ((SELECT seq FROM memories WHERE id = ?1), ?1, ?, ?, ?, ?, ?)")) {
            ps.setString(1, memoryId);
            ps.setString(2, "http://localhost:0/v1|test-embed|v1");
            ps.setInt(3, vector.length);
            ps.setBytes(4, buffer.array());
            ps.setString(5, "hash-" + memoryId);
            ps.setString(6, "2024-05-01T00:00:00.000000Z");
            ps.executeUpdate();
        }
    }

    private static Validity validity(Authority a, Scope scope, Memory m) {
        return a.memory(scope, m.id()).orElseThrow().validity();
    }

    private static Set<String> column(Path file, String sql) throws SQLException {
        return new HashSet<>(strings(file, sql));
    }

    private Path db() {
        return dbFile(dir);
    }

    /** Foreign-key violations and orphans that the schema's keys would not catch with enforcement off. */
    private static void assertIntegrity(Authority a, Path file) throws SQLException {
        DoctorReport report = a.doctor();
        assertThat(report.problems()).isEmpty();
        assertThat(report.healthy()).isTrue();
        assertThat(report.foreignKeyViolations()).isEmpty();
        try (Connection c = raw(file); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("PRAGMA foreign_key_check")) {
            assertThat(rs.next()).as("foreign_key_check has no rows").isFalse();
        }
        assertThat(count(file, "SELECT count(*) FROM memories m WHERE NOT EXISTS "
                + "(SELECT 1 FROM events e WHERE e.id = m.event_id)")).isZero();
        assertThat(count(file, "SELECT count(*) FROM relations r WHERE NOT EXISTS (SELECT 1 FROM memories m "
                + "WHERE m.id = r.from_id) OR NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = r.to_id)")).isZero();
        assertThat(count(file, "SELECT count(*) FROM embeddings v WHERE NOT EXISTS "
                + "(SELECT 1 FROM memories m WHERE m.id = v.memory_id)")).isZero();
        assertThat(count(file, "SELECT count(*) FROM checkpoints k WHERE NOT EXISTS "
                + "(SELECT 1 FROM events e WHERE e.sequence = k.covered_seq)")).isZero();
    }

    /**
     * A derived index that writes what it is told into a table of the same database inside the
     * authority's transaction (so its log shows exactly what committed), and fails on demand.
     */
    static final class LoggingIndex implements TransactionalIndex {
        enum Hook { MEMORY_REMOVED, EVENT_REMOVED }

        final List<String> calls = new ArrayList<>();
        Hook failOn;
        int failAtCall = 1;
        boolean runtimeFailure;

        @Override
        public void eventAdded(Sql tx, Event event) throws SQLException {
            log(tx.connection(), "event-added", event.id());
        }

        @Override
        public void eventRemoved(Sql tx, Event event) throws SQLException {
            hook(Hook.EVENT_REMOVED);
            log(tx.connection(), "event-removed", Long.toString(event.sequence()));
        }

        @Override
        public void memoryAdded(Sql tx, Memory memory) throws SQLException {
            long rowId = memory.rowId();
            log(tx.connection(), "memory-added", Long.toString(rowId));
        }

        @Override
        public void memoryRemoved(Sql tx, Memory memory) throws SQLException {
            long rowId = memory.rowId();
            hook(Hook.MEMORY_REMOVED);
            log(tx.connection(), "memory-removed", Long.toString(rowId));
            log(tx.connection(), "memory-removed-id", memory.id());
        }

        private void hook(Hook hook) throws SQLException {
            calls.add(hook.name());
            long seen = calls.stream().filter(hook.name()::equals).count();
            if (hook == failOn && seen == failAtCall) {
                if (runtimeFailure) {
                    throw new IllegalStateException("index " + hook + " failed");
                }
                throw new SQLException("index " + hook + " failed");
            }
        }

        private static void log(Connection tx, String what, String id) throws SQLException {
            try (Statement s = tx.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS test_deletion_log (n INTEGER PRIMARY KEY, what TEXT, id TEXT)");
            }
            try (PreparedStatement ps = tx.prepareStatement("INSERT INTO test_deletion_log (what, id) VALUES (?, ?)")) {
                ps.setString(1, what);
                ps.setString(2, id);
                ps.executeUpdate();
            }
        }

        static List<String> committed(Path file, String what) throws SQLException {
            return strings(file, "SELECT id FROM test_deletion_log WHERE what = '" + what + "' ORDER BY n");
        }
    }

    // ------------------------------------------------------------------ D1 closure

    @Test
    @DisplayName("D1 D2 deleting an event removes it, every memory co-derived from it and their edges; related neighbours and everything else stay")
    void deleteEventRemovesCoDerived() throws Exception {
        try (Authority a = open(dir)) {
            Event e1 = say(a, ALICE_WORK, "我叫王芳，住在成都，喜欢火锅 I'm Wang Fang, live in Chengdu, love hotpot");
            Memory name = memo(a, ALICE_WORK, e1, "名字王芳 name Wang Fang", "我叫王芳");
            Memory city = memo(a, ALICE_WORK, e1, "住在成都 lives in Chengdu", "住在成都");
            Memory food = memo(a, ALICE_WORK, e1, "喜欢火锅 loves hotpot", "喜欢火锅");
            Event e2 = say(a, ALICE_WORK, "成都的火锅店很多 Chengdu has many hotpot places");
            Memory x = memo(a, ALICE_WORK, e2, "成都火锅店多");
            Event e3 = say(a, ALICE_WORK, "明天去吃串串 skewers tomorrow");
            Memory y = memo(a, ALICE_WORK, e3, "明天吃串串");
            a.relate(ALICE_WORK, city.id(), x.id());
            a.relate(ALICE_WORK, name.id(), food.id());
            Relation survivorEdge = a.relate(ALICE_WORK, x.id(), y.id());

            Deletion d = a.deleteEvent(ALICE_WORK, e1.id());

            assertThat(d.eventIds()).containsExactly(e1.id());
            assertThat(d.memoryIds()).containsExactlyInAnyOrder(name.id(), city.id(), food.id());
            assertThat(d.relationsRemoved()).isEqualTo(2);
            assertThat(d.vectorsRemoved()).isZero();
            assertThat(d.checkpointsRemoved()).isZero();
            assertThat(a.event(ALICE_WORK, e1.id())).isEmpty();
            for (Memory m : List.of(name, city, food)) {
                assertThat(a.memory(ALICE_WORK, m.id())).isEmpty();
                assertThatThrownBy(() -> a.readMemory(ALICE_WORK, m.id(), 1, 100)).isInstanceOf(NotFoundException.class);
            }
            assertThat(a.events(ALICE_WORK, 0, 100)).extracting(Event::id).containsExactly(e2.id(), e3.id());
            assertThat(a.memory(ALICE_WORK, x.id())).contains(x);
            assertThat(a.memory(ALICE_WORK, y.id())).contains(y);
            assertThat(a.readMemory(ALICE_WORK, x.id(), 1, 100).relations()).containsExactly(survivorEdge);
            assertThat(column(db(), "SELECT id FROM memories")).containsExactlyInAnyOrder(x.id(), y.id());
            assertThat(column(db(), "SELECT from_id || '->' || to_id FROM relations"))
                    .containsExactly(x.id() + "->" + y.id());
            assertIntegrity(a, db());
        }
    }

    @Test
    @DisplayName("D1 deleting a memory removes its source event and every memory co-derived with it")
    void deleteMemoryRemovesSourceAndSiblings() throws Exception {
        try (Authority a = open(dir)) {
            Event e1 = say(a, CJK_SCOPE, "周末去爬山，然后看电影 hiking then a movie");
            Memory hike = memo(a, CJK_SCOPE, e1, "周末爬山 hiking", "爬山");
            Memory movie = memo(a, CJK_SCOPE, e1, "看电影 movie", "看电影");
            Event e2 = say(a, CJK_SCOPE, "下周出差 business trip next week");
            Memory trip = memo(a, CJK_SCOPE, e2, "下周出差");

            Deletion d = a.deleteMemory(CJK_SCOPE, movie.id());

            assertThat(d.eventIds()).containsExactly(e1.id());
            assertThat(d.memoryIds()).containsExactlyInAnyOrder(hike.id(), movie.id());
            assertThat(a.event(CJK_SCOPE, e1.id())).isEmpty();
            assertThat(a.memory(CJK_SCOPE, hike.id())).isEmpty();
            assertThat(a.memory(CJK_SCOPE, trip.id())).contains(trip);
            assertThat(a.event(CJK_SCOPE, e2.id())).contains(e2);
            assertThat(count(db(), "SELECT count(*) FROM events")).isEqualTo(1);
            assertThat(count(db(), "SELECT count(*) FROM memories")).isEqualTo(1);
            assertIntegrity(a, db());
        }
    }

    @Test
    @DisplayName("D1 deleting an event without memories (a conversation turn or a reference) removes only that event")
    void deleteBareEvents() throws Exception {
        try (Authority a = open(dir)) {
            Event bare = say(a, ALICE_WORK, "嗯嗯 ok");
            Event ref = submit(a, reference("ref-1", ALICE_WORK, "参考资料：SQLite 文档 reference docs"));
            Event other = say(a, ALICE_WORK, "其他 other");
            Memory kept = memo(a, ALICE_WORK, other, "其他");

            Deletion d1 = a.deleteEvent(ALICE_WORK, bare.id());
            Deletion d2 = a.deleteEvent(ALICE_WORK, ref.id());

            assertThat(d1.eventIds()).containsExactly(bare.id());
            assertThat(d1.memoryIds()).isEmpty();
            assertThat(d2.eventIds()).containsExactly(ref.id());
            assertThat(d2.memoryIds()).isEmpty();
            assertThat(a.events(ALICE_WORK, 0, 100)).extracting(Event::id).containsExactly(other.id());
            assertThat(a.memory(ALICE_WORK, kept.id())).contains(kept);
            assertIntegrity(a, db());
        }
    }

    @Test
    @DisplayName("D1 deleting one co-derived memory also removes its siblings' own correction lineages, transitively, with their correction events")
    void siblingLineageGoesToo() throws Exception {
        try (Authority a = open(dir)) {
            Event e1 = say(a, ALICE_WORK, "我有两个孩子，老大上小学 two kids, the elder in primary school");
            Memory kids = memo(a, ALICE_WORK, e1, "有两个孩子 two kids", "我有两个孩子");
            Memory school = memo(a, ALICE_WORK, e1, "老大上初中 elder in middle school", "老大上小学");
            Correction c1 = correct(a, ALICE_WORK, school, "老大上小学 elder in primary school");
            Correction c2 = correct(a, ALICE_WORK, c1.corrected(), "老大上小学三年级 elder in grade 3");
            Event unrelated = say(a, ALICE_WORK, "无关 unrelated");
            Memory keep = memo(a, ALICE_WORK, unrelated, "无关");

            Deletion d = a.deleteMemory(ALICE_WORK, kids.id());

            assertThat(d.eventIds()).containsExactlyInAnyOrder(e1.id(), c1.event().id(), c2.event().id());
            assertThat(d.memoryIds()).containsExactlyInAnyOrder(kids.id(), school.id(), c1.corrected().id(),
                    c2.corrected().id());
            assertThat(d.relationsRemoved()).isEqualTo(2);
            assertThat(column(db(), "SELECT id FROM events")).containsExactly(unrelated.id());
            assertThat(column(db(), "SELECT id FROM memories")).containsExactly(keep.id());
            assertThat(count(db(), "SELECT count(*) FROM relations")).isZero();
            assertIntegrity(a, db());
        }
    }

    @Test
    @DisplayName("D1 the correction lineage goes in both directions, transitively: from the mistake, the middle or the last correction, by memory or by event, the same closure")
    void lineageBothDirections() throws Exception {
        // Each start gets its own database with the same shape: mistake m0 (with sibling s0) -> c1 -> c2.
        List<String> starts = List.of("memory:m0", "memory:s0", "memory:c1", "memory:c2", "event:e0", "event:ce1",
                "event:ce2");
        for (int run = 0; run < starts.size(); run++) {
            String start = starts.get(run);
            Path file = dir.resolve("run-" + run).resolve("jiyi.db");
            try (Authority a = Authority.open(file, List.of())) {
                Event e0 = say(a, ALICE_WORK, "项目截止日期是六月一日 the deadline is June 1st; 负责人是小张 owner Zhang");
                Memory m0 = memo(a, ALICE_WORK, e0, "截止日期五月一日 deadline May 1st", "项目截止日期是六月一日");
                Memory s0 = memo(a, ALICE_WORK, e0, "负责人小张 owner Zhang", "负责人是小张");
                Correction c1 = correct(a, ALICE_WORK, m0, "截止日期六月一日 deadline June 1st");
                Correction c2 = correct(a, ALICE_WORK, c1.corrected(), "截止日期六月一日中午 deadline June 1st noon");
                Event other = say(a, ALICE_WORK, "会议室是301 meeting room 301");
                Memory survivor = memo(a, ALICE_WORK, other, "会议室301");
                Relation keptEdge = a.relate(ALICE_WORK, survivor.id(), c1.corrected().id());

                Map<String, String> byName = Map.of("m0", m0.id(), "s0", s0.id(), "c1", c1.corrected().id(),
                        "c2", c2.corrected().id(), "e0", e0.id(), "ce1", c1.event().id(), "ce2", c2.event().id());
                String id = byName.get(start.substring(start.indexOf(':') + 1));
                Deletion d = start.startsWith("memory:") ? a.deleteMemory(ALICE_WORK, id) : a.deleteEvent(ALICE_WORK, id);

                assertThat(d.eventIds()).as(start).containsExactlyInAnyOrder(e0.id(), c1.event().id(), c2.event().id());
                assertThat(d.memoryIds()).as(start).containsExactlyInAnyOrder(m0.id(), s0.id(), c1.corrected().id(),
                        c2.corrected().id());
                // Two corrects edges and the related edge to the survivor.
                assertThat(d.relationsRemoved()).as(start).isEqualTo(3);
                assertThat(column(file, "SELECT id FROM events")).as(start).containsExactly(other.id());
                assertThat(column(file, "SELECT id FROM memories")).as(start).containsExactly(survivor.id());
                MemoryView view = a.readMemory(ALICE_WORK, survivor.id(), 1, 100);
                assertThat(view.relations()).as(start).doesNotContain(keptEdge).isEmpty();
                assertThat(view.corrects()).isEmpty();
                assertThat(view.correctedBy()).isEmpty();
                assertIntegrity(a, file);
            }
        }
    }

    @Test
    @DisplayName("D2 memories connected only by related links survive; their edges to removed memories go, their other edges stay")
    void relatedSurvivors() throws Exception {
        try (Authority a = open(dir)) {
            Event e0 = say(a, ALICE_WORK, "I adopted a dog named 旺财");
            Memory dog = memo(a, ALICE_WORK, e0, "dog named 旺财");
            Correction c = correct(a, ALICE_WORK, dog, "dog named 来福");
            Event e1 = say(a, ALICE_WORK, "旺财 likes the park 公园");
            Memory park = memo(a, ALICE_WORK, e1, "dog likes the park");
            Event e2 = say(a, ALICE_WORK, "the park is near 西湖");
            Memory lake = memo(a, ALICE_WORK, e2, "park near West Lake");
            Event e3 = say(a, ALICE_WORK, "I walk every morning 每天早上散步");
            Memory walk = memo(a, ALICE_WORK, e3, "walks every morning");
            // Edges both ways between a survivor and a removed memory, to a lineage member, and survivor-survivor.
            a.relate(ALICE_WORK, dog.id(), park.id());
            a.relate(ALICE_WORK, park.id(), dog.id());
            a.relate(ALICE_WORK, walk.id(), c.corrected().id());
            Relation parkLake = a.relate(ALICE_WORK, park.id(), lake.id());
            Relation walkPark = a.relate(ALICE_WORK, walk.id(), park.id());

            Deletion d = a.deleteEvent(ALICE_WORK, e0.id());

            assertThat(d.memoryIds()).containsExactlyInAnyOrder(dog.id(), c.corrected().id());
            assertThat(d.eventIds()).containsExactlyInAnyOrder(e0.id(), c.event().id());
            assertThat(d.relationsRemoved()).isEqualTo(4); // two related to park, one to walk, one corrects
            for (Memory m : List.of(park, lake, walk)) {
                assertThat(a.memory(ALICE_WORK, m.id())).contains(m);
            }
            assertThat(a.readMemory(ALICE_WORK, park.id(), 1, 100).relations()).containsExactlyInAnyOrder(parkLake, walkPark);
            assertThat(a.readMemory(ALICE_WORK, walk.id(), 1, 100).relations()).containsExactly(walkPark);
            assertThat(count(db(), "SELECT count(*) FROM relations")).isEqualTo(2);
            assertIntegrity(a, db());
        }
    }

    @Test
    @DisplayName("D1 vectors of removed memories are removed; survivors' and other scopes' vectors stay")
    void vectorsRemoved() throws Exception {
        try (Authority a = open(dir)) {
            Event e1 = say(a, ALICE_WORK, "我在学钢琴和吉他 learning piano and guitar");
            Memory piano = memo(a, ALICE_WORK, e1, "学钢琴 piano", "钢琴");
            Memory guitar = memo(a, ALICE_WORK, e1, "学吉他 guitar", "吉他");
            Correction c = correct(a, ALICE_WORK, guitar, "学尤克里里 ukulele");
            Event e2 = say(a, ALICE_WORK, "我喜欢古典音乐 classical music");
            Memory classical = memo(a, ALICE_WORK, e2, "喜欢古典音乐");
            Event home = say(a, ALICE_HOME, "我在学钢琴 piano at home");
            Memory homePiano = memo(a, ALICE_HOME, home, "在家学钢琴");
            for (Memory m : List.of(piano, guitar, c.corrected(), classical, homePiano)) {
                embed(db(), m.id());
            }

            Deletion d = a.deleteMemory(ALICE_WORK, c.corrected().id());

            assertThat(d.vectorsRemoved()).isEqualTo(3);
            assertThat(column(db(), "SELECT memory_id FROM embeddings"))
                    .containsExactlyInAnyOrder(classical.id(), homePiano.id());
            assertIntegrity(a, db());
        }
    }

    @Test
    @DisplayName("D1 L2 a deletion appends delete entries for every removed event, memory, relation and covering checkpoint, IDs only")
    void deletionChangeLog() throws Exception {
        try (Authority a = open(dir)) {
            Event e1 = sayIn(a, ALICE_WORK, "s1", "我的密码提示是生日 my password hint is my birthday");
            Memory hint = memo(a, ALICE_WORK, e1, "密码提示是生日 password hint");
            Correction c = correct(a, ALICE_WORK, hint, "密码提示是宠物名 the hint is the pet's name");
            Event e2 = sayIn(a, ALICE_WORK, "s1", "宠物叫豆豆 the pet is Doudou");
            Memory pet = memo(a, ALICE_WORK, e2, "宠物豆豆");
            a.relate(ALICE_WORK, pet.id(), c.corrected().id());
            Checkpoint covering = checkpoint(a, ALICE_WORK, e1);
            Checkpoint other = checkpoint(a, ALICE_WORK, e2);
            long before = a.changesAfter(0, 10_000).getLast().seq();

            Deletion d = a.deleteEvent(ALICE_WORK, e1.id());

            List<ChangeLog.Entry> log = a.changesAfter(before, 10_000);
            assertThat(log).extracting(e -> e.entity() + ":" + e.op() + ":" + e.entityId()).containsExactlyInAnyOrder(
                    "memory:delete:" + hint.id(),
                    "memory:delete:" + c.corrected().id(),
                    "event:delete:" + e1.id(),
                    "event:delete:" + c.event().id(),
                    "relation:delete:" + c.corrected().id() + "->" + hint.id(),
                    "relation:delete:" + pet.id() + "->" + c.corrected().id(),
                    "checkpoint:delete:" + covering.id(),
                    "checkpoint:update:" + other.id());
            assertThat(log).allSatisfy(e -> {
                assertThat(e.personaId()).isEqualTo("alice");
                assertThat(e.projectId()).isEqualTo("work");
                assertThat(e.entityId()).doesNotContain("密码").doesNotContain("password").doesNotContain("宠物");
            });
            assertThat(d.checkpointsRemoved()).isEqualTo(1);
            assertThat(d.checkpointsInvalidated()).isEqualTo(1);
        }
    }

    // ------------------------------------------------------------------ D3 checkpoints

    @Test
    @DisplayName("D3 K1 checkpoints covering a removed event (even invalidated ones) are removed; every other checkpoint of the scope is invalidated; other scopes untouched")
    void checkpointsRemovedOrInvalidated() throws Exception {
        try (Authority a = open(dir)) {
            Event e1 = sayIn(a, ALICE_WORK, "s1", "升级依赖 upgrade dependencies");
            Event e2 = sayIn(a, ALICE_WORK, "s1", "跑测试 run the tests");
            Event e3 = sayIn(a, ALICE_WORK, "任务-2", "写变更日志 write the changelog");
            Event home = sayIn(a, ALICE_HOME, "s1", "浇花 water the plants");
            Event bob = sayIn(a, BOB_WORK, "s1", "bob 升级依赖 upgrade");
            Memory m1 = memo(a, ALICE_WORK, e1, "升级到 Java 17", "升级依赖");
            Checkpoint coveringOld = checkpoint(a, ALICE_WORK, e1);
            Checkpoint survivingOld = checkpoint(a, ALICE_WORK, e2);
            Correction c = correct(a, ALICE_WORK, m1, "升级到 Java 21 upgrade to Java 21");
            assertThat(c.checkpointsInvalidated()).isEqualTo(2);
            String survivingOldInvalidatedAt = invalidatedAt(db(), survivingOld.id());
            assertThat(survivingOldInvalidatedAt).isNotNull();

            Checkpoint covering = checkpoint(a, ALICE_WORK, e1);
            Checkpoint coveringCorrection = checkpoint(a, ALICE_WORK, c.event());
            Checkpoint sameSession = checkpoint(a, ALICE_WORK, e2);
            Checkpoint otherSession = checkpoint(a, ALICE_WORK, e3);
            Checkpoint homeCp = checkpoint(a, ALICE_HOME, home);
            Checkpoint bobCp = checkpoint(a, BOB_WORK, bob);
            Thread.sleep(5);

            Deletion d = a.deleteEvent(ALICE_WORK, e1.id());

            assertThat(d.checkpointsRemoved()).isEqualTo(3);
            assertThat(d.checkpointsInvalidated()).isEqualTo(2);
            assertThat(column(db(), "SELECT id FROM checkpoints")).containsExactlyInAnyOrder(
                    Long.toString(survivingOld.id()), Long.toString(sameSession.id()), Long.toString(otherSession.id()),
                    Long.toString(homeCp.id()), Long.toString(bobCp.id()));
            assertThat(invalidatedAt(db(), sameSession.id())).isNotNull();
            assertThat(invalidatedAt(db(), otherSession.id())).isNotNull();
            assertThat(invalidatedAt(db(), survivingOld.id())).isEqualTo(survivingOldInvalidatedAt);
            assertThat(invalidatedAt(db(), homeCp.id())).isNull();
            assertThat(invalidatedAt(db(), bobCp.id())).isNull();
            assertThat(a.latestCheckpoint(ALICE_WORK, null)).isEmpty();
            assertThat(a.latestCheckpoint(ALICE_WORK, "任务-2")).isEmpty();
            assertThat(a.latestCheckpoint(ALICE_HOME, "s1")).contains(homeCp);
            assertThat(a.latestCheckpoint(BOB_WORK, "s1")).contains(bobCp);
            assertThat(count(db(), "SELECT count(*) FROM checkpoints WHERE id IN (" + covering.id() + ", "
                    + coveringCorrection.id() + ", " + coveringOld.id() + ")")).isZero();

            // A checkpoint saved after the deletion is valid again.
            Checkpoint fresh = checkpoint(a, ALICE_WORK, e2);
            assertThat(a.latestCheckpoint(ALICE_WORK, "s1")).contains(fresh);
            assertIntegrity(a, db());
        }
    }

    // ------------------------------------------------------------------ T7

    @Test
    @DisplayName("T7 deleting a successor's evidence does not reopen the interval it had closed")
    void closedIntervalsStayClosed() throws Exception {
        try (Authority a = open(dir)) {
            Memory first = fact(a, ALICE_WORK, "我", "住址", T2020);
            Memory middle = fact(a, ALICE_WORK, "我", "住址", T2022);
            Memory last = fact(a, ALICE_WORK, "我", "住址", T2024);

            a.deleteEvent(ALICE_WORK, middle.eventId());
            assertThat(validity(a, ALICE_WORK, first)).isEqualTo(new Validity(T2020, T2022));
            assertThat(validity(a, ALICE_WORK, last)).isEqualTo(Validity.from(T2024));

            a.deleteMemory(ALICE_WORK, last.id());
            assertThat(validity(a, ALICE_WORK, first)).isEqualTo(new Validity(T2020, T2022));

            // A later member is placed among what is left; the closed interval still is not reopened.
            Memory later = fact(a, ALICE_WORK, "我", "住址", T2023);
            assertThat(validity(a, ALICE_WORK, first)).isEqualTo(new Validity(T2020, T2022));
            assertThat(later.validity()).isEqualTo(Validity.from(T2023));
            assertIntegrity(a, db());
        }
    }

    @Test
    @DisplayName("T7 D1 deleting a corrected successor's lineage leaves the interval it closed closed")
    void closedByCorrectedSuccessor() throws Exception {
        try (Authority a = open(dir)) {
            Memory before = fact(a, ALICE_WORK, "Lee", "employer", T2020);
            Memory after = fact(a, ALICE_WORK, "Lee", "employer", T2021);
            Correction c = a.correctMemory(ALICE_WORK, after.id(), new CorrectionDraft("Lee joined 字节跳动 in 2021", null, null));
            assertThat(validity(a, ALICE_WORK, before)).isEqualTo(new Validity(T2020, T2021));

            Deletion d = a.deleteMemory(ALICE_WORK, c.corrected().id());

            assertThat(d.memoryIds()).containsExactlyInAnyOrder(after.id(), c.corrected().id());
            assertThat(validity(a, ALICE_WORK, before)).isEqualTo(new Validity(T2020, T2021));
            assertIntegrity(a, db());
        }
    }

    // ------------------------------------------------------------------ D1 search entries and atomicity

    @Test
    @DisplayName("D1 the attached index is told of every removed memory (row and content) and event, in the deletion's transaction")
    void indexFollowsDeletion() throws Exception {
        LoggingIndex index = new LoggingIndex();
        try (Authority a = open(dir, index)) {
            Event e1 = say(a, ALICE_WORK, "我的邮箱是 a@example.com my email");
            memo(a, ALICE_WORK, e1, "邮箱 email", "我的邮箱");
            memo(a, ALICE_WORK, e1, "email address", "my email");
            Event e2 = say(a, ALICE_WORK, "保留 keep me");
            memo(a, ALICE_WORK, e2, "保留");
            Memory first = a.memory(ALICE_WORK, strings(db(), "SELECT id FROM memories ORDER BY seq").get(0)).orElseThrow();
            Correction c = correct(a, ALICE_WORK, first, "邮箱是 b@example.com");
            Map<Long, List<Long>> rows = a.read(snap -> snap.derivedMemoryRows(List.of(e1.sequence(), c.event().sequence(), e2.sequence())));
            List<Long> removedRows = new ArrayList<>(rows.get(e1.sequence()));
            removedRows.addAll(rows.get(c.event().sequence()));
            assertThat(removedRows).hasSize(3);

            a.deleteEvent(ALICE_WORK, e1.id());

            assertThat(LoggingIndex.committed(db(), "memory-removed")).containsExactlyInAnyOrderElementsOf(
                    removedRows.stream().map(String::valueOf).toList());
            assertThat(LoggingIndex.committed(db(), "event-removed")).containsExactlyInAnyOrder(
                    Long.toString(e1.sequence()), Long.toString(c.event().sequence()));
            assertThat(LoggingIndex.committed(db(), "memory-removed-id")).hasSize(3).contains(first.id(), c.corrected().id());
            assertThat(LoggingIndex.committed(db(), "memory-removed"))
                    .doesNotContain(String.valueOf(rows.get(e2.sequence()).get(0)));
            assertThat(a.<List<RecallRow>>read(snap -> snap.recallRows(ALICE_WORK, removedRows))).isEmpty();
            assertThat(a.<List<RawEventRow>>read(snap -> snap.rawEvents(ALICE_WORK, List.of(e1.sequence(), c.event().sequence())))).isEmpty();
            assertThat(a.<Map<Long, List<Long>>>read(snap -> snap.derivedMemoryRows(List.of(e1.sequence(), c.event().sequence())))).isEmpty();
        }
    }

    @Test
    @DisplayName("D1 a deletion is one transaction: an index failure in memoryRemoved or eventRemoved rolls everything back")
    void deletionIsAtomic() throws Exception {
        LoggingIndex index = new LoggingIndex();
        try (Authority a = open(dir, index)) {
            Event e1 = sayIn(a, ALICE_WORK, "s1", "我在北京工作，同事是老刘 I work in Beijing; colleague Liu");
            Memory work = memo(a, ALICE_WORK, e1, "在北京工作", "我在北京工作");
            Memory colleague = memo(a, ALICE_WORK, e1, "同事老刘", "同事是老刘");
            Correction c = correct(a, ALICE_WORK, work, "在上海工作 works in Shanghai");
            Event e2 = sayIn(a, ALICE_WORK, "s1", "老刘喜欢喝茶 Liu likes tea");
            Memory tea = memo(a, ALICE_WORK, e2, "老刘喜欢茶");
            a.relate(ALICE_WORK, tea.id(), colleague.id());
            for (Memory m : List.of(work, colleague, c.corrected(), tea)) {
                embed(db(), m.id());
            }
            checkpoint(a, ALICE_WORK, e1);
            Checkpoint survivor = checkpoint(a, ALICE_WORK, e2);
            Map<String, List<String>> before = dump(db());

            record Failure(LoggingIndex.Hook hook, int atCall, boolean runtime) {
            }
            List<Failure> failures = List.of(
                    new Failure(LoggingIndex.Hook.MEMORY_REMOVED, 1, false),
                    new Failure(LoggingIndex.Hook.MEMORY_REMOVED, 3, true),
                    new Failure(LoggingIndex.Hook.EVENT_REMOVED, 1, true),
                    new Failure(LoggingIndex.Hook.EVENT_REMOVED, 2, false),
                    new Failure(LoggingIndex.Hook.MEMORY_REMOVED, 2, false),
                    new Failure(LoggingIndex.Hook.EVENT_REMOVED, 1, false));
            for (Failure f : failures) {
                index.calls.clear();
                index.failOn = f.hook();
                index.failAtCall = f.atCall();
                index.runtimeFailure = f.runtime();
                String start = f.hook() == LoggingIndex.Hook.EVENT_REMOVED ? "event" : "memory";
                assertThatThrownBy(() -> {
                    if (start.equals("event")) {
                        a.deleteEvent(ALICE_WORK, e1.id());
                    } else {
                        a.deleteMemory(ALICE_WORK, colleague.id());
                    }
                }).as("%s", f).isInstanceOfAny(StorageException.class, IllegalStateException.class);
                assertThat(index.calls).as("%s: the failing hook was reached", f)
                        .filteredOn(f.hook().name()::equals).hasSize(f.atCall());
                assertThat(dump(db())).as("%s: nothing changed", f).isEqualTo(before);
                assertThat(a.latestCheckpoint(ALICE_WORK, "s1")).contains(survivor);
                assertThat(a.memory(ALICE_WORK, c.corrected().id())).isPresent();
            }

            // Once the index works, the same deletion goes through, and the authority is healthy.
            index.failOn = null;
            Deletion d = a.deleteMemory(ALICE_WORK, colleague.id());
            assertThat(d.memoryIds()).containsExactlyInAnyOrder(work.id(), colleague.id(), c.corrected().id());
            assertThat(d.vectorsRemoved()).isEqualTo(3);
            assertThat(d.relationsRemoved()).isEqualTo(2);
            assertThat(d.checkpointsRemoved()).isEqualTo(1);
            assertThat(d.checkpointsInvalidated()).isEqualTo(1);
            assertThat(LoggingIndex.committed(db(), "memory-removed")).hasSize(3);
            assertIntegrity(a, db());
        }
    }

    @Test
    @DisplayName("D1 the deleted text leaves no readable trace in the database files (deleted content overwritten, WAL checkpointed)")
    void noTraceInFiles() throws Exception {
        String eventMarker = "绝密日记QXZV-event-marker";
        String memoryMarker = "秘密记忆JKWP-memory-marker";
        String keepMarker = "保留内容HBRT-keep-marker";
        try (Authority a = open(dir)) {
            Event e = say(a, ALICE_WORK, "今天的" + eventMarker + " diary entry");
            a.addMemory(ALICE_WORK, userFact(e, memoryMarker + " 摘要 summary").quote(eventMarker).build());
            Event keep = say(a, ALICE_WORK, keepMarker + " stays");
            memo(a, ALICE_WORK, keep, "保留 keep");
            assertThat(!FileBytes.databaseFilesContaining(dir, eventMarker).isEmpty()).as("sanity: the marker is on disk before").isTrue();
            assertThat(!FileBytes.databaseFilesContaining(dir, memoryMarker).isEmpty()).as("sanity: the marker is on disk before").isTrue();

            a.deleteEvent(ALICE_WORK, e.id());

            assertThat(!FileBytes.databaseFilesContaining(dir, eventMarker).isEmpty()).isFalse();
            assertThat(!FileBytes.databaseFilesContaining(dir, memoryMarker).isEmpty()).isFalse();
        }
        assertThat(!FileBytes.databaseFilesContaining(dir, eventMarker).isEmpty()).isFalse();
        assertThat(!FileBytes.databaseFilesContaining(dir, memoryMarker).isEmpty()).isFalse();
        assertThat(!FileBytes.databaseFilesContaining(dir, keepMarker).isEmpty()).isTrue();
    }

    // ------------------------------------------------------------------ refusals: nothing changes

    @Test
    @DisplayName("D1 deleting again is not found and changes nothing, from any member of the removed closure")
    void deletingAgainIsNotFound() throws Exception {
        try (Authority a = open(dir)) {
            Event e1 = say(a, ALICE_WORK, "我喜欢猫和狗 cats and dogs");
            Memory cats = memo(a, ALICE_WORK, e1, "喜欢猫", "猫");
            Memory dogs = memo(a, ALICE_WORK, e1, "喜欢狗", "狗");
            Correction c = correct(a, ALICE_WORK, dogs, "喜欢小狗 puppies");
            Event e2 = sayIn(a, ALICE_WORK, "s9", "其他 other");
            memo(a, ALICE_WORK, e2, "其他");
            checkpoint(a, ALICE_WORK, e2);
            a.deleteEvent(ALICE_WORK, e1.id());
            checkpoint(a, ALICE_WORK, e2); // a valid checkpoint that a refused deletion must not invalidate
            Map<String, List<String>> before = dump(db());

            assertThatThrownBy(() -> a.deleteEvent(ALICE_WORK, e1.id())).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> a.deleteEvent(ALICE_WORK, c.event().id())).isInstanceOf(NotFoundException.class);
            for (Memory m : List.of(cats, dogs, c.corrected())) {
                assertThatThrownBy(() -> a.deleteMemory(ALICE_WORK, m.id())).isInstanceOf(NotFoundException.class);
            }
            assertThat(dump(db())).isEqualTo(before);
            assertThat(a.latestCheckpoint(ALICE_WORK, "s9")).isPresent();
        }
    }

    @Test
    @DisplayName("D1 S1 unknown IDs, IDs of another scope and IDs of the wrong kind are not found and change nothing")
    void notFoundChangesNothing() throws Exception {
        try (Authority a = open(dir)) {
            Event mine = sayIn(a, ALICE_WORK, "s1", "工作笔记 work notes");
            Memory myMemory = memo(a, ALICE_WORK, mine, "工作笔记");
            Event homeEvent = sayIn(a, ALICE_HOME, "s1", "家庭笔记 home notes");
            Memory homeMemory = memo(a, ALICE_HOME, homeEvent, "家庭笔记");
            Event bobEvent = sayIn(a, BOB_WORK, "s1", "bob's notes 笔记");
            Memory bobMemory = memo(a, BOB_WORK, bobEvent, "bob notes");
            checkpoint(a, ALICE_WORK, mine);
            checkpoint(a, ALICE_HOME, homeEvent);
            embed(db(), homeMemory.id());
            Map<String, List<String>> before = dump(db());

            for (String id : List.of("ev-unknown", homeEvent.id(), bobEvent.id(), myMemory.id(), "事件-不存在")) {
                assertThatThrownBy(() -> a.deleteEvent(ALICE_WORK, id)).as(id).isInstanceOf(NotFoundException.class);
            }
            for (String id : List.of("mem_01HZZZZZZZZZZZZZZZZZZZZZZZ", homeMemory.id(), bobMemory.id(), mine.id())) {
                assertThatThrownBy(() -> a.deleteMemory(ALICE_WORK, id)).as(id).isInstanceOf(NotFoundException.class);
            }
            assertThatThrownBy(() -> a.deleteEvent(BOB_WORK, mine.id())).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> a.deleteMemory(new Scope("alice", "其他项目"), myMemory.id()))
                    .isInstanceOf(NotFoundException.class);

            assertThat(dump(db())).isEqualTo(before);
            assertThat(a.latestCheckpoint(ALICE_WORK, "s1")).isPresent();
            assertThat(a.latestCheckpoint(ALICE_HOME, "s1")).isPresent();
        }
    }

    @Test
    @DisplayName("D1 O7 null, empty, whitespace and malformed IDs are rejected naming the field, never echoing the value, and change nothing")
    void badIds() throws Exception {
        try (Authority a = open(dir)) {
            Event e = sayIn(a, ALICE_WORK, "s1", "你好 hello");
            memo(a, ALICE_WORK, e, "问候");
            checkpoint(a, ALICE_WORK, e);
            Map<String, List<String>> before = dump(db());
            String tooLong = "x".repeat(Ids.MAX_ID_LENGTH + 1);
            for (String bad : new String[] {null, "", " ", "\t", "　", "ev 坏 id", "ev\nnext", tooLong}) {
                assertInvalid(() -> a.deleteEvent(ALICE_WORK, bad), "event", bad == null || bad.isBlank() ? "\u0000" : bad);
                assertInvalid(() -> a.deleteMemory(ALICE_WORK, bad), "memory", bad == null || bad.isBlank() ? "\u0000" : bad);
            }
            assertThat(dump(db())).isEqualTo(before);
            assertThat(a.latestCheckpoint(ALICE_WORK, "s1")).isPresent();
        }
    }

    // ------------------------------------------------------------------ property: closure against a model

    @Test
    @DisplayName("D1 D2 D3 O6 the deletion closure matches a model of co-derivation and correction lineage; the database stays healthy (seeded property)")
    void closureProperty() throws Exception {
        Random random = SeededRandom.create("D1 D2 closure property");
        for (int round = 0; round < 12; round++) {
            Path file = dir.resolve("round-" + round).resolve("jiyi.db");
            try (Authority a = Authority.open(file, List.of())) {
                Map<String, String> memoryEvent = new LinkedHashMap<>();
                Map<String, List<String>> eventMemories = new LinkedHashMap<>();
                Map<String, Event> events = new LinkedHashMap<>();
                Set<String> revoked = new HashSet<>();
                Set<String> corrects = new LinkedHashSet<>(); // "from->to:type"
                Set<String> related = new LinkedHashSet<>();

                int nEvents = 2 + random.nextInt(6);
                for (int i = 0; i < nEvents; i++) {
                    String session = "s" + random.nextInt(3);
                    Event e = sayIn(a, ALICE_WORK, session, "事件 event " + i + " " + SeededRandom.mixedText(random, 30));
                    events.put(e.id(), e);
                    eventMemories.put(e.id(), new ArrayList<>());
                    int k = random.nextInt(4);
                    for (int j = 0; j < k; j++) {
                        Memory m = memo(a, ALICE_WORK, e, "记忆 memory " + i + "-" + j);
                        memoryEvent.put(m.id(), e.id());
                        eventMemories.get(e.id()).add(m.id());
                    }
                }
                int nCorrections = random.nextInt(6);
                for (int i = 0; i < nCorrections; i++) {
                    List<String> live = memoryEvent.keySet().stream().filter(id -> !revoked.contains(id)).toList();
                    if (live.isEmpty()) {
                        break;
                    }
                    String target = live.get(random.nextInt(live.size()));
                    Correction c = a.correctMemory(ALICE_WORK, target,
                            new CorrectionDraft("更正 correction " + i + " " + SeededRandom.mixedText(random, 20), null, null));
                    events.put(c.event().id(), c.event());
                    eventMemories.put(c.event().id(), new ArrayList<>(List.of(c.corrected().id())));
                    memoryEvent.put(c.corrected().id(), c.event().id());
                    revoked.add(target);
                    corrects.add(c.corrected().id() + "->" + target + ":corrects");
                }
                List<String> allMemories = new ArrayList<>(memoryEvent.keySet());
                int nRelated = random.nextInt(7);
                for (int i = 0; allMemories.size() > 1 && i < nRelated; i++) {
                    String x = allMemories.get(random.nextInt(allMemories.size()));
                    String y = allMemories.get(random.nextInt(allMemories.size()));
                    if (!x.equals(y)) {
                        a.relate(ALICE_WORK, x, y);
                        related.add(x + "->" + y + ":related");
                    }
                }
                Set<String> embedded = new HashSet<>();
                for (String m : allMemories) {
                    if (random.nextBoolean()) {
                        embed(file, m);
                        embedded.add(m);
                    }
                }
                Map<Long, String> checkpointEvent = new LinkedHashMap<>();
                List<Event> eventList = new ArrayList<>(events.values());
                for (int i = random.nextInt(4); i > 0; i--) {
                    Event covered = eventList.get(random.nextInt(eventList.size()));
                    checkpointEvent.put(checkpoint(a, ALICE_WORK, covered).id(), covered.id());
                }
                Event home = sayIn(a, ALICE_HOME, "s0", "家 home " + round);
                Memory homeMemory = memo(a, ALICE_HOME, home, "家 home");
                embed(file, homeMemory.id());
                Checkpoint homeCp = checkpoint(a, ALICE_HOME, home);
                Set<String> validBefore = column(file, "SELECT id FROM checkpoints WHERE persona_id = 'alice' "
                        + "AND project_id = 'work' AND invalidated_at IS NULL");

                boolean fromMemory = !allMemories.isEmpty() && random.nextBoolean();
                String start = fromMemory ? allMemories.get(random.nextInt(allMemories.size()))
                        : eventList.get(random.nextInt(eventList.size())).id();

                // The model: events pull in their memories; memories pull in their event and corrects neighbours.
                Set<String> closedEvents = new HashSet<>();
                Set<String> closedMemories = new HashSet<>();
                ArrayDeque<String> queue = new ArrayDeque<>();
                queue.add((fromMemory ? "m:" : "e:") + start);
                while (!queue.isEmpty()) {
                    String item = queue.poll();
                    String id = item.substring(2);
                    if (item.startsWith("e:")) {
                        if (closedEvents.add(id)) {
                            eventMemories.get(id).forEach(m -> queue.add("m:" + m));
                        }
                    } else if (closedMemories.add(id)) {
                        queue.add("e:" + memoryEvent.get(id));
                        for (String edge : corrects) {
                            String[] ends = edge.split("->|:");
                            if (ends[0].equals(id)) {
                                queue.add("m:" + ends[1]);
                            } else if (ends[1].equals(id)) {
                                queue.add("m:" + ends[0]);
                            }
                        }
                    }
                }
                Set<String> edgesTouching = Stream.concat(corrects.stream(), related.stream())
                        .filter(edge -> Stream.of(edge.split("->|:")).anyMatch(closedMemories::contains))
                        .collect(Collectors.toSet());
                Set<Long> coveringCheckpoints = checkpointEvent.entrySet().stream()
                        .filter(en -> closedEvents.contains(en.getValue())).map(Map.Entry::getKey)
                        .collect(Collectors.toSet());
                long expectedInvalidated = validBefore.stream().map(Long::parseLong)
                        .filter(id -> !coveringCheckpoints.contains(id)).count();

                Deletion d = fromMemory ? a.deleteMemory(ALICE_WORK, start) : a.deleteEvent(ALICE_WORK, start);

                String label = "round " + round + " start " + (fromMemory ? "memory " : "event ") + start;
                assertThat(new HashSet<>(d.eventIds())).as(label).isEqualTo(closedEvents);
                assertThat(new HashSet<>(d.memoryIds())).as(label).isEqualTo(closedMemories);
                assertThat(d.eventIds()).as(label).doesNotHaveDuplicates();
                assertThat(d.memoryIds()).as(label).doesNotHaveDuplicates();
                Set<String> expectedEvents = new HashSet<>(events.keySet());
                expectedEvents.removeAll(closedEvents);
                expectedEvents.add(home.id());
                assertThat(column(file, "SELECT id FROM events")).as(label).isEqualTo(expectedEvents);
                Set<String> expectedMemories = new HashSet<>(allMemories);
                expectedMemories.removeAll(closedMemories);
                expectedMemories.add(homeMemory.id());
                assertThat(column(file, "SELECT id FROM memories")).as(label).isEqualTo(expectedMemories);
                Set<String> expectedEdges = Stream.concat(corrects.stream(), related.stream())
                        .filter(edge -> !edgesTouching.contains(edge)).collect(Collectors.toSet());
                assertThat(column(file, "SELECT from_id || '->' || to_id || ':' || type FROM relations")).as(label)
                        .isEqualTo(expectedEdges);
                assertThat(d.relationsRemoved()).as(label).isEqualTo(edgesTouching.size());
                Set<String> expectedVectors = new HashSet<>(embedded);
                expectedVectors.removeAll(closedMemories);
                expectedVectors.add(homeMemory.id());
                assertThat(column(file, "SELECT memory_id FROM embeddings")).as(label).isEqualTo(expectedVectors);
                assertThat(d.vectorsRemoved()).as(label).isEqualTo(embedded.size() - (expectedVectors.size() - 1));
                assertThat(d.checkpointsRemoved()).as(label).isEqualTo(coveringCheckpoints.size());
                assertThat(d.checkpointsInvalidated()).as(label).isEqualTo((int) expectedInvalidated);
                assertThat(count(file, "SELECT count(*) FROM checkpoints WHERE persona_id = 'alice' AND project_id = 'work' "
                        + "AND invalidated_at IS NULL")).as(label).isZero();
                assertThat(a.latestCheckpoint(ALICE_HOME, null)).as(label).contains(homeCp);
                // Revocation state of survivors is untouched: a deletion never un-revokes.
                for (String m : expectedMemories) {
                    if (!m.equals(homeMemory.id())) {
                        assertThat(a.memory(ALICE_WORK, m).orElseThrow().revoked()).as(label).isEqualTo(revoked.contains(m));
                    }
                }
                assertIntegrity(a, file);
            }
        }
    }

    /**
     * D1 / docs "the deleted text leaves no readable trace in the database files": the existing
     * noTraceInFiles test only deletes rows that were never updated. A row rewritten before the
     * deletion (a memory revoked by a correction, closed by a successor, an event marked pending)
     * left its old cell in free space with secure_delete OFF; deleting it later only zeroes the
     * current cell.
     */
    @Test
    @DisplayName("D1 rows rewritten before the deletion (revoked, marked pending) leave no readable copy in the database files (secure_delete)")
    void noTraceAfterRewrittenRows() throws Exception {
        String memoryMarker = "秘密记忆RVWQ-memory-marker";
        String eventMarker = "绝密日记RVWZ-event-marker";
        try (Authority a = open(dir)) {
            filler(a, "pre");
            Event e = submit(a, event("ev-1", ALICE_WORK, Role.USER, "今天的" + eventMarker + " diary entry " + "x".repeat(6000), T2020));
            Memory m = a.addMemory(ALICE_WORK, userFact(e, memoryMarker + " 摘要").quote(eventMarker).build());
            filler(a, "post");
            a.markExtractionPending(e.id(), "provider unavailable");        // rewrites the event row (overflow pages)
            a.correctMemory(ALICE_WORK, m.id(), new CorrectionDraft("更正 corrected summary", null, null)); // rewrites m
            a.deleteEvent(ALICE_WORK, e.id());
        }
        boolean memoryLeft = !FileBytes.databaseFilesContaining(dir, memoryMarker).isEmpty();
        boolean eventLeft = !FileBytes.databaseFilesContaining(dir, eventMarker).isEmpty();
        assertThat(java.util.List.of(memoryLeft, eventLeft)).as("[memory text, event text] left in the files after deletion")
                .containsExactly(false, false);
    }

    /** Ordinary neighbours, so the rows involved do not sit alone on their pages. */
    private static void filler(Authority a, String prefix) {
        for (int i = 0; i < 30; i++) {
            Event k = submit(a, event(prefix + "-" + i, ALICE_WORK, Role.USER, "填充 filler " + i + " " + "y".repeat(300), T2024));
            a.addMemory(ALICE_WORK, userFact(k, "填充 " + i + " " + "z".repeat(200)).build());
        }
    }
}
