package dev.jiyi.spring;

import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link JiyiChatMemoryRepository} against what Spring AI tests its own repositories for
 * ({@code AbstractJdbcChatMemoryRepositoryIT}: every message type, order in large batches, the
 * conversations listed, delete then find, conversations apart), and jiyi's two lifetimes: a shorter
 * window keeps history, {@code deleteByConversationId} ends the window, {@code forget} deletes (D1).
 */
class JiyiChatMemoryRepositoryTest {

    private static final Scope SCOPE = new Scope("小明", "spring");

    @TempDir
    Path home;

    private Jiyi jiyi;
    private JiyiChatMemoryRepository repository;

    @BeforeEach
    void open() {
        jiyi = Jiyi.open(home);
        repository = new JiyiChatMemoryRepository(jiyi, "小明", "spring");
    }

    @AfterEach
    void close() {
        repository.close();
        jiyi.close();
    }

    private List<Event> turns(String conversation) {
        String session = JiyiChatMemoryRepository.session(conversation);
        return jiyi.authority().events(SCOPE, 0, 10_000).stream().filter(e -> e.sessionId().equals(session)).toList();
    }

    private static List<Message> conversation(int n, long seed) {
        Random random = new Random(seed);
        String[] lines = {"我明天去杭州出差", "Remind me to call the dentist", "下周三 design review 在上海 office", "好的"};
        List<Message> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String text = lines[random.nextInt(lines.length)] + " #" + i;
            out.add(i % 2 == 0 ? new UserMessage(text) : new AssistantMessage(text));
        }
        return out;
    }

    @Test
    @DisplayName("every message type comes back as stored: system, user, assistant, tool calls and tool responses, "
            + "Chinese, English and mixed; only the user's and assistant's words are turns")
    void everyMessageType() {
        List<Message> all = List.of(
                new SystemMessage("你是一个旅行助手 You are a travel assistant"),
                new UserMessage("成都明天天气怎么样？"),
                AssistantMessage.builder().toolCalls(List.of(new AssistantMessage.ToolCall("call-1", "function", "weather",
                        "{\"city\":\"成都\"}"))).build(),
                ToolResponseMessage.builder().responses(List.of(new ToolResponseMessage.ToolResponse("call-1", "weather",
                        "晴 sunny 18°C"))).build(),
                new AssistantMessage("明天成都晴，18 度 sunny."));
        repository.saveAll("trip", all);
        assertThat(repository.findByConversationId("trip")).containsExactlyElementsOf(all);
        assertThat(turns("trip")).extracting(Event::text).containsExactly("成都明天天气怎么样？", "明天成都晴，18 度 sunny.");
    }

    @Test
    @DisplayName("E2 order holds for 1,000 messages (seeded); saving the same window again stores nothing twice; the "
            + "conversations with windows are listed")
    void orderIdempotenceAndIds() {
        List<Message> all = conversation(1_000, 20261205L);
        repository.saveAll("c-1", all);
        repository.saveAll("c-1", all);
        repository.saveAll("c-2", List.of(new UserMessage("另一段 another")));
        assertThat(repository.findByConversationId("c-1")).containsExactlyElementsOf(all);
        assertThat(turns("c-1")).hasSize(1_000);
        assertThat(repository.findConversationIds()).containsExactlyInAnyOrder("c-1", "c-2");
    }

    @Test
    @DisplayName("a shorter window is eviction, never deletion (spring-ai #7029): the evicted turns stay recallable")
    void windowKeepsHistory() {
        List<Message> all = List.of(new UserMessage("我住在上海"), new AssistantMessage("好的，记住了。"),
                new UserMessage("I work at Globex"), new AssistantMessage("Noted."));
        repository.saveAll("c-1", all);
        repository.saveAll("c-1", all.subList(2, 4));
        assertThat(repository.findByConversationId("c-1")).containsExactlyElementsOf(all.subList(2, 4));
        assertThat(turns("c-1")).hasSize(4);
        assertThat(jiyi.recall("fts5", new RecallRequest(SCOPE, "我住在哪里", RecallMode.FAST, 5, null, false)).items())
                .extracting(i -> i.text()).contains("我住在上海");
    }

    @Test
    @DisplayName("deleteByConversationId ends the window (find is empty, the conversation is no longer listed) and "
            + "keeps the turns; a conversation never stored finds nothing")
    void deleteThenFindIsEmpty() {
        repository.saveAll("c-1", conversation(10, 1L));
        repository.deleteByConversationId("c-1");
        assertThat(repository.findByConversationId("c-1")).isEmpty();
        assertThat(repository.findConversationIds()).doesNotContain("c-1");
        assertThat(turns("c-1")).hasSize(10);
        assertThat(repository.findByConversationId("never")).isEmpty();
        repository.deleteByConversationId("never");
    }

    @Test
    @DisplayName("D1 forget deletes the conversation's turns and window, leaving no trace in any file of the home, and "
            + "only that conversation; repositories of other personas are apart")
    void forgetIsPermanent() throws IOException {
        repository.saveAll("c-1", List.of(new SystemMessage("系统提示 Zephyrine"), new UserMessage("我住在上海 Quokkaville"),
                new AssistantMessage("好的，记住你住在上海。")));
        repository.saveAll("c-2", List.of(new UserMessage("我喜欢喝乌龙茶")));
        try (JiyiChatMemoryRepository other = new JiyiChatMemoryRepository(jiyi, "小红", "spring")) {
            assertThat(other.findByConversationId("c-1")).isEmpty();
            assertThat(other.findConversationIds()).isEmpty();
        }
        assertThat(repository.forget("c-1")).isEqualTo(2);
        assertThat(repository.forget("c-1")).isZero();
        assertThat(repository.findByConversationId("c-1")).isEmpty();
        assertThat(repository.findByConversationId("c-2")).hasSize(1);
        jiyi.recall("lucene", new RecallRequest(SCOPE, "上海", RecallMode.FAST, 5, null, false)); // Lucene catches up
        for (String trace : List.of("我住在上海", "Quokkaville", "quokkaville", "Zephyrine", "记住你住在上海")) {
            assertThat(FileBytes.filesContaining(home, trace)).as("D1 '%s'", trace).isEmpty();
        }
    }

    @Test
    @DisplayName("open(home) opens a home of its own and closes it; the window and turns are there when it opens again")
    void openOwnHome() {
        Path own = home.resolve("own");
        try (JiyiChatMemoryRepository opened = JiyiChatMemoryRepository.open(own)) {
            opened.saveAll("c-1", List.of(new UserMessage("第一次 first"), new AssistantMessage("好的")));
        }
        try (JiyiChatMemoryRepository again = JiyiChatMemoryRepository.open(own)) {
            assertThat(again.findByConversationId("c-1")).containsExactly(new UserMessage("第一次 first"), new AssistantMessage("好的"));
            assertThat(again.findConversationIds()).containsExactly("c-1");
        }
        assertThatThrownBy(() -> JiyiChatMemoryRepository.open(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("home");
        assertThatThrownBy(() -> JiyiChatMemoryRepository.open(own, "有 空格", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("persona");
    }

    @Test
    @DisplayName("O7 bad input is IllegalArgumentException naming the field, never the value, and changes nothing: "
            + "null or blank IDs, a null list or message, a message type Spring AI does not define, an oversized message")
    void badInput() {
        repository.saveAll("c-1", List.of(new UserMessage("保留 kept")));
        assertThatThrownBy(() -> repository.findByConversationId(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("conversationId");
        assertThatThrownBy(() -> repository.saveAll(" ", List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("conversationId");
        assertThatThrownBy(() -> repository.deleteByConversationId("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("conversationId");
        assertThatThrownBy(() -> repository.saveAll("c-1", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("messages");
        List<Message> withNull = new ArrayList<>();
        withNull.add(new UserMessage("新的 new"));
        withNull.add(null);
        assertThatThrownBy(() -> repository.saveAll("c-1", withNull)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("messages");
        String huge = "长".repeat(300_000);
        assertThatThrownBy(() -> repository.saveAll("c-1", List.of(new UserMessage("前面 before"), new UserMessage(huge))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("text").hasMessageNotContaining("长长");
        Message alien = new Message() {
            @Override
            public String getText() {
                return "外来 alien";
            }

            @Override
            public java.util.Map<String, Object> getMetadata() {
                return java.util.Map.of();
            }

            @Override
            public org.springframework.ai.chat.messages.MessageType getMessageType() {
                return org.springframework.ai.chat.messages.MessageType.USER;
            }
        };
        assertThatThrownBy(() -> repository.saveAll("c-1", List.of(alien))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("messages").hasMessageNotContaining("外来");
        assertThat(repository.findByConversationId("c-1")).containsExactly(new UserMessage("保留 kept"));
        assertThat(turns("c-1")).extracting(Event::text).containsExactly("保留 kept");
        assertThat(JiyiChatMemoryRepository.session("user 42")).matches("spring-ai:[0-9a-f]{32}");
        assertThat(JiyiChatMemoryRepository.session("default")).isEqualTo("spring-ai:default");
    }
}
