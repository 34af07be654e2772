package dev.jiyi.spring;

import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Jiyi;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration in a Spring Boot context ({@link ApplicationContextRunner}), and Spring AI's
 * {@code ChatClient} with the beans it registers: {@code MessageChatMemoryAdvisor} over a
 * {@code MessageWindowChatMemory} over {@link JiyiChatMemoryRepository}, and {@link JiyiMemoryAdvisor},
 * calling a chat model of the test's own that keeps its prompts.
 */
class SpringAssistantTest {

    @TempDir
    Path home;

    private ApplicationContextRunner runner(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(JiyiAutoConfiguration.class))
                .withPropertyValues("jiyi.home=" + home)
                .withPropertyValues(properties);
    }

    private static ChatClient client(ChatModel model, ChatMemoryRepository repository, JiyiMemoryAdvisor advisor) {
        ChatMemory memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(6).build();
        return ChatClient.builder(model).defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build(), advisor).build();
    }

    private static String ask(ChatClient client, String conversation, String text) {
        return client.prompt().user(text).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, conversation)).call().content();
    }

    private static List<String> turns(Jiyi jiyi, Scope scope, String conversation) {
        String session = JiyiChatMemoryRepository.session(conversation);
        return jiyi.authority().events(scope, 0, 10_000).stream().filter(e -> e.sessionId().equals(session)).map(Event::text).toList();
    }

    @Test
    @DisplayName("R7 D1 said in one conversation (我住在上海 / I live in Shanghai), in the system text of the next with "
            + "where it came from, each exchange captured once, and gone from prompts and files once forgotten")
    void remembersThenForgets() throws Exception {
        ScriptedChatModel model = new ScriptedChatModel();
        Scope scope = new Scope("小明", "assistant");
        runner("jiyi.persona=小明", "jiyi.project=assistant", "jiyi.index=lucene", "jiyi.recall.max-results=3").run(context -> {
            Jiyi jiyi = context.getBean(Jiyi.class);
            JiyiChatMemoryRepository repository = context.getBean(JiyiChatMemoryRepository.class);
            ChatClient client = client(model, repository, context.getBean(JiyiMemoryAdvisor.class));

            ask(client, "monday", "我住在上海，楼下有家 Quokkaville 咖啡店。");
            ask(client, "monday", "Also, I live in Shanghai near the Bund.");
            assertThat(turns(jiyi, scope, "monday")).as("each exchange once, though the chat memory and the advisor both keep it")
                    .containsExactly("我住在上海，楼下有家 Quokkaville 咖啡店。", ScriptedChatModel.REPLY,
                            "Also, I live in Shanghai near the Bund.", ScriptedChatModel.REPLY);

            ask(client, "tuesday", "我住在哪里？");
            assertThat(model.lastSystemText()).startsWith(JiyiMemoryAdvisor.DEFAULT_PREAMBLE).contains("我住在上海")
                    .contains("what was said, event ");
            ask(client, "wednesday", "Where do I live?");
            assertThat(model.lastSystemText()).contains("I live in Shanghai");
            assertThat(repository.findByConversationId("tuesday")).as("the window holds the user's words, not the memories")
                    .extracting(m -> m.getText()).containsExactly("我住在哪里？", ScriptedChatModel.REPLY);

            assertThat(repository.forget("monday")).isEqualTo(4);
            ask(client, "thursday", "我住在哪里？ Where do I live?");
            assertThat(model.lastSystemText()).doesNotContain("上海").doesNotContain("Shanghai");
        });
        for (String trace : List.of("我住在上海", "Quokkaville", "quokkaville", "near the Bund")) {
            assertThat(FileBytes.filesContaining(home, trace)).as("D1 '%s'", trace).isEmpty();
        }
    }

    @Test
    @DisplayName("E2 beside a full chat memory window, and in either order, each exchange is captured once")
    void fullWindowEitherOrder() {
        for (int order : new int[] {JiyiMemoryAdvisor.DEFAULT_ORDER, org.springframework.ai.chat.client.advisor.api.Advisor
                .DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER + 1}) {
            ScriptedChatModel model = new ScriptedChatModel();
            runner("jiyi.advisor.order=" + order).run(context -> {
                Jiyi jiyi = context.getBean(Jiyi.class);
                ChatMemory memory = MessageWindowChatMemory.builder()
                        .chatMemoryRepository(context.getBean(JiyiChatMemoryRepository.class)).maxMessages(4).build();
                ChatClient client = ChatClient.builder(model).defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build(),
                        context.getBean(JiyiMemoryAdvisor.class)).build();
                String conversation = "full-" + order;
                for (String said : List.of("一 one", "二 two", "三 three", "四 four")) {
                    ask(client, conversation, said);
                }
                assertThat(turns(jiyi, Scope.DEFAULT, conversation)).as("order %s", order).containsExactly("一 one",
                        ScriptedChatModel.REPLY, "二 two", ScriptedChatModel.REPLY, "三 three", ScriptedChatModel.REPLY,
                        "四 four", ScriptedChatModel.REPLY);
                assertThat(memory.get(conversation)).hasSize(4);
            });
        }
    }

    @Test
    @DisplayName("a streamed reply is captured whole, once the stream completes; a cleared window and the same question "
            + "again are two more turns")
    void streamedAndCleared() {
        ScriptedChatModel model = new ScriptedChatModel();
        runner().run(context -> {
            Jiyi jiyi = context.getBean(Jiyi.class);
            ChatClient client = ChatClient.builder(model).defaultAdvisors(context.getBean(JiyiMemoryAdvisor.class)).build();
            List<String> chunks = client.prompt().user("你好 hello").advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "s"))
                    .stream().content().collectList().block();
            assertThat(String.join("", chunks)).isEqualTo(ScriptedChatModel.REPLY);
            assertThat(turns(jiyi, Scope.DEFAULT, "s")).containsExactly("你好 hello", ScriptedChatModel.REPLY);
            context.getBean(JiyiChatMemoryRepository.class).deleteByConversationId("s");
            ask(client, "s", "你好 hello");
            assertThat(turns(jiyi, Scope.DEFAULT, "s")).containsExactly("你好 hello", ScriptedChatModel.REPLY,
                    "你好 hello", ScriptedChatModel.REPLY);
        });
    }

    @Test
    @DisplayName("S1 two personas on the default conversation: each call is captured in its own persona, no conflict")
    void twoPersonasOneConversation() {
        ScriptedChatModel model = new ScriptedChatModel();
        runner().run(context -> {
            Jiyi jiyi = context.getBean(Jiyi.class);
            ChatClient client = ChatClient.builder(model).defaultAdvisors(context.getBean(JiyiMemoryAdvisor.class)).build();
            for (String persona : List.of("alice", "bob")) {
                client.prompt().user("你好").advisors(a -> a.param(JiyiMemoryAdvisor.PERSONA, persona)).call().content();
            }
            assertThat(turns(jiyi, new Scope("alice", "default"), "default")).containsExactly("你好", ScriptedChatModel.REPLY);
            assertThat(turns(jiyi, new Scope("bob", "default"), "default")).containsExactly("你好", ScriptedChatModel.REPLY);
        });
    }

    @Test
    @DisplayName("the advisor alone captures every exchange, a repeated one too, and adds nothing when nothing is recalled")
    void advisorAlone() {
        ScriptedChatModel model = new ScriptedChatModel();
        runner().run(context -> {
            Jiyi jiyi = context.getBean(Jiyi.class);
            ChatClient client = ChatClient.builder(model).defaultAdvisors(context.getBean(JiyiMemoryAdvisor.class)).build();
            ask(client, "c", "量子色动力学的渐近自由是什么？");
            assertThat(model.lastSystemText()).as("R6 nothing recalled, nothing added").isEmpty();
            ask(client, "c", "好的");
            ask(client, "c", "好的");
            assertThat(turns(jiyi, Scope.DEFAULT, "c")).containsExactly("量子色动力学的渐近自由是什么？", ScriptedChatModel.REPLY,
                    "好的", ScriptedChatModel.REPLY, "好的", ScriptedChatModel.REPLY);
        });
    }

    @Test
    @DisplayName("S1 the advisor's scope: the configured one, one made from the conversation ID, or the jiyi_persona and "
            + "jiyi_project parameters of one call; scopes never see each other's memories")
    void scopes() {
        ScriptedChatModel model = new ScriptedChatModel();
        runner().run(context -> {
            Jiyi jiyi = context.getBean(Jiyi.class);
            Instant at = Instant.parse("2026-11-01T08:00:00Z");
            jiyi.submit(new EventSubmission("acme", new Scope("support", "acme"), Role.USER, "Acme 的合同 contract 在三月续签", "test", null, "s", at));
            jiyi.submit(new EventSubmission("globex", new Scope("support", "globex"), Role.USER, "Globex 的合同 contract 在九月续签", "test", null, "s", at));
            JiyiMemoryAdvisor byConversation = JiyiMemoryAdvisor.builder(jiyi).capture(false)
                    .scope(conversation -> new Scope("support", conversation.substring(0, conversation.indexOf('-')))).build();
            ChatClient client = ChatClient.builder(model).defaultAdvisors(byConversation).build();
            ask(client, "acme-42", "合同什么时候续签？ when is the contract renewed?");
            assertThat(model.lastSystemText()).contains("三月").doesNotContain("九月");
            client.prompt().user("合同什么时候续签？").advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "acme-43")
                    .param(JiyiMemoryAdvisor.PROJECT, "globex")).call().content();
            assertThat(model.lastSystemText()).contains("九月").doesNotContain("三月");
            ask(ChatClient.builder(model).defaultAdvisors(context.getBean(JiyiMemoryAdvisor.class)).build(), "x", "合同 contract");
            assertThat(model.lastSystemText()).as("the default scope holds neither").isEmpty();
        });
    }

    @Test
    @DisplayName("P2 P5 with jiyi.advisor.pack the conversation's context pack is the system text, counted by gpt-4o's tokenizer")
    void packMode() {
        ScriptedChatModel model = new ScriptedChatModel();
        runner("jiyi.advisor.pack=true", "jiyi.advisor.budget=600", "jiyi.advisor.model=gpt-4o", "jiyi.advisor.capture=false")
                .run(context -> {
                    Jiyi jiyi = context.getBean(Jiyi.class);
                    String trip = JiyiChatMemoryRepository.session("trip");
                    long covered = jiyi.submit(new EventSubmission("trip-1", Scope.DEFAULT, Role.USER, "下个月去成都玩五天 budget 5000",
                            "test", null, trip, Instant.parse("2026-11-28T10:00:00Z"))).event().sequence();
                    jiyi.authority().saveCheckpoint(Scope.DEFAULT, new CheckpointDraft(trip, "规划成都五日游 plan the Chengdu trip",
                            List.of(), List.of("酒店还没订"), List.of(), "订酒店", covered));
                    ChatClient client = ChatClient.builder(model).defaultAdvisors(context.getBean(JiyiMemoryAdvisor.class)).build();
                    ask(client, "trip", "继续 let's continue");
                    assertThat(model.lastSystemText()).contains("规划成都五日游").contains("酒店还没订");
                    assertThat(turns(jiyi, Scope.DEFAULT, "trip")).as("capture off").containsExactly("下个月去成都玩五天 budget 5000");
                });
    }

    @Test
    @DisplayName("Spring AI's own chat memory auto-configuration builds its MessageWindowChatMemory over the jiyi repository")
    void springAiChatMemoryUsesJiyi() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.ai.model.chat.memory.autoconfigure.ChatMemoryAutoConfiguration.class,
                        JiyiAutoConfiguration.class))
                .withPropertyValues("jiyi.home=" + home)
                .run(context -> {
                    assertThat(context).hasSingleBean(ChatMemoryRepository.class).hasSingleBean(ChatMemory.class);
                    assertThat(context.getBean(ChatMemoryRepository.class)).isInstanceOf(JiyiChatMemoryRepository.class);
                    context.getBean(ChatMemory.class).add("c", new org.springframework.ai.chat.messages.UserMessage("我住在上海"));
                    assertThat(turns(context.getBean(Jiyi.class), Scope.DEFAULT, "c")).containsExactly("我住在上海");
                });
    }

    @Test
    @DisplayName("the auto-configuration steps aside: jiyi.enabled=false, Spring AI absent, or the application's own repository")
    void stepsAside() {
        runner("jiyi.enabled=false").run(context -> assertThat(context).doesNotHaveBean(Jiyi.class)
                .doesNotHaveBean(JiyiMemoryAdvisor.class).doesNotHaveBean(ChatMemoryRepository.class));
        runner().withClassLoader(new FilteredClassLoader(ChatMemoryRepository.class))
                .run(context -> assertThat(context).doesNotHaveBean(Jiyi.class));
        runner().withBean(ChatMemoryRepository.class, InMemoryChatMemoryRepository::new).run(context -> {
            assertThat(context).hasSingleBean(Jiyi.class).hasSingleBean(JiyiMemoryAdvisor.class)
                    .doesNotHaveBean(JiyiChatMemoryRepository.class);
            assertThat(context.getBean(ChatMemoryRepository.class)).isInstanceOf(InMemoryChatMemoryRepository.class);
        });
    }

    @Test
    @DisplayName("O7 a bad setting stops the context with the property and the rule, never the value")
    void badSettings() {
        runner("jiyi.recall.mode=quickly").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("jiyi.recall.mode").hasMessageNotContaining("quickly"));
        runner("jiyi.index=elastic").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("index").hasMessageNotContaining("elastic"));
        runner("jiyi.persona=有 空格").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("persona").hasMessageNotContaining("有 空格"));
        runner("jiyi.recall.max-results=0").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("maxResults"));
    }

    @Test
    @DisplayName("R5 with jiyi.recall.mode=semantic the bundled models run on this classpath's Jackson and "
            + "langchain4j-core: 宠物 finds 我养了一只橘猫 in a five-row home")
    void semanticMode() {
        ScriptedChatModel model = new ScriptedChatModel();
        runner("jiyi.recall.mode=semantic", "jiyi.advisor.capture=false").run(context -> {
            Jiyi jiyi = context.getBean(Jiyi.class);
            for (String[] e : new String[][] {{"cat-zh", "我养了一只橘猫"}, {"cat-en", "I have a cat"}, {"tea", "我喜欢喝乌龙茶"},
                    {"sister", "My sister lives in Boston"}, {"work", "我在上海工作"}}) {
                jiyi.submit(new EventSubmission(e[0], Scope.DEFAULT, Role.USER, e[1], "test", null, "s", Instant.parse("2026-11-01T08:00:00Z")));
                jiyi.authority().addMemory(Scope.DEFAULT, dev.jiyi.authority.MemoryDraft.builder(e[0]).kind(dev.jiyi.authority.Kind.FACT)
                        .basis(dev.jiyi.authority.Basis.USER_STATEMENT).text(e[1]).quote(e[1]).build());
            }
            java.io.StringWriter discard = new java.io.StringWriter();
            new dev.jiyi.engine.VectorReindex(jiyi.authority(), jiyi.embedders(), home).run(Scope.DEFAULT,
                    new dev.jiyi.engine.Output(new java.io.PrintWriter(discard), new java.io.PrintWriter(discard), false, true));
            ChatClient client = ChatClient.builder(model).defaultAdvisors(context.getBean(JiyiMemoryAdvisor.class)).build();
            ask(client, "c", "宠物");
            assertThat(model.lastSystemText()).contains("我养了一只橘猫");
        });
    }

    /** A reply's shape for structured output. */
    record Place(String city, String district) {
    }

    @Test
    @DisplayName("one Jackson 3, jiyi's 3.3.0, under Spring AI's structured output (its JSON schema and its parsing)")
    void oneJackson() {
        assertThat(tools.jackson.databind.json.JsonMapper.builder().build().version().toString()).isEqualTo("3.3.0");
        org.springframework.ai.converter.BeanOutputConverter<Place> converter =
                new org.springframework.ai.converter.BeanOutputConverter<>(Place.class);
        assertThat(converter.getJsonSchema()).contains("\"city\"").contains("\"district\"");
        assertThat(converter.convert("{\"city\":\"上海\",\"district\":\"浦东 Pudong\"}")).isEqualTo(new Place("上海", "浦东 Pudong"));
    }

    @Test
    @DisplayName("one Lucene on the classpath, jiyi's 10 (Spring AI's tool-search advisor, on Lucene 9, is kept off)")
    void oneLucene() {
        assertThat(org.apache.lucene.util.Version.LATEST.major).isEqualTo(10);
        assertThat(getClass().getClassLoader().getResource("org/springframework/ai/tool/search")).isNull();
    }
}
