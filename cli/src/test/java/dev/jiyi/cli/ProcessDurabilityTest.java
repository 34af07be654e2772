package dev.jiyi.cli;

import dev.jiyi.engine.Output;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durability and concurrency across real OS processes (E5, O1, O6): separate JVMs run the real CLI
 * on one home while this JVM feeds their stdin, reads their acknowledgements as they arrive, and
 * kills them mid-stream.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProcessDurabilityTest {

    /** Longest any single wait in this class may take. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final String[] SUBMIT = {"event", "submit", "--batch", "-", "--chunk-size", "1", "--json"};

    private static final String[] OFFSETS = {"+08:00", "Z", "-05:00", "+05:30", "+00:00", "-09:30", "+14:00"};

    private static final String[] TEXTS = {
            "我在北京大学读书, and I love the library at night",
            "Let's meet at 上海虹桥站 tomorrow morning 九点",
            "今天 weather 很好, we went hiking in 香山",
            "My favourite 菜 is 麻婆豆腐 with extra 花椒",
            "记得 remind me to call 妈妈 on Sunday",
            "The meeting moved to 周三下午 because of the typhoon 台风",
            "我喜欢 jazz 和古典音乐, especially Bach",
            "Deadline: 项目报告 due Friday 18:00 CST",
    };

    @TempDir
    Path home;

    @TempDir
    Path logs;

    // ------------------------------------------------------------------ tests

    @Test
    @DisplayName("E5 O1 two OS processes submitting 500 events each at once")
    void twoProcessesSubmitAtOnce() throws Exception {
        CliRunner cli = new CliRunner(home);
        int perProcess = 500;
        List<String> linesA = eventLines("pa", perProcess);
        List<String> linesB = eventLines("pb", perProcess);

        // Both start on a fresh home at the same moment, so they also race to create and migrate it.
        try (ChildCli a = ChildCli.start(cli, logs, "A", SUBMIT); ChildCli b = ChildCli.start(cli, logs, "B", SUBMIT)) {
            // Gate: one line each, and wait until both have committed it, so that both JVMs are past
            // start-up and inside their write loops before the other 499 lines arrive at once.
            a.write(linesA.subList(0, 1));
            b.write(linesB.subList(0, 1));
            a.awaitAcks(1);
            b.awaitAcks(1);
            CompletableFuture<Void> feedA = CompletableFuture.runAsync(() -> a.writeAndClose(linesA.subList(1, perProcess)));
            CompletableFuture<Void> feedB = CompletableFuture.runAsync(() -> b.writeAndClose(linesB.subList(1, perProcess)));
            feedA.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            feedB.get(WAIT.toSeconds(), TimeUnit.SECONDS);

            assertThat(a.waitForExit()).as(a.describe()).isZero();
            assertThat(b.waitForExit()).as(b.describe()).isZero();
            assertNoLockErrors(a);
            assertNoLockErrors(b);

            Map<String, Long> sequences = sequencesById(cli);
            for (ChildCli c : List.of(a, b)) {
                List<String> lines = c == a ? linesA : linesB;
                assertAcksMatchSubmission(c, lines, sequences);
                assertThat(c.summary()).as(c.describe()).isNotNull();
                assertThat(c.summary().get("committed").asInt()).as(c.describe()).isEqualTo(perProcess);
                assertThat(c.summary().get("created").asInt()).as(c.describe()).isEqualTo(perProcess);
            }

            Set<String> expectedIds = new HashSet<>();
            linesA.forEach(l -> expectedIds.add(idOf(l)));
            linesB.forEach(l -> expectedIds.add(idOf(l)));
            assertThat(sequences.keySet()).containsExactlyInAnyOrderElementsOf(expectedIds);
            assertThat(new HashSet<>(sequences.values())).hasSize(2 * perProcess);
            assertThat(cli.rowCounts()).containsEntry("events", 2L * perProcess).containsEntry("events_fts", 2L * perProcess);
            assertThat(cli.query("SELECT count(*) FROM events_fts f JOIN events e ON e.sequence = f.rowid"))
                    .containsExactly(String.valueOf(2 * perProcess));

            // Proof that the two writers really overlapped: their sequences interleave.
            long switches = interleavings(sequences, "pa-");
            System.out.println("ProcessDurabilityTest: writer switches in sequence order = " + switches);
            assertThat(switches).as("the two processes' commits should interleave").isGreaterThanOrEqualTo(2);

            assertDoctorHealthy(cli, 2L * perProcess);
        }
    }

    @Test
    @DisplayName("E5 a killed process loses nothing it acknowledged")
    void killedProcessLosesNothingAcknowledged() throws Exception {
        long seed = Long.getLong("jiyi.test.seed", System.nanoTime());
        System.out.println("ProcessDurabilityTest: kill test seed = " + seed + " (rerun with -Djiyi.test.seed=" + seed + ")");
        Random random = new Random(seed);
        CliRunner cli = new CliRunner(home);
        List<String> lines = eventLines("k", 3_000);
        int killAt = 150 + random.nextInt(300);
        String context = "seed " + seed + ", kill after " + killAt + " acks";

        List<JsonNode> acks;
        AtomicInteger fed = new AtomicInteger();
        try (ChildCli c = ChildCli.start(cli, logs, "K", SUBMIT)) {
            AtomicBoolean stop = new AtomicBoolean();
            long feederSeed = random.nextLong();
            CompletableFuture<Void> feeder = CompletableFuture.runAsync(() -> {
                Random r = new Random(feederSeed);
                try {
                    int i = 0;
                    while (i < lines.size() && !stop.get()) {
                        int burst = 1 + r.nextInt(12);
                        for (int j = 0; j < burst && i < lines.size(); j++, i++) {
                            c.stdin.write(lines.get(i));
                            c.stdin.write('\n');
                        }
                        // Counted before the flush: an upper bound on what the child can have read.
                        fed.set(i);
                        c.stdin.flush();
                        Thread.sleep(r.nextInt(4));
                    }
                } catch (IOException e) {
                    // the child was killed: its stdin pipe is gone
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            c.awaitAcks(killAt);
            c.process.destroyForcibly();
            stop.set(true);
            assertThat(c.process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).as("killed child ended").isTrue();
            feeder.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            c.awaitStdoutClosed();
            acks = List.copyOf(c.acks);
            System.out.println("ProcessDurabilityTest: " + context + ": " + acks.size() + " acks read, "
                    + fed.get() + " lines fed, exit " + c.process.exitValue());
            assertThat(c.process.exitValue()).as("killed, not finished: " + context).isNotZero();
            assertThat(c.summary()).as("killed mid-stream, so no summary: " + context).isNull();
        }
        assertThat(acks.size()).as(context).isGreaterThanOrEqualTo(killAt).isLessThan(lines.size());

        // Reopen through the engine first (recovers the WAL of the killed writer), then look.
        CliRunner.Result doctor = cli.run("--json", "doctor");
        assertThat(doctor.code()).as(context + "\n" + doctor).isZero();
        assertThat(doctor.json().get("integrity").toString()).isEqualTo("[\"ok\"]");

        Map<String, Long> sequences = sequencesById(cli);
        for (int i = 0; i < acks.size(); i++) {
            JsonNode ack = acks.get(i);
            String id = ack.get("id").asString();
            assertThat(ack.get("line").asInt()).as(context).isEqualTo(i + 1);
            assertThat(id).as(context).isEqualTo(idOf(lines.get(i)));
            assertThat(ack.get("status").asString()).isEqualTo("created");
            assertThat(sequences.get(id)).as("acknowledged event %s (%s)", id, context).isEqualTo(ack.get("sequence").asLong());
        }
        // What committed is exactly a prefix of what was sent, in order: nothing partial, nothing skipped.
        int committed = sequences.size();
        assertThat(committed).as(context).isGreaterThanOrEqualTo(acks.size()).isLessThanOrEqualTo(fed.get());
        List<String> inOrder = cli.query("SELECT id FROM events ORDER BY sequence");
        List<String> prefix = lines.subList(0, committed).stream().map(ProcessDurabilityTest::idOf).toList();
        assertThat(inOrder).as(context).containsExactlyElementsOf(prefix);
        assertThat(cli.rowCounts()).as(context).containsEntry("events_fts", (long) committed);
        assertThat(doctor.json().get("tables").get("events").asLong()).isEqualTo(committed);

        // The database still opens and takes new work.
        CliRunner.Result after = cli.run("--json", "event", "submit", "--id", "after-kill", "--role", "user",
                "--text", "重启之后 still works", "--session", "s-after", "--occurred-at", "2025-01-02T03:04:05+09:00");
        assertThat(after.code()).as(after.toString()).isZero();
        long max = sequences.values().stream().mapToLong(Long::longValue).max().orElse(0);
        assertThat(after.json().get("event").get("sequence").asLong()).isGreaterThan(max);
        CliRunner.Result again = cli.runWithStdin(lines.get(0) + "\n" + lines.get(committed) + "\n", SUBMIT);
        assertThat(again.code()).as(again.toString()).isZero();
        List<JsonNode> againAcks = again.jsonLines();
        assertThat(againAcks.get(0).get("status").asString()).isEqualTo("existing");
        assertThat(againAcks.get(0).get("sequence").asLong()).isEqualTo(sequences.get(idOf(lines.get(0))));
        assertThat(againAcks.get(1).get("status").asString()).isEqualTo("created");
        assertDoctorHealthy(cli, committed + 2L);
    }

    @Test
    @DisplayName("O1 O6 readers in other processes run while a writer process commits, without 'database is locked'")
    void readersAndWriterAtOnce() throws Exception {
        CliRunner cli = new CliRunner(home);
        CliRunner.Result seed = cli.run("--json", "event", "submit", "--id", "r-1", "--role", "user",
                "--text", "我住在杭州西湖边, I walk there every evening", "--session", "s-r",
                "--occurred-at", "2024-05-01T20:00:00+08:00");
        assertThat(seed.code()).as(seed.toString()).isZero();
        CliRunner.Result added = cli.run("--json", "memory", "add", "--event", "r-1", "--kind", "fact",
                "--basis", "user_statement", "--text", "The user lives by West Lake in Hangzhou",
                "--quote", "我住在杭州西湖边");
        assertThat(added.code()).as(added.toString()).isZero();
        String memoryId = added.json().get("memory").get("id").asString();

        List<String> lines = eventLines("w", 20_000);
        AtomicBoolean readersDone = new AtomicBoolean();
        AtomicInteger fed = new AtomicInteger();
        try (ChildCli writer = ChildCli.start(cli, logs, "W", SUBMIT)) {
            writer.write(lines.subList(0, 1));
            writer.awaitAcks(1);
            fed.set(1);
            // Keep the writer committing (about 400 lines a second) until every reader has finished.
            CompletableFuture<Void> feeder = CompletableFuture.runAsync(() -> {
                try {
                    int i = 1;
                    while (!readersDone.get() && i + 1 < lines.size()) {
                        writer.stdin.write(lines.get(i++));
                        writer.stdin.write('\n');
                        writer.stdin.write(lines.get(i++));
                        writer.stdin.write('\n');
                        writer.stdin.flush();
                        fed.set(i);
                        Thread.sleep(5);
                    }
                    writer.stdin.close();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });

            // Reader processes: two separate JVMs running doctor and memory read while the writer writes.
            List<ChildCli> readers = new ArrayList<>();
            List<Long> observedEvents = new ArrayList<>();
            int inProcessRounds = 0;
            try {
                readers.add(ChildCli.start(cli, logs, "R-doctor", "--json", "doctor"));
                readers.add(ChildCli.start(cli, logs, "R-read", "--json", "memory", "read", memoryId));
                // Meanwhile this JVM (a third process) reads in a loop.
                long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                while (inProcessRounds < 10 || System.nanoTime() < deadline || readers.stream().anyMatch(r -> r.process.isAlive())) {
                    CliRunner.Result read = cli.run("--json", "memory", "read", memoryId);
                    assertThat(read.code()).as(read.toString()).isZero();
                    assertThat(read.json().get("source_page").get("text").asString()).contains("杭州西湖");
                    CliRunner.Result doctor = cli.run("--json", "doctor");
                    assertThat(doctor.code()).as(doctor.toString()).isZero();
                    assertThat(doctor.json().get("integrity").toString()).isEqualTo("[\"ok\"]");
                    observedEvents.add(doctor.json().get("tables").get("events").asLong());
                    inProcessRounds++;
                    assertThat(inProcessRounds).as("reader loop bounded").isLessThan(2_000);
                }
                assertThat(writer.process.isAlive()).as("the writer was still writing while every reader ran").isTrue();
                for (ChildCli r : readers) {
                    assertThat(r.waitForExit()).as(r.describe()).isZero();
                    assertNoLockErrors(r);
                }
                assertThat(readers.get(0).lastJson().get("integrity").toString()).isEqualTo("[\"ok\"]");
                assertThat(readers.get(1).lastJson().get("memory").get("id").asString()).isEqualTo(memoryId);
            } finally {
                readersDone.set(true);
                readers.forEach(ChildCli::close);
            }
            feeder.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(writer.waitForExit()).as(writer.describe()).isZero();
            assertNoLockErrors(writer);
            System.out.println("ProcessDurabilityTest: " + inProcessRounds + " in-process read rounds, events seen "
                    + observedEvents.getFirst() + " -> " + observedEvents.getLast() + ", writer fed " + fed.get());
            assertThat(observedEvents.getLast()).as("readers saw the writer's progress").isGreaterThan(observedEvents.getFirst());

            int total = fed.get();
            assertThat(writer.acks).hasSize(total);
            assertAcksMatchSubmission(writer, lines.subList(0, total), sequencesById(cli));
            assertDoctorHealthy(cli, total + 1L);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** {@code count} distinct JSON event lines with mixed Chinese/English text and offset times. */
    private static List<String> eventLines(String prefix, int count) {
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", prefix + "-" + i);
            m.put("role", i % 3 == 2 ? "assistant" : "user");
            m.put("text", TEXTS[i % TEXTS.length] + " #" + prefix + i + " 第" + i + "条");
            m.put("session", "s-" + prefix + "-" + (i / 50));
            m.put("occurred_at", String.format("2024-%02d-%02dT%02d:%02d:%02d%s", 1 + i % 12, 1 + i % 28, i % 24,
                    (i * 7) % 60, (i * 13) % 60, OFFSETS[i % OFFSETS.length]));
            out.add(Output.mapper().writeValueAsString(m));
        }
        return out;
    }

    private static String idOf(String line) {
        return Output.mapper().readTree(line).get("id").asString();
    }

    private static Map<String, Long> sequencesById(CliRunner cli) {
        Map<String, Long> out = new HashMap<>();
        for (String row : cli.query("SELECT id || ' ' || sequence FROM events")) {
            int space = row.lastIndexOf(' ');
            assertThat(out.put(row.substring(0, space), Long.parseLong(row.substring(space + 1)))).as("duplicate id").isNull();
        }
        return out;
    }

    /** Every line acknowledged once, in order, as created, with strictly increasing sequences that match the database. */
    private static void assertAcksMatchSubmission(ChildCli c, List<String> lines, Map<String, Long> sequences) {
        List<JsonNode> acks = c.acks;
        assertThat(acks).as(c.describe()).hasSize(lines.size());
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < lines.size(); i++) {
            JsonNode ack = acks.get(i);
            String id = idOf(lines.get(i));
            assertThat(ack.get("line").asInt()).as(c.name).isEqualTo(i + 1);
            assertThat(ack.get("id").asString()).as(c.name).isEqualTo(id);
            assertThat(ack.get("status").asString()).as(c.name + " " + id).isEqualTo("created");
            long sequence = ack.get("sequence").asLong();
            assertThat(sequence).as(c.name + " sequence of " + id + " after " + previous).isGreaterThan(previous);
            assertThat(sequences.get(id)).as(c.name + " stored sequence of " + id).isEqualTo(sequence);
            previous = sequence;
        }
    }

    /** How often, walking the events by sequence, the writer changes from one process to the other. */
    private static long interleavings(Map<String, Long> sequences, String prefixA) {
        List<Map.Entry<String, Long>> ordered = new ArrayList<>(sequences.entrySet());
        ordered.sort(Map.Entry.comparingByValue());
        long switches = 0;
        for (int i = 1; i < ordered.size(); i++) {
            if (ordered.get(i).getKey().startsWith(prefixA) != ordered.get(i - 1).getKey().startsWith(prefixA)) {
                switches++;
            }
        }
        return switches;
    }

    private static void assertDoctorHealthy(CliRunner cli, long events) {
        CliRunner.Result doctor = cli.run("--json", "doctor");
        assertThat(doctor.code()).as(doctor.toString()).isZero();
        JsonNode report = doctor.json();
        assertThat(report.get("healthy").asBoolean()).as(doctor.toString()).isTrue();
        assertThat(report.get("integrity").toString()).isEqualTo("[\"ok\"]");
        assertThat(report.get("foreign_key_violations").size()).isZero();
        assertThat(report.get("tables").get("events").asLong()).isEqualTo(events);
    }

    private static void assertNoLockErrors(ChildCli c) {
        String err = c.stderr();
        assertThat(err).as(c.describe()).doesNotContainIgnoringCase("locked").doesNotContainIgnoringCase("busy");
    }

}
