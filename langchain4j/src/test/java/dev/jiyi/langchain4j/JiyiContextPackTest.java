package dev.jiyi.langchain4j;

import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.pack.Pack;

import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link JiyiContextPack} as an {@code AiServices} system message provider: the conversation's
 * checkpoint and turns reach the model's prompt, within the budget counted by the model's tokenizer.
 */
class JiyiContextPackTest {

    private static final Scope SCOPE = new Scope("小明", "travel");
    private static final Instant AT = Instant.parse("2026-11-28T10:00:00Z");
    /** The session of the conversation whose memory ID is {@code trip}. */
    private static final String TRIP = JiyiSessions.of("trip");

    @TempDir
    Path home;

    interface Assistant {
        String chat(@MemoryId String conversation, @UserMessage String message);
    }

    private static Assistant assistant(RecordingChatModel model, JiyiContextPack resume) {
        return AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(10))
                .systemMessageProvider(resume).build();
    }

    /** A trip being planned in conversation {@code trip}: two turns and a checkpoint covering them. */
    private static void planTrip(Jiyi jiyi) {
        jiyi.submit(new EventSubmission("trip-1", SCOPE, Role.USER, "下个月去成都玩五天，预算五千元 budget 5000 CNY", "test", null,
                TRIP, AT));
        long covered = jiyi.submit(new EventSubmission("trip-2", SCOPE, Role.ASSISTANT,
                "好的，先订 Chengdu 的酒店，再看熊猫基地的门票。", "test", null, TRIP, AT.plusSeconds(60))).event().sequence();
        jiyi.authority().saveCheckpoint(SCOPE, new CheckpointDraft(TRIP, "规划成都五日游 plan the Chengdu trip",
                List.of("定了预算五千元"), List.of("酒店还没订"), List.of("不坐红眼航班"), "订酒店", covered));
    }

    @Test
    @DisplayName("P1 P2 P5 the conversation's pack is the assistant's system message: checkpoint and recent turns, "
            + "counted by gpt-4o's tokenizer within the budget")
    void packIsTheSystemMessage() {
        RecordingChatModel model = new RecordingChatModel();
        try (Jiyi jiyi = Jiyi.open(home);
             JiyiContextPack resume = JiyiContextPack.builder().engine(jiyi).persona("小明").project("travel")
                     .model("gpt-4o").budget(600).build()) {
            planTrip(jiyi);
            assistant(model, resume).chat("trip", "我们继续吧 let's continue");

            String system = model.lastSystemText();
            assertThat(system).startsWith(JiyiContextPack.DEFAULT_PREAMBLE)
                    .contains("规划成都五日游").contains("酒店还没订").contains("不坐红眼航班").contains("预算五千元");
            Pack pack = resume.pack("trip");
            assertThat(pack.status()).isEqualTo(Pack.OK);
            assertThat(pack.tokenizer()).isEqualTo("o200k_base");
            assertThat(pack.tokens()).isPositive().isLessThanOrEqualTo(600);
            assertThat(system).endsWith(pack.context());
        }
    }

    @Test
    @DisplayName("P4 a budget too small for the pack's framing gives no system message rather than a cut one; "
            + "another conversation gets its own pack")
    void tooSmallOrOtherConversation() {
        RecordingChatModel model = new RecordingChatModel();
        try (Jiyi jiyi = Jiyi.open(home)) {
            planTrip(jiyi);
            try (JiyiContextPack tiny = JiyiContextPack.builder().engine(jiyi).persona("小明").project("travel").budget(5).build()) {
                assertThat(tiny.pack("trip").status()).isEqualTo(Pack.INSUFFICIENT_BUDGET);
                assistant(model, tiny).chat("trip", "继续");
                assertThat(model.lastSystemText()).isNull();
            }
            try (JiyiContextPack resume = JiyiContextPack.builder().engine(jiyi).persona("小明").project("travel")
                    .preamble("").build()) {
                assistant(model, resume).chat("another conversation", "hello");
                assertThat(model.lastSystemText()).as("no checkpoint of this session in it").doesNotContain("酒店还没订")
                        .startsWith("{");
            }
        }
    }

    @Test
    @DisplayName("O7 bad settings are IllegalArgumentException naming the field, never the value")
    void badSettings() {
        assertThatThrownBy(() -> JiyiContextPack.builder().home(home).budget(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("budget");
        assertThatThrownBy(() -> JiyiContextPack.builder().home(home).model("gpt\u00004o").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("model");
        assertThatThrownBy(() -> JiyiContextPack.builder().home(home).preamble(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("preamble");
        try (JiyiContextPack resume = JiyiContextPack.builder().home(home).build()) {
            assertThatThrownBy(() -> resume.apply(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("memoryId");
        }
    }

    @Test
    @DisplayName("a memory ID maps to one session of its own, the same every time: itself behind langchain4j: when that is a "
            + "jiyi ID, else a hash")
    void sessions() {
        assertThat(JiyiSessions.of("trip")).isEqualTo("langchain4j:trip");
        assertThat(JiyiSessions.of(42)).isEqualTo("langchain4j:42");
        assertThat(JiyiSessions.of("default")).as("never the command line's default session").isEqualTo("langchain4j:default");
        String spaced = JiyiSessions.of("user 42 的对话");
        assertThat(spaced).matches("langchain4j:[0-9a-f]{32}").isEqualTo(JiyiSessions.of("user 42 的对话"))
                .isNotEqualTo(JiyiSessions.of("user 43 的对话"));
        assertThat(JiyiSessions.of("x".repeat(190))).matches("langchain4j:[0-9a-f]{32}");
        assertThatThrownBy(() -> JiyiSessions.of(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memoryId");
    }
}
