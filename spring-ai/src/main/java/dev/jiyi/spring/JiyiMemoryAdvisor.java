package dev.jiyi.spring;

import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.ChatWindows;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.pack.Pack;
import dev.jiyi.pack.PackRequest;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecalledItem;

import org.springframework.ai.chat.client.ChatClientMessageAggregator;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.UserMessage;

import reactor.core.publisher.Flux;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * jiyi's long-term memory around a Spring AI {@code ChatClient} call. Before the call, what jiyi
 * recalls for the user's message (or, with {@link Builder#pack}, the conversation's context pack)
 * is added to the system text, each memory with where it came from. After it, the exchange (the
 * user's message and the reply) is captured into the conversation's session, as the
 * {@link JiyiChatMemoryRepository} captures turns, so later conversations recall it.
 *
 * <p><b>Conversation and scope.</b> The conversation is the advisor parameter
 * {@link ChatMemory#CONVERSATION_ID} (as Spring AI's chat memory advisors read it), else
 * {@code default}. The scope is the builder's persona and project, or what {@link Builder#scope}
 * makes of the conversation ID, overridden per call by the parameters {@link #PERSONA} and
 * {@link #PROJECT}.
 *
 * <p><b>Beside a chat memory.</b> Its default order puts it just before Spring AI's chat memory
 * advisors, so their history joins the prompt after the memories. When a chat memory over a
 * {@link JiyiChatMemoryRepository} of the same scope captured the question during the call (or
 * just before the advisor ran), the exchange is the chat memory's to keep and the advisor captures
 * nothing, whatever the order; otherwise it appends the exchange in one step under the windows'
 * lock, so concurrent calls of one conversation are each kept. A response that lost the call's context (a custom
 * advisor rebuilt it) is not captured either: a missed capture rather than a double one. A
 * streamed reply is captured whole, once the stream completes.
 */
public final class JiyiMemoryAdvisor implements BaseAdvisor {

    /** Advisor parameter: the persona of this call's memories. */
    public static final String PERSONA = "jiyi_persona";
    /** Advisor parameter: the project of this call's memories. */
    public static final String PROJECT = "jiyi_project";
    /** The order when the builder sets none: just before Spring AI's chat memory advisors. */
    public static final int DEFAULT_ORDER = Advisor.DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER - 1;
    /** The words before the memories in the system text when the builder sets none. */
    public static final String DEFAULT_PREAMBLE = "What you remember of this user (jiyi, best first, with where each came from; "
            + "use it, do not recite it):";

    private static final String QUESTION = "jiyi.question";
    private static final String CAPTURED = "jiyi.captured";

    private final Jiyi engine;
    private final Function<String, Scope> scopes;
    private final String index;
    private final RecallMode mode;
    private final int maxResults;
    private final boolean pack;
    private final int budget;
    private final String model;
    private final boolean capture;
    private final int order;
    private final String preamble;

    private JiyiMemoryAdvisor(Builder b) {
        this.engine = b.engine;
        this.scopes = b.scopes;
        this.index = b.index;
        this.mode = b.mode;
        this.maxResults = b.maxResults;
        this.pack = b.pack;
        this.budget = b.budget;
        this.model = b.model;
        this.capture = b.capture;
        this.order = b.order;
        this.preamble = b.preamble;
    }

    public static Builder builder(Jiyi engine) {
        return new Builder(engine);
    }

    @Override
    public ChatClientRequest before(ChatClientRequest request, AdvisorChain chain) {
        String conversation = conversation(request.context());
        Scope scope = scope(conversation, request.context());
        UserMessage user = request.prompt().getUserMessage();
        String question = user == null || user.getText() == null ? "" : user.getText();
        String memories = pack ? packed(scope, conversation) : recalled(scope, question);
        ChatClientRequest.Builder next = request.mutate();
        if (capture) {
            String session = JiyiChatMemoryRepository.session(conversation);
            ChatWindows windows = windows(scope);
            long captured = windows.captured(session);
            // A chat memory that ran first stored the question already: its place counts as during the call.
            boolean stored = windows.last(session).filter(m -> m.equals(ChatWindows.Message.turn(Role.USER, question))).isPresent();
            next.context(QUESTION, question);
            next.context(CAPTURED, stored ? captured - 1 : captured);
        }
        if (memories != null) {
            String block = preamble.isEmpty() ? memories : preamble + "\n" + memories;
            next.prompt(request.prompt().augmentSystemMessage(s -> s.mutate()
                    .text(s.getText() == null || s.getText().isBlank() ? block : s.getText() + "\n\n" + block).build()));
        }
        return next.build();
    }

    @Override
    public ChatClientResponse after(ChatClientResponse response, AdvisorChain chain) {
        if (!capture) {
            return response;
        }
        String conversation = conversation(response.context());
        Scope scope = scope(conversation, response.context());
        String session = JiyiChatMemoryRepository.session(conversation);
        if (!(response.context().get(CAPTURED) instanceof Long since) || !(response.context().get(QUESTION) instanceof String question)) {
            return response; // the call's context was lost (a custom advisor rebuilt it): a missed capture, not a double one
        }
        List<ChatWindows.Message> exchange = new ArrayList<>(2);
        if (!question.isBlank()) {
            exchange.add(ChatWindows.Message.turn(Role.USER, question));
        }
        AssistantMessage reply = response.chatResponse() == null || response.chatResponse().getResult() == null ? null
                : response.chatResponse().getResult().getOutput();
        if (reply != null && !reply.hasToolCalls() && reply.getText() != null && !reply.getText().isBlank()) {
            exchange.add(ChatWindows.Message.turn(Role.ASSISTANT, reply.getText()));
        }
        if (!exchange.isEmpty()) {
            // Unless a chat memory captured the question during the call: then the exchange is its to keep.
            Refusals.refused(() -> windows(scope).append(session, conversation, question, since, exchange));
        }
        return response;
    }

    /** A streamed call: memories before, and the whole reply captured once the stream completes. */
    @Override
    public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
        ChatClientRequest advised = before(request, chain);
        return new ChatClientMessageAggregator().aggregateChatClientResponse(chain.nextStream(advised),
                whole -> after(whole, chain));
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public String getName() {
        return "JiyiMemoryAdvisor";
    }

    private ChatWindows windows(Scope scope) {
        return new ChatWindows(engine, scope, JiyiChatMemoryRepository.SOURCE);
    }

    private static String conversation(Map<String, Object> context) {
        Object id = context.get(ChatMemory.CONVERSATION_ID);
        return id == null ? Scope.DEFAULT_ID : Refusals.conversationId(id.toString());
    }

    private Scope scope(String conversation, Map<String, Object> context) {
        Scope base = scopes.apply(conversation);
        Object persona = context.get(PERSONA);
        Object project = context.get(PROJECT);
        if (persona == null && project == null) {
            return base;
        }
        return Refusals.refused(() -> new Scope(persona == null ? base.personaId() : persona.toString(),
                project == null ? base.projectId() : project.toString()));
    }

    /** The memories recalled for {@code question}, one line each with its provenance; null when none. */
    private String recalled(Scope scope, String question) {
        if (question.isBlank()) {
            return null;
        }
        RecallRequest request = Refusals.refused(() -> new RecallRequest(scope, question, mode, maxResults, null, false));
        List<RecalledItem> items = Refusals.refused(() -> engine.recall(index, request)).items();
        if (items.isEmpty()) {
            return null;
        }
        StringBuilder out = new StringBuilder();
        for (RecalledItem i : items) {
            out.append("- ").append(i.text()).append(" [").append(provenance(i)).append("]\n");
        }
        return out.toString().stripTrailing();
    }

    /** Where a memory came from: what it is, its IDs, its time and status. */
    static String provenance(RecalledItem i) {
        StringBuilder p = new StringBuilder();
        if (i.type() == RecalledItem.Type.MEMORY) {
            p.append(i.kind().code()).append(' ').append(i.memoryId()).append(", from event ").append(i.sourceEventId());
        } else {
            p.append("what was said, event ").append(i.sourceEventId());
        }
        return p.append(", ").append(i.timeLabel()).append(", ").append(i.status().code()).toString();
    }

    /** The conversation's context pack; null when nothing fits the budget. */
    private String packed(Scope scope, String conversation) {
        PackRequest request = Refusals.refused(() -> new PackRequest(scope, budget, model, null,
                JiyiChatMemoryRepository.session(conversation), mode));
        Pack p = Refusals.refused(() -> engine.pack(index, request));
        return Pack.OK.equals(p.status()) && !p.context().isEmpty() ? p.context() : null;
    }

    /** What the advisor recalls and captures. An engine is required; everything else has a default. */
    public static final class Builder {
        private final Jiyi engine;
        private Function<String, Scope> scopes = conversation -> Scope.DEFAULT;
        private String index;
        private RecallMode mode = RecallMode.FAST;
        private int maxResults = 5;
        private boolean pack;
        private int budget = PackRequest.DEFAULT_BUDGET;
        private String model;
        private boolean capture = true;
        private int order = DEFAULT_ORDER;
        private String preamble = DEFAULT_PREAMBLE;

        private Builder(Jiyi engine) {
            if (engine == null) {
                throw new IllegalArgumentException("engine: is required");
            }
            this.engine = engine;
        }

        /** The persona and project of every conversation ({@code default} unless set). */
        public Builder scope(String persona, String project) {
            Scope fixed = Refusals.refused(() -> new Scope(persona == null ? Scope.DEFAULT_ID : persona,
                    project == null ? Scope.DEFAULT_ID : project));
            this.scopes = conversation -> fixed;
            return this;
        }

        /** The scope of a conversation, from its ID (a project per customer, say). */
        public Builder scope(Function<String, Scope> scopes) {
            if (scopes == null) {
                throw new IllegalArgumentException("scope: is required");
            }
            this.scopes = scopes;
            return this;
        }

        /** {@code fts5} or {@code lucene}; unset, the home's {@code recall.index}. */
        public Builder index(String index) {
            if (index != null) {
                Refusals.refused(() -> dev.jiyi.engine.IndexKind.parse("index", index));
            }
            this.index = index;
            return this;
        }

        /** Fast (the default), semantic or deep recall. */
        public Builder mode(RecallMode mode) {
            this.mode = mode == null ? RecallMode.FAST : mode;
            return this;
        }

        /** Memories added per call, 1 to 200 (5 unless set). */
        public Builder maxResults(int maxResults) {
            if (maxResults < 1 || maxResults > RecallRequest.MAX_LIMIT) {
                throw new IllegalArgumentException("maxResults: must be between 1 and " + RecallRequest.MAX_LIMIT);
            }
            this.maxResults = maxResults;
            return this;
        }

        /**
         * Adds the conversation's context pack (persona, checkpoint, agreements, recalled memories,
         * emotion, recent turns) instead of the memories recalled for the message, within
         * {@code budget} tokens of {@code model} (UTF-8 bytes without one).
         */
        public Builder pack(int budget, String model) {
            Refusals.refused(() -> new PackRequest(Scope.DEFAULT, budget, model, null, null, null));
            this.pack = true;
            this.budget = budget;
            this.model = model;
            return this;
        }

        /** Whether each exchange is captured (true unless set). */
        public Builder capture(boolean capture) {
            this.capture = capture;
            return this;
        }

        /** The advisor's order ({@link JiyiMemoryAdvisor#DEFAULT_ORDER} unless set). */
        public Builder order(int order) {
            this.order = order;
            return this;
        }

        /** The words before the memories in the system text; empty for none. */
        public Builder preamble(String preamble) {
            if (preamble == null) {
                throw new IllegalArgumentException("preamble: is required (empty for none)");
            }
            this.preamble = preamble;
            return this;
        }

        public JiyiMemoryAdvisor build() {
            return new JiyiMemoryAdvisor(this);
        }
    }
}
