package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;

import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.jiyi.cli.ExtractionCliTest.ASSISTANT;
import static dev.jiyi.cli.ExtractionCliTest.ASSISTANT_ANSWER;
import static dev.jiyi.cli.ExtractionCliTest.EN;
import static dev.jiyi.cli.ExtractionCliTest.EN_ANSWER;
import static dev.jiyi.cli.ExtractionCliTest.ZH;
import static dev.jiyi.cli.ExtractionCliTest.ZH_ANSWER;
import static dev.jiyi.cli.MockModels.chat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * E5 X2 across a real process kill: {@code jiyi event submit --extract} runs as a separate JVM, the
 * mock model holds its request unanswered, and the process is killed between the event's commit and
 * the model's answer. The event must be stored and pending, with no memory; an in-process
 * {@code retry} then finishes it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExtractionKillTest {

    @TempDir
    Path home;

    @TempDir
    Path logs;

    MockWebServer model;
    MockWebServer embed;
    HoldFirst dispatcher;
    CliRunner cli;

    /**
     * Holds the first request (until {@link #release} or 60 s) and records that it arrived; later
     * requests are answered from {@link #answers} at once.
     */
    static final class HoldFirst extends Dispatcher {
        final CountDownLatch received = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger requests = new AtomicInteger();
        final BlockingQueue<MockResponse> answers = new LinkedBlockingQueue<>();

        @Override
        public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            if (requests.incrementAndGet() == 1) {
                received.countDown();
                release.await(60, TimeUnit.SECONDS);
                return chat(ZH_ANSWER);
            }
            MockResponse next = answers.poll(5, TimeUnit.SECONDS);
            return next != null ? next : new MockResponse.Builder().code(599).build();
        }
    }

    @BeforeEach
    void start() throws IOException {
        model = new MockWebServer();
        dispatcher = new HoldFirst();
        model.setDispatcher(dispatcher);
        model.start();
        embed = new MockWebServer();
        embed.setDispatcher(new MockModels.Embeddings());
        embed.start();
        cli = MockModels.configure(new CliRunner(home), model, embed);
        // The killed child would otherwise wait this long for the held answer.
        cli.env("JIYI_EXTRACT_TIMEOUT_SECONDS", "90");
    }

    @AfterEach
    void stop() {
        dispatcher.release.countDown();
        model.close();
        embed.close();
    }

    /** Starts the CLI as a child JVM, waits until the model holds its request, and kills it. */
    private void killWhileExtracting(String name, String... args) throws Exception {
        ProcessBuilder pb = cli.process(args);
        pb.redirectOutput(logs.resolve(name + ".out").toFile());
        pb.redirectError(logs.resolve(name + ".err").toFile());
        Process child = pb.start();
        try {
            boolean arrived = dispatcher.received.await(60, TimeUnit.SECONDS);
            assertThat(arrived).as("the child called the model; " + describe(child, name)).isTrue();
            assertThat(child.isAlive()).as("still waiting for the answer; " + describe(child, name)).isTrue();
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("killed child ended").isTrue();
        }
        assertThat(child.exitValue()).as(describe(child, name)).isNotIn(0, ExitCode.PROVIDER);
    }

    private String describe(Process child, String name) {
        try {
            String exit = child.isAlive() ? "running" : "exit " + child.exitValue();
            return name + " (" + exit + ")\n--- stdout\n" + Files.readString(logs.resolve(name + ".out"))
                    + "--- stderr\n" + Files.readString(logs.resolve(name + ".err"));
        } catch (IOException e) {
            return name + ": cannot read logs: " + e;
        }
    }

    @Test
    @DisplayName("E5 X2 a process killed between the event commit and the model's answer: the event is stored and "
            + "pending, no memory; retry finishes it")
    void killedDuringExtraction() throws Exception {
        killWhileExtracting("single", "event", "submit", "--id", "k1", "--role", "user", "--session", "s1",
                "--occurred-at", "2024-05-01T10:00:00+08:00", "--text", ZH, "--extract");

        // Reopen through the engine first (recovers the killed writer's WAL), then look.
        CliRunner.Result doctor = cli.run("--json", "doctor");
        assertThat(doctor.json().get("integrity").toString()).as(doctor.toString()).isEqualTo("[\"ok\"]");
        // O6: doctor reports the pending extraction.
        assertThat(doctor.code()).as(doctor.toString()).isEqualTo(ExitCode.UNHEALTHY);
        assertThat(doctor.json().get("pending_extractions").asInt()).isEqualTo(1);
        assertThat(cli.query("SELECT id || '|' || extraction_state || '|' || text FROM events"))
                .containsExactly("k1|pending|" + ZH);
        assertThat(cli.rowCounts()).containsEntry("memories", 0L).containsEntry("extractions", 0L)
                .containsEntry("embeddings", 0L);

        dispatcher.answers.add(chat(ZH_ANSWER));
        CliRunner.Result retry = cli.run("--json", "retry");
        assertThat(retry.code()).as(retry.toString()).isZero();
        assertThat(retry.json().get("summary").get("extracted").asInt()).isEqualTo(1);
        assertThat(cli.query("SELECT extraction_state FROM events")).containsExactly("done");
        assertThat(cli.query("SELECT text FROM memories ORDER BY seq"))
                .containsExactly("用户住在杭州", "用户上周养了一只叫团子的猫");
        assertThat(cli.rowCounts()).containsEntry("extractions", 1L).containsEntry("embeddings", 2L);
        assertThat(dispatcher.requests.get()).isEqualTo(2);
        assertThat(cli.run("doctor").code()).isZero();
    }

    @Test
    @DisplayName("E5 X2 a batch submit --extract killed while its first event is being extracted: every committed "
            + "line is stored and pending; retry finishes them in order")
    void killedDuringBatchExtraction() throws Exception {
        Path file = logs.resolve("batch.jsonl");
        Files.write(file, List.of(line("b1", "user", ZH), line("b2", "user", EN), line("b3", "assistant", ASSISTANT)));
        killWhileExtracting("batch", "--json", "event", "submit", "--batch", file.toString(), "--extract");

        CliRunner.Result doctor = cli.run("--json", "doctor");
        assertThat(doctor.json().get("integrity").toString()).as(doctor.toString()).isEqualTo("[\"ok\"]");
        assertThat(cli.query("SELECT id || '|' || extraction_state FROM events ORDER BY sequence"))
                .containsExactly("b1|pending", "b2|pending", "b3|pending");
        assertThat(cli.rowCounts()).containsEntry("memories", 0L).containsEntry("extractions", 0L);

        dispatcher.answers.add(chat(ZH_ANSWER));
        dispatcher.answers.add(chat(EN_ANSWER));
        dispatcher.answers.add(chat(ASSISTANT_ANSWER));
        CliRunner.Result retry = cli.run("--json", "retry");
        assertThat(retry.code()).as(retry.toString()).isZero();
        JsonNode summary = retry.json().get("summary");
        assertThat(summary.get("tried").asInt()).isEqualTo(3);
        assertThat(summary.get("extracted").asInt()).isEqualTo(3);
        assertThat(cli.query("SELECT DISTINCT extraction_state FROM events")).containsExactly("done");
        assertThat(cli.query("SELECT event_id FROM memories ORDER BY seq")).containsExactly("b1", "b1", "b2", "b3");
    }

    private static String line(String id, String role, String text) {
        return Output.mapper().writeValueAsString(Map.of("id", id, "role", role, "text", text, "session", "s1",
                "occurred_at", "2024-05-01T10:00:00+08:00"));
    }
}
