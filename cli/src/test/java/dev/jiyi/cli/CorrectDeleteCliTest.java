package dev.jiyi.cli;

import dev.jiyi.authority.Scope;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.fts5.Fts5Index;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code memory correct}, {@code delete} and {@code memory read}'s lineage through the real CLI
 * (C1, C2, D1, D3), and deletion's atomicity across real processes: killed mid-way, or racing
 * another deletion of the same event.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CorrectDeleteCliTest {

    @TempDir
    Path home;

    CliRunner cli;

    @BeforeEach
    void setUp() {
        cli = new CliRunner(home);
    }

    private JsonNode ok(String... args) {
        List<String> all = new ArrayList<>(List.of("--json"));
        all.addAll(List.of(args));
        CliRunner.Result r = cli.run(all.toArray(String[]::new));
        assertThat(r.code()).as(r.toString()).isZero();
        return r.json();
    }

    private String fact(String eventId, String text, String quote, String validAt) {
        return ok("memory", "add", "--event", eventId, "--kind", "fact", "--basis", "user_statement", "--text", text,
                "--quote", quote, "--subject", "我", "--fact-key", "city", "--valid-at", validAt)
                .get("memory").get("id").asString();
    }

    @Test
    @DisplayName("C1 C2 D3 memory correct: correction event, revoked memory, corrects edge, amended event, kept start, "
            + "invalidated checkpoints, and memory read shows the lineage both ways")
    void correctThroughCli() {
        ok("event", "submit", "--id", "e1", "--role", "user", "--session", "s1", "--occurred-at", "2023-03-01T09:00:00+08:00",
                "--text", "我去年搬到了杭州 I moved to Hangzhou last year");
        String mistaken = fact("e1", "用户住在苏州 lives in Suzhou", "我去年搬到了杭州", "2022-06-01T00:00:00+08:00");
        ok("checkpoint", "save", "--session", "s1", "--goal", "整理搬家记录", "--covered-seq", "1");
        ok("--project", "other", "event", "submit", "--id", "o1", "--role", "user", "--session", "s1", "--text", "别的项目");
        ok("--project", "other", "checkpoint", "save", "--session", "s1", "--goal", "别的目标", "--covered-seq", "2");

        JsonNode c = ok("memory", "correct", mistaken, "--text", "用户住在杭州 lives in Hangzhou", "--quote", "杭州");
        assertThat(c.get("event").get("category").asString()).isEqualTo("correction");
        assertThat(c.get("event").get("role").asString()).isEqualTo("user");
        assertThat(c.get("event").get("text").asString()).isEqualTo("用户住在杭州 lives in Hangzhou");
        assertThat(c.get("revoked").get("id").asString()).isEqualTo(mistaken);
        assertThat(c.get("revoked").get("revoked_at").isNull()).isFalse();
        JsonNode corrected = c.get("corrected");
        assertThat(corrected.get("event").asString()).isEqualTo(c.get("event").get("id").asString());
        assertThat(corrected.get("quote").asString()).isEqualTo("杭州");
        assertThat(corrected.get("valid_at").asString()).isEqualTo("2022-05-31T16:00:00.000000Z"); // C2
        assertThat(corrected.get("fact_key").asString()).isEqualTo("city");
        assertThat(c.get("relation").get("type").asString()).isEqualTo("corrects");
        assertThat(c.get("relation").get("from").asString()).isEqualTo(corrected.get("id").asString());
        assertThat(c.get("relation").get("to").asString()).isEqualTo(mistaken);
        assertThat(c.get("checkpoints_invalidated").asInt()).isEqualTo(1);
        assertThat(cli.run("--json", "checkpoint", "show", "--session", "s1").code()).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(cli.run("--project", "other", "--json", "checkpoint", "show").code()).isZero();

        JsonNode old = ok("memory", "read", mistaken);
        assertThat(old.get("source").get("amended").asBoolean()).isTrue();
        assertThat(old.get("memory").get("revoked_at").isNull()).isFalse();
        assertThat(old.get("lineage").get("corrected_by").get(0).get("id").asString())
                .isEqualTo(corrected.get("id").asString());
        assertThat(old.get("lineage").get("corrects")).isEmpty();

        // A second correction with a new start: the lineage grows transitively in both directions.
        JsonNode c2 = ok("memory", "correct", corrected.get("id").asString(), "--text", "用户住在杭州西湖区",
                "--valid-at", "2022-09-01T00:00:00+08:00");
        assertThat(c2.get("corrected").get("valid_at").asString()).isEqualTo("2022-08-31T16:00:00.000000Z");
        JsonNode newest = ok("memory", "read", c2.get("corrected").get("id").asString());
        List<String> corrects = new ArrayList<>();
        newest.get("lineage").get("corrects").forEach(n -> corrects.add(n.get("id").asString()));
        assertThat(corrects).containsExactly(corrected.get("id").asString(), mistaken);
        assertThat(ok("memory", "read", mistaken).get("lineage").get("corrected_by")).hasSize(2);

        // Human output names the revocation and the lineage.
        CliRunner.Result text = cli.run("memory", "read", mistaken);
        assertThat(text.out()).contains("REVOKED").contains("corrected by").contains(c2.get("corrected").get("id").asString());

        // Recall: only the newest correction, never the mistaken text (C3), also with history.
        JsonNode recall = ok("recall", "苏州 杭州", "--include-history");
        List<String> ids = new ArrayList<>();
        recall.get("results").forEach(r -> ids.add(r.get("memory_id") == null ? r.get("source_event_id").asString()
                : r.get("memory_id").asString()));
        assertThat(ids).contains(c2.get("corrected").get("id").asString()).doesNotContain(mistaken, "e1");
        assertThat(recall.get("results").toString()).doesNotContain("苏州");
    }

    @Test
    @DisplayName("D1 delete --event and --memory through the CLI: JSON report, then not found everywhere, doctor healthy")
    void deleteThroughCli() {
        ok("event", "submit", "--id", "keep", "--role", "user", "--text", "周末去西湖 walk by West Lake");
        ok("event", "submit", "--id", "gone", "--role", "user", "--text", "我的秘密是紫藤花 wisteria secret，也喜欢西湖");
        String keep = ok("memory", "add", "--event", "keep", "--kind", "episode", "--basis", "user_statement",
                "--text", "用户周末去西湖", "--quote", "周末去西湖").get("memory").get("id").asString();
        String secret = ok("memory", "add", "--event", "gone", "--kind", "fact", "--basis", "user_statement",
                "--text", "用户的秘密是紫藤花 wisteria", "--quote", "我的秘密是紫藤花 wisteria secret").get("memory").get("id").asString();
        ok("relate", keep, secret);
        JsonNode d = ok("delete", "--memory", secret);
        assertThat(d.get("events").toString()).contains("gone");
        assertThat(d.get("memories").toString()).contains(secret);
        assertThat(d.get("relations_removed").asInt()).isEqualTo(1);
        assertThat(cli.run("memory", "read", secret).code()).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(cli.run("delete", "--event", "gone").code()).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(ok("recall", "紫藤花 wisteria secret", "--include-history").get("results")).isEmpty();
        assertThat(ok("memory", "read", keep).get("relations")).isEmpty(); // D2
        assertThat(cli.run("doctor").code()).isZero();
        // A plain event without memories deletes alone.
        assertThat(ok("delete", "--event", "keep").get("memories").toString()).contains(keep);
        assertThat(cli.rowCounts()).containsEntry("events", 0L).containsEntry("memories", 0L).containsEntry("relations", 0L);
    }

    private static final int MEMORIES_PER_TARGET = 600;

    /** What the default scope's terms start with in the FTS5 tables, for the tests that search them directly. */
    private static final String SCOPED = Fts5Index.termPrefix(Scope.DEFAULT);

    /** An archive with a big FTS5 index and several target events, each with many memories. */
    private List<String> bigArchive(int targets) {
        StringBuilder events = new StringBuilder();
        for (int i = 0; i < 3_000; i++) {
            events.append("{\"id\":\"bg").append(i).append("\",\"role\":\"user\",\"session\":\"bg\",")
                    .append("\"occurred_at\":\"2024-01-01T00:00:00Z\",\"text\":\"第").append(i)
                    .append("条背景记录：今天在北京喝了咖啡，also walked ").append(i % 97).append(" blocks in 朝阳公园 with friends\"}\n");
        }
        List<String> ids = new ArrayList<>();
        for (int t = 0; t < targets; t++) {
            String id = "target" + t;
            ids.add(id);
            events.append("{\"id\":\"").append(id).append("\",\"role\":\"user\",\"session\":\"t").append(t)
                    .append("\",\"occurred_at\":\"2024-02-01T00:00:00Z\",\"text\":\"目标").append(t)
                    .append("：我的口令是 zebracipher").append(t).append(" 和 海棠").append(t).append("\"}\n");
        }
        assertThat(cli.runWithStdin(events.toString(), "event", "submit", "--batch", "-").code()).isZero();
        StringBuilder memories = new StringBuilder();
        for (String id : ids) {
            for (int m = 0; m < MEMORIES_PER_TARGET; m++) {
                memories.append("{\"event\":\"").append(id).append("\",\"kind\":\"observation\",\"basis\":\"user_statement\",")
                        .append("\"text\":\"口令记录 ").append(m).append("\",\"quote\":\"我的口令是\"}\n");
            }
        }
        assertThat(cli.runWithStdin(memories.toString(), "memory", "add", "--batch", "-").code()).isZero();
        return ids;
    }

    private boolean present(String eventId) {
        int n = Integer.parseInt(eventId.substring("target".length()));
        long events = Long.parseLong(cli.query("SELECT count(*) FROM events WHERE id = '" + eventId + "'").getFirst());
        long memories = Long.parseLong(cli.query("SELECT count(*) FROM memories WHERE event_id = '" + eventId + "'").getFirst());
        long eventRows = Long.parseLong(cli.query("SELECT count(*) FROM events_fts WHERE events_fts MATCH '\"" + SCOPED
                + "zebracipher" + n + "\"'").getFirst());
        assertThat(List.of(events, memories, eventRows)).as("%s is all there or all gone", eventId)
                .isIn(List.of(1L, (long) MEMORIES_PER_TARGET, 1L), List.of(0L, 0L, 0L));
        return events == 1;
    }

    @Test
    @DisplayName("D1 O1 a deletion killed at any moment is all or nothing: the event, its memories and its FTS5 rows "
            + "are either all there or all gone, and doctor stays healthy")
    void killedDeletionIsAtomic() throws Exception {
        List<String> targets = bigArchive(7);
        // Measure one uninterrupted deletion (JVM start included) to aim the kills inside its run.
        long started = System.nanoTime();
        Process first = cli.process("delete", "--event", targets.getFirst()).redirectErrorStream(true).start();
        assertThat(first.waitFor(60, TimeUnit.SECONDS)).isTrue();
        long wallMillis = (System.nanoTime() - started) / 1_000_000;
        assertThat(first.exitValue()).as(new String(first.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        assertThat(present(targets.getFirst())).isFalse();

        Random random = new Random(42);
        int killedBefore = 0;
        int completed = 0;
        for (String target : targets.subList(1, targets.size())) {
            Process p = cli.process("delete", "--event", target).start();
            Thread.sleep((long) (wallMillis * (0.5 + 0.7 * random.nextDouble())));
            p.destroyForcibly();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            if (present(target)) {
                killedBefore++;
            } else {
                completed++;
            }
            CliRunner.Result doctor = cli.run("doctor");
            assertThat(doctor.code()).as(doctor.toString()).isZero();
        }
        System.out.printf("[kill] deletion wall %d ms; %d killed before commit, %d committed%n", wallMillis, killedBefore, completed);
        // Whatever survived a kill can still be deleted cleanly.
        for (String target : targets) {
            if (present(target)) {
                assertThat(cli.run("delete", "--event", target).code()).isZero();
            }
            assertThat(present(target)).isFalse();
        }
        assertThat(cli.run("doctor").code()).isZero();
    }

    @Test
    @DisplayName("D1 O1 a process killed in the middle of a long deletion transaction leaves the event, all its memories and "
            + "their FTS5 rows in place, and doctor healthy")
    void killedInsideTheTransaction() throws Exception {
        // Two identical targets with many memories each: the deletion transaction takes long enough to aim at.
        StringBuilder events = new StringBuilder();
        for (String id : List.of("long-a", "long-b")) {
            events.append("{\"id\":\"").append(id).append("\",\"role\":\"user\",\"session\":\"").append(id)
                    .append("\",\"occurred_at\":\"2024-02-01T00:00:00Z\",\"text\":\"长记录 long record ")
                    .append(id).append("：我的口令是 yakcipher 和 海棠花\"}\n");
        }
        assertThat(cli.runWithStdin(events.toString(), "event", "submit", "--batch", "-").code()).isZero();
        StringBuilder memories = new StringBuilder();
        for (String id : List.of("long-a", "long-b")) {
            for (int m = 0; m < 4_000; m++) {
                memories.append("{\"event\":\"").append(id).append("\",\"kind\":\"observation\",\"basis\":\"user_statement\",")
                        .append("\"text\":\"口令记录 record ").append(m).append(" 海棠\",\"quote\":\"我的口令是\"}\n");
            }
        }
        assertThat(cli.runWithStdin(memories.toString(), "memory", "add", "--batch", "-").code()).isZero();

        long startup = wall(cli.process("doctor"));
        long deletion = wall(cli.process("delete", "--event", "long-a"));
        assertThat(cli.query("SELECT count(*) FROM memories WHERE event_id = 'long-a'")).containsExactly("0");
        long window = deletion - startup;
        System.out.printf("[kill] start-up and open %d ms, delete of 4,000 memories %d ms%n", startup, deletion);
        assertThat(window).as("the deletion transaction is long enough to aim at").isGreaterThan(300);

        Process p = cli.process("delete", "--event", "long-b").start();
        Thread.sleep(startup + window / 3);
        p.destroyForcibly();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(cli.query("SELECT count(*) FROM events WHERE id = 'long-b'")).containsExactly("1");
        assertThat(cli.query("SELECT count(*) FROM memories WHERE event_id = 'long-b'")).containsExactly("4000");
        assertThat(cli.query("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH '\"" + SCOPED + "record\"'"))
                .containsExactly("4000");
        CliRunner.Result doctor = cli.run("doctor");
        assertThat(doctor.code()).as(doctor.toString()).isZero();
        assertThat(cli.run("delete", "--event", "long-b").code()).isZero();
        assertThat(cli.query("SELECT count(*) FROM memories")).containsExactly("0");
    }

    /** Wall time of a process run to completion, in milliseconds. */
    private static long wall(ProcessBuilder pb) throws Exception {
        long started = System.nanoTime();
        Process p = pb.redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        return (System.nanoTime() - started) / 1_000_000;
    }

    @Test
    @DisplayName("D1 O1 two processes deleting the same event: one deletes it, the other finds nothing (exit 1); nothing is left half-done")
    void racingDeletions() throws Exception {
        List<String> targets = bigArchive(1);
        Process a = cli.process("delete", "--event", targets.getFirst()).start();
        Process b = cli.process("delete", "--event", targets.getFirst()).start();
        assertThat(a.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(b.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(List.of(a.exitValue(), b.exitValue())).containsExactlyInAnyOrder(ExitCode.OK, ExitCode.NOT_FOUND);
        assertThat(present(targets.getFirst())).isFalse();
        assertThat(cli.run("doctor").code()).isZero();
    }
}
