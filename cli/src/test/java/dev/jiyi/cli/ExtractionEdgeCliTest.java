package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;

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

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.jiyi.cli.MockModels.chat;
import static dev.jiyi.cli.MockModels.item;
import static dev.jiyi.cli.MockModels.memories;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Edge cases of the ingest pipeline found by an independent review: a poisoned queue, configuration
 * mistakes, an amended event, a deletion while retry waits, a down endpoint under a batch.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExtractionEdgeCliTest {

    static final String TEXT = "我住在北京。";
    static final String BEIJING = memories(item("用户住在北京", "住在北京", "fact", "user_statement", 0.9,
            "subject", "user", "fact_key", "home_city"));

    @TempDir
    Path home;

    MockWebServer model;
    MockWebServer embed;
    MockModels.Embeddings vectors;
    CliRunner cli;
    /** When true the model answers 503 to everything. */
    final AtomicBoolean down = new AtomicBoolean(false);
    /** Runs once when the model receives its first request (F6). */
    volatile Runnable onFirstRequest = () -> { };
    final java.util.List<String> requestedTexts = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        model = new MockWebServer();
        model.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                String body = request.getBody().utf8();
                requestedTexts.add(body.contains("SECRET-4711") ? "request carrying e2's text (SECRET-4711)" : "other event");
                if (down.get()) {
                    return MockModels.json(503, "{}");
                }
                Runnable r = onFirstRequest;
                onFirstRequest = () -> { };
                r.run();
                // The "poison" event: the model refuses it, e.g. context length exceeded for a
                // 200,000-character event, or a content filter.
                if (body.contains("poison")) {
                    return MockModels.json(400, "{\"error\":{\"message\":\"maximum context length exceeded\"}}");
                }
                return chat(BEIJING);
            }
        });
        model.start();
        embed = new MockWebServer();
        vectors = new MockModels.Embeddings();
        embed.setDispatcher(vectors);
        embed.start();
        cli = MockModels.configure(new CliRunner(home), model, embed);
    }

    @AfterEach
    void stop() {
        model.close();
        embed.close();
    }

    private CliRunner.Result submit(CliRunner runner, String id, String text, boolean extract) {
        List<String> args = new java.util.ArrayList<>(List.of("event", "submit", "--id", id, "--role", "user",
                "--session", "s1", "--occurred-at", "2024-05-01T10:00:00+08:00", "--text", text));
        if (extract) {
            args.add("--extract");
        }
        return runner.run(args.toArray(String[]::new));
    }

    private String state(String id) {
        List<String> s = cli.query("SELECT extraction_state FROM events WHERE id = '" + id + "'");
        return s.isEmpty() ? null : s.getFirst();
    }

    @Test
    @DisplayName("X2 retry: an event the model refuses (HTTP 400, e.g. over its context) never blocks later pending events")
    void poisonEventBlocksRetryQueue() {
        // e-poison: refused with 400 (think: 200,000-character event over the model's context).
        CliRunner.Result a = submit(cli, "e-poison", "poison " + TEXT, true);
        assertThat(a.code()).as(a.toString()).isEqualTo(ExitCode.PROVIDER);
        // e-ok: pending because the endpoint was briefly down.
        down.set(true);
        CliRunner.Result b = submit(cli, "e-ok", TEXT, true);
        assertThat(b.code()).as(b.toString()).isEqualTo(ExitCode.PROVIDER);
        down.set(false);

        for (int i = 0; i < 3; i++) {
            CliRunner.Result r = cli.run("retry");
        }
        // Expected: the healthy event gets extracted by `retry`. Actual: every retry stops at e-poison.
        assertThat(state("e-ok")).as("e-ok after three retries").isEqualTo("done");
    }

    @Test
    @DisplayName("X1 O7 a malformed extraction URL is a configuration error (exit 2) before anything is saved")
    void badExtractUrlExit5ButEventNotSaved() {
        cli.env("JIYI_EXTRACT_URL", "http://exa mple.com/v1");
        CliRunner.Result r = submit(cli, "e1", TEXT, true);
        // ExitCode.PROVIDER documents "the data is saved and the work is pending"; cli.md says the same for --extract.
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(state("e1")).as("nothing was saved").isNull();
        assertThat(r.err()).contains("extract.url").doesNotContain("exa mple").doesNotContain("internal error");
    }

    @Test
    @DisplayName("V2 an embedding configuration mistake never undoes or hides a committed extraction: exit 0 with a warning")
    void embedConfigErrorAfterCommit() {
        cli.env("JIYI_EMBED_MODEL", ""); // embed.url set, embed.model missing
        CliRunner.Result r = submit(cli, "e1", TEXT, true);
        List<String> saved = cli.query("SELECT id FROM memories WHERE event_id = 'e1'");
        assertThat(saved).as("memories were committed").hasSize(1);
        assertThat(state("e1")).isEqualTo("done");
        // V2: a vector failure is a warning; exit 2 says "input broke a rule; nothing changed".
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.OK);
    }

    @Test
    @DisplayName("C3 X5 an event amended by a correction is never extracted again: the revoked fact stays revoked")
    void extractionOfAmendedEventResurrectsRevokedFact() {
        CliRunner.Result s = submit(cli, "e1", TEXT, false);
        assertThat(s.code()).as(s.toString()).isZero();
        CliRunner.Result add = cli.run("--json", "memory", "add", "--event", "e1", "--kind", "fact", "--basis",
                "user_statement", "--text", "用户住在北京", "--quote", "住在北京", "--subject", "user", "--fact-key", "home_city");
        assertThat(add.code()).as(add.toString()).isZero();
        String wrong = cli.query("SELECT id FROM memories WHERE event_id = 'e1'").getFirst();
        CliRunner.Result fix = cli.run("memory", "correct", wrong, "--text", "用户住在上海");
        assertThat(fix.code()).as(fix.toString()).isZero();
        assertThat(cli.query("SELECT amended FROM events WHERE id = 'e1'").getFirst()).isEqualTo("1");

        CliRunner.Result retry = cli.run("retry", "--event", "e1");

        List<String> current = cli.query("SELECT text || ' invalid_at=' || coalesce(invalid_at, 'open') FROM memories "
                + "WHERE revoked_at IS NULL AND fact_key = 'home_city' ORDER BY seq");
        assertThat(current).as("the revoked 北京 fact must not come back from the amended event's raw text")
                .noneMatch(t -> t.startsWith("用户住在北京"));
        assertThat(retry.code()).as(retry.toString()).isZero();
        assertThat(retry.out()).contains("not extracted");
        assertThat(state("e1")).isEqualTo("skipped");
    }

    @Test
    @DisplayName("X1 O7 an API key that cannot be an HTTP header is a configuration error (exit 2), never echoed, nothing saved")
    void nonAsciiKeyIsAnInternalError() {
        cli.env("JIYI_EXTRACT_API_KEY", "sk-ключ");
        CliRunner.Result r = submit(cli, "e1", TEXT, true);
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(r.err()).contains("extract.api_key").doesNotContain("ключ");
        assertThat(state("e1")).isNull();
    }

    @Test
    @DisplayName("D1 X2 retry never sends the text of an event deleted after it read its list of pending events")
    void retrySendsDeletedEventToModel() {
        down.set(true);
        assertThat(submit(cli, "e1", TEXT, true).code()).isEqualTo(ExitCode.PROVIDER);
        assertThat(submit(cli, "e2", "我的门禁密码是 SECRET-4711，住在北京。", true).code()).isEqualTo(ExitCode.PROVIDER);
        down.set(false);
        requestedTexts.clear();
        // While the model answers e1, the user permanently deletes e2 (D1, "forget this").
        onFirstRequest = () -> {
            CliRunner.Result d = cli.run("delete", "--event", "e2");
            assertThat(d.code()).as(d.toString()).isZero();
        };
        CliRunner.Result r = cli.run("retry");
        assertThat(cli.query("SELECT count(*) FROM events WHERE id = 'e2'").getFirst()).isEqualTo("0");
        assertThat(requestedTexts).as("text of an event deleted before its turn must not be sent to the model")
                .noneMatch(b -> b.contains("SECRET-4711"));
    }

    @Test
    @DisplayName("X2 event submit --batch --extract calls a down endpoint once, not once per line; the rest stay pending")
    void batchExtractHammersDownEndpoint() {
        down.set(true);
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            lines.append("{\"id\":\"b").append(i).append("\",\"role\":\"user\",\"text\":\"我住在北京。\",")
                    .append("\"session\":\"s1\",\"occurred_at\":\"2024-05-01T10:00:00+08:00\"}\n");
        }
        requestedTexts.clear();
        CliRunner.Result r = cli.runWithStdin(lines.toString(), "event", "submit", "--batch", "-", "--extract");
        assertThat(r.code()).isEqualTo(ExitCode.PROVIDER);
        // With a 60 s timeout instead of a quick 503, 10,000 lines would cost 10,000 timeouts.
        assertThat(requestedTexts).as("requests to an endpoint that is down").hasSizeLessThanOrEqualTo(1);
        assertThat(cli.query("SELECT count(*) FROM events WHERE extraction_state = 'pending'")).containsExactly("5");
        assertThat(r.out()).contains("4 more event(s) saved and pending");
    }
}
