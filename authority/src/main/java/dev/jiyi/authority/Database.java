package dev.jiyi.authority;

import org.sqlite.SQLiteConfig;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Opening the database is one procedure (O1, O2): create the file private to its owner, configure
 * the connection (foreign keys, busy timeout, full sync), refuse a newer schema before changing
 * anything, switch to WAL, and, when the schema is older than this build's, take the write lock,
 * read {@code user_version} again, apply the missing migrations in order and set the version, all
 * in one transaction. An up-to-date database is opened without taking the write lock.
 */
public final class Database {

    /** The schema version this build writes. */
    public static final int SCHEMA_VERSION = 12;

    /**
     * How much of the database file reads may map into memory: all of any archive (a map costs
     * address space, not memory). Pages past the map are read with a system call each, which at a
     * million memories (1.8 GB) was a quarter of loading a recall's candidate rows.
     */
    static final long MMAP_BYTES = 1L << 38;

    /** How long a writer waits for another process's write lock. */
    public static final int BUSY_TIMEOUT_MS = 30_000;

    private static final List<String> MIGRATIONS = List.of(
            "migrations/V1__base.sql",
            "migrations/V2__gists_cues_lookups.sql",
            "migrations/V3__capture_cursors.sql",
            "migrations/V4__fts5_secure_delete.sql",
            "migrations/V5__extractions.sql",
            "migrations/V6__change_log_vectors.sql",
            "migrations/V7__emotion_index.sql",
            "migrations/V8__turn_context.sql",
            "migrations/V9__context_at_recall.sql",
            "migrations/V10__fts5_scope_column.sql",
            "migrations/V11__index_builds.sql",
            "migrations/V12__capture_cursor_time.sql");

    private Database() {
    }

    /** Work run inside the migration transaction, after the migrations and before the commit. */
    @FunctionalInterface
    public interface AfterMigration {
        void run(Connection c) throws SQLException;
    }

    /** Opens (creating if needed) and migrates the database at {@code file}. */
    public static Connection open(Path file) {
        return open(file, c -> { });
    }

    /**
     * Opens (creating if needed) and migrates the database at {@code file}; when migrations run,
     * {@code afterMigration} runs in their transaction, so other processes see the migrated schema
     * only together with what it did (the authority refills derived indexes there).
     */
    public static Connection open(Path file, AfterMigration afterMigration) {
        prepareFile(file);
        Connection connection;
        try {
            connection = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath(), config().toProperties());
        } catch (SQLException e) {
            throw new StorageException("opening the database", e);
        }
        try {
            // Refuse a newer schema before anything can change the file (even the journal mode).
            int version = userVersion(connection);
            if (version > SCHEMA_VERSION) {
                throw newer(version);
            }
            try (Statement s = connection.createStatement()) {
                s.execute("PRAGMA journal_mode = WAL");
            }
            if (version < SCHEMA_VERSION) {
                migrate(connection, afterMigration);
            }
            return connection;
        } catch (SQLException e) {
            closeQuietly(connection, new RuntimeException(e));
            throw new StorageException("opening the database", e);
        } catch (RuntimeException e) {
            closeQuietly(connection, e);
            throw e;
        }
    }

    static SQLiteConfig config() {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(BUSY_TIMEOUT_MS);
        config.enforceForeignKeys(true);
        // FULL: an acknowledged commit survives power loss too, not only a killed process.
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        // Freed cells and pages are overwritten with zeros: a row that a later write rewrites (a
        // revoked memory, a closed interval, a merged FTS5 segment) leaves no stale copy behind for a
        // permanent deletion to miss.
        config.setPragma(SQLiteConfig.Pragma.SECURE_DELETE, "true");
        // Reads through a memory map rather than a read() per page: a deep vector scan of 100,000
        // memories takes 175 ms instead of 637 ms. SQLite writes stay write()s.
        config.setPragma(SQLiteConfig.Pragma.MMAP_SIZE, String.valueOf(MMAP_BYTES));
        // The driver would otherwise compile and run a query for the generated key after every
        // INSERT, which no caller reads (Sql.insert asks SQLite once, with a kept statement): 5 % of a
        // batch import's time at 1,000,000 events.
        config.setGetGeneratedKeys(false);
        return config;
    }

    /** Data directory 0700 and database file 0600 where the file system supports POSIX modes (O7). */
    private static void prepareFile(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        try {
            if (!Files.isDirectory(dir)) {
                if (posix) {
                    Files.createDirectories(dir,
                            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectories(dir);
                }
            }
            if (!Files.exists(file)) {
                try {
                    if (posix) {
                        Files.createFile(file,
                                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                    } else {
                        Files.createFile(file);
                    }
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another process created it first: fine
                }
            }
        } catch (IOException e) {
            throw new RefusedException("cannot create the database file or its directory: " + e.getClass().getSimpleName());
        }
    }

    private static void migrate(Connection c, AfterMigration afterMigration) {
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            try {
                int version = userVersion(c);
                if (version > SCHEMA_VERSION) {
                    throw newer(version);
                }
                for (int next = version + 1; next <= SCHEMA_VERSION; next++) {
                    for (String sql : statements(MIGRATIONS.get(next - 1))) {
                        s.execute(sql);
                    }
                    s.execute("PRAGMA user_version = " + next);
                }
                if (version < SCHEMA_VERSION) {
                    afterMigration.run(c);
                }
                s.execute("COMMIT");
            } catch (RuntimeException | SQLException e) {
                s.execute("ROLLBACK");
                throw e;
            }
        } catch (SQLException e) {
            throw new StorageException("migrating the schema", e);
        }
    }

    private static RefusedException newer(int version) {
        return new RefusedException("database schema version " + version + " is newer than this jiyi supports ("
                + SCHEMA_VERSION + "); upgrade jiyi, the file was not changed");
    }

    public static int userVersion(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA user_version")) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    /**
     * The statements of migration {@code version} (1 to {@link #SCHEMA_VERSION}) as this build applies
     * them, for tests and tools that make a database of an earlier version the way that version did.
     */
    public static List<String> migrationStatements(int version) {
        if (version < 1 || version > SCHEMA_VERSION) {
            throw new IllegalArgumentException("version: must be 1 to " + SCHEMA_VERSION);
        }
        return statements(MIGRATIONS.get(version - 1));
    }

    /** Splits a migration resource into statements: on semicolons at line ends, comments dropped. */
    static List<String> statements(String resource) {
        String sql;
        try (InputStream in = Database.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing migration resource " + resource);
            }
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read migration resource " + resource, e);
        }
        StringBuilder current = new StringBuilder();
        java.util.ArrayList<String> out = new java.util.ArrayList<>();
        for (String line : sql.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("--") || trimmed.isEmpty()) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                out.add(current.toString().strip());
                current.setLength(0);
            }
        }
        if (!current.isEmpty()) {
            out.add(current.toString().strip());
        }
        return out;
    }

    private static void closeQuietly(Connection c, RuntimeException primary) {
        try {
            c.close();
        } catch (SQLException e) {
            primary.addSuppressed(e);
        }
    }
}
