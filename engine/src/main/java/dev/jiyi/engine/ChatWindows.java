package dev.jiyi.engine;

import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Conversation windows beside long-term memory, for a framework's chat memory (LangChain4j's
 * {@code ChatMemoryStore}, Spring AI's {@code ChatMemoryRepository}): what the user and the
 * assistant say is captured as events, and the conversation's window, the list the framework last
 * stored, is kept beside them, one small JSON file per conversation in the home's
 * {@code windows/<source>/} folder.
 *
 * <p><b>Two lifetimes.</b> A shorter list stored is eviction from the window, never deletion;
 * {@link #end} ends the window (frameworks clear chat memory for lifecycle reasons: the end of a
 * request, an evicted conversation) and keeps the turns; {@link #forget} deletes the conversation's
 * turns, what was derived from them and its window for good (D1).
 *
 * <p><b>What is captured.</b> A {@link Message#turn turn} (a user's or an assistant's plain text)
 * becomes an event of the conversation's session, with an ID fixed by the conversation, the turn's
 * place among those captured and its content, so a list stored again after a crash between the
 * events' commit and the window's write stores nothing twice (E2). A message {@link Message#whole
 * kept whole} (system messages, tool calls and results, in the framework's own serialization) is
 * the program's working state: it stays in the window only. A window names its turns by event ID,
 * so a deleted turn leaves no text in it and never comes back.
 *
 * <p><b>How a list is matched.</b> In order ({@code Alignment}): the oldest messages gone are
 * evicted, a summary in their place is new, a second "好的" after the first is a new turn. After
 * {@link #end}, history handed back (two turns or more in a row) is recognised, not captured twice.
 *
 * <p>A file is replaced by an atomic rename of a synced copy, under a lock that holds across
 * threads and processes. Processes may share a home, each conversation with one writer at a time:
 * a chat memory interface has no version to compare, so two writers of one conversation at once
 * can lose each other's window update and, if one then hands back a turn the other dropped,
 * capture it twice.
 */
public final class ChatWindows {

    /**
     * One message of a conversation as a framework hands it: a turn ({@code role} and {@code text},
     * captured) or a message kept whole ({@code kind} and its {@code serialized} form).
     */
    public record Message(Role role, String text, String kind, String serialized) {

        /** A user's or an assistant's plain text: captured as an event. */
        public static Message turn(Role role, String text) {
            if (role == null || text == null) {
                throw new IllegalArgumentException("a turn has a role and a text");
            }
            return new Message(role, text, null, null);
        }

        /** A message kept in the window only, as the framework serialized it. */
        public static Message whole(String kind, String serialized) {
            if (kind == null || serialized == null) {
                throw new IllegalArgumentException("a whole message has a kind and a serialized form");
            }
            return new Message(null, null, kind, serialized);
        }

        public boolean isTurn() {
            return role != null;
        }
    }

    /** Most ended entries a window remembers, newest kept. */
    static final int MAX_ENDED = 1_000;

    /** One message of a window: a captured turn ({@code event}) or a message kept whole ({@code kind}, {@code message}). */
    record Entry(String fingerprint, String event, String kind, String message) {
    }

    /**
     * A conversation's window.
     *
     * @param conversation the framework's name of the conversation, as it was given (null before the first store)
     * @param captured     how many turns the conversation has captured: the place of the next one
     * @param entries      the window, in order
     * @param ended        turns of windows ended by {@link ChatWindows#end}, recognised if handed back
     */
    record Window(String conversation, long captured, List<Entry> entries, List<Entry> ended) {
        static final Window EMPTY = new Window(null, 0, List.of(), List.of());

        Window {
            entries = List.copyOf(entries);
            ended = List.copyOf(ended);
        }
    }

    private static final ConcurrentHashMap<Path, ReentrantLock> IN_THIS_JVM = new ConcurrentHashMap<>();

    private final Jiyi engine;
    private final Scope scope;
    private final String source;
    private final Path dir;

    /**
     * The windows of {@code scope} in {@code engine}'s home, for a framework that names itself
     * {@code source} (the events' source and the folder's name, e.g. {@code langchain4j}).
     */
    public ChatWindows(Jiyi engine, Scope scope, String source) {
        this.engine = engine;
        this.scope = scope;
        this.source = source;
        this.dir = engine.home().dir().resolve("windows").resolve(source);
    }

    /** The session's window, in order, without any turn deleted since. */
    public List<Message> read(String session) {
        Window window = locked(() -> load(file(session)));
        List<Message> out = new ArrayList<>(window.entries().size());
        for (Entry e : window.entries()) {
            if (e.message() != null) {
                out.add(new Message(null, null, e.kind(), e.message()));
            } else {
                engine.authority().event(scope, e.event()).ifPresent(ev -> out.add(Message.turn(ev.role(), ev.text())));
            }
        }
        return out;
    }

    /**
     * Keeps {@code messages} as the session's window and captures the turns in it that are new,
     * each checked before anything is written: a turn jiyi cannot keep (too long, malformed) is
     * refused ({@link dev.jiyi.authority.InvalidInputException}) and nothing changes. A blank turn
     * is nothing said and is left out.
     */
    public void store(String session, String conversation, List<Message> messages) {
        update(session, window -> {
            List<Turn> turns = new ArrayList<>(messages.size());
            Alignment current = new Alignment(window.entries());
            for (Message m : messages) {
                if (!m.isTurn()) {
                    turns.add(new Turn(null, null, fingerprint(m.kind(), m.serialized()), m));
                } else if (!m.text().isBlank()) {
                    Turn t = new Turn(m.role(), m.text(), fingerprint(m.role().name(), m.text()), null);
                    t.event = current.next(t.fingerprint);
                    turns.add(t);
                }
            }
            List<Entry> ended = handedBack(turns, window.ended());
            long captured = window.captured();
            List<Entry> entries = new ArrayList<>(turns.size());
            List<EventSubmission> fresh = new ArrayList<>();
            for (Turn t : turns) {
                if (t.role != null && t.event == null) {
                    t.event = eventId(session, captured++, t.fingerprint);
                    fresh.add(new EventSubmission(t.event, scope, t.role, t.text, source, Category.CONVERSATION, session, null));
                }
                entries.add(t.whole == null ? new Entry(t.fingerprint, t.event, null, null)
                        : new Entry(t.fingerprint, null, t.whole.kind(), t.whole.serialized()));
            }
            if (!fresh.isEmpty()) {
                BatchResult<SubmitResult> stored = engine.authority().submitEvents(fresh);
                if (stored.failed()) { // the window stays as it was: the same list again finds the turns before it stored (E2)
                    throw stored.error();
                }
            }
            return new Window(conversation, captured, entries, ended);
        });
    }

    /**
     * Adds {@code messages} to the end of the session's window and captures the turns among them
     * (an advisor's exchange: the request and its reply).
     */
    public void append(String session, String conversation, List<Message> messages) {
        List<Message> longer = new ArrayList<>(read(session));
        longer.addAll(messages);
        store(session, conversation, longer);
    }

    /** The names of the conversations of this scope whose windows hold messages, in no particular order. */
    public List<String> conversations() {
        return locked(() -> {
            List<String> out = new ArrayList<>();
            try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList()) {
                    JsonNode root = Output.mapper().readTree(Files.readAllBytes(f));
                    if (root.has("conversation") && root.get("entries").size() > 0
                            && scope.personaId().equals(root.get("persona").asString())
                            && scope.projectId().equals(root.get("project").asString())) {
                        out.add(root.get("conversation").asString());
                    }
                }
            } catch (NoSuchFileException none) {
                return out;
            } catch (IOException e) {
                throw new UncheckedIOException("listing chat windows", e);
            }
            return out;
        });
    }

    /** Ends the session's window: it reads empty, and its turns stay in long-term memory. */
    public void end(String session) {
        update(session, window -> {
            List<Entry> ended = new ArrayList<>(window.ended());
            for (Entry e : window.entries()) {
                if (e.event() != null) {
                    ended.add(e);
                }
            }
            return new Window(window.conversation(), window.captured(), List.of(), newest(ended));
        });
    }

    /**
     * Deletes the session for good: every turn of it (whoever stored it) with everything derived
     * from them (D1), and its window. A derived index drops them at its next search. Returns how
     * many turns were deleted; a session forgotten twice, or never stored, deletes nothing.
     */
    public int forget(String session) {
        int[] deleted = {0};
        locked(() -> {
            long after = 0;
            for (List<Event> page = engine.authority().events(scope, after, 1_000); !page.isEmpty();
                 page = engine.authority().events(scope, after, 1_000)) {
                for (Event e : page) {
                    if (e.sessionId().equals(session)) {
                        engine.deleteEvent(scope, e.id());
                        deleted[0]++;
                    }
                }
                after = page.getLast().sequence();
            }
            try {
                Files.deleteIfExists(file(session));
            } catch (IOException e) {
                throw new UncheckedIOException("removing a chat window", e);
            }
            return null;
        });
        return deleted[0];
    }

    /**
     * The session of a framework's conversation: {@code prefix} (the framework's, such as
     * {@code langchain4j:}) and the conversation's name when that makes a valid jiyi ID (no
     * whitespace, at most 200 characters in all), else the prefix and 32 hex digits of the name's
     * SHA-256. Every name maps to one session, the same one every time, and never to a session the
     * command line or another host writes (such as {@code default}), so forgetting a conversation
     * can only reach its own turns.
     */
    public static String session(String prefix, String conversation) {
        try {
            return dev.jiyi.authority.Ids.check("session", prefix + conversation);
        } catch (dev.jiyi.authority.InvalidInputException notAnId) {
            return prefix + hash(conversation);
        }
    }

    /** 32 hex digits of the SHA-256 of {@code text} in UTF-8: names of windows, parts of event IDs, sessions. */
    public static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** A captured turn's event ID: its conversation, its place among the turns captured, its content. */
    static String eventId(String session, long position, String fingerprint) {
        return "turn-" + hash(session) + "-" + position + "-" + fingerprint.substring(0, 12);
    }

    /** 32 hex digits identifying a message by its kind and content (its text is not kept in the window). */
    static String fingerprint(String kind, String content) {
        return hash(kind + '\u0000' + content);
    }

    /** The newest {@link #MAX_ENDED} of {@code entries}. */
    static List<Entry> newest(List<Entry> entries) {
        return entries.subList(Math.max(0, entries.size() - MAX_ENDED), entries.size());
    }

    /** A message of a list handed in: a turn ({@code role}, {@code text}, its event once known) or one kept whole. */
    private static final class Turn {
        final Role role;
        final String text;
        final String fingerprint;
        final Message whole;
        String event;

        Turn(Role role, String text, String fingerprint, Message whole) {
            this.role = role;
            this.text = text;
            this.fingerprint = fingerprint;
            this.whole = whole;
        }
    }

    /**
     * Gives the turns of {@code turns} that are not in the window their event from an ended window,
     * where they are that window's history handed back: a run of two turns or more, in a row, that
     * are turns of it in a row. One message alone is never taken for history: a framework that ends
     * the window after every request (quarkus-langchain4j) hands in one new message each time, and
     * a second "好的" on another day is a new turn. Returns the ended turns still to be recognised.
     */
    private static List<Entry> handedBack(List<Turn> turns, List<Entry> ended) {
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
        List<Entry> rest = new ArrayList<>();
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
        private final List<Entry> turns;
        private int next;

        Alignment(List<Entry> entries) {
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

    private void update(String session, UnaryOperator<Window> change) {
        locked(() -> {
            Path file = file(session);
            save(file, change.apply(load(file)));
            return null;
        });
    }

    private Path file(String session) {
        return dir.resolve(hash(scope.personaId() + '\u0000' + scope.projectId() + '\u0000' + session) + ".json");
    }

    private <T> T locked(Supplier<T> work) {
        ReentrantLock local = IN_THIS_JVM.computeIfAbsent(dir.toAbsolutePath().normalize(), k -> new ReentrantLock());
        local.lock();
        try {
            Files.createDirectories(dir);
            try (FileChannel channel = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock held = channel.lock()) {
                return work.get();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("locking the chat windows", e);
        } finally {
            local.unlock();
        }
    }

    private static Window load(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException none) {
            return Window.EMPTY;
        } catch (IOException e) {
            throw new UncheckedIOException("reading a chat window", e);
        }
        JsonNode root = Output.mapper().readTree(bytes);
        return new Window(root.has("conversation") ? root.get("conversation").asString() : null, root.get("captured").asLong(),
                entries(root.get("entries")), entries(root.get("ended")));
    }

    private static List<Entry> entries(JsonNode array) {
        List<Entry> out = new ArrayList<>(array.size());
        for (JsonNode e : array) {
            out.add(e.has("event") ? new Entry(e.get("fp").asString(), e.get("event").asString(), null, null)
                    : new Entry(e.get("fp").asString(), null, e.get("kind").asString(), e.get("message").asString()));
        }
        return out;
    }

    private void save(Path file, Window window) {
        ObjectNode root = Output.mapper().createObjectNode();
        root.put("format", 1);
        root.put("persona", scope.personaId());
        root.put("project", scope.projectId());
        if (window.conversation() != null) {
            root.put("conversation", window.conversation());
        }
        root.put("captured", window.captured());
        write(root.putArray("entries"), window.entries());
        write(root.putArray("ended"), window.ended());
        Path copy = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            try (FileChannel out = FileChannel.open(copy, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ownerOnly(copy);
                ByteBuffer bytes = ByteBuffer.wrap(Output.mapper().writeValueAsString(root).getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                out.force(true);
            }
            try {
                Files.move(copy, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing a chat window", e);
        }
    }

    private static void write(ArrayNode into, List<Entry> entries) {
        for (Entry e : entries) {
            ObjectNode o = into.addObject();
            o.put("fp", e.fingerprint());
            if (e.event() != null) {
                o.put("event", e.event());
            } else {
                o.put("kind", e.kind());
                o.put("message", e.message());
            }
        }
    }

    /** Windows hold what the user and tools said: readable by the owner only, where the file system says so. */
    private static void ownerOnly(Path file) throws IOException {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
    }
}
