package dev.jiyi.authority.archive;

import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.RefusedException;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.internal.Doctor;

import org.sqlite.SQLiteConnection;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Backups (O5): a copy of the whole database made through SQLite's online backup API, never a copy
 * of the main file without its write-ahead log. The copy is taken in one step, inside one read
 * transaction of the source, so it is the database as it was when the backup began: every commit
 * acknowledged before then is in it, none made after. In WAL mode a reader never blocks a writer,
 * so other processes keep writing while it runs (a stepwise backup would restart at every write of
 * another process and might never finish).
 *
 * <p>The target is created exclusively before anything is written, so an existing file, even one
 * made by a racing process, is never overwritten; a backup that fails removes what it wrote.
 */
public final class Backups {

    private Backups() {
    }

    public static Backup backup(Connection source, Path target) {
        Path file = target.toAbsolutePath();
        createNew(file, "backup");
        boolean done = false;
        try {
            SQLiteConnection sqlite = source.unwrap(SQLiteConnection.class);
            // One step of all pages (-1): one read transaction, so one consistent snapshot.
            int rc = sqlite.getDatabase().backup("main", file.toString(), (remaining, total) -> { }, 100, 300, -1);
            if (rc != 0) { // SQLITE_OK; the API reports a failure (full disk, I/O error, busy) only here
                throw new StorageException("backing up the database", new SQLException("SQLite result code " + rc));
            }
            TableCounts counts;
            try (Connection copy = DriverManager.getConnection("jdbc:sqlite:" + file);
                 Statement s = copy.createStatement()) {
                // A self-contained file: no write-ahead log beside it for a mover to forget.
                try (ResultSet mode = s.executeQuery("PRAGMA journal_mode = DELETE")) {
                    if (!mode.next() || !"delete".equalsIgnoreCase(mode.getString(1))) {
                        throw new StorageException("backing up the database",
                                new SQLException("the copy kept its write-ahead log"));
                    }
                }
                counts = Doctor.counts(copy);
            }
            done = true;
            return new Backup(file, Files.size(file), counts);
        } catch (SQLException e) {
            throw new StorageException("backing up the database", e);
        } catch (IOException e) {
            throw new StorageException("reading the size of the backup", e);
        } finally {
            if (!done) {
                deleteQuietly(file);
            }
        }
    }

    /**
     * Creates the empty target of a backup or an export (0600 where POSIX: it holds the whole
     * archive), refusing one that exists, even one a racing process made a moment ago.
     */
    static void createNew(Path file, String what) {
        try {
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                Files.createFile(file);
            }
        } catch (FileAlreadyExistsException e) {
            throw new RefusedException("the " + what + " target exists; a " + what + " never overwrites a file");
        } catch (IOException e) {
            throw new RefusedException("cannot create the " + what + " target (" + e.getClass().getSimpleName()
                    + "): its directory must exist and be writable");
        }
    }

    /** Removes a file that failed to become a backup or an archive, with any journal beside it. */
    static void deleteQuietly(Path file) {
        for (String suffix : new String[] {"", "-journal", "-wal", "-shm"}) {
            try {
                Files.deleteIfExists(file.resolveSibling(file.getFileName() + suffix));
            } catch (IOException ignored) {
                // best effort: the error that made the backup fail is the one to report
            }
        }
    }
}
