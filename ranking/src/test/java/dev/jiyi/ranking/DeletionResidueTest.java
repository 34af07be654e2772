package dev.jiyi.ranking;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.Correction;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Validity;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.fts5.Fts5Index;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * D1-D3, T7 and C3 end to end over a real SQLite file with the FTS5 index and recall: after a
 * permanent deletion a residue scan of every table (shadow tables and the change log included) and
 * of both FTS5 vocabularies finds nothing of the deleted text, and no recall mode returns it.
 */
class DeletionResidueTest {

    private static final Instant NOW = Instant.parse("2026-06-01T00:00:00Z");
    private static final Instant Y2020 = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant Y2022 = Instant.parse("2022-01-01T00:00:00Z");
    private static final Scope SCOPE = new Scope("小明", "日常");
    private static final Scope OTHER = new Scope("小明", "工作");

    /** The secret event and what is derived from it, and the two corrections of one of its memories. */
    private static final String SECRET_EVENT = "我的私密暗号是紫檀木匣子 quokkalantern，别告诉任何人。周末我搬到了琥珀镇 Amberville，也喜欢那里的咖啡。";
    private static final String SECRET_FACT = "用户的暗号是紫檀木匣子 quokkalantern";
    private static final String MOVE_FACT = "用户搬到了琥珀镇 Amberville";
    private static final String COFFEE = "用户喜欢琥珀镇的咖啡";
    private static final String FIRST_CORRECTION = "用户的暗号其实是乌木盒子 marmotbeacon";
    private static final String SECOND_CORRECTION = "用户的暗号最终是青铜钥匙 wombatsignal";

    @TempDir
    Path dir;

    Authority authority;
    Fts5Index index = new Fts5Index();
    Recall recall;
    int next;

    String secretEvent;
    Memory secret;
    Memory move;
    Memory coffee;
    Memory firstCorrection;
    Memory secondCorrection;
    Memory related;
    Memory previousCity;
    Memory otherScope;
    List<String> survivingEvents = new ArrayList<>();

    @BeforeEach
    void archive() throws SQLException {
        authority = Authority.open(dir.resolve("jiyi.db"), List.of(index));
        recall = new Recall(authority, new RecallIndex(index, new ExactVectorScan()), RecallConfig.DEFAULT, Clock.fixed(NOW, ZoneOffset.UTC));
        // Background conversation sharing ordinary words (咖啡, 用户, city) with the secret.
        for (int i = 0; i < 40; i++) {
            survivingEvents.add(event(SCOPE, Role.USER, "第" + i + "天：我在北京喝咖啡，city walk number " + i, NOW.minusSeconds(86_400L * (60 - i)), "bg"));
        }
        String oldCity = event(SCOPE, Role.USER, "我以前住在北京 I used to live in Beijing", Y2020, "bg");
        survivingEvents.add(oldCity);
        previousCity = authority.addMemory(SCOPE, MemoryDraft.builder(oldCity).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text("用户住在北京 lives in Beijing").quote("我以前住在北京").subject("用户").factKey("city").validAt(Y2020).build());
        String walk = event(SCOPE, Role.USER, "周末去咖啡馆散步 weekend coffee walk", NOW.minusSeconds(3_600), "bg");
        survivingEvents.add(walk);
        related = authority.addMemory(SCOPE, MemoryDraft.builder(walk).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                .text("用户周末去咖啡馆散步").quote("周末去咖啡馆散步").build());

        secretEvent = event(SCOPE, Role.USER, SECRET_EVENT, Y2022, "secret-session");
        secret = authority.addMemory(SCOPE, MemoryDraft.builder(secretEvent).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text(SECRET_FACT).quote("我的私密暗号是紫檀木匣子 quokkalantern").build());
        move = authority.addMemory(SCOPE, MemoryDraft.builder(secretEvent).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text(MOVE_FACT).quote("周末我搬到了琥珀镇 Amberville").subject("用户").factKey("city").validAt(Y2022).build());
        coffee = authority.addMemory(SCOPE, MemoryDraft.builder(secretEvent).kind(Kind.PREFERENCE).basis(Basis.USER_STATEMENT)
                .text(COFFEE).quote("也喜欢那里的咖啡").gist("琥珀镇咖啡").cues(List.of("amberville-cafe")).build());
        authority.relate(SCOPE, coffee.id(), related.id());
        vector(secret.id());
        vector(coffee.id());
        vector(related.id());

        Correction c1 = authority.correctMemory(SCOPE, secret.id(), new CorrectionDraft(FIRST_CORRECTION, null, null));
        firstCorrection = c1.corrected();
        Correction c2 = authority.correctMemory(SCOPE, firstCorrection.id(), new CorrectionDraft(SECOND_CORRECTION, "青铜钥匙 wombatsignal", null));
        secondCorrection = c2.corrected();

        // Checkpoints: one covering the secret event, one covering a background event, one in another scope.
        String otherEvent = event(OTHER, Role.USER, "工作上的事 work stuff", NOW, "w");
        otherScope = authority.addMemory(OTHER, MemoryDraft.builder(otherEvent).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                .text("工作上的事").quote("工作上的事").build());
        authority.saveCheckpoint(SCOPE, new CheckpointDraft("secret-session", "记住暗号", List.of(), List.of(), List.of(), null,
                sequence(secretEvent)));
        authority.saveCheckpoint(SCOPE, new CheckpointDraft("bg", "散步计划", List.of("喝咖啡"), List.of(), List.of(), null,
                sequence(walk)));
        authority.saveCheckpoint(OTHER, new CheckpointDraft("w", "工作计划", List.of(), List.of(), List.of(), null,
                sequence(otherEvent)));
    }

    @AfterEach
    void close() {
        authority.close();
    }

    private String event(Scope scope, Role role, String text, Instant at, String session) {
        String id = "e" + (++next);
        authority.submitEvent(new EventSubmission(id, scope, role, text, "test", Category.CONVERSATION, session, at));
        return id;
    }

    private Connection sql() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("jiyi.db"));
    }

    private long sequence(String eventId) throws SQLException {
        try (Connection c = sql(); PreparedStatement ps = c.prepareStatement("SELECT sequence FROM events WHERE id = ?")) {
            ps.setString(1, eventId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void vector(String memoryId) throws SQLException {
        try (Connection c = sql(); PreparedStatement ps = c.prepareStatement("INSERT INTO embeddings (memory_seq, memory_id, "
                + "fingerprint, dimensions, vector, content_hash, created_at) VALUES ((SELECT seq FROM memories WHERE id = ?1), "
                + "?1, 'test', 2, ?, 'h', '2026-01-01T00:00:00.000000Z')")) {
            ps.setString(1, memoryId);
            ps.setBytes(2, new byte[8]);
            ps.executeUpdate();
        }
    }

    /** Every text that must be gone: the event, every derived and corrected memory, the gist and cue. */
    private static List<String> deletedTexts() {
        return List.of(SECRET_EVENT, SECRET_FACT, MOVE_FACT, COFFEE, FIRST_CORRECTION, SECOND_CORRECTION,
                "紫檀木匣子", "quokkalantern", "琥珀镇", "Amberville", "乌木盒子", "marmotbeacon", "青铜钥匙", "wombatsignal",
                "琥珀镇咖啡", "amberville-cafe");
    }

    /** Index terms of the deleted texts that no surviving text has: none of them may stay in a vocabulary. */
    private Set<String> deletedTerms() throws SQLException {
        Set<String> terms = new LinkedHashSet<>();
        for (String text : deletedTexts()) {
            terms.addAll(ChineseTokens.terms(text));
        }
        try (Connection c = sql(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT text FROM events WHERE id NOT IN (SELECT event_id FROM memories "
                     + "WHERE id IN ('" + String.join("','", lineageIds()) + "')) AND id <> '" + secretEvent + "' "
                     + "UNION ALL SELECT text || ' ' || quote || ' ' || coalesce(subject, '') || ' ' || coalesce(gist, '') "
                     + "|| ' ' || cue_keys FROM memories WHERE id NOT IN ('" + String.join("','", lineageIds()) + "')")) {
            while (rs.next()) {
                terms.removeAll(ChineseTokens.terms(rs.getString(1)));
            }
        }
        return terms;
    }

    private List<String> lineageIds() {
        return List.of(secret.id(), move.id(), coffee.id(), firstCorrection.id(), secondCorrection.id());
    }

    /**
     * Terms of an FTS5 table's vocabulary, read through a temporary fts5vocab table (nothing is
     * written), each as stored and, for a text term, also without its scope's key (the word itself).
     */
    private Set<String> vocabulary(String table) throws SQLException {
        Set<String> terms = new HashSet<>();
        List<String> keys = List.of(Fts5Index.termPrefix(SCOPE), Fts5Index.termPrefix(OTHER));
        try (Connection c = sql(); Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, " + table + ", row)");
            try (ResultSet rs = s.executeQuery("SELECT term FROM temp.vocab")) {
                while (rs.next()) {
                    String term = rs.getString(1);
                    terms.add(term);
                    for (String key : keys) {
                        if (term.startsWith(key)) {
                            terms.add(term.substring(key.length()));
                        }
                    }
                }
            }
        }
        return terms;
    }

    /** Every table row (shadow tables, change log, checkpoints included) whose text or bytes hold a needle. */
    private List<String> residue(List<String> needles, Set<String> terms) throws SQLException {
        List<String> found = new ArrayList<>();
        try (Connection c = sql(); Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            assertThat(tables).contains("events", "memories", "relations", "embeddings", "checkpoints", "change_log",
                    "memories_fts_data", "memories_fts_idx", "events_fts_data", "events_fts_idx");
            for (String table : tables) {
                try (ResultSet rs = s.executeQuery("SELECT * FROM \"" + table + "\"")) {
                    int columns = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        for (int i = 1; i <= columns; i++) {
                            Object value = rs.getObject(i);
                            byte[] bytes = value instanceof byte[] b ? b
                                    : value == null ? new byte[0] : value.toString().getBytes(StandardCharsets.UTF_8);
                            for (String needle : needles) {
                                if (FileBytes.contains(bytes, needle.getBytes(StandardCharsets.UTF_8))) {
                                    found.add(table + " holds " + needle);
                                }
                            }
                            // Index blocks store terms; a multi-character term is a distinctive byte string.
                            if (value instanceof byte[]) {
                                for (String term : terms) {
                                    if (term.length() > 1 && FileBytes.contains(bytes, term.getBytes(StandardCharsets.UTF_8))) {
                                        found.add(table + " block holds term " + term);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return found;
    }

    /** Every recall mode, current, as of several times and with history, for each query. */
    private List<RecalledItem> recallEverything(List<String> queries) {
        List<RecalledItem> out = new ArrayList<>();
        for (String q : queries) {
            for (RecallMode mode : RecallMode.values()) {
                for (Instant asOf : new Instant[]{null, Y2020, Y2022, Y2022.plusSeconds(86_400 * 400), NOW}) {
                    for (boolean history : new boolean[]{false, true}) {
                        out.addAll(recall.recall(new RecallRequest(SCOPE, q, mode, 50, asOf, history)).items());
                    }
                }
            }
        }
        return out;
    }

    private List<String> queries() {
        List<String> q = new ArrayList<>(deletedTexts());
        q.add("暗号");
        return q;
    }

    private void assertGone(Deletion d) throws SQLException {
        assertThat(d.eventIds()).hasSize(3); // the secret event and both correction events
        assertThat(d.memoryIds()).containsExactlyInAnyOrderElementsOf(lineageIds());
        assertThat(d.vectorsRemoved()).isEqualTo(2);
        assertThat(d.relationsRemoved()).isEqualTo(3); // coffee-related and the two corrects edges
        assertThat(d.checkpointsRemoved()).isEqualTo(1);

        assertThat(residue(deletedTexts(), deletedTerms)).isEmpty();
        assertThat(vocabulary("memories_fts")).doesNotContainAnyElementsOf(deletedTerms);
        assertThat(vocabulary("events_fts")).doesNotContainAnyElementsOf(deletedTerms);
        List<RecalledItem> items = recallEverything(queries());
        Set<String> deletedEvents = new HashSet<>(d.eventIds());
        for (RecalledItem item : items) {
            assertThat(deletedEvents).doesNotContain(item.sourceEventId());
            assertThat(lineageIds()).doesNotContain(item.memoryId());
            for (String needle : deletedTexts()) {
                assertThat(item.text()).doesNotContain(needle);
            }
        }

        // D2: the related neighbour survives, without the edge. T7: the interval the deleted fact closed stays closed.
        assertThat(authority.readMemory(SCOPE, related.id(), 1, 100).relations()).isEmpty();
        assertThat(authority.memory(SCOPE, previousCity.id()).orElseThrow().validity()).isEqualTo(new Validity(Y2020, Y2022));
        assertThat(recall.recall(new RecallRequest(SCOPE, "北京 Beijing", RecallMode.FAST, 50, null, false)).items())
                .extracting(RecalledItem::memoryId).doesNotContain(previousCity.id());
        assertThat(recall.recall(new RecallRequest(SCOPE, "北京 Beijing", RecallMode.FAST, 50, Instant.parse("2021-01-01T00:00:00Z"),
                false)).items()).extracting(RecalledItem::memoryId).contains(previousCity.id());
        for (String e : survivingEvents) {
            assertThat(authority.event(SCOPE, e)).isPresent();
        }
        // D3: the scope's remaining checkpoint is invalidated; the other scope's is not.
        assertThat(authority.latestCheckpoint(SCOPE, null)).isEmpty();
        assertThat(authority.latestCheckpoint(OTHER, null)).isPresent();
        assertThat(authority.memory(OTHER, otherScope.id())).isPresent();
        assertThat(authority.doctor().healthy()).isTrue();
    }

    Set<String> deletedTerms;

    private void assertPresentBeforehand() throws SQLException {
        deletedTerms = deletedTerms();
        List<String> distinctive = ChineseTokens.terms("quokkalantern wombatsignal amberville 琥珀镇");
        assertThat(deletedTerms).containsAll(distinctive);
        // The scan can see what it looks for: before the deletion it finds it.
        assertThat(residue(deletedTexts(), deletedTerms)).isNotEmpty()
                .anyMatch(f -> f.startsWith("memories_fts_data block holds term"))
                .anyMatch(f -> f.startsWith("events_fts_data block holds term"));
        assertThat(vocabulary("memories_fts")).containsAll(distinctive);
        assertThat(vocabulary("events_fts")).containsAll(distinctive);
        assertThat(recall.recall(new RecallRequest(SCOPE, "暗号 wombatsignal", RecallMode.FAST, 10, null, false)).items())
                .extracting(RecalledItem::memoryId).startsWith(secondCorrection.id())
                .doesNotContain(secret.id(), firstCorrection.id());
    }

    @Test
    @DisplayName("D1 D2 D3 T7 deleting the source event removes it, its memories and the whole correction lineage: "
            + "no table, FTS5 vocabulary or shadow table, vector or change-log row holds the text, and no recall mode returns it")
    void deleteFromEvent() throws SQLException {
        assertPresentBeforehand();
        assertGone(authority.deleteEvent(SCOPE, secretEvent));
    }

    @Test
    @DisplayName("D1 deleting from the newest correction follows the lineage back to the mistake and its event, co-derived memories included")
    void deleteFromLineageEnd() throws SQLException {
        assertPresentBeforehand();
        assertGone(authority.deleteMemory(SCOPE, secondCorrection.id()));
    }

    @Test
    @DisplayName("D1 deleting a co-derived sibling removes the event and, through the mistake, the corrections too")
    void deleteFromSibling() throws SQLException {
        assertPresentBeforehand();
        assertGone(authority.deleteMemory(SCOPE, coffee.id()));
    }

    @Test
    @DisplayName("C3 R8 after corrections the mistaken text comes back in no recall mode, neither as the revoked memory nor as raw text "
            + "of the amended event; the newest correction is current")
    void correctedTextNeverResurfaces() throws SQLException {
        for (RecalledItem item : recallEverything(List.of(SECRET_FACT, "紫檀木匣子", "quokkalantern", FIRST_CORRECTION,
                "marmotbeacon", "乌木盒子"))) {
            assertThat(item.memoryId()).isNotIn(secret.id(), firstCorrection.id());
            if (item.type() == RecalledItem.Type.RAW_EVENT) {
                assertThat(item.sourceEventId()).as("the amended event's raw text").isNotEqualTo(secretEvent);
            }
            assertThat(item.text()).doesNotContain("紫檀木匣子").doesNotContain("quokkalantern").doesNotContain("marmotbeacon");
        }
        assertThat(authority.event(SCOPE, secretEvent).orElseThrow().amended()).isTrue();
        // The amended event still stands behind its other memories (move, coffee), which are not mistaken;
        // the revoked ones never come back through it.
        assertThat(recall.recall(new RecallRequest(SCOPE, "暗号", RecallMode.FAST, 10, null, false)).items())
                .extracting(RecalledItem::memoryId).startsWith(secondCorrection.id())
                .doesNotContain(secret.id(), firstCorrection.id());
    }

    @Test
    @DisplayName("C3 raw text of an amended event is not a fallback even when it has no memory left to stand in for it")
    void amendedEventIsNoFallback() throws SQLException {
        String plain = event(SCOPE, Role.USER, "我的旧门牌号是七七三 door number seven seven three", NOW, "raw");
        String amended = event(SCOPE, Role.USER, "我的旧门牌号是八八四 door number eight eight four", NOW, "raw2");
        try (Connection c = sql(); PreparedStatement ps = c.prepareStatement("UPDATE events SET amended = 1 WHERE id = ?")) {
            ps.setString(1, amended);
            ps.executeUpdate();
        }
        List<String> raw = recall.recall(new RecallRequest(SCOPE, "门牌号 door number", RecallMode.FAST, 10, null, true)).items()
                .stream().map(RecalledItem::sourceEventId).toList();
        assertThat(raw).contains(plain).doesNotContain(amended);
    }
}
