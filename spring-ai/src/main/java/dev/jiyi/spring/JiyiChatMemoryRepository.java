package dev.jiyi.spring;

import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.ChatWindows;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;

import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * jiyi as the repository of a Spring AI chat memory ({@code MessageWindowChatMemory}): what the user
 * and the assistant say is kept as jiyi events (long-term memory, recalled in later conversations),
 * and the conversation's window is kept beside them ({@link ChatWindows}).
 *
 * <p><b>Two lifetimes.</b> {@link #saveAll}, which the chat memory calls with the whole window after
 * every message, stores the window and captures what is new in it; a shorter list is eviction from
 * the window, never deletion of history (spring-ai #7029, #3945). {@link #deleteByConversationId}
 * ends the window and keeps the turns. {@link #forget} deletes the conversation for good: its
 * turns, what was derived from them, and its window, with nothing left in the home's files (D1).
 *
 * <p><b>What is captured.</b> A user's message and an assistant's message without tool calls, as
 * their text (media and metadata are not kept), become events of the conversation's own session
 * ({@link #session}), source {@code spring-ai}. Tool calls and tool responses stay in the window
 * only; system messages stay in it in this process only, never on disk. How lists are matched, what a crash leaves and what two writers of one
 * conversation can do: {@link ChatWindows}.
 */
public final class JiyiChatMemoryRepository implements ChatMemoryRepository, AutoCloseable {

    /** The source of every event the repository captures, and the name of its windows' folder. */
    public static final String SOURCE = "spring-ai";
    /** What every session of a Spring AI conversation starts with. */
    public static final String PREFIX = "spring-ai:";

    private final Jiyi engine;
    private final boolean owned;
    private final ChatWindows windows;

    private JiyiChatMemoryRepository(Jiyi engine, boolean owned, String persona, String project) {
        Scope scope = Refusals.refused(() -> new Scope(persona == null ? Scope.DEFAULT_ID : persona,
                project == null ? Scope.DEFAULT_ID : project));
        this.engine = engine;
        this.owned = owned;
        this.windows = new ChatWindows(engine, scope, SOURCE);
    }

    /** The repository of the home in {@code home}, persona and project {@code default}; closing it closes the home. */
    public static JiyiChatMemoryRepository open(Path home) {
        return open(home, null, null);
    }

    /** The repository of the home in {@code home}, in this persona and project; closing it closes the home. */
    public static JiyiChatMemoryRepository open(Path home, String persona, String project) {
        if (home == null) {
            throw new IllegalArgumentException("home: is required");
        }
        Jiyi engine = Refusals.refused(() -> Jiyi.open(home));
        try {
            return new JiyiChatMemoryRepository(engine, true, persona, project);
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
    }

    /** A repository over an engine shared with other components (closing the repository leaves it open). */
    public JiyiChatMemoryRepository(Jiyi engine, String persona, String project) {
        this(requireEngine(engine), false, persona, project);
    }

    private static Jiyi requireEngine(Jiyi engine) {
        if (engine == null) {
            throw new IllegalArgumentException("engine: is required");
        }
        return engine;
    }

    /**
     * The session a Spring AI conversation is in jiyi: {@value #PREFIX} and its ID, or a hash of it
     * when that is not a valid jiyi ID ({@link ChatWindows#session}).
     */
    public static String session(String conversationId) {
        return ChatWindows.session(PREFIX, Refusals.conversationId(conversationId));
    }

    /** The conversations whose windows hold messages (an ended window's is not among them). */
    @Override
    public List<String> findConversationIds() {
        return windows.conversations();
    }

    /** The conversation's window, in order, without any turn deleted since. */
    @Override
    public List<Message> findByConversationId(String conversationId) {
        String session = session(conversationId);
        List<Message> out = new ArrayList<>();
        for (ChatWindows.Message m : Refusals.refused(() -> windows.read(session))) {
            out.add(message(m));
        }
        return out;
    }

    /**
     * Stores {@code messages} as the conversation's window and captures the turns in it that are new.
     * Every message is checked before anything is written: one jiyi cannot keep (too long, malformed
     * text) is refused with {@link IllegalArgumentException} and nothing changes.
     */
    @Override
    public void saveAll(String conversationId, List<Message> messages) {
        String session = session(conversationId);
        List<ChatWindows.Message> window = windowOf(messages);
        Refusals.refused(() -> windows.store(session, conversationId, window));
    }

    /**
     * Ends the conversation's window: it reads empty afterwards, and its turns stay in jiyi's
     * long-term memory. Spring AI calls this when a chat memory is cleared; to delete a conversation
     * for good, call {@link #forget}.
     */
    @Override
    public void deleteByConversationId(String conversationId) {
        String session = session(conversationId);
        Refusals.refused(() -> windows.end(session));
    }

    /**
     * Deletes the conversation for good: every turn it captured with everything derived from them
     * (D1), and its window. Lucene's index, when the home has one, drops them at its next search.
     * Returns how many turns were deleted; forgetting twice deletes nothing more.
     */
    public int forget(String conversationId) {
        String session = session(conversationId);
        return Refusals.refused(() -> windows.forget(session));
    }

    /** The window's messages as the engine keeps them: turns, and the rest whole. */
    static List<ChatWindows.Message> windowOf(List<Message> messages) {
        if (messages == null) {
            throw new IllegalArgumentException("messages: is required");
        }
        List<ChatWindows.Message> window = new ArrayList<>(messages.size());
        for (Message m : messages) {
            if (m == null) {
                throw new IllegalArgumentException("messages: must not hold null");
            }
            if (!(m instanceof UserMessage || m instanceof AssistantMessage || m instanceof SystemMessage
                    || m instanceof ToolResponseMessage)) {
                throw new IllegalArgumentException("messages: must be Spring AI's user, assistant, system or tool messages");
            }
            window.add(windowMessage(m));
        }
        return window;
    }

    /** A user's text and an assistant's text without tool calls are turns; the rest is kept whole. */
    static ChatWindows.Message windowMessage(Message m) {
        if (m instanceof UserMessage u) {
            return ChatWindows.Message.turn(Role.USER, u.getText() == null ? "" : u.getText());
        }
        if (m instanceof AssistantMessage a && !a.hasToolCalls() && a.getText() != null && !a.getText().isBlank()) {
            return ChatWindows.Message.turn(Role.ASSISTANT, a.getText());
        }
        ObjectNode json = Output.mapper().createObjectNode();
        json.put("text", m.getText());
        if (m instanceof AssistantMessage a) {
            var calls = json.putArray("toolCalls");
            for (AssistantMessage.ToolCall c : a.getToolCalls()) {
                calls.addObject().put("id", c.id()).put("type", c.type()).put("name", c.name()).put("arguments", c.arguments());
            }
        } else if (m instanceof ToolResponseMessage t) {
            var responses = json.putArray("responses");
            for (ToolResponseMessage.ToolResponse r : t.getResponses()) {
                responses.addObject().put("id", r.id()).put("name", r.name()).put("responseData", r.responseData());
            }
        }
        String serialized = Output.mapper().writeValueAsString(json);
        return m instanceof SystemMessage ? ChatWindows.Message.instruction(m.getMessageType().name(), serialized)
                : ChatWindows.Message.whole(m.getMessageType().name(), serialized);
    }

    /** A window's message as Spring AI's. */
    static Message message(ChatWindows.Message m) {
        if (m.isTurn()) {
            return m.role() == Role.USER ? new UserMessage(m.text()) : new AssistantMessage(m.text());
        }
        JsonNode json = Output.mapper().readTree(m.serialized());
        String text = text(json, "text");
        return switch (m.kind()) {
            case "SYSTEM" -> new SystemMessage(text);
            case "USER" -> new UserMessage(text);
            case "ASSISTANT" -> {
                List<AssistantMessage.ToolCall> calls = new ArrayList<>();
                for (JsonNode c : json.get("toolCalls")) {
                    calls.add(new AssistantMessage.ToolCall(text(c, "id"), text(c, "type"), text(c, "name"), text(c, "arguments")));
                }
                yield AssistantMessage.builder().content(text).toolCalls(calls).build();
            }
            case "TOOL" -> {
                List<ToolResponseMessage.ToolResponse> responses = new ArrayList<>();
                for (JsonNode r : json.get("responses")) {
                    responses.add(new ToolResponseMessage.ToolResponse(text(r, "id"), text(r, "name"), text(r, "responseData")));
                }
                yield ToolResponseMessage.builder().responses(responses).build();
            }
            default -> throw new IllegalStateException("a chat window holds a message of an unknown kind: " + m.kind());
        };
    }

    private static String text(JsonNode object, String field) {
        JsonNode v = object.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    /** Closes the engine if this repository opened it. */
    @Override
    public void close() {
        if (owned) {
            engine.close();
        }
    }
}
