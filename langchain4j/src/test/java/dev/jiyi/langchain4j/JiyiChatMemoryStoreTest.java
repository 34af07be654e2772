package dev.jiyi.langchain4j;

import dev.jiyi.authority.Event;
import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link JiyiChatMemoryStore} against the contract LangChain4j's own chat memory stores are tested
 * for (order, large lists, idempotent updates, delete then get, bad IDs, conversations apart), and
 * jiyi's two lifetimes on top: a shorter list is eviction and keeps history, {@code deleteMessages}
 * ends the window and keeps the turns, {@code forget} deletes them for good (D1).
 */
class JiyiChatMemoryStoreTest {

    private static final Scope SCOPE = new Scope("小明", "chat");

    @TempDir
    Path home;

    private Jiyi jiyi;
    private JiyiChatMemoryStore store;

    @BeforeEach
    void open() {
        jiyi = Jiyi.open(home);
        store = new JiyiChatMemoryStore(jiyi, "小明", "chat");
    }

    @AfterEach
    void close() {
        store.close();
        jiyi.close();
    }

    /** The turns a conversation has captured (its session's events), oldest first. */
    private List<Event> turns(Object memoryId) {
        String session = JiyiSessions.of(memoryId);
        return jiyi.authority().events(SCOPE, 0, 10_000).stream().filter(e -> e.sessionId().equals(session)).toList();
    }

    /** A conversation of {@code n} messages, user and assistant in turn, in Chinese, English and both. */
    private static List<ChatMessage> conversation(int n, long seed) {
        Random random = new Random(seed);
        String[] lines = {"我明天去杭州出差", "Remind me to call the dentist", "下周三 design review 在上海 office", "好的",
                "我的猫叫年糕", "What did I say about the budget?", "预算是五千元 budget 5000 CNY", "ok"};
        List<ChatMessage> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String text = lines[random.nextInt(lines.length)] + " #" + i;
            out.add(i % 2 == 0 ? UserMessage.from(text) : AiMessage.from(text));
        }
        return out;
    }

    @Test
    @DisplayName("E2 order holds for a large list (1,200 messages, seeded), Chinese, English and mixed; storing the same "
            + "list again stores nothing twice")
    void orderAndIdempotence() {
        List<ChatMessage> all = conversation(1_200, 20261205L);
        store.updateMessages("c-1", all);
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(all);
        assertThat(turns("c-1")).hasSize(1_200);

        store.updateMessages("c-1", all);
        assertThat(turns("c-1")).as("E2 the same list again").hasSize(1_200);
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(all);
    }

    @Test
    @DisplayName("a repeated message ('好的' twice) is two turns; one message at a time, as MessageWindowChatMemory "
            + "stores them, captures each once")
    void repeatsAndOneAtATime() {
        List<ChatMessage> window = new ArrayList<>();
        for (ChatMessage m : List.of(UserMessage.from("好的"), AiMessage.from("收到"), UserMessage.from("好的"),
                AiMessage.from("OK, noted."))) {
            window.add(m);
            store.updateMessages("c-1", List.copyOf(window));
        }
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(window);
        assertThat(turns("c-1")).extracting(Event::text).containsExactly("好的", "收到", "好的", "OK, noted.");
    }

    @Test
    @DisplayName("a shorter list is eviction from the window, never deletion: the evicted turns stay recallable")
    void evictionKeepsHistory() {
        List<ChatMessage> all = List.of(UserMessage.from("我住在上海"), AiMessage.from("好的，记住了。"),
                UserMessage.from("I work at Globex as a staff engineer"), AiMessage.from("Noted."), UserMessage.from("今天好热"));
        store.updateMessages("c-1", all);
        store.updateMessages("c-1", all.subList(3, 5));
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(all.subList(3, 5));
        assertThat(turns("c-1")).hasSize(5);
        assertThat(jiyi.recall("fts5", new RecallRequest(SCOPE, "我住在哪里", RecallMode.FAST, 5, null, false)).items())
                .extracting(i -> i.text()).contains("我住在上海");
    }

    @Test
    @DisplayName("deleteMessages ends the window and keeps the turns; the same history handed back is recognised, "
            + "not captured twice")
    void deleteThenGetIsEmpty() {
        List<ChatMessage> all = conversation(40, 7L);
        store.updateMessages("c-1", all);
        store.deleteMessages("c-1");
        assertThat(store.getMessages("c-1")).isEmpty();
        assertThat(turns("c-1")).as("the turns stay as long-term memory").hasSize(40);

        store.updateMessages("c-1", all);
        assertThat(turns("c-1")).as("handed back after the window ended: no duplicate").hasSize(40);
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(all);
        List<ChatMessage> more = new ArrayList<>(all);
        more.add(UserMessage.from("还有一件事 one more thing"));
        store.updateMessages("c-1", more);
        assertThat(turns("c-1")).hasSize(41);
        store.deleteMessages("never-stored");
        assertThat(store.getMessages("never-stored")).isEmpty();
    }

    @Test
    @DisplayName("E2 a history rewritten by compaction (older turns replaced by a summary) is recognised: only the "
            + "summary and what follows are new")
    void compactionIsRecognised() {
        List<ChatMessage> before = List.of(SystemMessage.from("你是助手"), UserMessage.from("我想学西班牙语"),
                AiMessage.from("好的，每周三次？"), UserMessage.from("两次就够 twice a week"), AiMessage.from("好，周二和周五。"),
                UserMessage.from("用哪本教材？"));
        store.updateMessages("c-1", before);
        List<ChatMessage> compacted = List.of(SystemMessage.from("你是助手"),
                AiMessage.from("摘要：用户在学西班牙语，每周两次（周二、周五）。"), UserMessage.from("用哪本教材？"),
                AiMessage.from("推荐《现代西班牙语》。"));
        store.updateMessages("c-1", compacted);
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(compacted);
        assertThat(turns("c-1")).extracting(Event::text).containsExactly("我想学西班牙语", "好的，每周三次？", "两次就够 twice a week",
                "好，周二和周五。", "用哪本教材？", "摘要：用户在学西班牙语，每周两次（周二、周五）。", "推荐《现代西班牙语》。");
    }

    @Test
    @DisplayName("a compacted window whose kept turns repeat earlier ones still captures the new turn after them")
    void compactionWithRepeats() {
        store.updateMessages("c-1", List.of(UserMessage.from("好的"), AiMessage.from("嗯"), UserMessage.from("好的"), AiMessage.from("嗯")));
        store.updateMessages("c-1", List.of(SystemMessage.from("摘要 summary"), UserMessage.from("好的"), AiMessage.from("嗯"),
                UserMessage.from("好的")));
        assertThat(turns("c-1")).extracting(Event::text).containsExactly("好的", "嗯", "好的", "嗯", "好的");
    }

    @Test
    @DisplayName("D1 a turn deleted while in the window is not captured again from a stale list, even after the window "
            + "moved on without it")
    void deletedTurnStaysDeleted() {
        store.updateMessages("c-1", List.of(UserMessage.from("秘密 secret 123"), AiMessage.from("ok")));
        jiyi.deleteEvent(SCOPE, turns("c-1").get(0).id());
        store.updateMessages("c-1", List.of(AiMessage.from("ok"), UserMessage.from("next")));
        store.updateMessages("c-1", List.of(UserMessage.from("秘密 secret 123"), AiMessage.from("ok"), UserMessage.from("next")));
        assertThat(turns("c-1")).extracting(Event::text).containsExactly("ok", "next");
        assertThat(store.getMessages("c-1")).containsExactly(AiMessage.from("ok"), UserMessage.from("next"));
    }

    @Test
    @DisplayName("E2 a window lost (a restore, say) starts again without taking an earlier turn for a new one")
    void lostWindowStartsAgain() throws IOException {
        store.updateMessages("c-1", List.of(UserMessage.from("好的")));
        try (Stream<Path> files = Files.list(home.resolve("windows").resolve("langchain4j"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                Files.delete(f);
            }
        }
        store.updateMessages("c-1", List.of(UserMessage.from("好的")));
        assertThat(turns("c-1")).extracting(Event::text).containsExactly("好的", "好的");
    }

    @Test
    @DisplayName("S1 the same memory ID in two personas is two conversations: no conflict, each its own turns and forget")
    void sameIdTwoScopes() {
        try (JiyiChatMemoryStore bob = new JiyiChatMemoryStore(jiyi, "bob", "chat")) {
            store.updateMessages("default", List.of(UserMessage.from("你好")));
            bob.updateMessages("default", List.of(UserMessage.from("你好")));
            assertThat(turns("default")).hasSize(1);
            assertThat(bob.getMessages("default")).containsExactly(UserMessage.from("你好"));
            assertThat(bob.forget("default")).isEqualTo(1);
            assertThat(store.getMessages("default")).containsExactly(UserMessage.from("你好"));
        }
    }

    @Test
    @DisplayName("D1 system messages stay in the window for the process only: no window file holds one, and a copy a "
            + "failed write left is removed by forget")
    void instructionsNeverOnDisk() throws IOException {
        List<ChatMessage> all = List.of(SystemMessage.from("你是助手 Zephyrine"), UserMessage.from("你好"));
        store.updateMessages("c-1", all);
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(all);
        assertThat(FileBytes.filesContaining(home, "Zephyrine")).isEmpty();
        Path dir = home.resolve("windows").resolve("langchain4j");
        Path window;
        try (Stream<Path> files = Files.list(dir)) {
            window = files.filter(f -> f.toString().endsWith(".json")).findFirst().orElseThrow();
        }
        Files.writeString(window.resolveSibling(window.getFileName() + ".tmp"), "你好 left by a crash");
        store.forget("c-1");
        assertThat(FileBytes.filesContaining(home, "left by a crash")).isEmpty();
        assertThatThrownBy(() -> store.updateMessages("c-2", List.of(SystemMessage.from("长".repeat(300_000)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("messages");
    }

    @Test
    @DisplayName("two engines on one home through different paths (a symbolic link) share the windows' lock")
    void oneLockWhateverThePath() throws Exception {
        Path link = Files.createSymbolicLink(home.resolveSibling(home.getFileName() + "-link"), home);
        try (Jiyi other = Jiyi.open(link); JiyiChatMemoryStore there = new JiyiChatMemoryStore(other, "小明", "chat")) {
            store.updateMessages("c-1", List.of(UserMessage.from("一")));
            java.util.concurrent.ExecutorService two = java.util.concurrent.Executors.newFixedThreadPool(2);
            List<java.util.concurrent.Future<?>> runs = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                runs.add(two.submit(() -> store.getMessages("c-1")));
                runs.add(two.submit(() -> there.getMessages("c-1")));
            }
            for (java.util.concurrent.Future<?> r : runs) {
                r.get();
            }
            two.shutdown();
        } finally {
            Files.delete(link);
        }
    }

    @Test
    @DisplayName("O7 a message of a type LangChain4j does not define is refused, naming the field, and changes nothing")
    void unknownMessageType() {
        store.updateMessages("c-1", List.of(UserMessage.from("保留 kept")));
        ChatMessage alien = () -> dev.langchain4j.data.message.ChatMessageType.USER;
        assertThatThrownBy(() -> store.updateMessages("c-1", List.of(UserMessage.from("保留 kept"), alien)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("messages");
        assertThat(store.getMessages("c-1")).containsExactly(UserMessage.from("保留 kept"));
        assertThat(turns("c-1")).hasSize(1);
    }

    @Test
    @DisplayName("a framework that ends the window after every request (quarkus-langchain4j) captures each request's "
            + "message, a repeated '好的' too")
    void windowEndedEveryRequest() {
        for (String said : List.of("好的", "明天提醒我交房租", "好的", "OK")) {
            store.updateMessages("c-1", List.of(SystemMessage.from("你是助手"), UserMessage.from(said)));
            store.updateMessages("c-1", List.of(SystemMessage.from("你是助手"), UserMessage.from(said), AiMessage.from("收到")));
            store.deleteMessages("c-1");
        }
        assertThat(turns("c-1")).extracting(Event::text)
                .containsExactly("好的", "收到", "明天提醒我交房租", "收到", "好的", "收到", "OK", "收到");
    }

    @Test
    @DisplayName("system messages, tool calls and tool results come back as they were stored, and are not turns")
    void messagesThatAreNotTurns() {
        List<ChatMessage> all = List.of(
                SystemMessage.from("你是一个旅行助手 You are a travel assistant"),
                UserMessage.from("成都明天天气怎么样？"),
                AiMessage.from(ToolExecutionRequest.builder().id("call-1").name("weather").arguments("{\"city\":\"成都\"}").build()),
                ToolExecutionResultMessage.from("call-1", "weather", "晴 sunny 18°C"),
                AiMessage.from("明天成都晴，18 度。"),
                UserMessage.from("Alice", "I'm Alice"));
        store.updateMessages("c-1", all);
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(all);
        assertThat(turns("c-1")).extracting(Event::text).containsExactly("成都明天天气怎么样？", "明天成都晴，18 度。");
    }

    @Test
    @DisplayName("D1 a turn deleted from the command line leaves the window and never comes back, even in a stale list")
    void deletedTurnNeverComesBack() {
        List<ChatMessage> all = List.of(UserMessage.from("我的密码提示是蓝色海豚"), AiMessage.from("好的"),
                UserMessage.from("明天提醒我开会"));
        store.updateMessages("c-1", all);
        String secret = turns("c-1").get(0).id();
        jiyi.deleteEvent(SCOPE, secret);
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(all.subList(1, 3));

        store.updateMessages("c-1", all); // a stale copy that still holds it
        assertThat(turns("c-1")).extracting(Event::text).doesNotContain("我的密码提示是蓝色海豚").hasSize(2);
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(all.subList(1, 3));
    }

    @Test
    @DisplayName("D1 forget deletes the conversation's turns and window for good, leaving no trace in any file of the "
            + "home, and only that conversation")
    void forgetIsPermanent() throws IOException {
        store.updateMessages("c-1", List.of(SystemMessage.from("系统提示 Zephyrine"), UserMessage.from("我住在上海 Quokkaville"),
                AiMessage.from("好的，记住你住在上海。")));
        store.updateMessages("c-2", List.of(UserMessage.from("我喜欢喝乌龙茶")));
        assertThat(store.forget("c-1")).isEqualTo(2);
        assertThat(store.getMessages("c-1")).isEmpty();
        assertThat(turns("c-1")).isEmpty();
        assertThat(store.getMessages("c-2")).hasSize(1);
        assertThat(store.forget("c-1")).as("twice: nothing more").isZero();
        assertThat(store.forget("never-stored")).isZero();
        jiyi.recall("lucene", new RecallRequest(SCOPE, "上海", RecallMode.FAST, 5, null, false)); // Lucene catches up
        for (String trace : List.of("我住在上海", "Quokkaville", "quokkaville", "Zephyrine", "记住你住在上海")) {
            assertThat(FileBytes.filesContaining(home, trace)).as("D1 '%s'", trace).isEmpty();
        }
    }

    @Test
    @DisplayName("E2 a window lost after its turns were stored (a crash between the two) is rebuilt by the next "
            + "update without storing anything twice")
    void crashBetweenTurnsAndWindow() throws IOException {
        List<ChatMessage> first = conversation(10, 3L);
        store.updateMessages("c-1", first);
        Path dir = home.resolve("windows").resolve("langchain4j");
        List<Path> windows;
        try (Stream<Path> files = Files.list(dir)) {
            windows = files.filter(f -> f.toString().endsWith(".json")).toList();
        }
        assertThat(windows).hasSize(1);
        byte[] before = Files.readAllBytes(windows.get(0));
        List<ChatMessage> second = new ArrayList<>(first);
        second.addAll(conversation(6, 4L));
        store.updateMessages("c-1", second);
        Files.write(windows.get(0), before); // the window as it was before the second update's write

        store.updateMessages("c-1", second);
        assertThat(turns("c-1")).hasSize(16);
        assertThat(store.getMessages("c-1")).containsExactlyElementsOf(second);
    }

    @Test
    @DisplayName("conversations are apart, and so are scopes: one store's conversation is not another persona's")
    void conversationsApart() {
        store.updateMessages("c-1", List.of(UserMessage.from("一")));
        store.updateMessages("c-2", List.of(UserMessage.from("二"), AiMessage.from("two")));
        try (JiyiChatMemoryStore other = new JiyiChatMemoryStore(jiyi, "小红", "chat")) {
            assertThat(other.getMessages("c-1")).isEmpty();
            other.updateMessages("c-1", List.of(UserMessage.from("别人的 someone else's")));
            assertThat(other.forget("c-1")).isEqualTo(1);
        }
        assertThat(store.getMessages("c-1")).containsExactly(UserMessage.from("一"));
        assertThat(store.getMessages("c-2")).containsExactly(UserMessage.from("二"), AiMessage.from("two"));
    }

    @Test
    @DisplayName("O7 bad input is LangChain4j's IllegalArgumentException naming the field, never the value, and changes "
            + "nothing: null or blank IDs, a null list or message, an oversized message")
    void badInput() {
        store.updateMessages("c-1", List.of(UserMessage.from("保留 kept")));
        assertThatThrownBy(() -> store.getMessages(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memoryId");
        assertThatThrownBy(() -> store.updateMessages(" ", List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memoryId");
        assertThatThrownBy(() -> store.deleteMessages(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memoryId");
        assertThatThrownBy(() -> store.forget("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memoryId");
        assertThatThrownBy(() -> store.updateMessages("c-1", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("messages");
        List<ChatMessage> withNull = new ArrayList<>();
        withNull.add(UserMessage.from("新的 new"));
        withNull.add(null);
        assertThatThrownBy(() -> store.updateMessages("c-1", withNull)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("messages");
        String huge = "长".repeat(300_000);
        assertThatThrownBy(() -> store.updateMessages("c-1", List.of(UserMessage.from("前面 before"), UserMessage.from(huge))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("text").hasMessageNotContaining("长长");
        assertThat(store.getMessages("c-1")).containsExactly(UserMessage.from("保留 kept"));
        assertThat(turns("c-1")).extracting(Event::text).containsExactly("保留 kept");
    }
}
