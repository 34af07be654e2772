package dev.jiyi.bench;

import dev.jiyi.engine.Home;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A jiyi home in a new temporary directory, deleted with everything in it on {@link #close}.
 * Benchmarks write to real SQLite files on the real file system, never to memory.
 */
public final class ScratchHome implements AutoCloseable {

    private final Path dir;

    private ScratchHome(Path dir) {
        this.dir = dir;
    }

    /** A new empty directory under {@code java.io.tmpdir}, named {@code jiyi-bench-PURPOSE-...}. */
    public static ScratchHome create(String purpose) {
        try {
            return new ScratchHome(Files.createTempDirectory("jiyi-bench-" + purpose + "-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a scratch directory for " + purpose, e);
        }
    }

    public Path dir() {
        return dir;
    }

    public Home home() {
        return new Home(dir);
    }

    /** Bytes of the database file plus its write-ahead log, if any. */
    public long databaseBytes() {
        Path db = home().database();
        return size(db) + size(db.resolveSibling(db.getFileName() + "-wal"));
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the size of " + file, e);
        }
    }

    @Override
    public void close() {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the scratch directory " + dir, e);
        }
    }
}
