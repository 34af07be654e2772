package dev.jiyi.engine;

import dev.jiyi.authority.Event;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.jiyi.engine.ChatWindows.Message.instruction;
import static dev.jiyi.engine.ChatWindows.Message.turn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ChatWindows} as a framework drives it: each list is what the window read, plus the new
 * message (a framework's window builds its list from the store). The adapters' suites test the
 * rest through LangChain4j and Spring AI.
 */
class ChatWindowsTest {

    private static final Scope SCOPE = new Scope("小明", "windows");

    @TempDir
    Path home;

    private static List<String> texts(Jiyi jiyi, String session) {
        return jiyi.authority().events(SCOPE, 0, 1_000).stream().filter(e -> e.sessionId().equals(session)).map(Event::text).toList();
    }

    /** What a framework stores after reading the window and adding one message. */
    private static void add(ChatWindows windows, String session, ChatWindows.Message m) {
        List<ChatWindows.Message> list = new ArrayList<>(windows.read(session));
        list.add(m);
        windows.store(session, session, list);
    }

    @Test
    @DisplayName("D1 a turn deleted from the window is not what a new identical message matches: the new one is captured")
    void newMessageLikeADeletedOne() {
        try (Jiyi jiyi = Jiyi.open(home)) {
            ChatWindows windows = new ChatWindows(jiyi, SCOPE, "test");
            add(windows, "s", turn(Role.USER, "好的"));
            add(windows, "s", turn(Role.ASSISTANT, "嗯"));
            jiyi.deleteEvent(SCOPE, jiyi.authority().events(SCOPE, 0, 10).get(1).id());
            add(windows, "s", turn(Role.ASSISTANT, "嗯"));
            assertThat(texts(jiyi, "s")).containsExactly("好的", "嗯");
            assertThat(windows.read("s")).containsExactly(turn(Role.USER, "好的"), turn(Role.ASSISTANT, "嗯"));

            add(windows, "t", turn(Role.USER, "好的"));
            add(windows, "t", turn(Role.ASSISTANT, "嗯"));
            add(windows, "t", turn(Role.USER, "好的"));
            add(windows, "t", turn(Role.ASSISTANT, "嗯"));
            List<Event> t = jiyi.authority().events(SCOPE, 0, 100).stream().filter(e -> e.sessionId().equals("t")).toList();
            jiyi.deleteEvent(SCOPE, t.get(2).id());
            add(windows, "t", turn(Role.USER, "好的"));
            assertThat(texts(jiyi, "t")).containsExactly("好的", "嗯", "嗯", "好的");
            assertThat(windows.read("t")).hasSize(4);
        }
    }

    @Test
    @DisplayName("a system message replaced with every call (a context pack) is held once in memory, not once per call")
    void instructionsDoNotPileUp() {
        try (Jiyi jiyi = Jiyi.open(home)) {
            ChatWindows windows = new ChatWindows(jiyi, SCOPE, "test");
            for (int i = 0; i < 50; i++) {
                windows.store("s", "s", List.of(instruction("SYSTEM", "pack " + i), turn(Role.USER, "第 " + i + " 句")));
            }
            assertThat(WindowFiles.instructionsHeld(windows.file("s"))).isEqualTo(1);
            assertThat(windows.read("s").getFirst()).isEqualTo(instruction("SYSTEM", "pack 49"));
            windows.end("s");
            assertThat(WindowFiles.instructionsHeld(windows.file("s"))).isZero();
        }
    }

    @Test
    @DisplayName("an advisor's appends: concurrent exchanges of one conversation each kept, the window capped, an exchange "
            + "a chat memory captured during the call not added twice")
    void appends() throws Exception {
        try (Jiyi jiyi = Jiyi.open(home)) {
            ChatWindows windows = new ChatWindows(jiyi, SCOPE, "test");
            long since = windows.captured("s");
            List<Thread> threads = new ArrayList<>();
            for (String who : List.of("甲", "乙")) {
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 60; i++) {
                        String q = who + " 问 " + i;
                        windows.append("s", "s", q, windows.captured("s"), List.of(turn(Role.USER, q), turn(Role.ASSISTANT, who + " 答 " + i)));
                    }
                }));
            }
            for (Thread th : threads) {
                th.join();
            }
            assertThat(texts(jiyi, "s")).hasSize(240).doesNotHaveDuplicates().filteredOn(x -> x.contains("问")).hasSize(120);
            assertThat(windows.read("s")).hasSize(ChatWindows.MAX_APPENDED);
            assertThat(since).isZero();

            long before = windows.captured("u");
            windows.store("u", "u", List.of(turn(Role.USER, "你好")));          // a chat memory stores the question
            assertThat(windows.append("u", "u", "你好", before, List.of(turn(Role.USER, "你好"), turn(Role.ASSISTANT, "好")))).isFalse();
            assertThat(texts(jiyi, "u")).containsExactly("你好");
        }
    }
}
