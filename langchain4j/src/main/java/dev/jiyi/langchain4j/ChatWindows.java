package dev.jiyi.langchain4j;

import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Output;

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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * The chat windows of one scope: a small JSON file per conversation in the home's
 * {@code langchain4j/} folder, read and replaced whole under a lock that holds across threads and
 * processes. A window names its captured turns by event ID (their text stays in the authority, so a
 * deleted turn leaves nothing here) and holds what is not a turn (system messages, tool calls and
 * results) as LangChain4j serialized it. A file is replaced by an atomic rename of a synced copy,
 * so a crash leaves the old window or the new one, never half of either.
 */
final class ChatWindows {

    /** Most ended entries a window remembers, newest kept. */
    static final int MAX_ENDED = 1_000;

    /** One message of a window: a captured turn ({@code event}) or a message kept whole ({@code message}). */
    record Entry(String fingerprint, String event, String message) {
    }

    /**
     * A conversation's window.
     *
     * @param captured how many turns the conversation has captured: the place of the next one
     * @param entries  the window, in order
     * @param ended    turns of windows ended by {@code deleteMessages}, recognised if handed back
     */
    record Window(long captured, List<Entry> entries, List<Entry> ended) {
        static final Window EMPTY = new Window(0, List.of(), List.of());

        Window {
            entries = List.copyOf(entries);
            ended = List.copyOf(ended);
        }
    }

    private static final ConcurrentHashMap<Path, ReentrantLock> IN_THIS_JVM = new ConcurrentHashMap<>();

    private final Path dir;
    private final Scope scope;

    ChatWindows(Path dir, Scope scope) {
        this.dir = dir;
        this.scope = scope;
    }

    /** The session's window as last written; empty when there is none. */
    Window read(String session) {
        return locked(() -> load(file(session)));
    }

    /** Replaces the session's window by what {@code change} makes of it, under the lock. */
    void update(String session, UnaryOperator<Window> change) {
        locked(() -> {
            Path file = file(session);
            store(file, change.apply(load(file)));
            return null;
        });
    }

    /** Runs {@code before} and then removes the session's window, under the lock. */
    void remove(String session, Runnable before) {
        locked(() -> {
            before.run();
            try {
                Files.deleteIfExists(file(session));
            } catch (IOException e) {
                throw new UncheckedIOException("removing a chat window", e);
            }
            return null;
        });
    }

    /** 32 hex digits identifying a message by its kind and content (its text is not kept here). */
    static String fingerprint(String kind, String content) {
        return JiyiSessions.hash(kind + '\u0000' + content);
    }

    /** The newest {@link #MAX_ENDED} of {@code entries}. */
    static List<Entry> newest(List<Entry> entries) {
        return entries.subList(Math.max(0, entries.size() - MAX_ENDED), entries.size());
    }

    private Path file(String session) {
        return dir.resolve(JiyiSessions.hash(scope.personaId() + '\u0000' + scope.projectId() + '\u0000' + session) + ".json");
    }

    private <T> T locked(java.util.function.Supplier<T> work) {
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
        return new Window(root.get("captured").asLong(), entries(root.get("entries")), entries(root.get("ended")));
    }

    private static List<Entry> entries(JsonNode array) {
        List<Entry> out = new ArrayList<>(array.size());
        for (JsonNode e : array) {
            out.add(new Entry(e.get("fp").asString(), e.has("event") ? e.get("event").asString() : null,
                    e.has("message") ? e.get("message").asString() : null));
        }
        return out;
    }

    private static void store(Path file, Window window) {
        ObjectNode root = Output.mapper().createObjectNode();
        root.put("format", 1);
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
