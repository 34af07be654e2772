package dev.jiyi.langchain4j;

import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.VectorReindex;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link JiyiContentRetriever} inside LangChain4j's own pipeline: an {@code AiServices} assistant with
 * chat memory and the retriever, and a chat model of the test's own that keeps the prompts it is
 * sent. No extraction model is configured, so what the user said is recalled as labeled raw turns (R7).
 */
class JiyiContentRetrieverTest {

    private static final Scope SCOPE = new Scope("小明", "assistant");
    private static final Instant AT = Instant.parse("2026-11-20T09:00:00Z");

    private static final String SAID_ZH = "我住在上海，楼下有家叫 Quokkaville 的咖啡店。";
    private static final String SAID_EN = "I live in Shanghai, right above a cafe called Quokkaville.";

    @TempDir
    Path home;

    /** An assistant as a LangChain4j program declares it: one conversation per memory ID. */
    interface Assistant {
        String chat(@MemoryId String conversation, @dev.langchain4j.service.UserMessage String message);
    }

    private static EventSubmission said(String id, String text, String session) {
        return new EventSubmission(id, SCOPE, Role.USER, text, "langchain4j-test", null, session, AT);
    }

    private static Assistant assistant(RecordingChatModel model, JiyiContentRetriever memory) {
        return AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(10))
                .contentRetriever(memory)
                .build();
    }

    @ParameterizedTest(name = "index {0}")
    @ValueSource(strings = {"fts5", "lucene"})
    @DisplayName("R7 D1 an assistant remembers 我住在上海 / I live in Shanghai from one conversation in the next, and after "
            + "the turns are deleted the prompt no longer holds them and no file of the home does")
    void remembersAcrossConversationsThenForgets(String index) throws IOException {
        RecordingChatModel model = new RecordingChatModel();
        try (Jiyi jiyi = Jiyi.open(home);
             JiyiContentRetriever memory = JiyiContentRetriever.builder().engine(jiyi).persona("小明").project("assistant")
                     .index(index).build()) {
            jiyi.submit(said("first-zh", SAID_ZH, "conversation-1"));
            jiyi.submit(said("first-en", SAID_EN, "conversation-1"));
            Assistant assistant = assistant(model, memory);

            assistant.chat("conversation-2", "我住在哪里？");
            assertThat(model.lastUserText()).as("the Chinese turn is in the prompt").contains(SAID_ZH);
            assistant.chat("conversation-3", "Where do I live?");
            assertThat(model.lastUserText()).as("the English turn is in the prompt").contains(SAID_EN);
            assistant.chat("conversation-4", "我 live 在哪个 city？");
            assertThat(model.lastUserText()).as("a mixed question finds them too").contains("Shanghai");

            jiyi.deleteEvent(SCOPE, "first-zh");
            jiyi.deleteEvent(SCOPE, "first-en");

            assistant.chat("conversation-2", "我住在哪里？");
            assertThat(model.lastUserText()).doesNotContain("上海").doesNotContain("Quokkaville");
            assistant.chat("conversation-3", "Where do I live?");
            assertThat(model.lastUserText()).doesNotContain("Shanghai").doesNotContain("Quokkaville");
        }
        for (String trace : List.of("我住在上海", "Quokkaville", "quokkaville", "above a cafe")) {
            assertThat(FileBytes.filesContaining(home, trace)).as("D1 no file of the home holds '%s'", trace).isEmpty();
        }
    }

    @Test
    @DisplayName("R7 each Content carries its score and where it came from: a raw turn's event, a memory's ID, source event, kind "
            + "and valid time, the evidence, status and time")
    void contentCarriesProvenance() {
        try (Jiyi jiyi = Jiyi.open(home);
             JiyiContentRetriever memory = JiyiContentRetriever.builder().engine(jiyi).persona("小明").project("assistant")
                     .maxResults(3).build()) {
            jiyi.submit(said("first-zh", SAID_ZH, "conversation-1"));
            jiyi.submit(said("other", "明天下午三点和 Alice 开会。", "conversation-1"));

            List<Content> found = memory.retrieve(Query.from("我住在哪里"));
            assertThat(found).isNotEmpty().hasSizeLessThanOrEqualTo(3);
            Content top = found.get(0);
            assertThat(top.textSegment().text()).isEqualTo(SAID_ZH);
            assertThat((Double) top.metadata().get(ContentMetadata.SCORE)).isPositive();
            var fields = top.textSegment().metadata();
            assertThat(fields.getString("type")).isEqualTo("raw_event");
            assertThat(fields.getString("label")).isEqualTo("raw_event");
            assertThat(fields.getString("source_event_id")).isEqualTo("first-zh");
            assertThat(fields.getString("evidence")).isNotBlank();
            assertThat(fields.getString("status")).isEqualTo("current");
            assertThat(fields.getString("time_label")).isEqualTo("2026-11-20T09:00:00.000000Z");
            assertThat(fields.getDouble("score")).isPositive();
            assertThat(fields.getString("text")).as("the text is the segment, not a field").isNull();

            jiyi.authority().addMemory(SCOPE, MemoryDraft.builder("other").kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                    .text("明天下午三点和 Alice 开会 meeting with Alice").quote("明天下午三点和 Alice 开会。").build());
            Content derived = memory.retrieve(Query.from("和 Alice 开会是什么时候")).get(0);
            var m = derived.textSegment().metadata();
            assertThat(m.getString("type")).isEqualTo("memory");
            assertThat(m.getString("memory_id")).startsWith("mem_");
            assertThat(m.getString("source_event_id")).isEqualTo("other");
            assertThat(m.getString("kind")).isEqualTo("episode");
            assertThat(m.getString("basis")).isEqualTo("user_statement");
            assertThat(m.getString("valid_at")).isNotBlank();
            assertThat(m.getString("evidence")).isNotBlank();
            assertThat((Double) derived.metadata().get(ContentMetadata.SCORE)).isPositive();
        }
    }

    @Test
    @DisplayName("R6 a question nothing in the home speaks to gets no content, in Chinese and English")
    void noEvidenceNoContent() {
        try (JiyiContentRetriever memory = JiyiContentRetriever.builder().home(home).build()) {
            assertThat(memory.retrieve(Query.from("量子色动力学的渐近自由"))).isEmpty();
            assertThat(memory.retrieve(Query.from("asymptotic freedom in quantum chromodynamics"))).isEmpty();
        }
    }

    @Test
    @DisplayName("R5 semantic mode runs the bundled models on this module's langchain4j-core: 宠物 finds 橘猫 and pet finds cat "
            + "in a five-row home")
    void semanticModeOnThisLangchain4j() throws IOException {
        try (Jiyi jiyi = Jiyi.open(home)) {
            for (String[] e : new String[][] {{"cat-zh", "我养了一只橘猫"}, {"cat-en", "I have a cat"},
                    {"tea", "我喜欢喝乌龙茶"}, {"sister", "My sister lives in Boston"}, {"work", "我在上海工作"}}) {
                jiyi.submit(said(e[0], e[1], "s"));
                jiyi.authority().addMemory(SCOPE, MemoryDraft.builder(e[0]).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                        .text(e[1]).quote(e[1]).build());
            }
            // as `jiyi reindex --vectors` embeds them: Chinese with BGE small zh, English with BGE small en
            StringWriter discard = new StringWriter();
            VectorReindex.Report embedded = new VectorReindex(jiyi.authority(), jiyi.embedders(), home)
                    .run(SCOPE, new Output(new PrintWriter(discard), new PrintWriter(discard), false, true));
            assertThat(embedded.stored()).isEqualTo(5);
            try (JiyiContentRetriever semantic = JiyiContentRetriever.builder().engine(jiyi).persona("小明").project("assistant")
                    .mode(dev.jiyi.ranking.RecallMode.SEMANTIC).maxResults(2).build()) {
                assertThat(semantic.retrieve(Query.from("宠物"))).extracting(c -> c.textSegment().metadata().getString("source_event_id"))
                        .contains("cat-zh");
                assertThat(semantic.retrieve(Query.from("pet"))).extracting(c -> c.textSegment().metadata().getString("source_event_id"))
                        .contains("cat-en");
            }
        }
    }

    @Test
    @DisplayName("a follow-up is asked with the conversation LangChain4j passes: '名字是什么？' finds the cafe the turn before was about")
    void followUpIsAskedAsADialogue() {
        try (Jiyi jiyi = Jiyi.open(home)) {
            jiyi.submit(said("cafe", SAID_ZH, "conversation-1"));
            List<dev.langchain4j.data.message.ChatMessage> before = List.of(
                    UserMessage.from("楼下那家咖啡店你还记得吗？"), AiMessage.from("记得，你提过。"));
            Query followUp = Query.from("名字是什么？", Metadata.from(UserMessage.from("名字是什么？"), "conversation-9", before));
            try (JiyiContentRetriever alone = JiyiContentRetriever.builder().engine(jiyi).persona("小明").project("assistant")
                    .dialogueTurns(0).build();
                 JiyiContentRetriever withTurns = JiyiContentRetriever.builder().engine(jiyi).persona("小明")
                         .project("assistant").build()) {
                assertThat(alone.retrieve(followUp)).as("the follow-up alone has no evidence").isEmpty();
                assertThat(withTurns.retrieve(followUp)).extracting(c -> c.textSegment().metadata().getString("source_event_id"))
                        .first().isEqualTo("cafe");
            }
        }
    }

    @Test
    @DisplayName("O7 R2 bad settings and bad queries are LangChain4j's IllegalArgumentException naming the field, never the value, "
            + "and change nothing")
    void badInput() {
        assertThatThrownBy(() -> JiyiContentRetriever.builder().build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("home");
        assertThatThrownBy(() -> JiyiContentRetriever.builder().home(home).persona("有 空格").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("persona").hasMessageNotContaining("有 空格");
        assertThatThrownBy(() -> JiyiContentRetriever.builder().home(home).index("elastic").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("index").hasMessageNotContaining("elastic");
        assertThatThrownBy(() -> JiyiContentRetriever.builder().home(home).maxResults(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxResults");
        assertThatThrownBy(() -> JiyiContentRetriever.builder().home(home).dialogueTurns(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dialogueTurns");

        try (Jiyi jiyi = Jiyi.open(home);
             JiyiContentRetriever memory = JiyiContentRetriever.builder().engine(jiyi).build()) {
            jiyi.submit(new EventSubmission("kept", Scope.DEFAULT, Role.USER, "我养了一只橘猫 named Mochi", "test", null,
                    "s", AT));
            TableCounts before = jiyi.authority().tableCounts();
            String huge = "猫".repeat(20_001);
            assertThatThrownBy(() -> memory.retrieve(Query.from(huge)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("query").hasMessageNotContaining("猫猫");
            assertThatThrownBy(() -> memory.retrieve(Query.from("橘猫 \u0000 Mochi")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("query");
            assertThat(memory.retrieve(Query.from("\"橘猫\" AND (Mochi OR NEAR(cat)) *")))
                    .as("FTS syntax in a question is words, not syntax").isNotEmpty();
            assertThat(jiyi.authority().tableCounts()).isEqualTo(before);
            Event kept = jiyi.authority().event(Scope.DEFAULT, "kept").orElseThrow();
            assertThat(kept.text()).contains("橘猫");
        }
    }

    @Test
    @DisplayName("the retriever closes the engine it opened and never one it was given")
    void closesOnlyWhatItOpened() {
        try (Jiyi jiyi = Jiyi.open(home)) {
            JiyiContentRetriever.builder().engine(jiyi).build().close();
            jiyi.submit(said("still-open", "引擎还开着 still open", "s"));
            assertThat(jiyi.authority().event(SCOPE, "still-open")).isPresent();
        }
        JiyiContentRetriever owned = JiyiContentRetriever.builder().home(home).build();
        owned.close();
        try (Jiyi again = Jiyi.open(home)) {
            assertThat(again.authority().event(SCOPE, "still-open")).as("the home opens again after the retriever closed it")
                    .isPresent();
        }
    }
}
