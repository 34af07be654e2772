package dev.jiyi.fts5;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

/**
 * A second process for {@link ChunkedBuildTest}. {@code build DB}: opens the database with the FTS5
 * index attached (finishing any build it finds) and exits. {@code write DB READY STOP LOG FIRST
 * LAST}: opens it, says it is ready, then until told to stop submits new events and deletes the old
 * events FIRST..LAST from the top down, logging each write with how long it took and whether an
 * index build was in progress when it committed.
 */
public final class BuildChild {

    private BuildChild() {
    }

    public static void main(String[] args) throws Exception {
        Path db = Path.of(args[1]);
        Scope scope = ChunkedBuildTest.SCOPE;
        try (Authority a = Authority.open(db, List.of(new Fts5Index()))) {
            if (args[0].equals("build")) {
                return;
            }
            Path ready = Path.of(args[2]);
            Path stop = Path.of(args[3]);
            int first = Integer.parseInt(args[5]);
            int next = Integer.parseInt(args[6]);
            try (PrintWriter log = new PrintWriter(Files.newBufferedWriter(Path.of(args[4]), StandardCharsets.UTF_8,
                         StandardOpenOption.CREATE, StandardOpenOption.APPEND), true);
                 Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
                Files.createFile(ready);
                for (int n = 0; !Files.exists(stop); n++) {
                    long t = System.nanoTime();
                    String what;
                    if (n % 2 == 0) {
                        String id = "new-" + n;
                        a.submitEvent(new EventSubmission(id, scope, Role.USER, ChunkedBuildTest.text("new" + n), null, null,
                                "s", Instant.parse("2024-06-01T00:00:00Z")));
                        what = "added " + id;
                    } else if (next >= first) {
                        Deletion d = a.deleteEvent(scope, "e" + next);
                        what = "deleted e" + next + " " + d.memoryIds().size();
                        next--;
                    } else {
                        continue;
                    }
                    long millis = (System.nanoTime() - t) / 1_000_000;
                    log.println(what + " " + millis + " " + building(c));
                    Thread.sleep(2);
                }
            }
        }
    }

    private static boolean building(Connection c) throws Exception {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM index_state WHERE events_target IS NOT NULL")) {
            return rs.next() && rs.getLong(1) > 0;
        }
    }
}
