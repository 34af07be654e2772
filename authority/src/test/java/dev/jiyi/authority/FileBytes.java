package dev.jiyi.authority;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Byte-level residue checks for deletion tests: is a text anywhere in a blob or a database file? */
public final class FileBytes {

    private FileBytes() {
    }

    /** True when {@code needle} occurs in {@code haystack}. */
    public static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * Every file under {@code dir}, at any depth, whose bytes contain {@code text} in UTF-8, relative
     * to it, sorted. The directory may be live (a Lucene writer, an OpenSearch node): a file or
     * directory removed while the scan walks holds nothing any more and is passed over.
     */
    public static List<String> filesContaining(Path dir, String text) throws IOException {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        List<String> found = new ArrayList<>();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attributes) throws IOException {
                if (attributes.isRegularFile()) {
                    try {
                        if (contains(Files.readAllBytes(f), needle)) {
                            found.add(dir.relativize(f).toString());
                        }
                    } catch (NoSuchFileException removed) {
                        // gone since it was listed
                    }
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                return passOver(e);
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                return e == null ? FileVisitResult.CONTINUE : passOver(e);
            }

            private FileVisitResult passOver(IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
        found.sort(null);
        return found;
    }

    /**
     * The database files in {@code dir} ({@code jiyi.db} and its {@code -wal}, {@code -shm}) whose
     * bytes contain {@code text} in UTF-8, by file name.
     */
    public static List<String> databaseFilesContaining(Path dir, String text) throws IOException {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("jiyi.db")).sorted().toList()) {
                if (contains(Files.readAllBytes(f), needle)) {
                    found.add(f.getFileName().toString());
                }
            }
        }
        return found;
    }
}
