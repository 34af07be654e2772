package dev.jiyi.langchain4j;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Role;
import dev.jiyi.engine.ChatWindows;
import dev.jiyi.engine.Jiyi;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * jiyi as the chat memory of a LangChain4j assistant: what the user and the assistant say is kept as
 * jiyi events (long-term memory, recalled in later conversations), and the conversation's window,
 * what {@code MessageWindowChatMemory} hands the model, is kept beside them ({@link ChatWindows}).
 *
 * <p><b>Two lifetimes.</b> The window is the list LangChain4j last stored: a shorter list is
 * eviction from the window, never deletion, and {@link #deleteMessages} ends the window, because
 * frameworks call it for lifecycle reasons (quarkus-langchain4j at the end of every request, an
 * evicted conversation); the turns stay in long-term memory. {@link #forget} is the permanent
 * deletion of a conversation: every turn it captured, what was derived from them, and its window,
 * with nothing left in the home's files (D1).
 *
 * <p><b>What is captured.</b> A user message of plain text (without what a retriever injected into
 * it, {@link #INJECTED}) and an assistant message of plain text become events of the conversation's
 * own session ({@link JiyiSessions#of}), source {@code langchain4j}. Tool calls and their results,
 * and messages with images, names or thinking, stay in the window only, as LangChain4j serializes
 * them; system messages (a {@link JiyiContextPack} quotes other conversations) stay in it in this
 * process only and are never written (AiServices hands them in with every call). How lists are matched, what a crash leaves and what
 * two writers of one conversation can do: {@link ChatWindows}.
 */
public final class JiyiChatMemoryStore implements ChatMemoryStore, AutoCloseable {

    /** The source of every event the store captures, and the name of its windows' folder. */
    public static final String SOURCE = "langchain4j";

    /**
     * What LangChain4j's default content injector puts between the user's words and the retrieved
     * content. An assistant that stores retrieved content in its chat memory (AiServices' default)
     * hands the store the user's message with it; the turn captured is the user's words alone, so
     * recalled text is never captured again as something said in this conversation (forgetting the
     * conversation it came from must leave no copy of it). With another injector, set AiServices'
     * {@code storeRetrievedContentInChatMemory(false)}.
     */
    static final String INJECTED = "\n\nAnswer using the following information:\n";

    /** The message types LangChain4j serializes besides user and assistant messages (and their subclasses). */
    private static final java.util.Set<Class<?>> KNOWN = java.util.Set.of(dev.langchain4j.data.message.SystemMessage.class,
            dev.langchain4j.data.message.ToolExecutionResultMessage.class, dev.langchain4j.data.message.CustomMessage.class);

    private final Memory memory;
    private final ChatWindows windows;

    private JiyiChatMemoryStore(Memory memory) {
        this.memory = memory;
        this.windows = new ChatWindows(memory.engine(), memory.scope(), SOURCE);
    }

    /** The store of the home in {@code home}, persona and project {@code default}; closing it closes the home. */
    public static JiyiChatMemoryStore open(Path home) {
        return new JiyiChatMemoryStore(Memory.of(home, null, null, null, null, null));
    }

    /** The store of the home in {@code home}, in this persona and project; closing it closes the home. */
    public static JiyiChatMemoryStore open(Path home, String persona, String project) {
        return new JiyiChatMemoryStore(Memory.of(home, null, persona, project, null, null));
    }

    /** A store over an engine shared with other components (closing the store leaves it open). */
    public JiyiChatMemoryStore(Jiyi engine, String persona, String project) {
        this(Memory.of(null, engine, persona, project, null, null));
    }

    /** The conversation's window: its messages in order, without any whose turn was deleted since. */
    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        String session = JiyiSessions.of(memoryId);
        List<ChatMessage> out = new ArrayList<>();
        for (ChatWindows.Message m : refused(() -> windows.read(session))) {
            out.add(!m.isTurn() ? ChatMessageDeserializer.messageFromJson(m.serialized())
                    : m.role() == Role.USER ? UserMessage.from(m.text()) : AiMessage.from(m.text()));
        }
        return out;
    }

    /**
     * Keeps {@code messages} as the conversation's window and captures, as events, the turns in it
     * that are new. Every message is checked before anything is written: a message jiyi cannot keep
     * (too long, malformed text) is refused with {@link IllegalArgumentException} and nothing changes.
     */
    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        String session = JiyiSessions.of(memoryId);
        if (messages == null) {
            throw new IllegalArgumentException("messages: is required");
        }
        List<ChatWindows.Message> window = new ArrayList<>(messages.size());
        for (ChatMessage m : messages) {
            if (m == null) {
                throw new IllegalArgumentException("messages: must not hold null");
            }
            if (!KNOWN.contains(m.getClass()) && !(m instanceof UserMessage) && !(m instanceof AiMessage)) {
                throw new IllegalArgumentException("messages: must be LangChain4j's own message types");
            }
            window.add(windowMessage(m));
        }
        refused(() -> {
            windows.store(session, memoryId.toString(), window);
            return null;
        });
    }

    /**
     * Ends the conversation's window: {@link #getMessages} is empty afterwards, and its turns stay in
     * jiyi's long-term memory, recalled in later conversations. LangChain4j calls this when a chat
     * memory is cleared, which frameworks do at the end of a request or when they evict a
     * conversation; to delete a conversation for good, call {@link #forget}.
     */
    @Override
    public void deleteMessages(Object memoryId) {
        String session = JiyiSessions.of(memoryId);
        refused(() -> {
            windows.end(session);
            return null;
        });
    }

    /**
     * Deletes the conversation for good: every turn it captured with everything derived from them
     * (memories, vectors, relations, checkpoints that covered them: D1), and its window. Lucene's
     * index, when the home has one, drops them at its next search. Forgetting a conversation twice,
     * or one never stored, does nothing. Returns how many turns were deleted.
     */
    public int forget(Object memoryId) {
        String session = JiyiSessions.of(memoryId);
        return refused(() -> windows.forget(session));
    }

    /** Closes the engine if this store opened it. */
    @Override
    public void close() {
        memory.close();
    }

    /**
     * A message as the window keeps it: a turn, a system message in memory only (it may hold a
     * context pack, other conversations' words), or the rest whole, without injected content.
     */
    private static ChatWindows.Message windowMessage(ChatMessage m) {
        String text = turnText(m);
        if (text != null) {
            return ChatWindows.Message.turn(m instanceof UserMessage ? Role.USER : Role.ASSISTANT, text);
        }
        if (m instanceof dev.langchain4j.data.message.SystemMessage) {
            return ChatWindows.Message.instruction(m.type().name(), ChatMessageSerializer.messageToJson(m));
        }
        ChatMessage kept = m;
        if (m instanceof UserMessage u && u.hasSingleText() && u.singleText().contains(INJECTED)) {
            String own = u.singleText().substring(0, u.singleText().indexOf(INJECTED));
            kept = u.name() == null ? UserMessage.from(own) : UserMessage.from(u.name(), own);
        }
        return ChatWindows.Message.whole(kept.type().name(), ChatMessageSerializer.messageToJson(kept));
    }

    /**
     * The text captured of a message: a user's plain single text (without content a retriever
     * injected, {@link #INJECTED}), or an assistant's plain text with no tool call, thinking,
     * images or attributes; null for a message kept in the window only.
     */
    private static String turnText(ChatMessage m) {
        if (m instanceof UserMessage u && u.hasSingleText() && u.name() == null) {
            String text = u.singleText();
            int injected = text.indexOf(INJECTED);
            return injected < 0 ? text : text.substring(0, injected);
        }
        if (m instanceof AiMessage a && a.text() != null && !a.text().isBlank() && !a.hasToolExecutionRequests()
                && a.thinking() == null && a.attributes().isEmpty() && a.images().isEmpty()) {
            return a.text();
        }
        return null;
    }

    private static <T> T refused(Supplier<T> work) {
        try {
            return work.get();
        } catch (InvalidInputException e) {
            throw Memory.refused(e);
        }
    }
}
