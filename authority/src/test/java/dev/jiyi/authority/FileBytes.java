package dev.jiyi.authority;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /** Every file under {@code dir}, at any depth, whose bytes contain {@code text} in UTF-8, relative to it. */
    public static List<String> filesContaining(Path dir, String text) throws IOException {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                if (contains(Files.readAllBytes(f), needle)) {
                    found.add(dir.relativize(f).toString());
                }
            }
        }
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
