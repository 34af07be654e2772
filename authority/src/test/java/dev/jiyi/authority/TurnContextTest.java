package dev.jiyi.authority;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * R4 conversation context ({@link TurnContext}): which turns are around a turn, read from the events
 * table when recall asks ({@link Snapshot#turnContexts}); and migration 9, which drops the FTS5
 * table schema 8 kept it in, leaving no byte of it in the file.
 */
class TurnContextTest {

    private static final Scope DIARY = Scope.DEFAULT;
    private static final Scope WORK = new Scope("default", "work");
    private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");

    @TempDir
    Path dir;

    private Authority open() {
        return Authority.open(dir.resolve("jiyi.db"), List.of());
    }

    private static Event add(Authority a, Scope scope, String session, String id, Category category, Instant at,
                             String text) {
        return add(a, scope, session, id, Role.USER, category, at, text);
    }

    private static Event add(Authority a, Scope scope, String session, String id, Role role, Category category,
                             Instant at, String text) {
        return a.submitEvent(new EventSubmission(id, scope, role, text, "test", category, session, at)).event();
    }

    /** The user, then the assistant, in turn: a dialogue. */
    private static Role speaker(int turn) {
        return turn % 2 == 0 ? Role.USER : Role.ASSISTANT;
    }

    private static Map<Long, TurnContext> contexts(Authority a, Scope scope, Event... turns) {
        List<Long> sequences = new ArrayList<>();
        for (Event e : turns) {
            sequences.add(e.sequence());
        }
        return a.read(s -> s.turnContexts(scope, sequences));
    }

    private static TurnContext context(Authority a, Event turn) {
        return contexts(a, turn.scope(), turn).getOrDefault(turn.sequence(), TurnContext.NONE);
    }

    @Test
    @DisplayName("R4 a turn's context is the turn before and after (near) and the two beyond (far), both ways, Chinese, English and mixed")
    void nearAndFarBothWays() {
        try (Authority a = open()) {
            String[] texts = {"这个周末我们去哪里玩？", "可以去西湖划船 boating on West Lake", "Will it rain on Saturday?",
                "天气预报说是晴天 sunny", "好的 thanks"};
            List<Event> t = new ArrayList<>();
            for (int i = 0; i < texts.length; i++) {
                t.add(add(a, DIARY, "trip", "t" + i, speaker(i), Category.CONVERSATION, T0.plus(Duration.ofMinutes(i)),
                        texts[i]));
            }
            TurnContext middle = context(a, t.get(2));
            assertThat(middle.near()).containsExactly(t.get(1).sequence(), t.get(3).sequence());
            assertThat(middle.far()).containsExactly(t.get(0).sequence(), t.get(4).sequence());
            TurnContext first = context(a, t.get(0));
            assertThat(first.near()).containsExactly(t.get(1).sequence());
            assertThat(first.far()).containsExactly(t.get(2).sequence());
            TurnContext last = context(a, t.get(4));
            assertThat(last.near()).containsExactly(t.get(3).sequence());
            assertThat(last.far()).containsExactly(t.get(2).sequence());
            assertThat(contexts(a, WORK, t.toArray(Event[]::new))).as("S1 another scope reads none of them").isEmpty();
        }
    }

    @Test
    @DisplayName("R4 a side's turns are put nearest first by sequence as a number (10 is after 9), whatever order SQL hands them in")
    void nearestFirstBySequenceNumber() {
        assertThat(TurnContext.nearestFirst(new String[] {"9 2026-11-30T08:00:00Z user", "10 2026-11-30T08:01:00Z assistant"},
                true)).containsExactly("10 2026-11-30T08:01:00Z assistant", "9 2026-11-30T08:00:00Z user");
        assertThat(TurnContext.nearestFirst(new String[] {"100 2026-11-30T08:02:00Z user", "99 2026-11-30T08:01:00Z assistant"},
                false)).containsExactly("99 2026-11-30T08:01:00Z assistant", "100 2026-11-30T08:02:00Z user");
        assertThat(TurnContext.nearestFirst(new String[] {"7 2026-11-30T08:00:00Z user"}, true))
                .containsExactly("7 2026-11-30T08:00:00Z user");
        try (Authority a = open()) {
            // Eight notes of another session first, so that the dialogue's turns are sequences 9 to 13
            // and the middle one's turns before it are 10 and 9: in text order "10" sorts before "9".
            for (int i = 0; i < 8; i++) {
                add(a, DIARY, "notes", "n" + i, Category.CONVERSATION, T0.minus(Duration.ofDays(1)), "笔记 note " + i);
            }
            List<Event> t = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                t.add(add(a, DIARY, "chat", "c" + i, speaker(i), Category.CONVERSATION, T0.plus(Duration.ofMinutes(i)),
                        i % 2 == 0 ? "你周末有空吗 free this weekend?" : "有空 yes"));
            }
            assertThat(t.get(2).sequence()).isEqualTo(11);
            TurnContext middle = context(a, t.get(2));
            assertThat(middle.near()).containsExactly(10L, 12L);
            assertThat(middle.far()).containsExactly(9L, 13L);
        }
    }

    @Test
    @DisplayName("R4 only the turns of one dialogue are context: not turns more than 1 h away (exactly 1 h is), of another session, nor references")
    void contextStaysInItsDialogue() {
        try (Authority a = open()) {
            Event corgi = add(a, DIARY, "s", "corgi", Category.CONVERSATION, T0, "我养了一只柯基犬 named Biscuit");
            add(a, DIARY, "other", "zeppelin", Category.CONVERSATION, T0.plusSeconds(60), "zeppelin 飞艇 museum");
            Event mango = add(a, DIARY, "s", "mango", Category.REFERENCE, T0.plusSeconds(120), "mango 芒果 reference doc");
            Instant later = T0.plus(Duration.ofHours(2));
            Event library = add(a, DIARY, "s", "library", Role.USER, Category.CONVERSATION, later, "下午去图书馆 library");
            Event coffee = add(a, DIARY, "s", "coffee", Role.ASSISTANT, Category.CONVERSATION,
                    later.plus(Duration.ofMinutes(5)), "然后喝咖啡 coffee");
            Event piano = add(a, DIARY, "s", "piano", Role.USER, Category.CONVERSATION, later.plus(Duration.ofMinutes(65)),
                    "晚上钢琴课 piano lesson");

            assertThat(contexts(a, DIARY, corgi, mango)).as("two hours from the next turn; a reference").isEmpty();
            assertThat(context(a, library)).as("65 minutes from piano")
                    .isEqualTo(new TurnContext(List.of(coffee.sequence()), List.of()));
            assertThat(context(a, coffee)).as("piano exactly an hour after")
                    .isEqualTo(new TurnContext(List.of(library.sequence(), piano.sequence()), List.of()));
            assertThat(context(a, piano)).isEqualTo(new TurnContext(List.of(coffee.sequence()), List.of()));
        }
    }

    @Test
    @DisplayName("R4 D1 positions are arrival order: a deleted turn is no one's context at once, and the turns around it close up")
    void deletionClosesUp() {
        try (Authority a = open()) {
            List<Event> t = new ArrayList<>();
            // The assistant answers in two messages (t2, t3), so that every turn left has another role
            // next to it once t2 is deleted.
            Role[] roles = {Role.ASSISTANT, Role.USER, Role.ASSISTANT, Role.ASSISTANT, Role.USER};
            for (int i = 0; i < 5; i++) {
                t.add(add(a, DIARY, "s", "t" + i, roles[i], Category.CONVERSATION, T0.plus(Duration.ofMinutes(i)),
                        "第" + i + "句 turn " + i));
            }
            // Sent from a clock behind the others: within the hour of the first turn, sixth in order.
            Event skewed = add(a, DIARY, "s", "skewed", Role.ASSISTANT, Category.CONVERSATION,
                    T0.minus(Duration.ofMinutes(30)), "迟到的消息 late");
            assertThat(context(a, skewed)).isEqualTo(
                    new TurnContext(List.of(t.get(4).sequence()), List.of(t.get(3).sequence())));
            // Each side on its own: the user's t1 before t2 makes no exchange with t3 after it, the
            // assistant's second message, which is no context of t2; t4 beyond it is.
            assertThat(context(a, t.get(2))).isEqualTo(
                    new TurnContext(List.of(t.get(1).sequence()), List.of(t.get(0).sequence(), t.get(4).sequence())));

            a.deleteEvent(DIARY, t.get(2).id());
            assertThat(context(a, t.get(1))).isEqualTo(new TurnContext(
                    List.of(t.get(0).sequence(), t.get(3).sequence()), List.of(t.get(4).sequence())));
            assertThat(context(a, t.get(3))).isEqualTo(new TurnContext(
                    List.of(t.get(1).sequence(), t.get(4).sequence()), List.of(t.get(0).sequence(), skewed.sequence())));
            assertThat(contexts(a, DIARY, t.get(2))).as("the deleted turn has none").isEmpty();
        }
    }

    @Test
    @DisplayName("R4 one speaker's statements with no reply between them are not each other's context; a reply joins the turns across it (Chinese, English, mixed)")
    void contextIsAnExchange() {
        try (Authority a = open()) {
            // A user telling the week's plans one statement at a time: each a fact of its own.
            List<Event> notes = new ArrayList<>();
            String[] told = {"书法论坛的地点是北京海淀。", "The pottery class is on Friday.", "我会和表哥一起去 the food festival。"};
            for (int i = 0; i < told.length; i++) {
                notes.add(add(a, DIARY, "notes", "n" + i, Role.USER, Category.CONVERSATION,
                        T0.plus(Duration.ofMinutes(i)), told[i]));
            }
            assertThat(contexts(a, DIARY, notes.toArray(Event[]::new))).as("a monologue has no context").isEmpty();

            // Two messages of the user, the assistant's reply, the user again.
            Event hangzhou = add(a, DIARY, "chat", "c0", Role.USER, Category.CONVERSATION, T0.plus(Duration.ofMinutes(10)),
                    "我下周去杭州 next week");
            Event mother = add(a, DIARY, "chat", "c1", Role.USER, Category.CONVERSATION, T0.plus(Duration.ofMinutes(11)),
                    "和我妈一起 with my mother");
            Event reply = add(a, DIARY, "chat", "c2", Role.ASSISTANT, Category.CONVERSATION,
                    T0.plus(Duration.ofMinutes(12)), "Sounds lovely, 西湖这个季节很美。");
            Event thanks = add(a, DIARY, "chat", "c3", Role.USER, Category.CONVERSATION, T0.plus(Duration.ofMinutes(13)),
                    "谢谢 thanks");
            assertThat(context(a, hangzhou)).as("the reply two turns on is context across the user's second message")
                    .isEqualTo(new TurnContext(List.of(), List.of(reply.sequence())));
            assertThat(context(a, mother)).isEqualTo(new TurnContext(List.of(reply.sequence()), List.of(thanks.sequence())));
            assertThat(context(a, reply)).isEqualTo(new TurnContext(List.of(mother.sequence(), thanks.sequence()),
                    List.of(hangzhou.sequence())));
            assertThat(context(a, thanks)).isEqualTo(new TurnContext(List.of(reply.sequence()), List.of(mother.sequence())));
        }
    }

    @Test
    @DisplayName("O2 D1 migration 9: a schema-8 file loses context_fts and its shadow tables, keeps every event, and no byte of the table's text stays in the file")
    void migrationNineDropsTheContextTable() throws Exception {
        Path file = dir.resolve("jiyi.db");
        try (Authority a = open()) {
            add(a, DIARY, "s", "e0", Category.CONVERSATION, T0, "我们去看电影吧 movie night");
            add(a, DIARY, "s", "e1", Category.CONVERSATION, T0.plusSeconds(60), "好呀 sure");
        }
        // The file as schema 8 left it: context_fts with a row (its terms stored, not its text).
        String marker = "zqxcontextonlyterm";
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE context_fts USING fts5(near, far, content = '', tokenize = 'ascii')");
            s.execute("INSERT INTO context_fts (context_fts, rank) VALUES ('secure-delete', 1)");
            s.execute("INSERT INTO context_fts (rowid, near, far) VALUES (2, '" + marker + " 电 影', '')");
            AuthorityTestKit.undoMigrationsAfter(s, 8);
            s.execute("PRAGMA user_version = 8");
        }
        assertThat(FileBytes.databaseFilesContaining(dir, marker)).as("precondition: the term is in the file").isNotEmpty();

        try (Authority a = open()) {
            assertThat(a.doctor().schemaVersion()).isEqualTo(Database.SCHEMA_VERSION);
            assertThat(a.doctor().tableCounts().byName()).containsEntry("events", 2L);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM sqlite_master WHERE name LIKE 'context_fts%'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).as("context_fts and its shadow tables").isZero();
        }
        assertThat(FileBytes.databaseFilesContaining(dir, marker)).isEmpty();
    }
}
