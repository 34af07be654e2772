package dev.jiyi.authority.archive;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;

/**
 * A second process for {@link BackupTest}: submits events one at a time to the database in
 * {@code args[0]} until the file {@code args[2]} exists, appending each acknowledged event's ID to
 * {@code args[1]} (flushed) only after its commit returned.
 */
public final class BackupWriterChild {

    private BackupWriterChild() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        Path db = Path.of(args[0]);
        Path acks = Path.of(args[1]);
        Path stop = Path.of(args[2]);
        Scope scope = new Scope("alice", "work");
        try (Authority a = Authority.open(db, List.of());
             Writer w = Files.newBufferedWriter(acks, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                     StandardOpenOption.APPEND)) {
            for (int i = 0; !Files.exists(stop); i++) {
                String id = "child-" + i;
                String text = (i % 2 == 0 ? "第" + i + "条消息：明天开会" : "message " + i + ": meeting tomorrow 开会");
                a.submitEvent(new EventSubmission(id, scope, Role.USER, text, "test", null, "s-child",
                        Instant.parse("2024-05-01T00:00:00Z").plusSeconds(i)));
                w.write(id + "\n");
                w.flush();
            }
        }
    }
}
