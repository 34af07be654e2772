package dev.jiyi.langchain4j;

import dev.jiyi.authority.Event;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Jiyi;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One home, three processes: {@code jiyi event submit --batch} (the command line itself) in a second
 * JVM, the store in a third (another replica of the assistant, with conversations of its own) and
 * the store here. Nothing acknowledged is lost, and no turn is stored twice.
 */
class TwoProcessesTest {

    static final Scope SCOPE = Scope.DEFAULT;
    static final int TURNS = 120;
    static final int LINES = 400;

    @TempDir
    Path home;

    @TempDir
    Path input;

    /** The conversation both processes store, one message more at a time (user and assistant in turn). */
    static List<ChatMessage> conversation() {
        List<ChatMessage> out = new ArrayList<>(TURNS);
        for (int i = 0; i < TURNS; i++) {
            out.add(i % 2 == 0 ? UserMessage.from("第 " + i + " 句 line " + i) : AiMessage.from("收到 " + i + " got it"));
        }
        return out;
    }

    /** Stores the conversation one message more at a time in a window of 20, as MessageWindowChatMemory does. */
    static void storeConversation(Path home, String conversation) {
        try (JiyiChatMemoryStore store = JiyiChatMemoryStore.open(home)) {
            List<ChatMessage> all = conversation();
            for (int i = 1; i <= all.size(); i++) {
                store.updateMessages(conversation, all.subList(Math.max(0, i - 20), i));
            }
        }
    }

    /** {@link #LINES} event lines for {@code jiyi event submit --batch}, Chinese and English. */
    static Path lines(Path dir) throws IOException {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < LINES; i++) {
            lines.append("{\"id\":\"cli-").append(i).append("\",\"role\":\"user\",\"session\":\"cli\",\"occurred_at\":")
                    .append("\"2026-12-01T10:00:00Z\",\"text\":\"命令行提交的第 ").append(i).append(" 行 line from the CLI\"}\n");
        }
        Path file = dir.resolve("lines.jsonl");
        Files.writeString(file, lines, StandardCharsets.UTF_8);
        return file;
    }

    /** The third process: the store, in conversation {@code replica} of {@code HOME}. */
    public static void main(String[] args) {
        storeConversation(Path.of(args[0]), "replica");
    }

    private Process child(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(home.resolve(name + ".log").toFile()).start();
    }

    @Test
    @DisplayName("E2 a CLI batch in another process, the store in a third and the store here, on one home at once: "
            + "every line and every turn stored, none twice, each window whole")
    void twoProcessesOneHome() throws Exception {
        Files.createDirectories(home);
        try (Jiyi first = Jiyi.open(home)) {
            first.authority().tableCounts(); // the home exists before two processes race to create it
        }
        Process cli = child("cli", dev.jiyi.cli.Main.class.getName(), "--home", home.toString(), "event", "submit",
                "--batch", lines(input).toString(), "--chunk-size", "25");
        Process replica = child("store", TwoProcessesTest.class.getName(), home.toString());
        storeConversation(home, "here");
        assertThat(cli.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(replica.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(cli.exitValue()).as(Files.readString(home.resolve("cli.log"))).isZero();
        assertThat(replica.exitValue()).as(Files.readString(home.resolve("store.log"))).isZero();

        try (Jiyi jiyi = Jiyi.open(home)) {
            List<Event> all = jiyi.authority().events(SCOPE, 0, 10_000);
            assertThat(all.stream().filter(e -> e.sessionId().equals("cli"))).hasSize(LINES);
            try (JiyiChatMemoryStore store = new JiyiChatMemoryStore(jiyi, null, null)) {
                for (String conversation : List.of("here", "replica")) {
                    List<String> turns = all.stream().filter(e -> e.sessionId().equals(JiyiSessions.of(conversation)))
                            .map(Event::text).toList();
                    assertThat(turns).as("every turn of %s once, in order", conversation).containsExactlyElementsOf(
                            conversation().stream().map(JiyiContentRetriever::turnText).toList());
                    assertThat(store.getMessages(conversation)).containsExactlyElementsOf(conversation().subList(TURNS - 20, TURNS));
                }
            }
        }
    }
}
