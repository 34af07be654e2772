package dev.jiyi.langchain4j;

import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.SubmitResult;
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
import java.util.Optional;

/**
 * jiyi as the chat memory of a LangChain4j assistant: what the user and the assistant say is kept as
 * jiyi events (long-term memory, recalled in later conversations), and the conversation's window,
 * what {@code MessageWindowChatMemory} hands the model, is kept beside them.
 *
 * <p><b>Two lifetimes.</b> The <i>window</i> is the list LangChain4j last stored: a shorter list is
 * eviction from the window, never deletion, and {@link #deleteMessages} ends the window, because
 * frameworks call it for lifecycle reasons (the end of a request, an evicted conversation); the
 * turns stay in long-term memory. {@link #forget} is the permanent deletion of a conversation: every
 * turn it captured, what was derived from them, and its window, with nothing left in the home's
 * files (D1).
 *
 * <p><b>What is captured.</b> A user message of plain text and an assistant message of plain text
 * become events of the conversation's session ({@link JiyiSessions#of}), role {@code user} or
 * {@code assistant}, source {@code langchain4j}. Everything else (system messages, tool calls and
 * their results, messages with images or names) stays in the window only, as LangChain4j serializes
 * it: it is the program's working state, not what the user said. An event's ID is fixed by the
 * conversation, the message's place among the messages captured and its content, so a list stored
 * again (after a crash between the events' commit and the window's write) stores nothing twice
 * (E2). A list is matched against the window in order ({@code Alignment}): the oldest messages gone
 * are evicted, a summary in their place is new, a second "好的" after the first is a new turn. A turn
 * the window holds is never captured again, nor one a deletion removed: it stays out of the window.
 * After {@link #deleteMessages}, history handed back (two turns or more in a row) is recognised,
 * not captured twice.
 *
 * <p>The windows live in the home's {@code langchain4j/} folder ({@link ChatWindows}); processes may
 * share a home, each conversation with one writer at a time. {@code ChatMemoryStore} has no version
 * to compare: two writers of one conversation at once can lose each other's window update (as with
 * any store of the interface) and, if one then hands back a turn the other's update dropped, capture
 * that turn twice.
 */
public final class JiyiChatMemoryStore implements ChatMemoryStore, AutoCloseable {

    /** The source of every event the store captures. */
    public static final String SOURCE = "langchain4j";

    private final Memory memory;
    private final ChatWindows windows;

    private JiyiChatMemoryStore(Memory memory) {
        this.memory = memory;
        this.windows = new ChatWindows(memory.engine().home().dir().resolve("langchain4j"), memory.scope());
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
        ChatWindows.Window window = windows.read(session);
        List<ChatMessage> out = new ArrayList<>(window.entries().size());
        for (ChatWindows.Entry entry : window.entries()) {
            message(entry).ifPresent(out::add);
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
        for (ChatMessage m : messages) {
            if (m == null) {
                throw new IllegalArgumentException("messages: must not hold null");
            }
        }
        windows.update(session, window -> {
            // What each message is: kept whole (json), or a turn with its role, text and fingerprint.
            List<Turn> turns = new ArrayList<>(messages.size());
            Alignment current = new Alignment(window.entries());
            for (ChatMessage m : messages) {
                String text = turnText(m);
                if (text != null && text.isBlank()) {
                    continue; // nothing the user said (an empty message, or only retrieved content)
                }
                if (text == null) {
                    String json = ChatMessageSerializer.messageToJson(m);
                    turns.add(new Turn(null, null, ChatWindows.fingerprint(m.type().name(), json), json));
                    continue;
                }
                Role role = m instanceof UserMessage ? Role.USER : Role.ASSISTANT;
                Turn t = new Turn(role, text, ChatWindows.fingerprint(role.name(), text), null);
                t.event = current.next(t.fingerprint);
                turns.add(t);
            }
            List<ChatWindows.Entry> ended = handedBack(turns, window.ended());
            long captured = window.captured();
            List<ChatWindows.Entry> entries = new ArrayList<>(turns.size());
            List<EventSubmission> fresh = new ArrayList<>();
            for (Turn t : turns) {
                if (t.role != null && t.event == null) {
                    String id = eventId(session, captured++, t.fingerprint);
                    fresh.add(Memory.refused(() -> new EventSubmission(id, memory.scope(), t.role, t.text, SOURCE,
                            Category.CONVERSATION, session, null)));
                    t.event = id;
                }
                entries.add(new ChatWindows.Entry(t.fingerprint, t.event, t.json));
            }
            if (!fresh.isEmpty()) {
                BatchResult<SubmitResult> stored = memory.engine().authority().submitEvents(fresh);
                if (stored.failed()) { // the window stays as it was: the same list again finds the turns before it stored (E2)
                    throw stored.error() instanceof InvalidInputException invalid ? Memory.refused(invalid) : stored.error();
                }
            }
            return new ChatWindows.Window(captured, entries, ended);
        });
    }

    /** A message of a list handed in: a turn ({@code role}, {@code text}, its event once known) or one kept whole. */
    private static final class Turn {
        final Role role;
        final String text;
        final String fingerprint;
        final String json;
        String event;

        Turn(Role role, String text, String fingerprint, String json) {
            this.role = role;
            this.text = text;
            this.fingerprint = fingerprint;
            this.json = json;
        }
    }

    /**
     * Gives the turns of {@code turns} that are not in the window their event from an ended window,
     * where they are that window's history handed back: a run of two turns or more, in a row, that
     * are turns of it in a row. One message alone is never taken for history: a framework that ends
     * the window after every request (quarkus-langchain4j) hands in one new message each time, and
     * a second "好的" on another day is a new turn. Returns the ended turns still to be recognised.
     */
    private static List<ChatWindows.Entry> handedBack(List<Turn> turns, List<ChatWindows.Entry> ended) {
        List<Turn> loose = turns.stream().filter(t -> t.role != null && t.event == null).toList();
        boolean[] used = new boolean[ended.size()];
        int i = 0;
        while (i < loose.size()) {
            int run = 0;
            int from = -1;
            for (int k = 0; k < ended.size() && run < 2; k++) {
                int length = 0;
                while (i + length < loose.size() && k + length < ended.size() && !used[k + length]
                        && ended.get(k + length).fingerprint().equals(loose.get(i + length).fingerprint)) {
                    length++;
                }
                if (length > run) {
                    run = length;
                    from = k;
                }
            }
            if (run < 2) {
                i++;
                continue;
            }
            while (i < loose.size() && from < ended.size() && !used[from]
                    && ended.get(from).fingerprint().equals(loose.get(i).fingerprint)) {
                loose.get(i++).event = ended.get(from).event();
                used[from++] = true;
            }
        }
        List<ChatWindows.Entry> rest = new ArrayList<>();
        for (int k = 0; k < ended.size(); k++) {
            if (!used[k]) {
                rest.add(ended.get(k));
            }
        }
        return rest;
    }

    /**
     * The turns of a window, matched in order against a list handed in: a message is the window's
     * turn when it is the next one, or a later one, with its fingerprint (the turns before that were
     * evicted or rewritten), so a list that dropped its oldest messages and gained new ones, or
     * whose history was compacted into a summary, keeps its turns and captures only what is new.
     * Order keeps a repeated message (a second "好的") new while an earlier one is still in the window.
     */
    private static final class Alignment {
        private final List<ChatWindows.Entry> turns;
        private int next;

        Alignment(List<ChatWindows.Entry> entries) {
            this.turns = entries.stream().filter(e -> e.event() != null).toList();
        }

        /** The event of the next turn with this fingerprint at or after the last match; null when none. */
        String next(String fingerprint) {
            for (int i = next; i < turns.size(); i++) {
                if (turns.get(i).fingerprint().equals(fingerprint)) {
                    next = i + 1;
                    return turns.get(i).event();
                }
            }
            return null;
        }
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
        windows.update(session, window -> {
            List<ChatWindows.Entry> ended = new ArrayList<>(window.ended());
            for (ChatWindows.Entry e : window.entries()) {
                if (e.event() != null) {
                    ended.add(e);
                }
            }
            return new ChatWindows.Window(window.captured(), List.of(), ChatWindows.newest(ended));
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
        int[] deleted = {0};
        windows.remove(session, () -> {
            Jiyi engine = memory.engine();
            long after = 0;
            while (true) {
                List<Event> page = engine.authority().events(memory.scope(), after, 1_000);
                if (page.isEmpty()) {
                    break;
                }
                for (Event e : page) {
                    if (e.sessionId().equals(session) && engine.authority().event(memory.scope(), e.id()).isPresent()) {
                        engine.deleteEvent(memory.scope(), e.id());
                        deleted[0]++;
                    }
                }
                after = page.getLast().sequence();
            }
        });
        return deleted[0];
    }

    /** Closes the engine if this store opened it. */
    @Override
    public void close() {
        memory.close();
    }

    /** The message an entry stands for; empty when its turn was deleted. */
    private Optional<ChatMessage> message(ChatWindows.Entry entry) {
        if (entry.message() != null) {
            return Optional.of(ChatMessageDeserializer.messageFromJson(entry.message()));
        }
        return memory.engine().authority().event(memory.scope(), entry.event())
                .map(e -> e.role() == Role.USER ? UserMessage.from(e.text()) : AiMessage.from(e.text()));
    }

    /**
     * The text captured of a message: a user's plain single text (without content a retriever
     * injected, {@link #INJECTED}), or an assistant's plain text with no tool call, thinking or
     * attributes; null for a message kept in the window only.
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

    /**
     * What LangChain4j's default content injector puts between the user's words and the retrieved
     * content. An assistant that stores retrieved content in its chat memory (AiServices' default)
     * hands the store the user's message with it; the turn captured is the user's words alone, so
     * recalled text is never captured again as something said in this conversation (forgetting the
     * conversation it came from must leave no copy of it). Other injectors: set AiServices'
     * {@code storeRetrievedContentInChatMemory(false)}.
     */
    static final String INJECTED = "\n\nAnswer using the following information:\n";

    /** A captured turn's event ID: its conversation, its place among the turns captured, its content. */
    static String eventId(String session, long position, String fingerprint) {
        return "lc4j-" + JiyiSessions.hash(session) + "-" + position + "-" + fingerprint.substring(0, 12);
    }
}
