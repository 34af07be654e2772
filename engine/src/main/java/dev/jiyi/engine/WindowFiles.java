package dev.jiyi.engine;

import dev.jiyi.authority.Scope;

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
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The files of {@link ChatWindows}: one JSON file per conversation in a folder of the home, read and
 * replaced whole under a lock that holds across threads (one lock per real folder in this JVM) and
 * processes (a file lock). A file is replaced by an atomic rename of a synced copy, so a crash leaves
 * the old window or the new one; a copy left by a failed write is removed with it. Files and folder
 * are the owner's only where the file system has permissions.
 *
 * <p>Instructions (system messages) are never written: they can hold text of other conversations
 * (a context pack), which forgetting those must not leave on disk. Their entries are placeholders,
 * and the messages are kept in this JVM only ({@link #INSTRUCTIONS}, the latest windows'); the
 * frameworks hand them in again with every call.
 */
final class WindowFiles {

    /** Most ended entries and tombstones a window remembers, newest kept. */
    static final int MAX_REMEMBERED = 1_000;

    /**
     * One message of a window: a captured turn ({@code event}), a message kept whole ({@code kind},
     * {@code message}), or an instruction ({@code kind}, its message in memory only).
     */
    record Entry(String fingerprint, String event, String kind, String message, boolean instruction) {

        static Entry turn(String fingerprint, String event) {
            return new Entry(fingerprint, event, null, null, false);
        }
    }

    /**
     * A conversation's window.
     *
     * @param conversation the framework's name of the conversation, as given (null before the first store)
     * @param generation   random, set when the window is first written: part of its turns' IDs, so
     *                     a window lost and started again never takes an earlier turn for its own
     * @param captured     how many turns this window has captured: the place of the next one
     * @param entries      the window, in order
     * @param ended        turns of windows ended by {@link ChatWindows#end}, recognised if handed back
     * @param tombstones   fingerprints of turns deleted while in the window (a stale list's copy of
     *                     one is not captured again)
     */
    record Window(String conversation, String generation, long captured, List<Entry> entries, List<Entry> ended,
                  List<String> tombstones) {

        static final Window EMPTY = new Window(null, null, 0, List.of(), List.of(), List.of());

        Window {
            entries = List.copyOf(entries);
            ended = List.copyOf(newest(ended));
            tombstones = List.copyOf(newest(tombstones));
        }
    }

    /** Most windows whose instructions this JVM keeps; the least recently used give theirs up first. */
    static final int MAX_INSTRUCTED = 10_000;

    /**
     * The instructions of the windows this JVM wrote lately: window file, then fingerprint, to
     * message. A window whose instructions were given up reads without them until the framework hands
     * them in again, which it does with every call.
     */
    private static final Map<Path, Map<String, String>> INSTRUCTIONS = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Path, Map<String, String>> eldest) {
                    return size() > MAX_INSTRUCTED;
                }
            });
    private static final Map<Path, ReentrantLock> IN_THIS_JVM = new ConcurrentHashMap<>();
    private static final FileAttribute<?> OWNER_ONLY_DIR = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------"));
    private static final FileAttribute<?> OWNER_ONLY_FILE = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rw-------"));

    private final Path dir;
    private final Scope scope;

    WindowFiles(Path dir, Scope scope) {
        this.dir = dir;
        this.scope = scope;
    }

    static <T> List<T> newest(List<T> items) {
        return items.subList(Math.max(0, items.size() - MAX_REMEMBERED), items.size());
    }

    /** The file of a session's window in this scope. */
    Path file(String session) {
        return dir.resolve(ChatWindows.hash(scope.personaId() + '\u0000' + scope.projectId() + '\u0000' + session) + ".json");
    }

    /** Runs {@code work} holding this folder's lock, in this JVM and across processes. */
    <T> T locked(Supplier<T> work) {
        try {
            createOwnerOnly(dir.getParent());
            createOwnerOnly(dir);
            ReentrantLock local = IN_THIS_JVM.computeIfAbsent(dir.toRealPath(), k -> new ReentrantLock());
            local.lock();
            try (FileChannel channel = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock held = channel.lock()) {
                return work.get();
            } finally {
                local.unlock();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("locking the chat windows", e);
        }
    }

    private static void createOwnerOnly(Path folder) throws IOException {
        if (Files.isDirectory(folder)) {
            return;
        }
        try {
            if (posix(folder.getParent())) {
                Files.createDirectory(folder, OWNER_ONLY_DIR);
            } else {
                Files.createDirectories(folder);
            }
        } catch (FileAlreadyExistsException raced) {
            // another thread or process made it first
        }
    }

    private static boolean posix(Path anywhere) {
        return anywhere != null && anywhere.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    /** The window as last written; empty when there is none. */
    Window load(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException none) {
            return Window.EMPTY;
        } catch (IOException e) {
            throw new UncheckedIOException("reading a chat window", e);
        }
        JsonNode root = Output.mapper().readTree(bytes);
        List<String> tombstones = new ArrayList<>();
        for (JsonNode t : root.path("tombstones")) {
            tombstones.add(t.asString());
        }
        return new Window(text(root, "conversation"), text(root, "generation"), root.get("captured").asLong(),
                entries(file, root.get("entries")), entries(file, root.get("ended")), tombstones);
    }

    /** How many instructions this JVM holds for a window (for tests: one per instruction the window holds). */
    static int instructionsHeld(Path file) {
        Map<String, String> held = INSTRUCTIONS.get(file);
        return held == null ? 0 : held.size();
    }

    /** An instruction's message, as this JVM last saw it; null when it has not. */
    static String instruction(Path file, Entry e) {
        Map<String, String> known = INSTRUCTIONS.get(file);
        return known == null ? null : known.get(e.fingerprint());
    }

    private static List<Entry> entries(Path file, JsonNode array) {
        List<Entry> out = new ArrayList<>(array.size());
        for (JsonNode e : array) {
            String fp = e.get("fp").asString();
            if (e.has("event")) {
                out.add(Entry.turn(fp, e.get("event").asString()));
            } else if (e.path("instruction").asBoolean(false)) {
                out.add(new Entry(fp, null, e.get("kind").asString(), null, true));
            } else {
                out.add(new Entry(fp, null, e.get("kind").asString(), e.get("message").asString(), false));
            }
        }
        return out;
    }

    private static String text(JsonNode object, String field) {
        JsonNode v = object.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    /** Replaces the window's file by a synced copy renamed over it; the copy is gone either way. */
    void save(Path file, Window window, Map<String, String> instructions) {
        // Keep the instructions this window holds now, and no other (a pack replaced every call must not pile up).
        Map<String, String> held = new java.util.HashMap<>();
        Map<String, String> before = INSTRUCTIONS.get(file);
        for (Entry e : window.entries()) {
            if (e.instruction()) {
                String message = instructions.containsKey(e.fingerprint()) ? instructions.get(e.fingerprint())
                        : before == null ? null : before.get(e.fingerprint());
                if (message != null) {
                    held.put(e.fingerprint(), message);
                }
            }
        }
        if (held.isEmpty()) {
            INSTRUCTIONS.remove(file);
        } else {
            INSTRUCTIONS.put(file, held);
        }
        ObjectNode root = Output.mapper().createObjectNode();
        root.put("format", 1);
        root.put("persona", scope.personaId());
        root.put("project", scope.projectId());
        if (window.conversation() != null) {
            root.put("conversation", window.conversation());
        }
        root.put("generation", window.generation());
        root.put("captured", window.captured());
        write(root.putArray("entries"), window.entries());
        write(root.putArray("ended"), window.ended());
        ArrayNode tombstones = root.putArray("tombstones");
        window.tombstones().forEach(tombstones::add);
        Path copy = copyOf(file);
        try {
            Files.deleteIfExists(copy);
            try (FileChannel out = posix(copy.getParent())
                    ? FileChannel.open(copy, java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), OWNER_ONLY_FILE)
                    : FileChannel.open(copy, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
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
            syncFolder(file.getParent());
        } catch (IOException e) {
            try {
                Files.deleteIfExists(copy);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw new UncheckedIOException("writing a chat window", e);
        }
    }

    /** Syncs a folder, so that a rename in it survives a power loss (where the platform can: not on Windows). */
    private static void syncFolder(Path folder) {
        try (FileChannel dir = FileChannel.open(folder, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException | UnsupportedOperationException notPossibleHere) {
            // where a folder cannot be synced, a power loss may lose the newest window; its turns stay
        }
    }

    /** Removes a window: its file, a copy a failed write left, and its instructions in memory. */
    void remove(Path file) {
        INSTRUCTIONS.remove(file);
        try {
            Files.deleteIfExists(copyOf(file));
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("removing a chat window", e);
        }
    }

    private static Path copyOf(Path file) {
        return file.resolveSibling(file.getFileName() + ".tmp");
    }

    private static void write(ArrayNode into, List<Entry> entries) {
        for (Entry e : entries) {
            ObjectNode o = into.addObject();
            o.put("fp", e.fingerprint());
            if (e.event() != null) {
                o.put("event", e.event());
            } else if (e.instruction()) {
                o.put("kind", e.kind());
                o.put("instruction", true);
            } else {
                o.put("kind", e.kind());
                o.put("message", e.message());
            }
        }
    }

    /** The names of this scope's conversations whose windows hold messages. */
    List<String> conversations() {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList()) {
                JsonNode root = Output.mapper().readTree(Files.readAllBytes(f));
                if (root.has("conversation") && !root.get("entries").isEmpty()
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
    }
}
