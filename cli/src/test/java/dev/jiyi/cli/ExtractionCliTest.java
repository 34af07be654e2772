package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;

import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.QueueDispatcher;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static dev.jiyi.cli.MockModels.API_KEY;
import static dev.jiyi.cli.MockModels.BODY_SECRET;
import static dev.jiyi.cli.MockModels.EMBED_KEY;
import static dev.jiyi.cli.MockModels.MODEL;
import static dev.jiyi.cli.MockModels.assertNoLeak;
import static dev.jiyi.cli.MockModels.body;
import static dev.jiyi.cli.MockModels.chat;
import static dev.jiyi.cli.MockModels.failure;
import static dev.jiyi.cli.MockModels.item;
import static dev.jiyi.cli.MockModels.memories;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code event submit --extract}, {@code event submit --batch --extract} and {@code retry} through the
 * real command line, against a local MockWebServer acting as the extraction model (X1) and a second
 * one answering embeddings, so that no test loads the local model or touches the network.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExtractionCliTest {

    static final String ZH = "我叫小明，住在杭州。上周我养了一只猫，名字叫团子。";
    static final String EN = "I moved to Berlin in March and I prefer tea over coffee.";
    static final String MIXED = "今天 deploy 了 v2.3，我有点 nervous，but it went fine";
    static final String ASSISTANT = "太好了，我也替你高兴！Glad the deploy went well.";

    /** A good answer for {@link #ZH}: two memories. */
    static final String ZH_ANSWER = memories(
            item("用户住在杭州", "住在杭州", "fact", "user_statement", 0.9, "subject", "user", "fact_key", "home_city"),
            item("用户上周养了一只叫团子的猫", "上周我养了一只猫，名字叫团子", "episode", "user_statement", 0.8,
                    "gist", "养了猫团子", "cues", List.of("团子", "猫")));

    static final String EN_ANSWER = memories(
            item("The user prefers tea over coffee", "I prefer tea over coffee", "preference", "user_statement", 0.85,
                    "subject", "user", "fact_key", "hot_drink"));

    static final String ASSISTANT_ANSWER = memories(
            item("助手为用户感到高兴", "我也替你高兴", "emotion", "assistant_expression", 0.9,
                    "emotion", Map.of("label", "joy", "valence", 0.8, "arousal", 0.5)));

    @TempDir
    Path home;

    MockWebServer model;
    MockWebServer embed;
    QueueDispatcher answers;
    MockModels.Embeddings vectors;
    CliRunner cli;
    /** A stopped server whose port a test points extraction at (connection refused), or null. */
    MockWebServer closed;

    @BeforeEach
    void start() throws IOException {
        model = new MockWebServer();
        answers = MockModels.queue(model);
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

    // ------------------------------------------------------------------ helpers

    private static String[] submitArgs(String id, String role, String category, String text, boolean json) {
        List<String> args = new ArrayList<>();
        if (json) {
            args.add("--json");
        }
        args.addAll(List.of("event", "submit", "--id", id, "--role", role, "--category", category, "--session", "s1",
                "--occurred-at", "2024-05-01T10:00:00+08:00", "--text", text, "--extract"));
        return args.toArray(String[]::new);
    }

    /** {@code event submit --extract} in human mode. */
    private CliRunner.Result submit(CliRunner runner, String id, String role, String text) {
        return runner.run(submitArgs(id, role, "conversation", text, false));
    }

    /** {@code --json event submit --extract}, which must exit with {@code code}. */
    private JsonNode submitJson(String id, String role, String text, int code) {
        CliRunner.Result r = cli.run(submitArgs(id, role, "conversation", text, true));
        assertThat(r.code()).as(r.toString()).isEqualTo(code);
        return r.json();
    }

    private JsonNode ok(String... args) {
        CliRunner.Result r = cli.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
        return r.json();
    }

    private String state(String eventId) {
        return cli.query("SELECT extraction_state FROM events WHERE id = '" + eventId + "'").getFirst();
    }

    private String storedError(String eventId) {
        return cli.query("SELECT extraction_error FROM events WHERE id = '" + eventId + "'").getFirst();
    }

    private List<String> memoryIds(String eventId) {
        return cli.query("SELECT id FROM memories WHERE event_id = '" + eventId + "' ORDER BY seq");
    }

    private static List<String> ids(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString()));
        return out;
    }

    private static List<String> rejections(JsonNode extraction) {
        List<String> out = new ArrayList<>();
        extraction.get("rejected").forEach(r -> out.add(r.get("index").asInt() + " " + r.get("field").asString()));
        return out;
    }

    private static String rule(JsonNode extraction, int index) {
        for (JsonNode r : extraction.get("rejected")) {
            if (r.get("index").asInt() == index) {
                return r.get("rule").asString();
            }
        }
        throw new AssertionError("no rejection of item " + index + " in " + extraction);
    }

    /** The event_id of the user message of an extraction request. */
    private static String requestedEvent(RecordedRequest request) {
        JsonNode user = Output.mapper().readTree(body(request).get("messages").get(1).get("content").asString());
        return user.get("event_id").asString();
    }

    private List<String> requestedEvents(int n) throws InterruptedException {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            RecordedRequest r = model.takeRequest(5, TimeUnit.SECONDS);
            assertThat(r).as("request " + (i + 1) + " of " + n).isNotNull();
            out.add(requestedEvent(r));
        }
        return out;
    }

    /**
     * X2 E5 after a failed extraction in human mode: exit 5, the event committed and pending with a
     * reason that says what failed, no memory, and neither the stored reason nor the output holds the
     * response body, a key, the endpoint's address or the event's text.
     */
    private void assertPending(CliRunner.Result r, String eventId, String text, String reasonPart) {
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.PROVIDER);
        assertThat(state(eventId)).isEqualTo("pending");
        assertThat(memoryIds(eventId)).isEmpty();
        String error = storedError(eventId);
        assertThat(error).isNotNull().contains(reasonPart);
        assertNoLeak("stored extraction_error", error, model, text);
        assertNoLeak("stdout", r.out(), model, text);
        assertNoLeak("stderr", r.err(), model, text);
        if (closed != null) {
            assertNoLeak("stored extraction_error", error, closed, text);
            assertNoLeak("stdout and stderr", r.out() + r.err(), closed, text);
        }
        assertThat(r.out()).contains("event " + eventId).contains("pending");
        assertThat(r.err()).contains(reasonPart).contains("jiyi retry");
    }

    private void assertDone(String eventId, int memories) {
        assertThat(state(eventId)).isEqualTo("done");
        assertThat(storedError(eventId)).as("a completed extraction keeps no failure reason").isNull();
        assertThat(memoryIds(eventId)).hasSize(memories);
    }

    // ------------------------------------------------------------------ a good answer

    @Test
    @DisplayName("X1 X3 X6 X7 V2 E5 good answers for Chinese, English, mixed and assistant events: memories in the "
            + "JSON output and the DB, embedded; the request is a json_object chat completion with the bearer key")
    void goodAnswers() throws Exception {
        answers.enqueue(chat(ZH_ANSWER));
        answers.enqueue(chat(EN_ANSWER));
        // Unknown keys (top level and in items) are ignored; an inference may carry an emotion kind.
        answers.enqueue(chat("{\"note\":\"ignored\",\"memories\":" + Output.mapper().writeValueAsString(List.of(
                item("用户今天部署了 v2.3", "今天 deploy 了 v2.3", "episode", "user_statement", 0.7,
                        "gist", "deploy v2.3", "unknown", 1),
                item("用户部署时有点紧张", "我有点 nervous", "emotion", "inference", 0.5))) + "}"));
        answers.enqueue(chat(ASSISTANT_ANSWER));

        JsonNode zh = submitJson("e-zh", "user", ZH, 0);
        assertThat(zh.get("status").asString()).isEqualTo("created");
        assertThat(zh.get("event").get("extraction").asString()).isEqualTo("done");
        JsonNode x = zh.get("extraction");
        assertThat(x.get("event_id").asString()).isEqualTo("e-zh");
        assertThat(x.get("extraction").asString()).isEqualTo("extracted");
        assertThat(x.get("rejected")).isEmpty();
        assertThat(x.get("vectors").get("stored").asInt()).isEqualTo(2);
        assertThat(x.get("vectors").get("missing").asInt()).isZero();
        List<String> zhIds = ids(x.get("memory_ids"));
        assertThat(zhIds).hasSize(2).doesNotHaveDuplicates().containsExactlyElementsOf(memoryIds("e-zh"));

        JsonNode en = submitJson("e-en", "user", EN, 0);
        assertThat(ids(en.get("extraction").get("memory_ids"))).containsExactlyElementsOf(memoryIds("e-en")).hasSize(1);
        CliRunner.Result mixed = submit(cli, "e-mixed", "user", MIXED);
        assertThat(mixed.code()).as(mixed.toString()).isZero();
        assertThat(mixed.out()).contains("extracted event e-mixed: 2 memory(ies) saved, 0 item(s) rejected")
                .contains("用户部署时有点紧张");
        assertThat(mixed.err()).isEmpty();
        JsonNode assistant = submitJson("e-asst", "assistant", ASSISTANT, 0);
        assertThat(assistant.get("extraction").get("memory_ids")).hasSize(1);

        // The request (X1): the model, the prompt, the event as JSON, a JSON-object answer, temperature 0, the key.
        RecordedRequest request = model.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request.getTarget()).isEqualTo("/v1/chat/completions");
        assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer " + API_KEY);
        JsonNode sent = body(request);
        assertThat(sent.get("model").asString()).isEqualTo(MODEL);
        assertThat(sent.get("response_format").get("type").asString()).isEqualTo("json_object");
        assertThat(sent.get("temperature").asDouble()).isZero();
        assertThat(sent.get("messages").get(0).get("role").asString()).isEqualTo("system");
        assertThat(sent.get("messages").get(1).get("role").asString()).isEqualTo("user");
        JsonNode event = Output.mapper().readTree(sent.get("messages").get(1).get("content").asString());
        assertThat(event.get("event_id").asString()).isEqualTo("e-zh");
        assertThat(event.get("role").asString()).isEqualTo("user");
        assertThat(event.get("category").asString()).isEqualTo("conversation");
        assertThat(event.get("occurred_at").asString()).startsWith("2024-05-01T02:00:00");
        assertThat(event.get("text").asString()).isEqualTo(ZH);
        assertThat(requestedEvents(3)).containsExactly("e-en", "e-mixed", "e-asst");
        assertThat(model.getRequestCount()).isEqualTo(4);

        // The DB: every field as the model gave it (X6 gist, X7 confidence), events done.
        assertThat(cli.query("SELECT kind || '|' || basis || '|' || text || '|' || quote || '|' || confidence || '|' "
                + "|| ifnull(subject, '-') || '|' || ifnull(fact_key, '-') || '|' || ifnull(gist, '-') "
                + "FROM memories ORDER BY seq")).containsExactly(
                "fact|user_statement|用户住在杭州|住在杭州|0.9|user|home_city|-",
                "episode|user_statement|用户上周养了一只叫团子的猫|上周我养了一只猫，名字叫团子|0.8|-|-|养了猫团子",
                "preference|user_statement|The user prefers tea over coffee|I prefer tea over coffee|0.85|user|hot_drink|-",
                "episode|user_statement|用户今天部署了 v2.3|今天 deploy 了 v2.3|0.7|-|-|deploy v2.3",
                "emotion|inference|用户部署时有点紧张|我有点 nervous|0.5|-|-|-",
                "emotion|assistant_expression|助手为用户感到高兴|我也替你高兴|0.9|-|-|-");
        assertThat(cli.query("SELECT emotion_label || '|' || valence || '|' || arousal FROM memories "
                + "WHERE emotion_label IS NOT NULL")).containsExactly("joy|0.8|0.5");
        JsonNode read = ok("--json", "memory", "read", zhIds.get(1));
        assertThat(read.get("memory").get("gist").asString()).isEqualTo("养了猫团子");
        assertThat(read.get("memory").get("cues").toString()).contains("团子").contains("猫");
        for (String id : List.of("e-zh", "e-en", "e-mixed", "e-asst")) {
            assertDone(id, id.equals("e-zh") || id.equals("e-mixed") ? 2 : 1);
        }
        assertThat(cli.query("SELECT extractor FROM extractions ORDER BY event_id")).hasSize(4)
                .allSatisfy(f -> assertThat(f).contains(MODEL).doesNotContain(API_KEY));

        // V2: every new memory was embedded through the embedding endpoint with its own key.
        assertThat(cli.rowCounts()).containsEntry("memories", 6L).containsEntry("embeddings", 6L)
                .containsEntry("extractions", 4L);
        assertThat(vectors.allTexts()).containsExactlyInAnyOrderElementsOf(
                cli.query("SELECT text FROM memories"));
        assertThat(vectors.authorizations).containsOnly("Bearer " + EMBED_KEY);
        assertThat(cli.query("SELECT DISTINCT fingerprint FROM embeddings")).hasSize(1)
                .allSatisfy(f -> assertThat(f).contains(MockModels.EMBED_MODEL).doesNotContain(EMBED_KEY));
    }

    @Test
    @DisplayName("X3 X4 a batch with invalid items: the good items land, each bad one is reported by index, field "
            + "and rule without its text")
    void invalidItems() {
        answers.enqueue(chat(memories(
                item("用户住在杭州", "住在杭州", "fact", "user_statement", 0.9),
                item("用户住在苏州", "住在苏州", "fact", "user_statement", 0.9),
                item("用户可能喜欢宠物", "我养了一只猫", "preference", "inference", 0.6, "subject", "user",
                        "fact_key", "likes_pets"),
                item("用户非常开心", "我养了一只猫", "emotion", "user_statement", 0.5,
                        "emotion", Map.of("label", "joy", "valence", 0.7, "arousal", 0.4)),
                item("用户成长为爱猫人士", "我养了一只猫", "growth", "inference", 0.4),
                item("用户有一只猫", "我养了一只猫", "fact", "user_statement", "high"),
                item("用户养了一只猫", "我养了一只猫", "episode", "user_statement", 0.8),
                item("用户说助手很好", "住在杭州", "observation", "assistant_expression", 0.3),
                item("用户的爱好是撸猫", "我养了一只猫", "hobby", "user_statement", 0.3),
                item("用户从三月起住在杭州", "住在杭州", "fact", "user_statement", 0.9, "valid_at", "2024-03-01T00:00:00"),
                item("用户非常确定住在杭州", "住在杭州", "fact", "user_statement", 1.5))));
        JsonNode user = submitJson("e-user", "user", ZH, 0).get("extraction");

        assertThat(user.get("extraction").asString()).isEqualTo("extracted");
        assertThat(rejections(user)).containsExactlyInAnyOrder("1 quote", "2 fact_key", "3 emotion", "4 kind",
                "5 confidence", "7 basis", "8 kind", "9 valid_at", "10 confidence");
        assertThat(rule(user, 1)).isEqualTo("must be an exact substring of the source event's text");
        assertThat(rule(user, 2)).contains("inference").contains("fact key");
        assertThat(rule(user, 3)).contains("assistant_expression");
        assertThat(rule(user, 4)).contains("inference").contains("growth");
        assertThat(rule(user, 5)).isEqualTo("must be a number");
        assertThat(rule(user, 7)).contains("assistant");
        assertThat(rule(user, 8)).isNotBlank();
        assertThat(rule(user, 9)).contains("offset");
        assertThat(rule(user, 10)).contains("[0, 1]");
        assertThat(user.get("rejected").toString()).doesNotContain("苏州", "宠物", "开心", "爱猫", "high", "助手很好", "撸猫",
                "hobby", "2024-03-01", "1.5", "三月", "确定");
        assertThat(ids(user.get("memory_ids"))).containsExactlyElementsOf(memoryIds("e-user"));
        assertThat(cli.query("SELECT text FROM memories WHERE event_id = 'e-user' ORDER BY seq"))
                .containsExactly("用户住在杭州", "用户养了一只猫");
        assertThat(cli.query("SELECT rejected FROM extractions WHERE event_id = 'e-user'").getFirst())
                .contains("1").contains("quote").doesNotContain("苏州", "撸猫");

        // An assistant event: a user_statement is rejected, the assistant's own emotion lands.
        answers.enqueue(chat(memories(
                item("用户的部署很顺利", "Glad the deploy went well", "episode", "user_statement", 0.7),
                item("助手为用户感到高兴", "我也替你高兴", "emotion", "assistant_expression", 0.9,
                        "emotion", Map.of("label", "joy", "valence", 0.8, "arousal", 0.5)))));
        CliRunner.Result asst = submit(cli, "e-asst", "assistant", ASSISTANT);
        assertThat(asst.code()).as(asst.toString()).isZero();
        assertThat(asst.out()).contains("1 memory(ies) saved, 1 item(s) rejected")
                .contains("rejected item 0: basis: user_statement requires a user event")
                .doesNotContain("用户的部署很顺利");
        assertThat(cli.query("SELECT text || '|' || emotion_label FROM memories WHERE event_id = 'e-asst'"))
                .containsExactly("助手为用户感到高兴|joy");
        assertThat(cli.rowCounts()).containsEntry("memories", 3L).containsEntry("embeddings", 3L);
    }

    // ------------------------------------------------------------------ failures

    @Test
    @DisplayName("X2 E5 content that is not JSON: exit 5, event saved pending with a sanitized reason; retry completes it")
    void malformedContent() {
        answers.enqueue(chat("Sure! Here are the memories: " + BODY_SECRET + " " + ZH + " {"));
        assertPending(submit(cli, "e1", "user", ZH), "e1", ZH, "not JSON");

        answers.enqueue(chat(ZH_ANSWER));
        CliRunner.Result retry = cli.run("--json", "retry");
        assertThat(retry.code()).as(retry.toString()).isZero();
        JsonNode summary = retry.json().get("summary");
        assertThat(summary.get("tried").asInt()).isEqualTo(1);
        assertThat(summary.get("extracted").asInt()).isEqualTo(1);
        assertThat(summary.get("pending").asInt()).isZero();
        assertThat(retry.json().get("extractions").get(0).get("event_id").asString()).isEqualTo("e1");
        assertDone("e1", 2);
        assertThat(model.getRequestCount()).isEqualTo(2);
    }

    @Test
    @DisplayName("X2 an answer without a memories array: exit 5, pending, reason names memories; retry --event completes it")
    void missingMemoriesKey() {
        answers.enqueue(chat("{\"facts\":[{\"text\":\"" + ZH + "\"}],\"note\":\"" + BODY_SECRET + "\"}"));
        assertPending(submit(cli, "e1", "user", ZH), "e1", ZH, "memories");

        answers.enqueue(chat(ZH_ANSWER));
        JsonNode retry = ok("--json", "retry", "--event", "e1");
        assertThat(retry.get("extractions").get(0).get("extraction").asString()).isEqualTo("extracted");
        assertThat(ids(retry.get("extractions").get(0).get("memory_ids"))).containsExactlyElementsOf(memoryIds("e1"));
        assertDone("e1", 2);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"429", "500", "timeout", "refused"})
    @DisplayName("X2 E5 an endpoint failure (HTTP 429, HTTP 500, timeout, connection refused): exit 5, committed and "
            + "pending, nothing leaked; retry --event, a re-submission and retry each complete one")
    void endpointFailure(String failure) throws IOException {
        String reason;
        MockResponse bad;
        if (failure.equals("refused")) {
            closed = new MockWebServer();
            closed.start();
            closed.close();
            cli.env("JIYI_EXTRACT_URL", closed.url("/v1").toString());
            reason = "extraction endpoint could not be reached (connection refused)";
            bad = null;
        } else if (failure.equals("timeout")) {
            cli.env("JIYI_EXTRACT_TIMEOUT_SECONDS", "0.5");
            reason = "extraction endpoint did not answer within 500 ms";
            // A good answer, too late: if the timeout were not enforced it would be applied.
            bad = new MockResponse.Builder(chat(ZH_ANSWER)).headersDelay(3, TimeUnit.SECONDS).build();
        } else {
            reason = "extraction endpoint answered HTTP " + failure;
            bad = failure(Integer.parseInt(failure), ZH + EN);
        }
        for (int i = 0; i < 3 && bad != null; i++) {
            answers.enqueue(bad);
        }
        int failedCalls = bad == null ? 0 : 3;
        assertPending(submit(cli, "e1", "user", ZH), "e1", ZH, reason);
        assertPending(submit(cli, "e3", "user", MIXED), "e3", MIXED, reason);
        CliRunner.Result json = cli.run(submitArgs("e2", "user", "conversation", EN, true));
        assertThat(json.code()).as(json.toString()).isEqualTo(ExitCode.PROVIDER);
        assertThat(json.json().get("status").asString()).isEqualTo("created");
        assertThat(json.json().get("event").get("extraction").asString()).isEqualTo("pending");
        assertThat(json.json().get("extraction").get("extraction").asString()).isEqualTo("pending");
        assertThat(json.json().get("extraction").get("reason").asString()).isEqualTo(reason).isEqualTo(storedError("e2"));
        assertNoLeak("JSON extraction", json.json().get("extraction").toString(), model, EN);
        assertNoLeak("JSON stderr", json.err(), model, EN);
        if (closed != null) {
            assertNoLeak("JSON output", json.out() + json.err(), closed);
            cli.env("JIYI_EXTRACT_URL", model.url("/v1").toString());
        }
        assertThat(model.getRequestCount()).isEqualTo(failedCalls);
        assertThat(cli.rowCounts()).containsEntry("events", 3L).containsEntry("memories", 0L)
                .containsEntry("extractions", 0L);

        // retry --event: only that event.
        answers.enqueue(chat(EN_ANSWER));
        JsonNode one = ok("--json", "retry", "--event", "e2");
        assertThat(one.get("summary").get("extracted").asInt()).isEqualTo(1);
        assertDone("e2", 1);
        assertThat(state("e1")).isEqualTo("pending");
        assertThat(state("e3")).isEqualTo("pending");

        // X2: re-submitting the same event resumes it.
        answers.enqueue(chat(memories(item("用户今天部署了 v2.3", "今天 deploy 了 v2.3", "episode", "user_statement", 0.7))));
        CliRunner.Result again = cli.run(submitArgs("e3", "user", "conversation", MIXED, true));
        assertThat(again.code()).as(again.toString()).isZero();
        assertThat(again.json().get("status").asString()).isEqualTo("existing");
        assertThat(again.json().get("extraction").get("extraction").asString()).isEqualTo("extracted");
        assertDone("e3", 1);

        // retry: the rest.
        answers.enqueue(chat(ZH_ANSWER));
        CliRunner.Result all = cli.run("retry");
        assertThat(all.code()).as(all.toString()).isZero();
        assertThat(all.out()).contains("extracted event e1: 2 memory(ies) saved");
        assertDone("e1", 2);
        assertThat(model.getRequestCount()).isEqualTo(failedCalls + 3);
        assertThat(cli.rowCounts()).containsEntry("memories", 4L).containsEntry("embeddings", 4L);
    }

    // ------------------------------------------------------------------ X5

    @Test
    @DisplayName("X5 X2 re-submitting an extracted event and retry --event after success return the same memory IDs, "
            + "create nothing and never call the model again")
    void duplicateCompletion() {
        answers.enqueue(chat(ZH_ANSWER));
        JsonNode first = submitJson("e1", "user", ZH, 0);
        List<String> memoryIds = ids(first.get("extraction").get("memory_ids"));
        assertThat(memoryIds).hasSize(2);
        Map<String, Long> counts = cli.rowCounts();
        assertThat(model.getRequestCount()).isEqualTo(1);
        answers.enqueue(chat(memories(item("用户住在杭州", "住在杭州", "fact", "user_statement", 0.9))));

        JsonNode again = submitJson("e1", "user", ZH, 0);
        assertThat(again.get("status").asString()).isEqualTo("existing");
        assertThat(again.get("extraction").get("extraction").asString()).isEqualTo("already_extracted");
        assertThat(ids(again.get("extraction").get("memory_ids"))).isEqualTo(memoryIds);

        JsonNode retry = ok("--json", "retry", "--event", "e1");
        assertThat(retry.get("extractions").get(0).get("extraction").asString()).isEqualTo("already_extracted");
        assertThat(ids(retry.get("extractions").get(0).get("memory_ids"))).isEqualTo(memoryIds);
        assertThat(retry.get("summary").get("extracted").asInt()).isZero();

        CliRunner.Result text = cli.run("retry", "--event", "e1");
        assertThat(text.code()).as(text.toString()).isZero();
        assertThat(text.out()).contains("already extracted").contains(memoryIds.get(0)).contains(memoryIds.get(1));

        assertThat(ok("--json", "retry").get("summary").get("tried").asInt()).isZero();
        assertThat(cli.rowCounts()).isEqualTo(counts);
        assertThat(model.getRequestCount()).as("no new request to the model").isEqualTo(1);
        assertThat(vectors.requests.get()).as("nothing new to embed").isEqualTo(1);
    }

    @Test
    @DisplayName("X5 two retries of one pending event racing, both answered by the model: one set of memories, "
            + "both report the same memory IDs")
    void racingCompletions() throws Exception {
        CliRunner offline = MockModels.embedWith(new CliRunner(home), embed);
        assertThat(submit(offline, "e1", "user", ZH).code()).isEqualTo(ExitCode.PROVIDER);
        // Each request waits until the other has arrived, so both calls are in flight at once.
        CyclicBarrier both = new CyclicBarrier(2);
        model.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                try {
                    both.await(20, TimeUnit.SECONDS);
                } catch (BrokenBarrierException | TimeoutException e) {
                    return failure(504, ZH);
                }
                return chat(ZH_ANSWER);
            }
        });
        // Two threads of our own: the common pool may have a parallelism of 1.
        ExecutorService threads = Executors.newFixedThreadPool(2);
        List<JsonNode> outcomes = new ArrayList<>();
        try {
            Future<CliRunner.Result> a = threads.submit(() -> cli.run("--json", "retry", "--event", "e1"));
            Future<CliRunner.Result> b = threads.submit(() -> cli.run("--json", "retry", "--event", "e1"));
            for (CliRunner.Result r : List.of(a.get(60, TimeUnit.SECONDS), b.get(60, TimeUnit.SECONDS))) {
                assertThat(r.code()).as(r.toString()).isZero();
                outcomes.add(r.json().get("extractions").get(0));
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(model.getRequestCount()).isEqualTo(2);
        List<String> statuses = new ArrayList<>();
        outcomes.forEach(o -> statuses.add(o.get("extraction").asString()));
        assertThat(statuses).containsExactlyInAnyOrder("extracted", "already_extracted");
        assertThat(ids(outcomes.get(0).get("memory_ids"))).isEqualTo(ids(outcomes.get(1).get("memory_ids")))
                .containsExactlyElementsOf(memoryIds("e1"));
        assertDone("e1", 2);
        assertThat(cli.rowCounts()).containsEntry("memories", 2L).containsEntry("extractions", 1L)
                .containsEntry("embeddings", 2L);
    }

    @Test
    @DisplayName("X2 E2 an event stored without --extract is extracted when submitted again with --extract, and "
            + "retry --event extracts one never queued")
    void extractLater() {
        ok("--json", "event", "submit", "--id", "e1", "--role", "user", "--session", "s1",
                "--occurred-at", "2024-05-01T10:00:00+08:00", "--text", ZH);
        ok("--json", "event", "submit", "--id", "e2", "--role", "user", "--session", "s1",
                "--occurred-at", "2024-05-01T10:00:00+08:00", "--text", EN);
        assertThat(state("e1")).isEqualTo("none");
        assertThat(ok("--json", "retry").get("summary").get("tried").asInt()).as("never queued").isZero();

        answers.enqueue(chat(ZH_ANSWER));
        JsonNode again = submitJson("e1", "user", ZH, 0);
        assertThat(again.get("status").asString()).isEqualTo("existing");
        assertThat(again.get("extraction").get("extraction").asString()).isEqualTo("extracted");
        assertDone("e1", 2);

        answers.enqueue(chat(EN_ANSWER));
        JsonNode retry = ok("--json", "retry", "--event", "e2");
        assertThat(retry.get("extractions").get(0).get("extraction").asString()).isEqualTo("extracted");
        assertDone("e2", 1);
        assertThat(model.getRequestCount()).isEqualTo(2);
    }

    @Test
    @DisplayName("X2 S1 retry resumes only its own scope; retry --event of another scope's event is exit 1")
    void retryIsScoped() {
        CliRunner offline = MockModels.embedWith(new CliRunner(home), embed);
        CliRunner.Result other = offline.run("--project", "other", "event", "submit", "--id", "o1", "--role", "user",
                "--session", "s1", "--text", ZH, "--extract");
        assertThat(other.code()).as(other.toString()).isEqualTo(ExitCode.PROVIDER);

        assertThat(ok("--json", "retry").get("summary").get("tried").asInt()).isZero();
        assertThat(cli.run("--json", "retry", "--event", "o1").code()).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(state("o1")).isEqualTo("pending");
        assertThat(model.getRequestCount()).isZero();

        answers.enqueue(chat(ZH_ANSWER));
        assertThat(ok("--json", "--project", "other", "retry").get("summary").get("extracted").asInt()).isEqualTo(1);
        assertDone("o1", 2);
        assertThat(cli.query("SELECT DISTINCT project_id FROM memories")).containsExactly("other");
    }

    @Test
    @DisplayName("X5 X4 an answer with no memories completes the event (done, nothing derived); re-submitting it "
            + "neither calls the model again nor creates anything")
    void emptyAnswerIsACompletion() {
        answers.enqueue(chat("{\"memories\": []}"));
        JsonNode first = submitJson("e1", "user", ZH, 0);
        assertThat(first.get("extraction").get("extraction").asString()).isEqualTo("extracted");
        assertThat(first.get("extraction").get("memory_ids")).isEmpty();
        assertDone("e1", 0);
        Map<String, Long> counts = cli.rowCounts();
        assertThat(counts).containsEntry("extractions", 1L);

        JsonNode again = submitJson("e1", "user", ZH, 0);
        assertThat(again.get("extraction").get("extraction").asString()).isEqualTo("already_extracted");
        assertThat(cli.rowCounts()).isEqualTo(counts);
        assertThat(model.getRequestCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("E2 X2 re-submitting a pending event with a different text is a conflict (exit 3): no extraction, "
            + "still pending")
    void conflictingResubmissionIsNotExtracted() {
        CliRunner offline = MockModels.embedWith(new CliRunner(home), embed);
        assertThat(submit(offline, "e1", "user", ZH).code()).isEqualTo(ExitCode.PROVIDER);
        Map<String, Long> counts = cli.rowCounts();
        answers.enqueue(chat(EN_ANSWER));
        CliRunner.Result r = submit(cli, "e1", "user", EN);
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.CONFLICT);
        assertThat(r.err()).doesNotContain(EN).doesNotContain(ZH);
        assertThat(model.getRequestCount()).isZero();
        assertThat(state("e1")).isEqualTo("pending");
        assertThat(cli.rowCounts()).isEqualTo(counts);
    }

    // ------------------------------------------------------------------ retry

    @Test
    @DisplayName("X2 retry with nothing pending: exit 0, says so, no request")
    void retryNothingPending() {
        CliRunner.Result text = cli.run("retry");
        assertThat(text.code()).as(text.toString()).isZero();
        assertThat(text.out()).contains("nothing is pending");
        JsonNode json = ok("--json", "retry");
        assertThat(json.get("summary").get("tried").asInt()).isZero();
        assertThat(json.get("summary").get("pending").asInt()).isZero();
        assertThat(json.get("extractions")).isEmpty();
        assertThat(model.getRequestCount()).isZero();
    }

    @Test
    @DisplayName("X2 retry stops at the first endpoint failure: later events stay pending and untried (exit 5); "
            + "then resumes oldest first")
    void retryStopsAtFirstEndpointFailure() throws Exception {
        CliRunner offline = MockModels.embedWith(new CliRunner(home), embed);
        for (String id : List.of("e1", "e2", "e3")) {
            assertThat(submit(offline, id, "user", ZH).code()).isEqualTo(ExitCode.PROVIDER);
        }
        assertThat(model.getRequestCount()).isZero();

        answers.enqueue(failure(503, ZH));
        CliRunner.Result json = cli.run("--json", "retry");
        assertThat(json.code()).as(json.toString()).isEqualTo(ExitCode.PROVIDER);
        JsonNode summary = json.json().get("summary");
        assertThat(summary.get("tried").asInt()).isEqualTo(1);
        assertThat(summary.get("extracted").asInt()).isZero();
        assertThat(summary.get("pending").asInt()).isEqualTo(3);
        assertThat(model.getRequestCount()).as("one failing call, not one per event").isEqualTo(1);
        assertThat(storedError("e1")).isEqualTo("extraction endpoint answered HTTP 503");
        assertThat(storedError("e2")).as("untried, reason unchanged").contains("JIYI_EXTRACT_URL");
        assertNoLeak("stderr", json.err(), model, ZH);

        answers.enqueue(failure(500, ZH));
        CliRunner.Result text = cli.run("retry");
        assertThat(text.code()).as(text.toString()).isEqualTo(ExitCode.PROVIDER);
        assertThat(text.out()).contains("2 more pending event(s) not tried");
        assertNoLeak("stdout", text.out(), model, ZH);
        assertThat(model.getRequestCount()).isEqualTo(2);
        assertThat(cli.query("SELECT count(*) FROM events WHERE extraction_state = 'pending'")).containsExactly("3");

        for (int i = 0; i < 3; i++) {
            answers.enqueue(chat(ZH_ANSWER));
        }
        JsonNode done = ok("--json", "retry");
        assertThat(done.get("summary").get("tried").asInt()).isEqualTo(3);
        assertThat(done.get("summary").get("extracted").asInt()).isEqualTo(3);
        assertThat(requestedEvents(5).subList(2, 5)).containsExactly("e1", "e2", "e3");
        for (String id : List.of("e1", "e2", "e3")) {
            assertDone(id, 2);
        }
    }

    @Test
    @DisplayName("X2 a malformed answer is about its event, not the endpoint: retry goes on with the next events")
    void retryContinuesAfterMalformedAnswer() {
        CliRunner offline = MockModels.embedWith(new CliRunner(home), embed);
        for (String id : List.of("e1", "e2", "e3")) {
            assertThat(submit(offline, id, "user", ZH).code()).isEqualTo(ExitCode.PROVIDER);
        }
        answers.enqueue(chat("not json " + BODY_SECRET));
        answers.enqueue(chat(ZH_ANSWER));
        answers.enqueue(chat(ZH_ANSWER));
        CliRunner.Result r = cli.run("--json", "retry");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.PROVIDER);
        assertThat(r.json().get("summary").get("tried").asInt()).isEqualTo(3);
        assertThat(r.json().get("summary").get("extracted").asInt()).isEqualTo(2);
        assertThat(r.json().get("summary").get("pending").asInt()).isEqualTo(1);
        assertThat(state("e1")).isEqualTo("pending");
        assertNoLeak("stored extraction_error", storedError("e1"), model, ZH);
        assertDone("e2", 2);
        assertDone("e3", 2);
    }

    @Test
    @DisplayName("X2 D1 an event deleted while retry waits for its answer: nothing is resurrected, and retry goes on "
            + "with the next pending event")
    void retryOutlivesEventDeletedMeanwhile() {
        CliRunner offline = MockModels.embedWith(new CliRunner(home), embed);
        for (String id : List.of("e1", "e2")) {
            assertThat(submit(offline, id, "user", ZH).code()).isEqualTo(ExitCode.PROVIDER);
        }
        List<Integer> deleted = new ArrayList<>();
        model.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                if (requestedEvent(request).equals("e1")) {
                    // In-process, while retry holds no transaction: the host deletes the event.
                    deleted.add(new CliRunner(home).run("delete", "--event", "e1").code());
                }
                return chat(ZH_ANSWER);
            }
        });

        CliRunner.Result r = cli.run("--json", "retry");
        assertThat(deleted).containsExactly(0);
        assertThat(cli.query("SELECT count(*) FROM events WHERE id = 'e1'")).containsExactly("0");
        assertThat(memoryIds("e1")).as("the late answer resurrects nothing").isEmpty();
        assertThat(state("e2")).as("retry must go on with e2\n" + r).isEqualTo("done");
        assertThat(r.code()).as(r.toString()).isZero();
        assertDone("e2", 2);
    }

    @Test
    @DisplayName("X2 retry --event with an unknown ID: exit 1, no request, nothing changed")
    void retryUnknownEvent() {
        answers.enqueue(chat(ZH_ANSWER));
        submitJson("e1", "user", ZH, 0);
        Map<String, Long> counts = cli.rowCounts();
        CliRunner.Result r = cli.run("--json", "retry", "--event", "no-such-event");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.NOT_FOUND);
        JsonNode error = Output.mapper().readTree(r.err());
        assertThat(error.get("error").asString()).isEqualTo("not_found");
        assertThat(error.get("message").asString()).contains("event");
        assertThat(cli.rowCounts()).isEqualTo(counts);
        assertThat(model.getRequestCount()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ E6, batch, configuration

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"reference", "persona"})
    @DisplayName("E6 X1 a reference or persona event with --extract is archived as skipped; the model gets no request")
    void sourceMaterialIsSkipped(String category) {
        CliRunner.Result r = cli.run(submitArgs("r1", "user", category, ZH, true));
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.json().get("event").get("extraction").asString()).isEqualTo("skipped");
        assertThat(r.json().get("extraction").get("extraction").asString()).isEqualTo("skipped");
        assertThat(state("r1")).isEqualTo("skipped");
        JsonNode retry = ok("--json", "retry", "--event", "r1");
        assertThat(retry.get("extractions").get(0).get("extraction").asString()).isEqualTo("skipped");
        assertThat(ok("--json", "retry").get("summary").get("tried").asInt()).isZero();
        assertThat(model.getRequestCount()).isZero();
        assertThat(cli.rowCounts()).containsEntry("memories", 0L).containsEntry("events", 1L);
    }

    @Test
    @DisplayName("X1 X2 E5 E6 event submit --batch --extract extracts each committed line in order: done, skipped, "
            + "pending on an endpoint failure, after which the rest wait pending untried (exit 5); retry completes them")
    void batchExtract() throws Exception {
        Path file = home.resolve("batch.jsonl");
        List<String> lines = new ArrayList<>();
        lines.add(line("b1", "user", "conversation", ZH));
        lines.add(line("b2", "user", "reference", "参考资料：猫的饲养指南 cat care guide"));
        lines.add(line("b3", "user", "conversation", EN));
        lines.add(line("b4", "assistant", "conversation", ASSISTANT));
        Files.write(file, lines);
        answers.enqueue(chat(ZH_ANSWER));
        answers.enqueue(failure(500, EN));

        CliRunner.Result r = cli.run("--json", "event", "submit", "--batch", file.toString(), "--extract");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.PROVIDER);
        JsonNode doc = r.jsonLines().getLast();
        JsonNode summary = doc.get("summary");
        assertThat(summary.get("committed").asInt()).isEqualTo(4);
        assertThat(summary.get("extracted").asInt()).isEqualTo(1);
        assertThat(summary.get("pending").asInt()).isEqualTo(1);
        assertThat(summary.get("skipped").asInt()).isEqualTo(1);
        assertThat(summary.get("untried").asInt()).isEqualTo(1);
        List<String> order = new ArrayList<>();
        doc.get("extractions").forEach(x -> order.add(x.get("event_id").asString() + ":" + x.get("extraction").asString()));
        assertThat(order).containsExactly("b1:extracted", "b2:skipped", "b3:pending");
        assertThat(requestedEvents(2)).containsExactly("b1", "b3");
        assertNoLeak("stdout", r.out(), model, EN, ZH);
        assertNoLeak("stderr", r.err(), model, EN, ZH);
        assertThat(r.err()).contains("b3").contains("HTTP 500");
        assertDone("b1", 2);
        assertThat(state("b2")).isEqualTo("skipped");
        assertThat(state("b3")).isEqualTo("pending");
        assertThat(state("b4")).isEqualTo("pending");
        assertThat(storedError("b3")).isEqualTo("extraction endpoint answered HTTP 500");

        answers.enqueue(chat(EN_ANSWER));
        answers.enqueue(chat(ASSISTANT_ANSWER));
        assertThat(ok("--json", "retry").get("summary").get("extracted").asInt()).isEqualTo(2);
        assertDone("b3", 1);
        assertDone("b4", 1);
        assertThat(model.getRequestCount()).isEqualTo(4);
    }

    @Test
    @DisplayName("X1 E5 a bad line stops event submit --batch --extract (exit 2, field named): the lines before it "
            + "are committed and extracted, the bad one is not stored")
    void batchExtractStopsAtBadLine() throws Exception {
        Path file = home.resolve("bad.jsonl");
        Files.write(file, List.of(line("b1", "user", "conversation", ZH),
                "{\"id\":\"b2\",\"role\":\"user\",\"text\":\"" + EN + "\",\"session\":\"s1\","
                        + "\"occurred_at\":\"2024-05-01T10:00:00\"}"));
        answers.enqueue(chat(ZH_ANSWER));
        CliRunner.Result r = cli.run("--json", "event", "submit", "--batch", file.toString(), "--extract");
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(r.err()).contains("line 2").contains("occurred_at").doesNotContain(EN);
        assertDone("b1", 2);
        assertThat(cli.query("SELECT id FROM events")).containsExactly("b1");
        assertThat(model.getRequestCount()).isEqualTo(1);
    }

    private static String line(String id, String role, String category, String text) {
        return Output.mapper().writeValueAsString(Map.of("id", id, "role", role, "category", category, "text", text,
                "session", "s1", "occurred_at", "2024-05-01T10:00:00+08:00"));
    }

    @Test
    @DisplayName("X1 X2 no JIYI_EXTRACT_URL: exit 5, event saved pending with a reason naming the setting; once "
            + "configured, retry completes it")
    void noExtractionEndpoint() {
        CliRunner offline = MockModels.embedWith(new CliRunner(home), embed);
        CliRunner.Result r = submit(offline, "e1", "user", ZH);
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.PROVIDER);
        assertThat(state("e1")).isEqualTo("pending");
        assertThat(storedError("e1")).contains("JIYI_EXTRACT_URL");
        assertThat(r.err()).contains("JIYI_EXTRACT_URL").doesNotContain(ZH);
        assertThat(r.out()).doesNotContain(ZH);

        answers.enqueue(chat(ZH_ANSWER));
        CliRunner.Result retry = cli.run("retry");
        assertThat(retry.code()).as(retry.toString()).isZero();
        assertDone("e1", 2);
    }

    @Test
    @DisplayName("X1 O7 JIYI_EXTRACT_URL without a model: exit 2 naming extract.model, never echoing the URL")
    void urlWithoutModel() {
        String url = "http://127.0.0.1:9/v1/private-path-q7z";
        CliRunner noModel = new CliRunner(home).env("JIYI_EXTRACT_URL", url).env("JIYI_EXTRACT_API_KEY", API_KEY);
        CliRunner.Result text = submit(noModel, "e1", "user", ZH);
        assertThat(text.code()).as(text.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(text.err()).contains("extract.model").doesNotContain("private-path-q7z").doesNotContain(API_KEY);
        CliRunner.Result json = noModel.run("--json", "retry");
        assertThat(json.code()).as(json.toString()).isEqualTo(ExitCode.INVALID);
        JsonNode error = Output.mapper().readTree(json.err());
        assertThat(error.get("error").asString()).isEqualTo("invalid_input");
        assertThat(error.get("message").asString()).contains("extract.model");
        assertThat(json.err() + json.out()).doesNotContain("private-path-q7z").doesNotContain(API_KEY);

        CliRunner zeroTimeout = MockModels.configure(new CliRunner(home), model, embed)
                .env("JIYI_EXTRACT_TIMEOUT_SECONDS", "0");
        CliRunner.Result timeout = zeroTimeout.run("retry");
        assertThat(timeout.code()).as(timeout.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(timeout.err()).contains("extract.timeout_seconds");
        assertThat(model.getRequestCount()).isZero();
    }
}
