package dev.jiyi.authority;

import dev.jiyi.authority.index.Eligibility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.BOB_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.assertInvalid;
import static dev.jiyi.authority.AuthorityTestKit.count;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.dump;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.raw;
import static dev.jiyi.authority.AuthorityTestKit.string;
import static dev.jiyi.authority.AuthorityTestKit.strings;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The vector cache (V1, V3, V4) and the scans behind semantic recall (R5): vectors are attached only
 * to a present, unrevoked memory whose text they were computed from, coverage and scans count only
 * the fingerprint asked for and only eligible memories, and a deletion takes the vector (D1).
 */
class VectorCacheTest {

    @TempDir
    Path dir;

    private static final String FP_A = "http://127.0.0.1:8081/v1/embeddings|bge-small-zh-v1.5|1";
    private static final String FP_B = "http://127.0.0.1:8081/v1/embeddings|bge-small-zh-v1.5|2";

    private static final String CHINESE = "我喜欢在西湖边散步";
    private static final String ENGLISH = "I like walking by the West Lake";
    private static final String MIXED = "周末 weekend 去 Lingyin 寺 🙏 hiking";

    /** Events happen at 2024-05-01T02:00Z (the kit's default), so their memories are valid from then. */
    private static final Instant AT = Instant.parse("2024-06-01T00:00:00Z");
    private static final Instant Y2023 = Instant.parse("2023-01-01T00:00:00Z");
    private static final Instant Y2024 = Instant.parse("2024-01-01T00:00:00Z");
    private static final Instant Y2030 = Instant.parse("2030-01-01T00:00:00Z");

    private int counter;

    // ------------------------------------------------------------------ fixtures

    private Path db() {
        return dbFile(dir);
    }

    /** A user-stated fact, from its own event, valid from the event's time. */
    private Memory remember(Authority a, Scope scope, String text) {
        Event e = submit(a, event("ev-" + counter++, scope, Role.USER, "我说过：" + text + " (said)"));
        return a.addMemory(scope, userFact(e, text).quote(text).build());
    }

    /** An episode with an explicit interval (not a timeline member). */
    private Memory episode(Authority a, Scope scope, String text, Instant validAt, Instant invalidAt) {
        Event e = submit(a, event("ev-" + counter++, scope, Role.USER, text));
        return a.addMemory(scope, userFact(e, text).kind(Kind.EPISODE).validAt(validAt).invalidAt(invalidAt).build());
    }

    /** Revokes {@code m} by a correction and returns the corrected memory. */
    private static Memory revoke(Authority a, Scope scope, Memory m) {
        Correction c = a.correctMemory(scope, m.id(), new CorrectionDraft("更正：" + m.text() + " corrected", null, null));
        assertThat(a.memory(scope, m.id()).orElseThrow().revoked()).isTrue();
        return c.corrected();
    }

    private static VectorCache.NewVector vec(Memory m, float... v) {
        return new VectorCache.NewVector(m.id(), VectorCache.contentHash(m.text()), v);
    }

    private long rowOf(Memory m) throws Exception {
        return count(db(), "SELECT seq FROM memories WHERE id = '" + m.id() + "'");
    }

    /** SHA-256 of the UTF-8 bytes, hex: computed here, independently of {@link VectorCache}. */
    private static String sha256(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static Map<String, Integer> newest(Authority a, Eligibility filter, List<String> fingerprints, int limit) {
        return a.read(s -> s.newestVectors(filter, fingerprints, limit));
    }

    /** Visits in order: memory row → vector. */
    private static Map<Long, float[]> scan(Authority a, Scope scope, String fingerprint, Instant at, boolean history,
                                           int limit) {
        Map<Long, float[]> seen = new LinkedHashMap<>();
        long visited = a.scanVectors(scope, fingerprint, at, history, limit, (row, vector) -> {
            assertThat(seen.put(row, vector)).as("row %d visited once", row).isNull();
        });
        assertThat(visited).as("returned count equals visits").isEqualTo(seen.size());
        return seen;
    }

    private static float[] randomVector(Random random, int dims) {
        float[] v = new float[dims];
        for (int i = 0; i < dims; i++) {
            v[i] = (float) random.nextGaussian();
        }
        return v;
    }

    // ------------------------------------------------------------------ V3: store only what still matches

    @Test
    @DisplayName("V3 storeVectors stores only for a present, unrevoked memory whose text hash matches; the rest are skipped and counted")
    void storeRechecksMemory() throws Exception {
        try (Authority a = open(dir)) {
            Memory zh = remember(a, ALICE_WORK, CHINESE);
            Memory en = remember(a, ALICE_WORK, ENGLISH);
            Memory mixed = remember(a, CJK_SCOPE, MIXED);
            Memory gone = remember(a, ALICE_WORK, "已删除 deleted later");
            Memory revoked = remember(a, ALICE_WORK, "我住在北京 I live in Beijing");
            Memory stale = remember(a, ALICE_WORK, "文本已变 text the vector was not made from");
            a.deleteMemory(ALICE_WORK, gone.id());
            Memory corrected = revoke(a, ALICE_WORK, revoked);

            VectorCache.Stored stored = a.storeVectors(FP_A, List.of(
                    vec(zh, 0.1f, 0.2f, 0.3f),
                    vec(gone, 1f, 1f, 1f),
                    vec(en, 0.4f, 0.5f, 0.6f),
                    vec(revoked, 2f, 2f, 2f),
                    new VectorCache.NewVector(stale.id(), VectorCache.contentHash(stale.text() + " "), new float[] {3f, 3f, 3f}),
                    new VectorCache.NewVector(stale.id(), VectorCache.contentHash(zh.text()), new float[] {4f, 4f, 4f}),
                    new VectorCache.NewVector("mem_00000000000000000000000000", VectorCache.contentHash(CHINESE),
                            new float[] {5f, 5f, 5f}),
                    vec(mixed, 0.7f, 0.8f, 0.9f)));

            assertThat(stored).isEqualTo(new VectorCache.Stored(3, 5));
            assertThat(strings(db(), "SELECT memory_id FROM embeddings ORDER BY memory_id"))
                    .containsExactlyInAnyOrder(zh.id(), en.id(), mixed.id());
            for (Memory m : List.of(zh, en, mixed)) {
                String where = " FROM embeddings WHERE memory_id = '" + m.id() + "'";
                assertThat(string(db(), "SELECT fingerprint" + where)).isEqualTo(FP_A);
                assertThat(count(db(), "SELECT dimensions" + where)).isEqualTo(3);
                assertThat(count(db(), "SELECT length(vector)" + where)).as("4 bytes per dimension").isEqualTo(12);
                assertThat(string(db(), "SELECT content_hash" + where)).isEqualTo(sha256(m.text()));
            }
            // what is still missing: the stale one and the correction's new memory
            assertThat(a.memoriesWithoutVectors(ALICE_WORK, FP_A, 0, 100)).extracting(VectorCache.Task::memoryId)
                    .containsExactly(stale.id(), corrected.id());
            assertThat(a.doctor().healthy()).isTrue();
        }
    }

    @Test
    @DisplayName("V3 a vector stored before its memory was revoked is never scanned or counted, and storing again is skipped")
    void revokedAfterStore() throws Exception {
        try (Authority a = open(dir)) {
            Memory m = remember(a, ALICE_HOME, MIXED);
            assertThat(a.storeVectors(FP_A, List.of(vec(m, 1f, 0f)))).isEqualTo(new VectorCache.Stored(1, 0));
            assertThat(a.vectorCoverage(ALICE_HOME, FP_A, AT, false)).isEqualTo(new VectorCache.Coverage(1, 1));

            Memory corrected = revoke(a, ALICE_HOME, m);

            assertThat(scan(a, ALICE_HOME, FP_A, AT, true, 0)).isEmpty();
            assertThat(a.vectorCoverage(ALICE_HOME, FP_A, AT, true)).isEqualTo(new VectorCache.Coverage(1, 0));
            assertThat(a.storeVectors(FP_A, List.of(vec(m, 0f, 1f)))).isEqualTo(new VectorCache.Stored(0, 1));
            assertThat(a.memoriesWithoutVectors(ALICE_HOME, FP_A, 0, 10)).extracting(VectorCache.Task::memoryId)
                    .as("V4 the correction leaves coverage incomplete until reindex").containsExactly(corrected.id());
        }
    }

    @Test
    @DisplayName("V1 V3 a vector of another fingerprint is replaced in place (upsert); the blob is little-endian float32 and round-trips bit for bit")
    void upsertAndRoundTrip() throws Exception {
        Random random = SeededRandom.create("V3 vector round trip");
        try (Authority a = open(dir)) {
            Memory zh = remember(a, BOB_WORK, CHINESE);
            Memory en = remember(a, BOB_WORK, ENGLISH);

            a.storeVectors(FP_A, List.of(vec(zh, 1.0f, -2.0f)));
            assertThat(string(db(), "SELECT hex(vector) FROM embeddings WHERE memory_id = '" + zh.id() + "'"))
                    .isEqualTo("0000803F000000C0");

            float[] big = randomVector(random, 384);
            float[] specials = {-0.0f, 0.0f, Float.MIN_VALUE, Float.MIN_NORMAL, 1e-40f, Float.MAX_VALUE, -Float.MAX_VALUE,
                    1.0f / 3.0f, -123456.789f};
            System.arraycopy(specials, 0, big, random.nextInt(big.length - specials.length), specials.length);
            a.storeVectors(FP_A, List.of(vec(en, big)));
            assertThat(count(db(), "SELECT length(vector) FROM embeddings WHERE memory_id = '" + en.id() + "'"))
                    .isEqualTo(4L * 384);
            assertThat(count(db(), "SELECT dimensions FROM embeddings WHERE memory_id = '" + en.id() + "'")).isEqualTo(384);
            Map<Long, float[]> seen = scan(a, BOB_WORK, FP_A, AT, false, 0);
            assertThat(seen.keySet()).containsExactly(rowOf(en), rowOf(zh));
            assertThat(Arrays.equals(seen.get(rowOf(en)), big)).as("bit-exact round trip (Arrays.equals compares bits)")
                    .isTrue();
            assertThat(Float.floatToRawIntBits(seen.get(rowOf(en))[indexOf(big, specials[0])]))
                    .as("negative zero keeps its sign").isEqualTo(Float.floatToRawIntBits(-0.0f));
            assertThat(seen.get(rowOf(zh))).containsExactly(1.0f, -2.0f);

            // another model version's vector replaces the old one: one row per memory
            VectorCache.Stored replaced = a.storeVectors(FP_B, List.of(vec(zh, 0.5f, -0.0f, 3.0f)));
            assertThat(replaced).isEqualTo(new VectorCache.Stored(1, 0));
            assertThat(count(db(), "SELECT count(*) FROM embeddings WHERE memory_id = '" + zh.id() + "'")).isOne();
            assertThat(string(db(), "SELECT fingerprint || '|' || dimensions || '|' || hex(vector) FROM embeddings "
                    + "WHERE memory_id = '" + zh.id() + "'")).isEqualTo(FP_B + "|3|0000003F0000008000004040");
            assertThat(scan(a, BOB_WORK, FP_A, AT, false, 0).keySet()).containsExactly(rowOf(en));
            Map<Long, float[]> b = scan(a, BOB_WORK, FP_B, AT, false, 0);
            assertThat(b.keySet()).containsExactly(rowOf(zh));
            assertThat(b.get(rowOf(zh))).containsExactly(0.5f, -0.0f, 3.0f);

            // and the same fingerprint again replaces it too
            a.storeVectors(FP_B, List.of(vec(zh, 9f)));
            assertThat(count(db(), "SELECT count(*) FROM embeddings")).isEqualTo(2);
            assertThat(scan(a, BOB_WORK, FP_B, AT, false, 0).get(rowOf(zh))).containsExactly(9f);
        }
    }

    private static int indexOf(float[] in, float bitsOf) {
        for (int i = 0; i < in.length; i++) {
            if (Float.floatToRawIntBits(in[i]) == Float.floatToRawIntBits(bitsOf)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    // ------------------------------------------------------------------ V1, V4: coverage

    @Test
    @DisplayName("V1 V4 coverage counts eligible memories (scope, unrevoked, valid now unless history) and only vectors of this fingerprint")
    void coverage() throws Exception {
        try (Authority a = open(dir)) {
            Memory cur1 = remember(a, ALICE_WORK, CHINESE);
            Memory cur2 = remember(a, ALICE_WORK, ENGLISH);
            remember(a, ALICE_WORK, MIXED);
            Memory expired = episode(a, ALICE_WORK, "2023年在上海工作 worked in Shanghai in 2023", Y2023, Y2024);
            Memory future = episode(a, ALICE_WORK, "2030年计划退休 plan to retire in 2030", Y2030, null);
            Memory toRevoke = remember(a, ALICE_WORK, "我养狗 I have a dog");
            Memory elsewhere = remember(a, BOB_WORK, "别人的记忆 someone else's memory");
            a.storeVectors(FP_A, List.of(vec(cur1, 1f), vec(expired, 1f), vec(future, 1f), vec(toRevoke, 1f),
                    vec(elsewhere, 1f)));
            a.storeVectors(FP_B, List.of(vec(cur2, 1f)));
            revoke(a, ALICE_WORK, toRevoke); // its correction: current, no vector

            // now: cur1, cur2, mixed, corrected
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, AT, false)).isEqualTo(new VectorCache.Coverage(4, 1));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_B, AT, false)).isEqualTo(new VectorCache.Coverage(4, 1));
            assertThat(a.vectorCoverage(ALICE_WORK, "http://other/v1|other-model|1", AT, false))
                    .isEqualTo(new VectorCache.Coverage(4, 0));
            // with history: + expired + future
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, AT, true)).isEqualTo(new VectorCache.Coverage(6, 3));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_B, AT, true)).isEqualTo(new VectorCache.Coverage(6, 1));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, AT, true).complete()).isFalse();
            // half-open intervals (T3) at the edges
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, Y2024.minusNanos(1_000), false))
                    .as("just before the expired fact ends").isEqualTo(new VectorCache.Coverage(1, 1));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, Y2024, false)).as("at its end").isEqualTo(new VectorCache.Coverage(0, 0));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, Y2030, false)).as("at the future fact's start")
                    .isEqualTo(new VectorCache.Coverage(5, 2));
            // other scopes
            assertThat(a.vectorCoverage(BOB_WORK, FP_A, AT, false)).isEqualTo(new VectorCache.Coverage(1, 1));
            assertThat(a.vectorCoverage(BOB_WORK, FP_A, AT, false).complete()).isTrue();
            assertThat(a.vectorCoverage(CJK_SCOPE, FP_A, AT, true)).isEqualTo(new VectorCache.Coverage(0, 0));

            // reindex: embed what is missing, then coverage is complete for this fingerprint only
            List<VectorCache.NewVector> built = a.memoriesWithoutVectors(ALICE_WORK, FP_A, 0, 100).stream()
                    .map(t -> new VectorCache.NewVector(t.memoryId(), t.contentHash(), new float[] {0.5f})).toList();
            assertThat(a.storeVectors(FP_A, built).stored()).isEqualTo(built.size());
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, AT, true)).isEqualTo(new VectorCache.Coverage(6, 6));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, AT, false).complete()).isTrue();
            assertThat(a.vectorCoverage(ALICE_WORK, FP_B, AT, true))
                    .as("cur2's FP_B vector was replaced by FP_A").isEqualTo(new VectorCache.Coverage(6, 0));
        }
    }

    // ------------------------------------------------------------------ R5: scans

    @Test
    @DisplayName("R5 newestVectors counts each model's vectors among the N newest eligible memories with a vector "
            + "of any of the models asked for; revoked, expired, other models' and other scopes' never count")
    void newestVectorsAcrossModels() throws Exception {
        try (Authority a = open(dir)) {
            // Oldest first: zh, en, zh, then an expired memory, a revoked one, another model's, and en.
            Memory zh1 = remember(a, ALICE_WORK, CHINESE);
            Memory en1 = remember(a, ALICE_WORK, ENGLISH);
            Memory zh2 = remember(a, ALICE_WORK, MIXED);
            Memory expired = episode(a, ALICE_WORK, "去年的旅行 last year's trip", Y2023, Y2024);
            Memory revoked = remember(a, ALICE_WORK, "错误的记忆 a wrong memory");
            Memory other = remember(a, ALICE_WORK, "旧模型 old model");
            Memory en2 = remember(a, ALICE_WORK, "fifth 第五");
            Memory elsewhere = remember(a, ALICE_HOME, "家里的事 home matter");
            a.storeVectors(FP_A, List.of(vec(zh1, 1f, 0f), vec(zh2, 1f, 0f), vec(expired, 1f, 0f), vec(revoked, 1f, 0f),
                    vec(elsewhere, 1f, 0f)));
            a.storeVectors(FP_B, List.of(vec(en1, 0f, 1f), vec(en2, 0f, 1f)));
            a.storeVectors("third|v1", List.of(vec(other, 1f, 1f)));
            revoke(a, ALICE_WORK, revoked);
            Eligibility now = new Eligibility(ALICE_WORK, AT, false);
            List<String> both = List.of(FP_A, FP_B);

            assertThat(newest(a, now, both, 1)).isEqualTo(Map.of(FP_B, 1));
            assertThat(newest(a, now, both, 2)).isEqualTo(Map.of(FP_A, 1, FP_B, 1));
            assertThat(newest(a, now, both, 3)).isEqualTo(Map.of(FP_A, 1, FP_B, 2));
            assertThat(newest(a, now, both, 100)).isEqualTo(Map.of(FP_A, 2, FP_B, 2));
            assertThat(newest(a, new Eligibility(ALICE_WORK, AT, true), both, 100))
                    .as("the expired memory only with history").isEqualTo(Map.of(FP_A, 3, FP_B, 2));
            assertThat(newest(a, now, List.of(FP_A), 1)).as("one model: its own newest")
                    .isEqualTo(Map.of(FP_A, 1));
            assertThat(newest(a, now, List.of("none|v1"), 10)).isEmpty();
            assertThat(newest(a, new Eligibility(BOB_WORK, AT, true), both, 10)).isEmpty();
            assertThatThrownBy(() -> newest(a, now, both, 0))
                    .isInstanceOf(InvalidInputException.class).hasMessageContaining("limit");
        }
    }

    @Test
    @DisplayName("V4 R5 coverage and newest counts kept between reads follow every change: a memory added, a vector "
            + "stored, a correction, a query time past a memory's start or end, and another authority's writes to the file")
    void keptCountsFollowChanges() throws Exception {
        try (Authority a = open(dir); Authority other = open(dir)) {
            Memory m1 = remember(a, ALICE_WORK, CHINESE); // valid from 2024-05-01T02:00Z, as every remembered fact here
            a.storeVectors(FP_A, List.of(vec(m1, 1f, 0f)));
            assertThat(coverage(a, AT)).isEqualTo(new VectorCache.Coverage(1, 1));
            assertThat(coverage(a, AT)).as("asked again").isEqualTo(new VectorCache.Coverage(1, 1));
            Memory m2 = remember(a, ALICE_WORK, ENGLISH);
            assertThat(coverage(a, AT)).as("a memory added").isEqualTo(new VectorCache.Coverage(2, 1));
            a.storeVectors(FP_A, List.of(vec(m2, 0f, 1f)));
            assertThat(coverage(a, AT)).as("its vector stored").isEqualTo(new VectorCache.Coverage(2, 2));
            assertThat(newest(a, new Eligibility(ALICE_WORK, AT, false), List.of(FP_A), 10)).isEqualTo(Map.of(FP_A, 2));

            // Valid through 2023 only. Nothing is written between the asks below: only the time moves.
            Memory trip = episode(a, ALICE_WORK, "去年的旅行 last year's trip", Y2023, Y2024);
            a.storeVectors(FP_A, List.of(vec(trip, 1f, 1f)));
            Instant lastSecond = Y2024.minusSeconds(1);
            assertThat(coverage(a, AT)).isEqualTo(new VectorCache.Coverage(2, 2));
            assertThat(coverage(a, lastSecond)).as("the trip's last second, the facts not begun")
                    .isEqualTo(new VectorCache.Coverage(1, 1));
            assertThat(coverage(a, Y2024)).as("the trip over").isEqualTo(new VectorCache.Coverage(0, 0));
            assertThat(coverage(a, Y2023.minusSeconds(1))).as("before it").isEqualTo(new VectorCache.Coverage(0, 0));
            assertThat(coverage(a, AT)).isEqualTo(new VectorCache.Coverage(2, 2));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, lastSecond, true)).as("with history, at any time")
                    .isEqualTo(new VectorCache.Coverage(3, 3));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, Y2023, true)).isEqualTo(new VectorCache.Coverage(3, 3));
            assertThat(newest(a, new Eligibility(ALICE_WORK, lastSecond, false), List.of(FP_A), 10))
                    .isEqualTo(Map.of(FP_A, 1));
            assertThat(newest(a, new Eligibility(ALICE_WORK, AT, false), List.of(FP_A), 10)).isEqualTo(Map.of(FP_A, 2));

            revoke(a, ALICE_WORK, m1);
            assertThat(coverage(a, AT)).as("corrected: the new memory has no vector yet")
                    .isEqualTo(new VectorCache.Coverage(2, 1));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, AT, true)).isEqualTo(new VectorCache.Coverage(3, 2));

            // Another authority on the same file: another connection with counts of its own, as another process.
            Memory m3 = remember(other, ALICE_WORK, MIXED);
            assertThat(coverage(a, AT)).as("a memory another authority added").isEqualTo(new VectorCache.Coverage(3, 1));
            other.storeVectors(FP_A, List.of(vec(m3, 1f, 0f)));
            assertThat(coverage(a, AT)).as("its vector").isEqualTo(new VectorCache.Coverage(3, 2));
            assertThat(newest(a, new Eligibility(ALICE_WORK, AT, false), List.of(FP_A), 10)).isEqualTo(Map.of(FP_A, 2));
            assertThat(coverage(other, AT)).isEqualTo(new VectorCache.Coverage(3, 2));

            // Kept, not counted again: a vector removed behind the authorities' back (with no change-log
            // entry, which no writer of jiyi's makes) is not seen until a write moves the mark: here a
            // deletion (D1) of m2's event, its memory and vector with it.
            try (Connection c = raw(db()); Statement st = c.createStatement()) {
                assertThat(st.executeUpdate("DELETE FROM embeddings WHERE memory_id = '" + m3.id() + "'")).isOne();
            }
            assertThat(coverage(a, AT)).as("kept").isEqualTo(new VectorCache.Coverage(3, 2));
            a.deleteEvent(ALICE_WORK, m2.eventId());
            assertThat(coverage(a, AT)).as("after a deletion").isEqualTo(new VectorCache.Coverage(2, 0));
            assertThat(newest(a, new Eligibility(ALICE_WORK, AT, false), List.of(FP_A), 10)).isEmpty();
        }
    }

    private static VectorCache.Coverage coverage(Authority a, Instant at) {
        return a.vectorCoverage(ALICE_WORK, FP_A, at, false);
    }

    @Test
    @DisplayName("R5 scanVectors visits newest memory first, honours the limit (0 = all), and only this fingerprint, scope and eligible memories")
    void scanOrderAndFilters() throws Exception {
        Random random = SeededRandom.create("R5 scan order");
        try (Authority a = open(dir)) {
            List<Memory> current = new ArrayList<>();
            List<String> texts = List.of(CHINESE, ENGLISH, MIXED, "第四条 fourth", "fifth 第五", "六 six 😀");
            Memory expired = null;
            Memory revoked = null;
            Memory otherFp = null;
            for (int i = 0; i < texts.size(); i++) {
                current.add(remember(a, ALICE_WORK, texts.get(i)));
                if (i == 1) {
                    expired = episode(a, ALICE_WORK, "去年的旅行 last year's trip", Y2023, Y2024);
                }
                if (i == 3) {
                    revoked = remember(a, ALICE_WORK, "错误的记忆 a wrong memory");
                    otherFp = remember(a, ALICE_WORK, "旧模型 old model");
                }
            }
            Memory elsewhere = remember(a, ALICE_HOME, "家里的事 home matter");
            List<VectorCache.NewVector> vectors = new ArrayList<>();
            for (Memory m : current) {
                vectors.add(vec(m, (float) current.indexOf(m), 1f));
            }
            vectors.add(vec(expired, -1f, 1f));
            vectors.add(vec(revoked, -2f, 1f));
            vectors.add(vec(elsewhere, -3f, 1f));
            Collections.shuffle(vectors, random); // storage order must not matter
            assertThat(a.storeVectors(FP_A, vectors).stored()).isEqualTo(vectors.size());
            a.storeVectors(FP_B, List.of(vec(otherFp, -4f, 1f)));
            revoke(a, ALICE_WORK, revoked);

            List<Long> newestFirst = new ArrayList<>();
            for (Memory m : current) {
                newestFirst.addFirst(rowOf(m));
            }
            Map<Long, float[]> all = scan(a, ALICE_WORK, FP_A, AT, false, 0);
            assertThat(all.keySet()).containsExactlyElementsOf(newestFirst);
            for (Memory m : current) {
                assertThat(all.get(rowOf(m))).containsExactly((float) current.indexOf(m), 1f);
            }
            assertThat(scan(a, ALICE_WORK, FP_A, AT, false, 3).keySet()).containsExactlyElementsOf(newestFirst.subList(0, 3));
            assertThat(scan(a, ALICE_WORK, FP_A, AT, false, 1).keySet()).containsExactly(newestFirst.getFirst());
            assertThat(scan(a, ALICE_WORK, FP_A, AT, false, 100).keySet()).containsExactlyElementsOf(newestFirst);

            List<Long> withHistory = new ArrayList<>(newestFirst);
            withHistory.add(rowOf(expired));
            withHistory.sort(Collections.reverseOrder());
            assertThat(scan(a, ALICE_WORK, FP_A, AT, true, 0).keySet()).as("expired only with history, revoked never")
                    .containsExactlyElementsOf(withHistory);
            assertThat(scan(a, ALICE_WORK, FP_A, Y2023, false, 0).keySet()).as("as of 2023 only the trip was valid")
                    .containsExactly(rowOf(expired));
            assertThat(scan(a, ALICE_WORK, FP_B, AT, true, 0).keySet()).containsExactly(rowOf(otherFp));
            assertThat(scan(a, ALICE_HOME, FP_A, AT, false, 0).keySet()).containsExactly(rowOf(elsewhere));
            assertThat(scan(a, BOB_WORK, FP_A, AT, true, 0)).isEmpty();
            assertInvalid(() -> a.scanVectors(ALICE_WORK, FP_A, AT, false, -1, (row, v) -> { }), "limit");
        }
    }

    // ------------------------------------------------------------------ reindex's work list

    @Test
    @DisplayName("V3 V4 memoriesWithoutVectors pages in row order after afterRow, skips revoked and already-embedded, keeps other fingerprints' (seeded)")
    void withoutVectorsPages() throws Exception {
        Random random = SeededRandom.create("V4 memories without vectors");
        try (Authority a = open(dir)) {
            List<Memory> expected = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                String text = switch (i % 3) {
                    case 0 -> "记忆" + i + "：" + SeededRandom.mixedText(random, 20).strip() + "在杭州";
                    case 1 -> "memory " + i + " in English about tea";
                    default -> "混合 mixed " + i + " 😀 " + SeededRandom.mixedText(random, 12).strip();
                };
                Scope scope = random.nextInt(5) == 0 ? ALICE_HOME : ALICE_WORK;
                Memory m = random.nextInt(6) == 0
                        ? episode(a, scope, text, Y2023, Y2024) // expired facts are embedded too
                        : remember(a, scope, text);
                int fate = random.nextInt(5);
                if (fate == 0) {
                    a.storeVectors(FP_A, List.of(vec(m, 1f)));
                } else if (fate == 1) {
                    a.storeVectors(FP_B, List.of(vec(m, 1f)));
                    if (scope.equals(ALICE_WORK)) {
                        expected.add(m);
                    }
                } else if (fate == 2) {
                    Memory corrected = revoke(a, scope, m);
                    if (scope.equals(ALICE_WORK)) {
                        expected.add(corrected);
                    }
                } else if (scope.equals(ALICE_WORK)) {
                    expected.add(m);
                }
            }
            List<VectorCache.Task> seen = new ArrayList<>();
            long after = 0;
            while (true) {
                int limit = 1 + random.nextInt(5);
                List<VectorCache.Task> page = a.memoriesWithoutVectors(ALICE_WORK, FP_A, after, limit);
                assertThat(page.size()).isLessThanOrEqualTo(limit);
                if (page.isEmpty()) {
                    break;
                }
                assertThat(page.getFirst().rowId()).isGreaterThan(after);
                seen.addAll(page);
                after = page.getLast().rowId();
            }
            assertThat(seen).extracting(VectorCache.Task::memoryId).containsExactlyElementsOf(expected.stream().map(Memory::id).toList());
            assertThat(seen).extracting(VectorCache.Task::rowId).isSorted().doesNotHaveDuplicates();
            for (int i = 0; i < seen.size(); i++) {
                VectorCache.Task t = seen.get(i);
                assertThat(t.text()).isEqualTo(expected.get(i).text());
                assertThat(t.rowId()).isEqualTo(rowOf(expected.get(i)));
                assertThat(t.contentHash()).as("hash of %s", t.memoryId()).isEqualTo(sha256(t.text()));
            }
            assertThat(a.memoriesWithoutVectors(ALICE_WORK, FP_A, 0, 0)).isEmpty();

            // storing every task's vector (with the task's own hash) completes the work list
            VectorCache.Stored stored = a.storeVectors(FP_A, seen.stream()
                    .map(t -> new VectorCache.NewVector(t.memoryId(), t.contentHash(), randomVector(random, 8))).toList());
            assertThat(stored).isEqualTo(new VectorCache.Stored(seen.size(), 0));
            assertThat(a.memoriesWithoutVectors(ALICE_WORK, FP_A, 0, 1000)).isEmpty();
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, AT, true).complete()).isTrue();
        }
    }

    @Test
    @DisplayName("V3 contentHash is SHA-256 of the UTF-8 text, hex, the same for Chinese, English and mixed text everywhere it appears")
    void contentHashPinned() throws Exception {
        assertThat(VectorCache.contentHash("abc")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(VectorCache.contentHash(CHINESE)).isEqualTo("b7d2c951ac46641aa62a04c679ee9b857fa596a29f5aeaf9952c93edf7705ab6");
        assertThat(VectorCache.contentHash(ENGLISH)).isEqualTo("a25de7b55b83eb268e27fdb717a29e7c9142326ad3b55979be71ae2bc14ab3d8");
        assertThat(VectorCache.contentHash(MIXED)).isEqualTo("80734ffca7356f5043237e8e046d7056355d4671685707f9b3389dbe441e188e");
        try (Authority a = open(dir)) {
            Memory zh = remember(a, CJK_SCOPE, CHINESE);
            Memory en = remember(a, CJK_SCOPE, ENGLISH);
            Memory mixed = remember(a, CJK_SCOPE, MIXED);
            assertThat(a.memoriesWithoutVectors(CJK_SCOPE, FP_A, 0, 10)).extracting(VectorCache.Task::contentHash)
                    .containsExactly(VectorCache.contentHash(CHINESE), VectorCache.contentHash(ENGLISH),
                            VectorCache.contentHash(MIXED));
            a.storeVectors(FP_A, List.of(vec(zh, 1f), vec(en, 1f), vec(mixed, 1f)));
            assertThat(strings(db(), "SELECT content_hash FROM embeddings")).containsExactlyInAnyOrder(
                    sha256(CHINESE), sha256(ENGLISH), sha256(MIXED));
        }
    }

    // ------------------------------------------------------------------ D1

    @Test
    @DisplayName("D1 deleting a memory or an event removes its vectors and those of its co-derived memories")
    void deletionRemovesVectors() throws Exception {
        try (Authority a = open(dir)) {
            Event shared = submit(a, event("shared", ALICE_WORK, Role.USER, "我喜欢茶，也喜欢咖啡 I like tea and coffee"));
            Memory tea = a.addMemory(ALICE_WORK, userFact(shared, "喜欢茶 likes tea").quote("我喜欢茶").build());
            Memory coffee = a.addMemory(ALICE_WORK, userFact(shared, "喜欢咖啡 likes coffee").quote("也喜欢咖啡").build());
            Memory other = remember(a, ALICE_WORK, CHINESE);
            Memory third = remember(a, ALICE_WORK, MIXED);
            a.storeVectors(FP_A, List.of(vec(tea, 1f), vec(coffee, 2f), vec(other, 3f)));
            a.storeVectors(FP_B, List.of(vec(third, 4f)));

            Deletion d = a.deleteMemory(ALICE_WORK, tea.id());
            assertThat(d.vectorsRemoved()).isEqualTo(2);
            assertThat(strings(db(), "SELECT memory_id FROM embeddings")).containsExactlyInAnyOrder(other.id(), third.id());
            assertThat(scan(a, ALICE_WORK, FP_A, AT, true, 0).keySet()).containsExactly(rowOf(other));
            assertThat(a.vectorCoverage(ALICE_WORK, FP_A, AT, true)).isEqualTo(new VectorCache.Coverage(2, 1));

            Deletion e = a.deleteEvent(ALICE_WORK, third.eventId());
            assertThat(e.vectorsRemoved()).isOne();
            assertThat(strings(db(), "SELECT memory_id FROM embeddings")).containsExactly(other.id());
            assertThat(a.vectorCoverage(ALICE_WORK, FP_B, AT, true)).isEqualTo(new VectorCache.Coverage(1, 0));
            assertThat(a.doctor().healthy()).isTrue();
        }
    }

    // ------------------------------------------------------------------ bad input

    @Test
    @DisplayName("V3 O7 NaN, infinite, empty or missing vectors, a blank fingerprint and negative limits are invalid input naming the field")
    void badInput() throws Exception {
        try (Authority a = open(dir)) {
            Memory m = remember(a, ALICE_WORK, CHINESE);
            String hash = VectorCache.contentHash(m.text());
            assertInvalid(() -> new VectorCache.NewVector(m.id(), hash, new float[] {0.1f, Float.NaN}), "vector", "NaN");
            assertInvalid(() -> new VectorCache.NewVector(m.id(), hash, new float[] {Float.POSITIVE_INFINITY}),
                    "vector", "Infinity");
            assertInvalid(() -> new VectorCache.NewVector(m.id(), hash, new float[] {1f, Float.NEGATIVE_INFINITY}),
                    "vector", "Infinity");
            assertInvalid(() -> new VectorCache.NewVector(m.id(), hash, new float[0]), "vector");
            assertInvalid(() -> new VectorCache.NewVector(m.id(), hash, null), "vector");

            Map<String, List<String>> before = dump(db());
            List<VectorCache.NewVector> good = List.of(vec(m, 1f));
            assertInvalid(() -> a.storeVectors("", good), "fingerprint");
            assertInvalid(() -> a.storeVectors("   ", good), "fingerprint");
            assertInvalid(() -> a.storeVectors(null, good), "fingerprint");
            assertInvalid(() -> a.storeVectors("模型".repeat(ExtractionBatch.MAX_FINGERPRINT), good), "fingerprint", "模型");
            assertInvalid(() -> a.scanVectors(ALICE_WORK, FP_A, AT, true, -1, (row, v) -> { }), "limit");
            assertInvalid(() -> a.scanVectors(ALICE_WORK, FP_A, AT, true, Integer.MIN_VALUE, (row, v) -> { }), "limit");
            assertInvalid(() -> a.memoriesWithoutVectors(ALICE_WORK, FP_A, 0, -1), "limit");
            assertThat(dump(db())).as("nothing was stored").isEqualTo(before);
        }
    }
}
