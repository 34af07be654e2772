package dev.jiyi.langchain4j;

import dev.jiyi.authority.FileBytes;
import dev.jiyi.engine.Jiyi;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole of jiyi in a LangChain4j assistant, as docs/integrations.md shows it: the store as every
 * conversation's chat memory, the retriever recalling what earlier conversations said, and forget.
 */
class AssistantMemoryTest {

    @TempDir
    Path home;

    interface Assistant {
        String chat(@MemoryId String conversation, @dev.langchain4j.service.UserMessage String message);
    }

    private static Assistant assistant(RecordingChatModel model, JiyiChatMemoryStore store, JiyiContentRetriever memory,
                                       JiyiContextPack resume) {
        return AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.builder().id(id).maxMessages(6).chatMemoryStore(store).build())
                .contentRetriever(memory)
                .systemMessageProvider(resume)
                .build();
    }

    @Test
    @DisplayName("R7 D1 said in one conversation (我住在上海 / I live in Shanghai), answered from in the next, kept "
            + "across a restart, and gone from the prompt and every file of the home once the conversation is forgotten")
    void remembersThenForgets() throws IOException {
        RecordingChatModel model = new RecordingChatModel();
        try (Jiyi jiyi = Jiyi.open(home);
             JiyiChatMemoryStore store = new JiyiChatMemoryStore(jiyi, "default", "default");
             JiyiContentRetriever memory = JiyiContentRetriever.builder().engine(jiyi).index("lucene").build();
             JiyiContextPack resume = JiyiContextPack.builder().engine(jiyi).index("lucene").build()) {
            Assistant assistant = assistant(model, store, memory, resume);
            assistant.chat("monday", "我住在上海，楼下有家 Quokkaville 咖啡店。");
            assistant.chat("monday", "Also, I live in Shanghai near the Bund.");
            for (int i = 0; i < 4; i++) {
                assistant.chat("monday", "第 " + i + " 个无关的问题 unrelated question " + i);
            }
            assertThat(store.getMessages("monday")).as("the window holds the last six messages").hasSize(6)
                    .doesNotContain(UserMessage.from("我住在上海，楼下有家 Quokkaville 咖啡店。"));
        }
        try (Jiyi jiyi = Jiyi.open(home);
             JiyiChatMemoryStore store = new JiyiChatMemoryStore(jiyi, "default", "default");
             JiyiContentRetriever memory = JiyiContentRetriever.builder().engine(jiyi).index("lucene").build();
             JiyiContextPack resume = JiyiContextPack.builder().engine(jiyi).index("lucene").build()) {
            assertThat(store.getMessages("monday")).as("the window survives the engine's restart (its system message "
                    + "lives as long as this JVM)").hasSize(6).endsWith(AiMessage.from("好的 / OK"));
            Assistant assistant = assistant(model, store, memory, resume);
            assistant.chat("tuesday", "我住在哪里？");
            assertThat(model.lastUserText()).contains("我住在上海");
            assistant.chat("wednesday", "Where do I live?");
            assertThat(model.lastUserText()).contains("I live in Shanghai");

            assistant.chat("tuesday", "再说一次？ Say it again?");
            assertThat(model.lastSystemText()).as("Tuesday's pack, recalled by its last question, quotes Monday")
                    .contains("Quokkaville");

            assertThat(store.forget("monday")).isEqualTo(12);
            // Straight after forget, before any search: nothing of Monday in any file, nor among Lucene's terms,
            // though Tuesday's and Wednesday's windows held packs that quoted it.
            for (String trace : List.of("我住在上海", "Quokkaville", "quokkaville", "near the Bund")) {
                assertThat(FileBytes.filesContaining(home, trace)).as("D1 '%s'", trace).isEmpty();
            }
            assertThat(LuceneTerms.containing(home, "quokkavil")).as("D1 Lucene's terms").isEmpty();
            assistant.chat("thursday", "我住在哪里？ Where do I live?");
            assertThat(model.lastUserText()).doesNotContain("上海").doesNotContain("Shanghai");
            assertThat(model.lastSystemText()).doesNotContain("上海").doesNotContain("Quokkaville");
            assertThat(store.getMessages("monday")).isEmpty();
            assertThat(store.getMessages("tuesday")).as("other conversations keep their windows")
                    .contains(UserMessage.from("我住在哪里？"));
        }
        for (String trace : List.of("我住在上海", "Quokkaville", "quokkaville", "near the Bund")) {
            assertThat(FileBytes.filesContaining(home, trace)).as("D1 '%s'", trace).isEmpty();
        }
    }
}
