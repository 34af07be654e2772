package dev.jiyi.authority.archive;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.PhaseProgress;
import dev.jiyi.authority.RefusedException;
import dev.jiyi.authority.Role;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.dbFile;
import static dev.jiyi.authority.AuthorityTestKit.dump;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.open;
import static dev.jiyi.authority.AuthorityTestKit.strings;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** O5: backups through SQLite's online backup API, consistent while another process writes, never overwriting. */
class BackupTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("O5 a backup holds every authoritative row as it was, Chinese and English, in one self-contained file doctor accepts")
    void backupIsACompleteCopy() throws Exception {
        Path target = dir.resolve("copies").resolve("jiyi-backup.db");
        Files.createDirectories(target.getParent());
        Backup made;
        try (Authority a = open(dir)) {
            Event city = submit(a, event("ev-city", ALICE_WORK, Role.USER, "我住在广州 I live in Guangzhou"));
            a.addMemory(ALICE_WORK, userFact(city, "住在广州 lives in Guangzhou").quote("我住在广州").build());
            Event cat = submit(a, event("ev-cat", CJK_SCOPE, Role.USER, "我养了一只猫 a cat named 花花"));
            a.addMemory(CJK_SCOPE, userFact(cat, "养了一只猫").quote("我养了一只猫").build());
            made = a.archives().backup(target);
        }
        assertThat(made.file()).isEqualTo(target.toAbsolutePath());
        assertThat(made.bytes()).isEqualTo(Files.size(target)).isPositive();
        assertThat(made.tableCounts().byName()).containsEntry("events", 2L).containsEntry("memories", 2L);
        assertThat(target.resolveSibling("jiyi-backup.db-wal")).doesNotExist();

        Map<String, List<String>> original = dump(dbFile(dir));
        Map<String, List<String>> copy = dump(target);
        assertThat(copy).isEqualTo(original);
        try (Authority b = Authority.open(target, List.of())) {
            assertThat(b.doctor().problems()).isEmpty();
            assertThat(b.doctor().tableCounts().byName()).containsEntry("events", 2L);
        }
    }

    @Test
    @DisplayName("O5 a backup never overwrites: an existing target (even empty) is refused and left as it was; a missing directory is refused")
    void neverOverwrites() throws Exception {
        Path existing = dir.resolve("taken.db");
        Files.writeString(existing, "not a database 不是数据库", StandardCharsets.UTF_8);
        Path empty = Files.createFile(dir.resolve("empty.db"));
        try (Authority a = open(dir.resolve("home"))) {
            submit(a, event("ev-1", ALICE_WORK, Role.USER, "hello 你好"));
            assertThatThrownBy(() -> a.archives().backup(existing)).isInstanceOf(RefusedException.class)
                    .hasMessageContaining("never overwrites").hasMessageNotContaining("taken.db");
            assertThatThrownBy(() -> a.archives().backup(empty)).isInstanceOf(RefusedException.class);
            assertThatThrownBy(() -> a.archives().backup(dir.resolve("no-such-dir").resolve("b.db")))
                    .isInstanceOf(RefusedException.class).hasMessageContaining("directory must exist");
            // The authority is untouched and still writes.
            submit(a, event("ev-2", ALICE_WORK, Role.USER, "still here 还在"));
        }
        assertThat(Files.readString(existing, StandardCharsets.UTF_8)).isEqualTo("not a database 不是数据库");
        assertThat(Files.size(empty)).isZero();
        assertThat(dir.resolve("no-such-dir")).doesNotExist();
    }

    @Test
    @DisplayName("O5 a backup taken while another process submits events is consistent, holds every event acknowledged before it began, does not stop the writer, and restores")
    void backupWhileAnotherProcessWrites() throws Exception {
        Path db = dbFile(dir);
        try (Authority a = open(dir)) {
            submit(a, event("ev-0", ALICE_WORK, Role.USER, "开始 start"));
        }
        Path acks = dir.resolve("acks.txt");
        Path stop = dir.resolve("stop");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                BackupWriterChild.class.getName(), db.toString(), acks.toString(), stop.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
        try {
            waitForAcks(acks, 20);
            List<Path> backups = new ArrayList<>();
            List<Set<String>> acknowledgedBefore = new ArrayList<>();
            try (Authority a = open(dir)) {
                for (int i = 0; i < 3; i++) {
                    acknowledgedBefore.add(new HashSet<>(Files.readAllLines(acks, StandardCharsets.UTF_8)));
                    Path target = dir.resolve("backup-" + i + ".db");
                    a.archives().backup(target);
                    backups.add(target);
                    waitForAcks(acks, acknowledgedBefore.get(i).size() + 10);
                }
            }
            int acknowledged = Files.readAllLines(acks, StandardCharsets.UTF_8).size();
            assertThat(acknowledged).as("the writer kept committing during the backups")
                    .isGreaterThan(acknowledgedBefore.getLast().size());
            for (int i = 0; i < backups.size(); i++) {
                Set<String> inBackup = new HashSet<>(strings(backups.get(i), "SELECT id FROM events"));
                assertThat(inBackup).as("backup " + i).containsAll(acknowledgedBefore.get(i)).contains("ev-0");
                byte[] bytes = Files.readAllBytes(backups.get(i));
                try (Authority r = Authority.open(dir.resolve("restored-" + i + ".db"), List.of())) {
                    ArchiveReport restored = r.archives().restore(backups.get(i), PhaseProgress.NONE);
                    assertThat(restored.rows().byName().get("events")).isEqualTo(inBackup.size());
                    assertThat(r.doctor().problems()).as("doctor after restoring backup " + i).isEmpty();
                }
                assertThat(strings(dir.resolve("restored-" + i + ".db"), "SELECT id FROM events"))
                        .as("restore of backup " + i).containsAll(acknowledgedBefore.get(i));
                assertThat(Files.readAllBytes(backups.get(i))).as("a restore leaves its backup as it was").isEqualTo(bytes);
                try (Authority b = Authority.open(backups.get(i), List.of())) {
                    assertThat(b.doctor().problems()).as("doctor on backup " + i).isEmpty();
                }
            }
        } finally {
            Files.createFile(stop);
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(child.exitValue()).as(Files.readString(dir.resolve("child.log"))).isZero();
    }

    private static void waitForAcks(Path acks, int atLeast) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(acks) || Files.readAllLines(acks, StandardCharsets.UTF_8).size() < atLeast) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the writer acknowledged fewer than " + atLeast + " events in 60 s");
            }
            Thread.sleep(20);
        }
    }
}
