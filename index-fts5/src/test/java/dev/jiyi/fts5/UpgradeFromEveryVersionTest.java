package dev.jiyi.fts5;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Database;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Upgrades (O2, issue 15): a database made at every earlier schema version, with only the migrations
 * of that time (the SQL files, applied one by one as the jiyi of that version did) and filled with
 * data of that time (rows written in the columns that version had: Chinese, English and mixed
 * events in two scopes, memories with exact quotes, a corrected and a related memory, a checkpoint,
 * a vector, and from version 3 a capture cursor, from version 5 an extraction record), opens with
 * this build, migrates in order to {@link Database#SCHEMA_VERSION}, and keeps every row of every
 * authoritative table as it was; its derived FTS5 index is refilled so that recall finds the old
 * rows by Chinese and English words, and {@code doctor} finds nothing wrong.
 */
class UpgradeFromEveryVersionTest {

    private static final Scope ALICE_WORK = new Scope("alice", "work");
    private static final Scope CJK_SCOPE = new Scope("小明", "项目-甲");

    @TempDir
    Path dir;

    /** Every version a user's file can be at: 1 up to the one before this build's. */
    static IntStream versions() {
        return IntStream.range(1, Database.SCHEMA_VERSION);
    }

    private static String at(int minute) {
        return String.format("2024-05-01T02:%02d:00.000000Z", minute);
    }

    /** The columns each authoritative table has had since version 1 (or since the version that made it). */
    private static final Map<String, String> SINCE_THEN = new LinkedHashMap<>();

    static {
        SINCE_THEN.put("personas", "persona_id, version, content, note, created_at");
        SINCE_THEN.put("events", "sequence, id, persona_id, project_id, role, source, category, session_id, text, "
                + "occurred_at, ingested_at, extraction_state, extraction_error, amended");
        SINCE_THEN.put("memories", "seq, id, persona_id, project_id, event_id, kind, basis, text, quote, confidence, "
                + "subject, fact_key, valid_at, invalid_at, revoked_at, emotion_label, valence, arousal, created_at");
        SINCE_THEN.put("relations", "persona_id, project_id, from_id, to_id, type, created_at");
        SINCE_THEN.put("checkpoints", "id, persona_id, project_id, session_id, goal, done, pending, constraints, "
                + "next_action, covered_seq, created_at, invalidated_at");
        SINCE_THEN.put("embeddings", "memory_id, fingerprint, dimensions, vector, content_hash, created_at");
    }

    @ParameterizedTest(name = "from schema version {0}")
    @MethodSource("versions")
    @DisplayName("O2 a database made at an earlier schema version, with that version's data, migrates in order and keeps every row")
    void upgrades(int version) throws Exception {
        Path file = dir.resolve("jiyi.db");
        createAt(file, version);
        Map<String, List<String>> before = authoritative(file, version);
        assertThat(before.get("events")).hasSize(4);

        Fts5Index fts5 = new Fts5Index();
        try (Authority a = Authority.open(file, List.of(fts5))) {
            assertThat(a.doctor().problems()).as("doctor after the upgrade from " + version).isEmpty();
            Instant now = Instant.parse("2024-06-01T00:00:00Z");
            // The refilled FTS5 index finds the old rows by Chinese, English and mixed words.
            // The revoked mem_WRONG (row 10) is not eligible; the current fact is.
            assertThat(memoryHits(a, fts5, ALICE_WORK, "广州", now)).containsExactly(11L);
            assertThat(memoryHits(a, fts5, ALICE_WORK, "Guangzhou", now)).containsExactly(11L);
            assertThat(memoryHits(a, fts5, CJK_SCOPE, "猫", now)).containsExactly(13L);
            assertThat(memoryHits(a, fts5, ALICE_WORK, "猫", now)).as("scopes stay apart").isEmpty();
            List<Candidate> raw = a.read(s -> s.eventCandidates(fts5, "PR review 别忘了", ALICE_WORK, 10));
            assertThat(raw).extracting(Candidate::rowId).containsExactly(3L);
        }

        try (Connection c = raw(file); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA user_version")) {
            assertThat(rs.getInt(1)).isEqualTo(Database.SCHEMA_VERSION);
        }
        Map<String, List<String>> after = authoritative(file, version);
        assertThat(after).as("every authoritative row, as it was").isEqualTo(before);
    }

    /**
     * The released migrations, by SHA-256 of their file: the databases above are made with today's
     * files, so an edit to a released migration would go unnoticed here and break real users' files
     * made with the old text. A change must be a new migration, never an edit (the contract: explicit migrations).
     */
    private static final Map<String, String> RELEASED = Map.ofEntries(
            Map.entry("V1__base.sql", "ed13c24da70fdbb88c3505dc479ac919789091256f9d0dbe2e910790eae3266e"),
            Map.entry("V2__gists_cues_lookups.sql", "cb598f0f3cccb76091c8004fbb9e1247972577fa0b87b964a916679a27141c29"),
            Map.entry("V3__capture_cursors.sql", "51fdbfb1899fd0cf90b39e071814dc42f9ba6f308dd50231a6e029d8f76943f6"),
            Map.entry("V4__fts5_secure_delete.sql", "7623025db888060d369b13cd662b035119af651c5a534262f38477494ff5ab48"),
            Map.entry("V5__extractions.sql", "59191fe606b04baaff56d383af806ededcabe647d053797fcbc30378f6e9fe0b"),
            Map.entry("V6__change_log_vectors.sql", "2d9d03f44e0bef4be6c531bae8865835e718cb55e12768cbfe4b084e4e4361e3"),
            Map.entry("V7__emotion_index.sql", "02cb8fa56c814052fdc494f4b943b1b7c5564bc6fd72af0376483b76d4ebf0ad"),
            Map.entry("V8__turn_context.sql", "754a62acfd2d6354c3c2862294600c3e7f262652123faa83b5869c7a61664b5c"),
            Map.entry("V9__context_at_recall.sql", "062e3aeacc198899af6acc8f57399e65ec15ba7edfc189712d5ab1edc679a727"),
            Map.entry("V10__fts5_scope_column.sql", "870199a4c0e519d2758c5d90566808c1f0fb6d9811bef369e61da7d52695ebee"),
            Map.entry("V12__capture_cursor_time.sql", "4dfeadc59cf06fa299c2457153532d3e34c708b3a52de532d6d27d0bca95c872"),
            Map.entry("V11__index_builds.sql", "0624917066e08f59f2a94f3ed9552bc75c7533dc7ec1110ba8cf0767de5179e9"));

    @Test
    @DisplayName("O2 released migrations are never edited: each file's SHA-256 is the one it was released with")
    void releasedMigrationsUnchanged() throws Exception {
        assertThat(RELEASED).hasSize(Database.SCHEMA_VERSION);
        for (Map.Entry<String, String> m : RELEASED.entrySet()) {
            try (java.io.InputStream in = Database.class.getResourceAsStream("migrations/" + m.getKey())) {
                assertThat(in).as(m.getKey()).isNotNull();
                byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(in.readAllBytes());
                assertThat(HexFormat.of().formatHex(digest)).as(m.getKey()).isEqualTo(m.getValue());
            }
        }
    }

    private static List<Long> memoryHits(Authority a, Fts5Index fts5, Scope scope, String query, Instant now) {
        return a.read(s -> s.memoryCandidates(fts5, query, Eligibility.current(scope, now), 10))
                .stream().map(Candidate::rowId).toList();
    }

    private static Connection raw(Path file) throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
    }

    /** The migrations of versions 1 to {@code version}, each with the rows that version could hold. */
    private static void createAt(Path file, int version) throws SQLException {
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            for (int v = 1; v <= version; v++) {
                for (String sql : Database.migrationStatements(v)) {
                    s.execute(sql);
                }
                s.execute("PRAGMA user_version = " + v);
                if (v == 1) {
                    version1Rows(s);
                } else if (v == 3) {
                    s.executeUpdate("INSERT INTO capture_cursors VALUES ('host-1', 'alice', 'work', 'msg-0042', 3, '"
                            + at(20) + "')");
                } else if (v == 5) {
                    s.executeUpdate("INSERT INTO extractions VALUES ('ev-city', 'remote:model-a', 'sha256:ab12', "
                            + "'[\"mem_CITY\"]', '[]', '" + at(21) + "')");
                }
            }
        }
    }

    /** What jiyi 1 wrote: personas, events, memories (one corrected), relations, a checkpoint, a vector, the log. */
    private static void version1Rows(Statement s) throws SQLException {
        s.executeUpdate("INSERT INTO personas VALUES ('alice', 1, '温和的助手 a gentle assistant', 'initialized', '" + at(0)
                + "')");
        s.executeUpdate("INSERT INTO personas VALUES ('alice', 2, '温和、简洁 gentle and brief', 'shorter', '" + at(1) + "')");
        String events = "INSERT INTO events (sequence, id, persona_id, project_id, role, source, category, session_id, "
                + "text, occurred_at, ingested_at, extraction_state) VALUES ";
        s.executeUpdate(events + "(1, 'ev-city', 'alice', 'work', 'user', 'cli', 'conversation', 's1', "
                + "'我住在广州 I live in Guangzhou', '" + at(2) + "', '" + at(2) + "', 'done')");
        s.executeUpdate(events + "(2, 'ev-reply', 'alice', 'work', 'assistant', 'cli', 'conversation', 's1', "
                + "'好的，记住了 noted', '" + at(3) + "', '" + at(3) + "', 'none')");
        s.executeUpdate(events + "(3, 'ev-raw', 'alice', 'work', 'user', 'cli', 'conversation', 's1', "
                + "'明天要做 PR review 别忘了', '" + at(4) + "', '" + at(4) + "', 'none')");
        s.executeUpdate(events + "(4, 'ev-cat', '小明', '项目-甲', 'user', 'cli', 'conversation', 's9', "
                + "'我养了一只猫', '" + at(5) + "', '" + at(5) + "', 'none')");
        String memories = "INSERT INTO memories (seq, id, persona_id, project_id, event_id, kind, basis, text, quote, "
                + "confidence, subject, fact_key, valid_at, invalid_at, revoked_at, created_at) VALUES ";
        s.executeUpdate(memories + "(10, 'mem_WRONG', 'alice', 'work', 'ev-city', 'fact', 'user_statement', "
                + "'住在广东 lives in Guangdong', '我住在广州', 1, 'alice', 'city', '" + at(2) + "', NULL, '" + at(6)
                + "', '" + at(6) + "')");
        s.executeUpdate(memories + "(11, 'mem_CITY', 'alice', 'work', 'ev-city', 'fact', 'user_statement', "
                + "'住在广州 lives in Guangzhou', '我住在广州', 1, 'alice', 'city', '" + at(2) + "', NULL, NULL, '"
                + at(6) + "')");
        s.executeUpdate(memories + "(12, 'mem_NOTED', 'alice', 'work', 'ev-reply', 'agreement', 'assistant_expression', "
                + "'答应记住城市 agreed to remember', '记住了', 0.9, NULL, NULL, '" + at(3) + "', NULL, NULL, '" + at(7) + "')");
        s.executeUpdate(memories + "(13, 'mem_CAT', '小明', '项目-甲', 'ev-cat', 'fact', 'user_statement', "
                + "'养了一只猫', '我养了一只猫', 1, NULL, NULL, '" + at(5) + "', NULL, NULL, '" + at(8) + "')");
        s.executeUpdate("INSERT INTO relations VALUES ('alice', 'work', 'mem_CITY', 'mem_WRONG', 'corrects', '" + at(6)
                + "')");
        s.executeUpdate("INSERT INTO relations VALUES ('alice', 'work', 'mem_NOTED', 'mem_CITY', 'related', '" + at(7)
                + "')");
        s.executeUpdate("INSERT INTO checkpoints (id, persona_id, project_id, session_id, goal, done, pending, constraints,"
                + " next_action, covered_seq, created_at) VALUES (1, 'alice', 'work', 's1', '整理待办 sort the to-dos', "
                + "'[\"记住城市\"]', '[\"PR review\"]', '[]', '问明天的安排', 3, '" + at(9) + "')");
        ByteBuffer vector = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        for (float x : new float[] {0.5f, 0.5f, 0.5f, 0.5f}) {
            vector.putFloat(x);
        }
        s.executeUpdate("INSERT INTO embeddings VALUES ('mem_CITY', 'local:bge-small-zh-v1.5', 4, X'"
                + HexFormat.of().formatHex(vector.array()) + "', 'sha256:c1', '" + at(10) + "')");
        String log = "INSERT INTO change_log (entity, entity_id, op, persona_id, project_id, at) VALUES ";
        for (String e : List.of("ev-city", "ev-reply", "ev-raw")) {
            s.executeUpdate(log + "('event', '" + e + "', 'insert', 'alice', 'work', '" + at(11) + "')");
        }
        s.executeUpdate(log + "('event', 'ev-cat', 'insert', '小明', '项目-甲', '" + at(11) + "')");
        for (String m : List.of("mem_WRONG", "mem_CITY", "mem_NOTED")) {
            s.executeUpdate(log + "('memory', '" + m + "', 'insert', 'alice', 'work', '" + at(12) + "')");
        }
        s.executeUpdate(log + "('memory', 'mem_CAT', 'insert', '小明', '项目-甲', '" + at(12) + "')");
    }

    /** Each authoritative table the file has at {@code version}, in the columns it had then, row by row. */
    private static Map<String, List<String>> authoritative(Path file, int version) throws SQLException {
        Map<String, String> tables = new LinkedHashMap<>(SINCE_THEN);
        if (version >= 3) {
            tables.put("capture_cursors", "instance_id, persona_id, project_id, cursor, version, updated_at");
        }
        if (version >= 5) {
            tables.put("extractions", "event_id, extractor, digest, memory_ids, rejected, completed_at");
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (Connection c = raw(file); Statement s = c.createStatement()) {
            for (Map.Entry<String, String> t : tables.entrySet()) {
                List<String> rows = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT " + t.getValue() + " FROM " + t.getKey() + " ORDER BY 1, 2")) {
                    ResultSetMetaData md = rs.getMetaData();
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder();
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            Object v = rs.getObject(i);
                            row.append(v instanceof byte[] b ? HexFormat.of().formatHex(b) : String.valueOf(v)).append('|');
                        }
                        rows.add(row.toString());
                    }
                }
                out.put(t.getKey(), rows);
            }
        }
        return out;
    }
}
