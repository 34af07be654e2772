package dev.jiyi.fts5;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Index builds in steps (O2, migration 11): a rebuild at open (a stale version, a migration that
 * replaced the tables) feeds the index in short transactions that other processes write between,
 * instead of one transaction that kept them waiting past their busy timeout; a writer that deletes
 * rows the build has not reached leaves the index sound; a build killed halfway goes on at the
 * next open; the result equals a rebuild in one transaction.
 */
class ChunkedBuildTest {

    static final Scope SCOPE = new Scope("小明", "日记");
    private static final int EVENTS = 1_200;

    @TempDir
    Path dir;

    @AfterEach
    void clearStep() {
        System.clearProperty("jiyi.index.build.step");
    }

    /** A text with a token of its own, in Chinese and English. */
    static String text(String token) {
        return "今天去西湖散步 walked by the lake, 记号 " + token + " marker";
    }

    private Path db() {
        return dir.resolve("jiyi.db");
    }

    /** EVENTS events, a memory of every other one, each findable by its own token. */
    private void fill() {
        try (Authority a = Authority.open(db(), List.of(new Fts5Index()))) {
            List<EventSubmission> batch = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                batch.add(new EventSubmission("e" + i, SCOPE, Role.USER, text("tok" + i), null, null, "s",
                        Instant.parse("2024-05-01T02:00:00Z").plusSeconds(i)));
            }
            a.submitEvents(batch);
            for (int i = 0; i < EVENTS; i += 2) {
                a.addMemory(SCOPE, MemoryDraft.builder("e" + i).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                        .text("记忆 memory mtok" + i).quote("tok" + i).build());
            }
        }
    }

    private static List<Candidate> events(Authority a, Fts5Index index, String token) {
        return a.read(s -> s.eventCandidates(index, token, SCOPE, 10));
    }

    private static List<Candidate> memories(Authority a, Fts5Index index, String token) {
        return a.read(s -> s.memoryCandidates(index, token, Eligibility.anyTime(SCOPE), 10));
    }

    private Process child(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
    }

    private static String buildState(Path db) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT events_built, events_target, memories_built, memories_target "
                     + "FROM index_state WHERE name = 'fts5'")) {
            return rs.next() ? rs.getString(1) + "/" + rs.getString(2) + "/" + rs.getString(3) + "/" + rs.getString(4) : "none";
        }
    }

    /**
     * What a migration that replaces the FTS5 tables does, in one transaction: the index emptied and
     * a build recorded up to the largest keys, under the version a build in progress is stored with.
     * A process already open (the writer) then sees a build in progress, not another version.
     */
    private void beginBuildAsAMigrationDoes(Fts5Index index) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement s = c.createStatement()) {
            s.execute("PRAGMA busy_timeout = 30000");
            s.execute("BEGIN IMMEDIATE");
            s.execute("INSERT INTO events_fts (events_fts) VALUES ('delete-all')");
            s.execute("INSERT INTO memories_fts (memories_fts) VALUES ('delete-all')");
            s.execute("DELETE FROM fts5_scope_rows"); // the index's count of each scope's rows, emptied with it
            s.execute("UPDATE index_state SET version = '" + index.version() + "#building', events_built = 0, "
                    + "events_target = (SELECT max(sequence) FROM events), memories_built = 0, "
                    + "memories_target = (SELECT max(seq) FROM memories) WHERE name = 'fts5'");
            s.execute("COMMIT");
        }
    }

    /** FTS5's own check of both tables' structure; throws when it finds damage. */
    private static void integrityCheck(Path db) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute("INSERT INTO events_fts (events_fts) VALUES ('integrity-check')");
            s.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')");
        }
    }

    @Test
    @Timeout(120)
    @DisplayName("O2 a rebuild at open goes in steps that another process writes between (adding, and deleting rows not yet built): "
            + "its writes never wait for the whole build, the index ends complete and sound")
    void anotherProcessWritesDuringTheBuild() throws Exception {
        fill();
        Path ready = dir.resolve("ready");
        Path stop = dir.resolve("stop");
        Path log = dir.resolve("writes.log");
        // The writer deletes the newest old events first: the ones the build reaches last.
        Process writer = child(BuildChild.class.getName(), "write", db().toString(), ready.toString(), stop.toString(),
                log.toString(), String.valueOf(EVENTS - 300), String.valueOf(EVENTS - 1));
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(ready)) {
                assertThat(writer.isAlive()).as(Files.readString(dir.resolve("child.log"))).isTrue();
                assertThat(System.nanoTime() - deadline).isNegative();
                Thread.sleep(10);
            }
            Fts5Index index = new Fts5Index();
            beginBuildAsAMigrationDoes(index);
            System.setProperty("jiyi.index.build.step", "10");
            long started = System.nanoTime();
            try (Authority a = Authority.open(db(), List.of(index))) { // builds, ten rows a step
                long buildMillis = (System.nanoTime() - started) / 1_000_000;
                assertThat(buildState(db())).isEqualTo("null/null/null/null");
                Files.createFile(stop);
                assertThat(writer.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(writer.exitValue()).as(Files.readString(dir.resolve("child.log"))).isZero();

                List<String> writes = Files.readAllLines(log);
                List<String> during = writes.stream().filter(w -> w.endsWith(" true")).toList();
                assertThat(during).as("writes committed while the build was in progress (build took %d ms)", buildMillis)
                        .hasSizeGreaterThan(5);
                assertThat(during).anyMatch(w -> w.startsWith("deleted")).anyMatch(w -> w.startsWith("added"));
                long slowest = writes.stream().mapToLong(w -> Long.parseLong(w.split(" ")[w.split(" ").length - 2])).max()
                        .orElseThrow();
                assertThat(slowest).as("the slowest write, in ms (the build took %d ms)", buildMillis).isLessThan(5_000);

                List<Integer> deleted = new ArrayList<>();
                for (String w : writes) {
                    String[] parts = w.split(" ");
                    if (parts[0].equals("deleted")) {
                        deleted.add(Integer.parseInt(parts[1].substring(1)));
                    } else {
                        assertThat(events(a, index, parts[1].replace("new-", "new"))).as(parts[1]).hasSize(1);
                    }
                }
                assertThat(deleted).isNotEmpty();
                for (int i = 0; i < EVENTS; i++) {
                    boolean gone = deleted.contains(i);
                    assertThat(events(a, index, "tok" + i)).as("event " + i).hasSize(gone ? 0 : 1);
                    if (i % 2 == 0) {
                        assertThat(memories(a, index, "mtok" + i)).as("memory " + i).hasSize(gone ? 0 : 1);
                    }
                }
                assertThat(a.doctor().problems()).isEmpty();
            }
            integrityCheck(db());
        } finally {
            if (!Files.exists(stop)) {
                Files.createFile(stop);
            }
            writer.destroyForcibly().waitFor();
        }
    }

    @Test
    @Timeout(120)
    @DisplayName("O2 a build killed halfway keeps how far it came; the next open finishes it, and the index equals a rebuild in one transaction")
    void killedBuildGoesOn() throws Exception {
        fill();
        try (Authority a = Authority.open(db(), List.of(new Fts5Index()))) {
            a.markIndexStale("fts5");
        }
        Process builder = child("-Djiyi.index.build.step=2", BuildChild.class.getName(), "build", db().toString());
        String state = buildState(db());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!state.matches("[1-9][0-9]*/[0-9]+/0/[0-9]+")) { // events under way, memories not begun
            assertThat(builder.isAlive()).as("the build ended before it could be killed: " + state).isTrue();
            assertThat(System.nanoTime() - deadline).isNegative();
            Thread.sleep(5);
            state = buildState(db());
        }
        builder.destroyForcibly().waitFor();
        String halfway = buildState(db());
        long built = Long.parseLong(halfway.split("/")[0]);
        assertThat(built).as(halfway).isPositive().isLessThan(EVENTS);

        Fts5Index index = new Fts5Index();
        List<List<Candidate>> stepwise = new ArrayList<>();
        try (Authority a = Authority.open(db(), List.of(index))) { // finishes the build
            assertThat(buildState(db())).isEqualTo("null/null/null/null");
            for (int i = 0; i < EVENTS; i += 7) {
                stepwise.add(events(a, index, "tok" + i));
                stepwise.add(memories(a, index, "mtok" + i));
                stepwise.add(events(a, index, "西湖 lake tok" + i));
            }
            assertThat(a.doctor().problems()).isEmpty();
        }
        integrityCheck(db());
        try (Authority a = Authority.open(db(), List.of(index))) {
            a.rebuildIndexes(rows -> { }); // the same index, in one transaction
            List<List<Candidate>> atOnce = new ArrayList<>();
            for (int i = 0; i < EVENTS; i += 7) {
                atOnce.add(events(a, index, "tok" + i));
                atOnce.add(memories(a, index, "mtok" + i));
                atOnce.add(events(a, index, "西湖 lake tok" + i));
            }
            assertThat(stepwise).isEqualTo(atOnce);
            assertThat(stepwise.stream().filter(List::isEmpty).count()).as("odd events have no memory").isPositive();
        }
    }
}
