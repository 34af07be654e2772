package dev.jiyi.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jiyi.engine.ExitCode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code jiyi host-ingest} (H1, D4): visible messages with stable IDs and checkpoints, captured
 * through a compare-and-set cursor per instance; replays are harmless, deleted messages stay
 * deleted (also after export and import), a competing capture is refused, a killed one is replayed.
 */
class HostIngestCliTest {

    @TempDir
    Path dir;

    private static final String[][] CHAT = {
            {"m1", "user", "我下个月搬去深圳 I'm moving to Shenzhen"},
            {"m2", "assistant", "好的，祝搬家顺利 good luck"},
            {"m3", "user", "我的猫叫 Mochi, she hates boxes"},
            {"m4", "assistant", "Mochi 会适应新家的"},
            {"m5", "user", "预算 budget is 5000 元"},
    };

    static String message(String id, String role, String text, int minute) {
        return String.format("{\"id\":\"%s\",\"role\":\"%s\",\"text\":\"%s\",\"session\":\"chat-1\","
                + "\"occurred_at\":\"2024-05-01T10:%02d:00+08:00\",\"source\":\"host\"}", id, role, text, minute);
    }

    static List<String> chat(int upTo) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < upTo; i++) {
            lines.add(message(CHAT[i][0], CHAT[i][1], CHAT[i][2], i));
        }
        return lines;
    }

    static String checkpoint(String goal, String coveredId) {
        return "{\"checkpoint\":{\"session\":\"chat-1\",\"goal\":\"" + goal + "\",\"done\":[\"找房\"],\"pending\":[\"签约 sign\"],"
                + "\"covered_id\":\"" + coveredId + "\"}}";
    }

    private static String input(List<String> lines) {
        return String.join("\n", lines) + "\n";
    }

    private static JsonNode summary(CliRunner.Result r) {
        for (JsonNode n : r.jsonLines()) {
            if (n.has("summary")) {
                return n.get("summary");
            }
        }
        throw new AssertionError("no summary: " + r);
    }

    @Test
    @DisplayName("H1 host-ingest captures messages and a checkpoint, moves the cursor last; a replay of the same history changes nothing")
    void captureAndReplay() {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        List<String> lines = new ArrayList<>(chat(3));
        lines.add(checkpoint("搬家 move", "m3"));
        CliRunner.Result r = cli.runWithStdin(input(lines), "--json", "host-ingest", "--instance", "desk-1");
        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode s = summary(r);
        assertThat(s.get("created").asLong()).isEqualTo(3);
        assertThat(s.get("checkpoints").asLong()).isEqualTo(1);
        assertThat(s.get("cursor").get("position").asString()).isEqualTo("m3");
        assertThat(s.get("cursor").get("version").asLong()).isEqualTo(1);
        assertThat(cli.query("SELECT cursor || '@' || version FROM capture_cursors WHERE instance_id = 'desk-1'"))
                .containsExactly("m3@1");
        assertThat(cli.query("SELECT goal FROM checkpoints")).containsExactly("搬家 move");
        assertThat(cli.query("SELECT covered_seq FROM checkpoints"))
                .isEqualTo(cli.query("SELECT sequence FROM events WHERE id = 'm3'"));
        assertThat(cli.run("recall", "深圳").out()).contains("m1");
        assertThat(cli.run("recall", "Mochi").out()).contains("m3");

        // The host replays its whole visible history: everything through the cursor is skipped.
        CliRunner.Result again = cli.runWithStdin(input(lines), "--json", "host-ingest", "--instance", "desk-1");
        assertThat(again.code()).as(again.toString()).isZero();
        assertThat(summary(again).get("skipped").asLong()).isEqualTo(3);
        assertThat(summary(again).get("created").asLong()).isZero();
        assertThat(summary(again).get("checkpoints").asLong()).as("an equal checkpoint is not saved twice").isZero();
        assertThat(summary(again).get("checkpoints_skipped").asLong()).isEqualTo(1);
        assertThat(cli.query("SELECT count(*) FROM checkpoints")).containsExactly("1");

        // History plus new messages: only the new ones are captured; the cursor moves to the last.
        CliRunner.Result more = cli.runWithStdin(input(chat(5)), "host-ingest", "--instance", "desk-1");
        assertThat(more.code()).as(more.toString()).isZero();
        assertThat(more.out()).contains("2 new message(s)", "3 skipped as captured before", "at m5 (version 3)");
        assertThat(cli.query("SELECT count(*) FROM events")).containsExactly("5");

        // Only the new messages, without the history: all are new, none is stored twice.
        assertThat(cli.runWithStdin(input(List.of(message("m6", "user", "新消息 new message", 9))),
                "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(cli.query("SELECT count(*) FROM events")).containsExactly("6");
        assertThat(cli.query("SELECT cursor FROM capture_cursors")).containsExactly("m6");
    }

    @Test
    @DisplayName("D4 a message deleted on request is not brought back by a replay, nor by a replay after export and import into a new home")
    void deletedStaysDeleted() throws Exception {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        assertThat(cli.runWithStdin(input(chat(4)), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(cli.run("delete", "--event", "m2").code()).isZero();

        assertThat(cli.runWithStdin(input(chat(4)), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(cli.query("SELECT id FROM events ORDER BY sequence")).containsExactly("m1", "m3", "m4");

        Path archive = dir.resolve("home.jsonl");
        assertThat(cli.run("export", "--all", "--format", "jsonl", "--out", archive.toString()).code()).isZero();
        CliRunner moved = new CliRunner(dir.resolve("moved"));
        CliRunner.Result imported = moved.run("import", archive.toString());
        assertThat(imported.code()).as(imported.toString()).isZero();
        CliRunner.Result replay = moved.runWithStdin(input(chat(5)), "host-ingest", "--instance", "desk-1");
        assertThat(replay.code()).as(replay.toString()).isZero();
        assertThat(moved.query("SELECT id FROM events ORDER BY sequence")).containsExactly("m1", "m3", "m4", "m5");
        assertThat(moved.query("SELECT cursor || '@' || version FROM capture_cursors")).containsExactly("m5@2");
        assertThat(moved.run("recall", "祝搬家顺利").out()).doesNotContain("m2");
    }

    @Test
    @DisplayName("H1 bad input moves no cursor: a bad line is named by number (the lines before it stay committed), "
            + "another scope is refused, a changed payload is a conflict (exit 3)")
    void badInput() {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        List<String> lines = new ArrayList<>(chat(2));
        lines.add("{\"id\":\"m3\",\"role\":\"user\",\"text\":\"没有时区 no zone\",\"session\":\"chat-1\",\"occurred_at\":\"2024-05-01T10:05:00\"}");
        CliRunner.Result r = cli.runWithStdin(input(lines), "host-ingest", "--instance", "desk-1");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(r.err()).contains("line 3", "occurred_at").doesNotContain("没有时区");
        assertThat(cli.query("SELECT id FROM events ORDER BY sequence")).containsExactly("m1", "m2");
        assertThat(cli.query("SELECT cursor || '@' || version FROM capture_cursors"))
                .as("what committed before the bad line is covered: deleted before the next run, it stays deleted")
                .containsExactly("m2@1");

        CliRunner shapes = new CliRunner(dir.resolve("shapes"));
        CliRunner.Result shape = shapes.runWithStdin(input(List.of(message("m9", "user", "九", 9),
                "{\"checkpoint\":{\"session\":\"chat-1\",\"goal\":\"目标\"}}", message("m10", "user", "十", 10))),
                "host-ingest", "--instance", "desk-1");
        assertThat(shape.code()).as("a checkpoint's shape is checked when its line is read").isEqualTo(ExitCode.INVALID);
        assertThat(shape.err()).contains("line 2", "covered");
        assertThat(shapes.query("SELECT id FROM events")).containsExactly("m9");

        assertThat(cli.runWithStdin(input(chat(2)), "host-ingest", "--instance", "desk-1").code()).isZero();
        CliRunner.Result elsewhere = cli.runWithStdin(input(chat(3)), "--project", "other", "host-ingest", "--instance", "desk-1");
        assertThat(elsewhere.code()).as(elsewhere.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(elsewhere.err()).contains("instance", "one scope");

        String changed = message("m3", "user", "改过的内容 changed", 2);
        assertThat(cli.runWithStdin(input(chat(3)), "host-ingest", "--instance", "desk-1").code()).isZero();
        CliRunner.Result conflict = cli.runWithStdin(input(List.of(message("m9", "user", "new 新", 8), changed)),
                "--json", "host-ingest", "--instance", "desk-2");
        assertThat(conflict.code()).as(conflict.toString()).isEqualTo(ExitCode.CONFLICT);
        assertThat(conflict.err()).doesNotContain("改过的内容");
        assertThat(cli.query("SELECT count(*) FROM capture_cursors WHERE instance_id = 'desk-2'")).containsExactly("0");
        assertThat(cli.query("SELECT text FROM events WHERE id = 'm3'")).containsExactly(CHAT[2][2]);
    }

    @Test
    @DisplayName("D4 the cursor is a time, not a line to find: a history whose last message was regenerated, "
            + "or that repeats an ID, brings back nothing deleted")
    void cursorIsATime() {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        assertThat(cli.runWithStdin(input(chat(4)), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(cli.run("delete", "--event", "m1").code()).isZero();
        // The host regenerated the last answer (m4 became m4b) and replays what it shows.
        List<String> regenerated = new ArrayList<>(chat(3));
        regenerated.add(message("m4b", "assistant", "重新生成的回答 regenerated", 9));
        CliRunner.Result r = cli.runWithStdin(input(regenerated), "host-ingest", "--instance", "desk-1");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(cli.query("SELECT id FROM events ORDER BY sequence")).containsExactly("m2", "m3", "m4", "m4b");
        assertThat(cli.query("SELECT cursor FROM capture_cursors")).containsExactly("m4b");

        CliRunner other = new CliRunner(dir.resolve("other"));
        List<String> repeated = new ArrayList<>(chat(3));
        repeated.add(chat(2).get(1)); // m2 again, after m3
        assertThat(other.runWithStdin(input(repeated), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(other.query("SELECT cursor FROM capture_cursors")).as("the newest message, not the last line").containsExactly("m3");
        assertThat(other.run("delete", "--event", "m3").code()).isZero();
        assertThat(other.runWithStdin(input(repeated), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(other.query("SELECT id FROM events ORDER BY sequence")).containsExactly("m1", "m2");

        // Two turns in one instant: the one deleted stays deleted, a third of that instant is new.
        CliRunner same = new CliRunner(dir.resolve("same"));
        List<String> instant = List.of(message("s1", "user", "同一秒 first", 0), message("s2", "assistant", "同一秒 second", 0));
        assertThat(same.runWithStdin(input(instant), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(same.run("delete", "--event", "s1").code()).isZero();
        List<String> more = new ArrayList<>(instant);
        more.add(message("s3", "user", "同一秒 third", 0));
        assertThat(same.runWithStdin(input(more), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(same.query("SELECT id FROM events ORDER BY sequence")).containsExactly("s2", "s3");
        assertThat(same.runWithStdin(input(more), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(same.query("SELECT id FROM events ORDER BY sequence")).containsExactly("s2", "s3");
    }

    @Test
    @DisplayName("H1 a checkpoint whose message was deleted is skipped with a warning: the cursor still moves, later deletions stay deleted")
    void checkpointOfADeletedMessage() {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        List<String> lines = new ArrayList<>(chat(2));
        lines.add(checkpoint("搬家 move", "m2"));
        assertThat(cli.runWithStdin(input(lines), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(cli.run("delete", "--event", "m2").code()).isZero();
        lines.add(message("m3", "user", "新的 new", 3));
        CliRunner.Result r = cli.runWithStdin(input(lines), "--json", "host-ingest", "--instance", "desk-1");
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.err()).contains("not saved");
        assertThat(summary(r).get("checkpoints_skipped").asLong()).isEqualTo(1);
        assertThat(cli.query("SELECT cursor FROM capture_cursors")).containsExactly("m3");
        assertThat(cli.query("SELECT id FROM events ORDER BY sequence")).containsExactly("m1", "m3");
        assertThat(cli.run("delete", "--event", "m3").code()).isZero();
        assertThat(cli.runWithStdin(input(lines), "host-ingest", "--instance", "desk-1").code()).isZero();
        assertThat(cli.query("SELECT id FROM events ORDER BY sequence")).containsExactly("m1");

        // A checkpoint of a message that is there but in another session is the host's mistake: refused (K1).
        String wrongSession = "{\"checkpoint\":{\"session\":\"chat-2\",\"goal\":\"错\",\"covered_id\":\"m1\"}}";
        CliRunner.Result wrong = cli.runWithStdin(input(List.of(message("m6", "user", "六", 6), wrongSession)),
                "host-ingest", "--instance", "desk-1");
        assertThat(wrong.code()).as(wrong.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(wrong.err()).contains("covered_seq");
        assertThat(cli.query("SELECT cursor FROM capture_cursors")).containsExactly("m3");
    }

    @Test
    @Timeout(180)
    @DisplayName("H1 two processes capture the same instance at once: one wins, the other is refused by the cursor check; no message twice, none lost")
    void competingCaptures() throws Exception {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        assertThat(cli.run("doctor").code()).isZero(); // the database exists before both start
        List<String> lines = IntStream.range(0, 40)
                .mapToObj(i -> message("c" + i, i % 2 == 0 ? "user" : "assistant", "第 " + i + " 条 message " + i, i))
                .toList();
        try (ChildCli a = ChildCli.start(cli, dir, "a", "--json", "host-ingest", "--instance", "desk-1");
             ChildCli b = ChildCli.start(cli, dir, "b", "--json", "host-ingest", "--instance", "desk-1")) {
            // Each acknowledges a first line: each has read the cursor (version 0) before either moves it.
            a.write(lines.subList(0, 1));
            a.awaitAcks(1);
            b.write(lines.subList(0, 1));
            b.awaitAcks(1);
            a.writeAndClose(lines.subList(1, lines.size()));
            b.writeAndClose(lines.subList(1, lines.size()));
            int codeA = a.waitForExit();
            int codeB = b.waitForExit();
            assertThat(List.of(codeA, codeB)).as(a.describe() + "\n" + b.describe())
                    .containsExactlyInAnyOrder(ExitCode.OK, ExitCode.CONFLICT);
            ChildCli loser = codeA == ExitCode.OK ? b : a;
            assertThat(loser.stderr()).contains("another capture of this instance");
        }
        assertThat(cli.query("SELECT count(*) FROM events")).containsExactly("40");
        assertThat(cli.query("SELECT count(DISTINCT id) FROM events")).containsExactly("40");
        assertThat(cli.query("SELECT cursor || '@' || version FROM capture_cursors")).containsExactly("c39@1");
    }

    @Test
    @Timeout(180)
    @DisplayName("H1 a capture killed after its messages committed and before the cursor moved: the replay leaves exactly one copy of each")
    void killedBeforeTheCursor() throws Exception {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        List<String> lines = IntStream.range(0, 30)
                .mapToObj(i -> message("k" + i, "user", "杀掉之前 before the kill " + i, i))
                .toList();
        try (ChildCli child = ChildCli.start(cli, dir, "killed", "--json", "host-ingest", "--instance", "desk-1")) {
            child.write(lines.subList(0, 20));
            child.awaitAcks(20); // committed and acknowledged; the input is still open, so no cursor yet
            child.process.destroyForcibly();
            child.process.waitFor();
        }
        assertThat(cli.query("SELECT count(*) FROM events")).containsExactly("20");
        assertThat(cli.query("SELECT count(*) FROM capture_cursors")).containsExactly("0");

        CliRunner.Result replay = cli.runWithStdin(input(lines), "--json", "host-ingest", "--instance", "desk-1");
        assertThat(replay.code()).as(replay.toString()).isZero();
        assertThat(summary(replay).get("existing").asLong()).isEqualTo(20);
        assertThat(summary(replay).get("created").asLong()).isEqualTo(10);
        assertThat(cli.query("SELECT count(*) FROM events")).containsExactly("30");
        assertThat(cli.query("SELECT count(DISTINCT id) FROM events")).containsExactly("30");
        assertThat(cli.query("SELECT cursor || '@' || version FROM capture_cursors")).containsExactly("k29@1");
        assertThat(Map.of("doctor", cli.run("doctor").code())).containsEntry("doctor", 0);
    }

    @Test
    @Timeout(180)
    @DisplayName("H1 with a cursor in place, a host streaming only new messages gets each acknowledged as it commits, before its input ends")
    void streamingAfterACursor() throws Exception {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        assertThat(cli.runWithStdin(input(chat(3)), "host-ingest", "--instance", "desk-1").code()).isZero();
        try (ChildCli child = ChildCli.start(cli, dir, "stream", "--json", "host-ingest", "--instance", "desk-1")) {
            child.write(List.of(message("m4", "assistant", CHAT[3][2], 3)));
            child.awaitAcks(1);
            child.write(List.of(message("m5", "user", CHAT[4][2], 4)));
            child.awaitAcks(2);
            assertThat(cli.query("SELECT count(*) FROM events")).containsExactly("5");
            child.writeAndClose(List.of());
            assertThat(child.waitForExit()).isZero();
        }
        assertThat(cli.query("SELECT cursor || '@' || version FROM capture_cursors")).containsExactly("m5@2");
    }

    @Test
    @DisplayName("H1 host-ingest --file reads a file; its help names the line formats")
    void fromFile() throws Exception {
        CliRunner cli = new CliRunner(dir.resolve("home"));
        Path file = Files.writeString(dir.resolve("visible.jsonl"), input(chat(2)));
        CliRunner.Result r = cli.run("host-ingest", "--instance", "desk-1", "--file", file.toString());
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(cli.query("SELECT count(*) FROM events")).containsExactly("2");
        assertThat(cli.run("host-ingest", "--help").out()).contains("checkpoint", "covered_id", "compare-and-set");
    }
}
