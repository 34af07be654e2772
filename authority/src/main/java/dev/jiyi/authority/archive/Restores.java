package dev.jiyi.authority.archive;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.PhaseProgress;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.StorageException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Restore (O5): a backup file back into an empty database, through exactly the checks of an
 * import. The backup is never opened in place (opening migrates, and a restore must not change
 * it): a copy in a scratch directory beside the destination is checked by SQLite ({@code
 * integrity_check}), opened and migrated, exported as an archive, and that archive imported. The
 * scratch directory is removed when the restore ends, and one that a killed restore left behind is
 * removed by the next. Vectors are not carried (an archive holds none): {@code reindex --vectors}
 * computes them again.
 */
public final class Restores {

    private Restores() {
    }

    /** Restores {@code backup} into {@code into}, whose database {@code destination} reaches. */
    public static ArchiveReport restore(Path backup, Sql destination, Archives into, PhaseProgress progress) {
        if (!Files.isRegularFile(backup)) {
            throw new InvalidInputException("file", "must be an existing backup file");
        }
        Path scratch;
        try (Statement s = destination.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT file FROM pragma_database_list WHERE name = 'main'")) {
            ArchiveImport.requireEmpty(destination); // before any copying: checked again inside the import
            rs.next();
            Path home = Path.of(rs.getString(1)).toAbsolutePath().getParent();
            sweep(home);
            scratch = Files.createTempDirectory(home, ".restore-");
        } catch (SQLException e) {
            throw new StorageException("locating the database", e);
        } catch (IOException e) {
            throw new StorageException("creating the restore's scratch directory", e);
        }
        try {
            Path copy = scratch.resolve("backup.db");
            Files.copy(backup, copy);
            Path wal = backup.resolveSibling(backup.getFileName() + "-wal");
            if (Files.exists(wal)) { // a database copied while in WAL mode: its log is part of it
                Files.copy(wal, scratch.resolve("backup.db-wal"));
            }
            check(copy);
            Path archive = scratch.resolve("backup.jsonl");
            try (Authority source = Authority.open(copy, List.of())) {
                progress.begin("restore: reading the backup", 0);
                source.archives().export(archive, ArchiveFormat.JSONL, null, progress);
            }
            try (InputStream in = Files.newInputStream(archive)) {
                return into.importFrom(in, progress);
            }
        } catch (IOException e) {
            throw new StorageException("copying the backup", e);
        } finally {
            deleteTree(scratch);
        }
    }

    /** A sound SQLite file holding a jiyi database, or a clear refusal. */
    private static void check(Path copy) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + copy); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
                if (!rs.next() || !"ok".equals(rs.getString(1))) {
                    throw new InvalidInputException("file", "must be a sound SQLite database: its integrity check failed");
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'")) {
                if (!rs.next()) {
                    throw new InvalidInputException("file", "must be a jiyi database: it has no events table");
                }
            }
        } catch (SQLException e) {
            throw new InvalidInputException("file", "must be a SQLite database made by jiyi backup");
        }
    }

    /** Removes what an earlier restore, killed before it could, left behind (a copy of a whole backup). */
    private static void sweep(Path home) throws IOException {
        try (Stream<Path> left = Files.list(home)) {
            for (Path p : left.filter(p -> p.getFileName().toString().startsWith(".restore-")).toList()) {
                deleteTree(p);
            }
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException ignored) {
            // best effort: a scratch copy left behind is reported by nothing, harmed by nothing
        }
    }
}
