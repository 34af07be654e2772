package dev.jiyi.lucene;

import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.LockObtainFailedException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.channels.FileChannel;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * The Lucene index's folder ({@code $JIYI_HOME/lucene}): index directories {@code index-*} and a
 * pointer file {@code current} naming the one in use. A rebuild writes a fresh directory and then
 * replaces the pointer by an atomic rename, so a reader sees the old index or the new one, never a
 * half-built one; a process that has the old one open notices the pointer change and reopens.
 */
final class IndexHome {

    private static final String POINTER = "current";
    private static final String PREFIX = "index-";

    private final Path root;

    IndexHome(Path root) {
        this.root = root;
    }

    Path root() {
        return root;
    }

    /** The directory the pointer names, if there is a pointer and it names one that exists. */
    Optional<Path> current() throws IOException {
        Optional<String> name = pointer();
        if (name.isEmpty()) {
            return Optional.empty();
        }
        Path dir = root.resolve(name.get());
        return Files.isDirectory(dir) ? Optional.of(dir) : Optional.empty();
    }

    /** The name the pointer holds now (empty when there is no pointer). */
    Optional<String> pointer() throws IOException {
        try {
            String name = Files.readString(root.resolve(POINTER), StandardCharsets.UTF_8).strip();
            // Only a name this class wrote: a hand-edited pointer cannot lead outside the folder.
            return name.startsWith(PREFIX) && name.indexOf('/') < 0 && name.indexOf('\\') < 0
                    && !name.contains("..") ? Optional.of(name) : Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** A new, empty index directory that no pointer names yet. */
    Path fresh() throws IOException {
        Files.createDirectories(root);
        String suffix = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        Path dir = root.resolve(PREFIX + System.currentTimeMillis() + "-" + suffix);
        Files.createDirectory(dir);
        return dir;
    }

    /**
     * Points at {@code dir}: the new name is written to a temporary file, forced to disk, and renamed
     * over the pointer in one step.
     */
    void swapTo(Path dir) throws IOException {
        Path tmp = root.resolve(POINTER + ".tmp-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()));
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap((dir.getFileName().toString() + "\n").getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
        }
        Files.move(tmp, root.resolve(POINTER), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel folder = FileChannel.open(root, StandardOpenOption.READ)) {
            folder.force(true); // the rename itself survives a power cut
        } catch (IOException ignored) {
            // not every file system lets a directory be opened for sync; the rename is still atomic
        }
    }

    /**
     * Deletes index directories other than the current one that no process is writing (their write
     * lock can be taken), and leftover temporary pointers: what a finished rebuild or a killed one
     * leaves behind. A directory some process still writes is left for a later cleanup.
     */
    void removeStale() throws IOException {
        if (!Files.isDirectory(root)) {
            return;
        }
        String current = pointer().orElse("");
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                if (name.startsWith(POINTER + ".tmp-")) {
                    Files.deleteIfExists(p);
                } else if (name.startsWith(PREFIX) && !name.equals(current)
                        && !(young(name) && made(name) >= made(current)) && Files.isDirectory(p) && unlocked(p)) {
                    deleteTree(p);
                }
            }
        }
    }

    /**
     * Made in the last few seconds: perhaps by a rebuild in another process that has not taken its
     * write lock yet (it takes it right after making the directory). Only a directory newer than the
     * current one can be that; an older one was replaced and is removed at once, since it may hold
     * text deleted since (D1).
     */
    private static boolean young(String name) {
        return System.currentTimeMillis() - made(name) < 10_000;
    }

    /** When a directory was made, from its name ({@code index-<millis>-<random>}); 0 if unreadable. */
    private static long made(String name) {
        if (!name.startsWith(PREFIX)) {
            return 0;
        }
        int dash = name.indexOf('-', PREFIX.length());
        try {
            return Long.parseLong(name.substring(PREFIX.length(), dash < 0 ? name.length() : dash));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static boolean unlocked(Path dir) {
        try (Directory d = FSDirectory.open(dir); Lock lock = d.obtainLock("write.lock")) {
            lock.ensureValid();
            return true;
        } catch (LockObtainFailedException e) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (NoSuchFileException ignored) {
            // removed meanwhile by another process's cleanup
        }
    }
}
