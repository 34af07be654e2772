package dev.jiyi.engine;

import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Ids;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SubmitResult;
import dev.jiyi.authority.index.Backend;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Conversation windows beside long-term memory, for a framework's chat memory (LangChain4j's
 * {@code ChatMemoryStore}, Spring AI's {@code ChatMemoryRepository}): what the user and the
 * assistant say is captured as events, and the conversation's window, the list the framework last
 * stored, is kept beside them in the home's {@code windows/<source>/} folder ({@link WindowFiles}).
 *
 * <p><b>Two lifetimes.</b> A shorter list stored is eviction from the window, never deletion;
 * {@link #end} ends the window (frameworks clear chat memory for lifecycle reasons: the end of a
 * request, an evicted conversation) and keeps the turns; {@link #forget} deletes the conversation's
 * turns, what was derived from them and its window for good (D1).
 *
 * <p><b>What is kept how.</b> A {@link Message#turn turn} (a user's or an assistant's plain text)
 * becomes an event of the conversation's session; the window names it by event ID, so a deleted
 * turn leaves no text in the window. A message {@link Message#whole kept whole} (tool calls and
 * results) is written as the framework serialized it. An {@link Message#instruction instruction}
 * (a system message) is kept in memory only: it may hold another conversation's words.
 *
 * <p><b>How a list is matched.</b> The longest run of the window's last turns found in the list
 * anchors it: those are the window's turns; the list's turns after it are new; those before it
 * (older messages handed back, or a summary in place of evicted ones) are the window's earlier
 * turns where they match in order, else new, except a copy of a turn deleted while in the window,
 * which is dropped. After {@link #end}, history handed back (two turns or more in a row) is
 * recognised. A turn's event ID is fixed by the scope, the conversation, the window's generation,
 * the turn's place among those captured and its content, so a list stored again after a crash
 * between the events' commit and the window's write stores nothing twice (E2).
 *
 * <p>Processes may share a home, each conversation with one writer at a time: the interfaces carry
 * no version, so two writers of one conversation at once can lose each other's window update.
 * A full window that gains a message identical to the one it evicts reads as unchanged.
 */
public final class ChatWindows {

    /**
     * One message of a conversation as a framework hands it: a turn ({@code role} and {@code text},
     * captured), a message kept whole ({@code kind} and its {@code serialized} form), or an
     * instruction (the same, kept in memory only).
     */
    public record Message(Role role, String text, String kind, String serialized, boolean instruction) {

        /** A user's or an assistant's plain text: captured as an event. */
        public static Message turn(Role role, String text) {
            if (role == null || text == null) {
                throw new IllegalArgumentException("a turn has a role and a text");
            }
            return new Message(role, text, null, null, false);
        }

        /** A message kept in the window as the framework serialized it (a tool call, a tool's result). */
        public static Message whole(String kind, String serialized) {
            return new Message(null, null, required(kind), required(serialized), false);
        }

        /** A system message: kept in the window in this process only (the latest windows'), never written to disk. */
        public static Message instruction(String kind, String serialized) {
            return new Message(null, null, required(kind), required(serialized), true);
        }

        private static String required(String value) {
            if (value == null) {
                throw new IllegalArgumentException("a message kept whole has a kind and a serialized form");
            }
            return value;
        }

        public boolean isTurn() {
            return role != null;
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Jiyi engine;
    private final Scope scope;
    private final String source;
    private final WindowFiles files;

    /**
     * The windows of {@code scope} in {@code engine}'s home, for a framework that names itself
     * {@code source} (the events' source and the folder's name, e.g. {@code langchain4j}).
     */
    public ChatWindows(Jiyi engine, Scope scope, String source) {
        this.engine = engine;
        this.scope = scope;
        this.source = source;
        this.files = new WindowFiles(engine.home().dir().resolve("windows").resolve(source), scope);
    }

    /** The session's window, in order, without any turn deleted since. */
    public List<Message> read(String session) {
        Path file = files.file(session);
        WindowFiles.Window window = files.locked(() -> files.load(file));
        List<Message> out = new ArrayList<>(window.entries().size());
        for (WindowFiles.Entry e : window.entries()) {
            if (e.event() != null) {
                engine.authority().event(scope, e.event()).ifPresent(ev -> out.add(Message.turn(ev.role(), ev.text())));
            } else if (!e.instruction()) {
                out.add(Message.whole(e.kind(), e.message()));
            } else {
                String kept = WindowFiles.instruction(file, e);
                if (kept != null) {
                    out.add(Message.instruction(e.kind(), kept));
                }
            }
        }
        return out;
    }

    /** The file of the session's window (for tests). */
    Path file(String session) {
        return files.file(session);
    }

    /** How many turns the session's window has captured so far (it only grows). */
    public long captured(String session) {
        return files.locked(() -> files.load(files.file(session))).captured();
    }

    /**
     * Keeps {@code messages} as the session's window and captures the turns in it that are new.
     * Every message is checked before anything is written: a turn jiyi cannot keep (too long,
     * malformed) or a message kept whole over {@link Limits#MAX_EVENT_TEXT} characters is refused
     * ({@link InvalidInputException}) and nothing changes. A blank turn is nothing said.
     */
    public void store(String session, String conversation, List<Message> messages) {
        List<Turn> turns = turns(session, messages);
        Path file = files.file(session);
        files.locked(() -> {
            WindowFiles.Window window = started(file, conversation, files.load(file));
            fingerprint(turns, window);
            List<WindowFiles.Entry> live = new ArrayList<>();
            List<String> deleted = new ArrayList<>();
            for (WindowFiles.Entry e : window.entries()) {
                if (e.event() != null) {
                    if (engine.authority().event(scope, e.event()).isPresent()) {
                        live.add(e);
                    } else {
                        deleted.add(e.fingerprint());
                    }
                }
            }
            Matching.match(turns, live, deleted, window);
            return capture(file, session, conversation, window, turns, deleted);
        });
    }

    /** Most messages a window grown by {@link #append} keeps; the oldest leave it (they stay turns). */
    public static final int MAX_APPENDED = 200;

    /**
     * Adds {@code exchange} (an advisor's: the request and its reply) to the end of the session's
     * window and captures its turns, unless a turn equal to {@code question} was captured at or
     * after place {@code since} (a chat memory that keeps the conversation stored the exchange):
     * decided and done in one step under the lock, so concurrent exchanges of one conversation are
     * each kept. The window keeps its last {@link #MAX_APPENDED} messages. Returns whether it added.
     */
    public boolean append(String session, String conversation, String question, long since, List<Message> exchange) {
        List<Turn> turns = turns(session, exchange);
        Path file = files.file(session);
        return files.locked(() -> {
            WindowFiles.Window window = started(file, conversation, files.load(file));
            fingerprint(turns, window);
            String asked = fingerprint(window.generation(), Role.USER.name(), question);
            for (WindowFiles.Entry e : window.entries()) {
                if (asked.equals(e.fingerprint()) && place(e.event()) >= since) {
                    return false;
                }
            }
            List<Turn> all = new ArrayList<>();
            List<WindowFiles.Entry> kept = window.entries().subList(
                    Math.max(0, window.entries().size() - (MAX_APPENDED - turns.size())), window.entries().size());
            for (WindowFiles.Entry e : kept) {
                all.add(Turn.of(e));
            }
            all.addAll(turns);
            capture(file, session, conversation, window, all, List.of());
            return true;
        });
    }

    /** The last message of the session's window, its turn read from the authority; empty when none. */
    public java.util.Optional<Message> last(String session) {
        Path file = files.file(session);
        List<WindowFiles.Entry> entries = files.locked(() -> files.load(file)).entries();
        if (entries.isEmpty()) {
            return java.util.Optional.empty();
        }
        WindowFiles.Entry e = entries.getLast();
        if (e.event() != null) {
            return engine.authority().event(scope, e.event()).map(ev -> Message.turn(ev.role(), ev.text()));
        }
        String kept = e.instruction() ? WindowFiles.instruction(file, e) : e.message();
        return kept == null ? java.util.Optional.empty()
                : java.util.Optional.of(e.instruction() ? Message.instruction(e.kind(), kept) : Message.whole(e.kind(), kept));
    }

    /** The place among a window's captured turns that a turn's event ID records; -1 for another ID. */
    static long place(String eventId) {
        if (eventId == null || !eventId.startsWith("turn-")) {
            return -1;
        }
        int end = eventId.lastIndexOf('-');
        int start = eventId.lastIndexOf('-', end - 1);
        try {
            return Long.parseLong(eventId, start + 1, end, 10);
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return -1;
        }
    }

    /** Ends the session's window: it reads empty, and its turns stay in long-term memory. */
    public void end(String session) {
        Path file = files.file(session);
        files.locked(() -> {
            WindowFiles.Window w = files.load(file);
            List<WindowFiles.Entry> ended = new ArrayList<>();
            java.util.stream.Stream.concat(w.ended().stream(), w.entries().stream())
                    .filter(e -> e.event() != null && engine.authority().event(scope, e.event()).isPresent()).forEach(ended::add);
            files.save(file, new WindowFiles.Window(w.conversation(), w.generation() == null ? generation() : w.generation(),
                    w.captured(), List.of(), ended, w.tombstones()), Map.of());
            return null;
        });
    }

    /**
     * Deletes the session for good: every turn of it (whoever stored it) with everything derived
     * from them and the corrections they are part of (D1), and its window; a derived index (Lucene)
     * catches up before this returns, so no search and no file holds them. Returns how many events
     * were deleted; a session forgotten twice, or never stored, deletes nothing. It reads the scope's
     * events to find the session's.
     */
    public int forget(String session) {
        Path file = files.file(session);
        int deleted = files.locked(() -> {
            int n = 0;
            long after = 0;
            try {
                for (List<Event> page = engine.authority().events(scope, after, 1_000); !page.isEmpty();
                     page = engine.authority().events(scope, after, 1_000)) {
                    for (Event e : page) {
                        if (e.sessionId().equals(session) && engine.authority().event(scope, e.id()).isPresent()) {
                            // (an earlier deletion of this page may have taken it already, through a correction)
                            n += engine.deleteEvent(scope, e.id()).eventIds().size();
                        }
                    }
                    after = page.getLast().sequence();
                }
                files.remove(file);
            } finally {
                for (Backend b : engine.builtBackends()) {
                    b.warmUp(engine.authority()); // a derived index applies the deletions (and purges them) now
                }
            }
            return n;
        });
        return deleted;
    }

    /** The names of this scope's conversations whose windows hold messages, in no particular order. */
    public List<String> conversations() {
        return files.locked(files::conversations);
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
            return Ids.check("session", prefix + conversation);
        } catch (InvalidInputException notAnId) {
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

    /** 32 hex digits identifying a message by its kind and content, keyed by its window's generation. */
    static String fingerprint(String key, String kind, String content) {
        return hash(key + '\u0000' + kind + '\u0000' + content);
    }

    /** The messages as turns to match, each checked: nothing is written before all of them pass. */
    private List<Turn> turns(String session, List<Message> messages) {
        List<Turn> out = new ArrayList<>(messages.size());
        for (Message m : messages) {
            if (m.isTurn()) {
                if (!m.text().isBlank()) {
                    new EventSubmission("check", scope, m.role(), m.text(), source, Category.CONVERSATION, session, null);
                    out.add(new Turn(m.role(), m.text(), null));
                }
            } else {
                if (m.serialized().length() > Limits.MAX_EVENT_TEXT) {
                    throw new InvalidInputException("messages", "a message kept whole must be at most "
                            + Limits.MAX_EVENT_TEXT + " characters");
                }
                out.add(new Turn(null, null, m));
            }
        }
        return out;
    }

    /**
     * Gives each turn its fingerprint in this window: a hash of its kind and content keyed by the
     * window's generation, so a fingerprint left behind confirms nothing without the window's key,
     * and forgetting the window forgets the key.
     */
    private static void fingerprint(List<Turn> turns, WindowFiles.Window window) {
        for (Turn t : turns) {
            if (t.fingerprint == null) {
                t.fingerprint = t.role != null ? fingerprint(window.generation(), t.role.name(), t.text)
                        : fingerprint(window.generation(), t.whole.kind(), t.whole.serialized());
            }
        }
    }

    /** The window, given a generation (written before any of its turns) when it has none yet. */
    private WindowFiles.Window started(Path file, String conversation, WindowFiles.Window w) {
        if (w.generation() != null) {
            return w;
        }
        WindowFiles.Window started = new WindowFiles.Window(conversation, generation(), w.captured(), w.entries(),
                w.ended(), w.tombstones());
        files.save(file, started, Map.of());
        return started;
    }

    private static String generation() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * Submits the turns that have no event yet and writes the window of {@code turns}; the
     * fingerprints of {@code deleted} turns (the window's, whose events are gone) become tombstones,
     * and ended turns whose events are gone are forgotten.
     */
    private Void capture(Path file, String session, String conversation, WindowFiles.Window window, List<Turn> turns,
                         List<String> deleted) {
        long captured = window.captured();
        String prefix = "turn-" + hash(scope.personaId() + '\u0000' + scope.projectId() + '\u0000' + session + '\u0000'
                + window.generation()) + "-";
        List<WindowFiles.Entry> entries = new ArrayList<>(turns.size());
        List<EventSubmission> fresh = new ArrayList<>();
        Map<String, String> instructions = new HashMap<>();
        for (Turn t : turns) {
            if (t.dropped) {
                continue;
            }
            if (t.role != null && t.event == null) {
                t.event = prefix + captured++ + "-" + t.fingerprint.substring(0, 12);
                fresh.add(new EventSubmission(t.event, scope, t.role, t.text, source, Category.CONVERSATION, session, null));
            }
            entries.add(t.entry(instructions));
        }
        if (!fresh.isEmpty()) {
            BatchResult<SubmitResult> stored = engine.authority().submitEvents(fresh);
            if (stored.failed()) { // the window stays as it was: the same list again finds the turns before it stored (E2)
                throw stored.error();
            }
        }
        Set<String> kept = new HashSet<>();
        entries.forEach(e -> kept.add(e.event()));
        List<String> tombstones = new ArrayList<>(window.tombstones());
        deleted.stream().filter(fp -> !tombstones.contains(fp)).forEach(tombstones::add);
        List<WindowFiles.Entry> ended = window.ended().stream()
                .filter(e -> !kept.contains(e.event()) && engine.authority().event(scope, e.event()).isPresent()).toList();
        files.save(file, new WindowFiles.Window(conversation, window.generation(), captured, entries, ended, tombstones),
                instructions);
        return null;
    }

    /** A message of a list handed in, with the event it turns out to be (or {@code dropped}). */
    static final class Turn {
        final Role role;
        final String text;
        final Message whole;
        String fingerprint;
        String event;
        boolean dropped;
        /** For an entry carried over unread (an append): the entry itself. */
        private WindowFiles.Entry carried;

        Turn(Role role, String text, Message whole) {
            this.role = role;
            this.text = text;
            this.whole = whole;
        }

        static Turn of(WindowFiles.Entry e) {
            Turn t = new Turn(null, null, null);
            t.fingerprint = e.fingerprint();
            t.event = e.event();
            t.carried = e;
            return t;
        }

        WindowFiles.Entry entry(Map<String, String> instructions) {
            if (carried != null) {
                return carried;
            }
            if (whole == null) {
                return WindowFiles.Entry.turn(fingerprint, event);
            }
            if (whole.instruction()) {
                instructions.put(fingerprint, whole.serialized());
                return new WindowFiles.Entry(fingerprint, null, whole.kind(), null, true);
            }
            return new WindowFiles.Entry(fingerprint, null, whole.kind(), whole.serialized(), false);
        }
    }
}
