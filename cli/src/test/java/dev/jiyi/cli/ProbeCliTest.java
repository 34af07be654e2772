package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Output;
import dev.jiyi.pack.TokenCounter;
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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.jiyi.cli.MockModels.BODY_SECRET;
import static dev.jiyi.cli.MockModels.assertNoLeak;
import static dev.jiyi.cli.MockModels.body;
import static dev.jiyi.cli.MockModels.chat;
import static dev.jiyi.cli.MockModels.failure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jiyi probe} through the real command line against two local MockWebServers standing in for
 * two chat models (no test touches the network): what each receives, the side-by-side output, each
 * model's own pack, a failing model, the configuration and its fallbacks, and bad input.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProbeCliTest {

    static final String ZH = "我住在哪里？杭州还是上海？";
    static final String EN = "Do I prefer tea or coffee?";
    static final String MIXED = "今天 deploy 了 v2.3，我住在杭州，do you remember my cat 团子?";

    static final String REPLY_ZH = "你住在杭州，上周还养了一只叫团子的猫。需要我帮你安排周末去西湖吗？";
    static final String REPLY_EN = "You live in Hangzhou, and you prefer tea over coffee. Shall I remember anything else?";

    /** Distinctive keys, so that a leak cannot be a coincidence. */
    static final String KEY = "sk-jiyi-probe-KEY-3e8a51";
    static final String KEY_A = "sk-jiyi-probe-A-KEY-90b2";
    static final String EXTRACT_KEY = "sk-jiyi-extract-KEY-1d4f";

    @TempDir
    Path home;

    MockWebServer a;
    MockWebServer b;
    QueueDispatcher answersA;
    QueueDispatcher answersB;
    CliRunner cli;

    @BeforeEach
    void start() throws IOException {
        a = new MockWebServer();
        answersA = MockModels.queue(a);
        a.start();
        b = new MockWebServer();
        answersB = MockModels.queue(b);
        b.start();
        cli = new CliRunner(home);
        seed(cli);
        cli.env("JIYI_PROBE_A_URL", url(a)).env("JIYI_PROBE_B_URL", url(b)).env("JIYI_PROBE_API_KEY", KEY)
                .env("JIYI_PROBE_TIMEOUT_SECONDS", "10");
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    private static String url(MockWebServer server) {
        return server.url("/v1").toString();
    }

    /** A small bilingual archive: two user events, an assistant turn, and memories derived by hand. */
    private static void seed(CliRunner cli) {
        ok(cli, "event", "submit", "--id", "e1", "--role", "user", "--session", "s1",
                "--occurred-at", "2024-05-01T10:00:00+08:00", "--text", "我叫小明，住在杭州。上周我养了一只猫，名字叫团子。");
        ok(cli, "event", "submit", "--id", "e2", "--role", "user", "--session", "s1",
                "--occurred-at", "2024-05-01T10:01:00+08:00", "--text", "I moved to Hangzhou in March and I prefer tea over coffee.");
        ok(cli, "event", "submit", "--id", "e3", "--role", "assistant", "--session", "s1",
                "--occurred-at", "2024-05-01T10:02:00+08:00", "--text", "记住了！Tea it is.");
        ok(cli, "memory", "add", "--event", "e1", "--kind", "fact", "--basis", "user_statement",
                "--text", "用户住在杭州", "--quote", "住在杭州", "--subject", "user", "--fact-key", "home_city");
        ok(cli, "memory", "add", "--event", "e1", "--kind", "episode", "--basis", "user_statement",
                "--text", "用户上周养了一只叫团子的猫", "--quote", "上周我养了一只猫，名字叫团子");
        ok(cli, "memory", "add", "--event", "e2", "--kind", "preference", "--basis", "user_statement",
                "--text", "The user prefers tea over coffee", "--quote", "I prefer tea over coffee");
    }

    private static CliRunner.Result ok(CliRunner cli, String... args) {
        CliRunner.Result r = cli.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
        return r;
    }

    private static RecordedRequest only(MockWebServer server) throws InterruptedException {
        RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(request).as("a request").isNotNull();
        assertThat(server.takeRequest(100, TimeUnit.MILLISECONDS)).as("only one request").isNull();
        return request;
    }

    /** The system message's context: what follows the instruction sentence. */
    private static String context(RecordedRequest request) {
        JsonNode messages = body(request).path("messages");
        assertThat(messages.size()).isEqualTo(2);
        assertThat(messages.path(0).path("role").stringValue()).isEqualTo("system");
        String system = messages.path(0).path("content").stringValue();
        assertThat(system).startsWith(ProbeCommand.INSTRUCTION + "\n\n");
        return system.substring(ProbeCommand.INSTRUCTION.length() + 2);
    }

    private static String userMessage(RecordedRequest request) {
        JsonNode user = body(request).path("messages").path(1);
        assertThat(user.path("role").stringValue()).isEqualTo("user");
        return user.path("content").stringValue();
    }

    /**
     * One column of the side-by-side output (0 left, 1 right), its lines joined without spaces, so
     * that a reply can be found in it however it was wrapped.
     */
    private static String column(String out, int side) {
        StringBuilder sb = new StringBuilder();
        for (String row : out.split("\n")) {
            if (row.isBlank()) {
                break;
            }
            int gap = (row + " ").indexOf(SideBySide.GAP);
            assertThat(gap).as("a two-column row: " + row).isPositive();
            sb.append(side == 0 ? row.substring(0, gap) : row.substring(Math.min(row.length(), gap + 3)));
        }
        return sb.toString().replace(" ", "");
    }

    private static void assertNoSecrets(CliRunner.Result r, MockWebServer... servers) {
        for (MockWebServer s : servers) {
            assertNoLeak("stdout", r.out(), s);
            assertNoLeak("stderr", r.err(), s);
        }
        for (String secret : List.of(KEY, KEY_A, EXTRACT_KEY, BODY_SECRET)) {
            assertThat(r.out() + r.err()).doesNotContain(secret);
        }
    }

    // ------------------------------------------------------------------ tests

    @ParameterizedTest
    @ValueSource(strings = {ZH, EN, MIXED})
    @DisplayName("each model receives the instruction and its pack as the system message and MESSAGE exactly; both replies side by side")
    void bothReplies(String message) throws InterruptedException {
        answersA.enqueue(chat(REPLY_ZH));
        answersB.enqueue(chat(REPLY_EN));

        CliRunner.Result r = cli.run("probe", "--model-a", "qwen2.5-7b-instruct", "--model-b", "gpt-4o-mini", message);

        assertThat(r.code()).as(r.toString()).isZero();
        RecordedRequest ra = only(a);
        RecordedRequest rb = only(b);
        assertThat(ra.getTarget()).isEqualTo("/v1/chat/completions");
        assertThat(body(ra).path("model").stringValue()).isEqualTo("qwen2.5-7b-instruct");
        assertThat(body(rb).path("model").stringValue()).isEqualTo("gpt-4o-mini");
        assertThat(userMessage(ra)).isEqualTo(message);
        assertThat(userMessage(rb)).isEqualTo(message);
        assertThat(ra.getHeaders().get("Authorization")).isEqualTo("Bearer " + KEY);
        assertThat(rb.getHeaders().get("Authorization")).isEqualTo("Bearer " + KEY);
        for (RecordedRequest request : List.of(ra, rb)) {
            JsonNode pack = Output.mapper().readTree(context(request));
            assertThat(pack.path("about").stringValue()).startsWith("Memory context from jiyi");
            assertThat(pack.has("persona")).isTrue();
            assertThat(pack.path("recalled_memories").toString()).contains(message.equals(EN)
                    ? "The user prefers tea over coffee" : "用户住在杭州");
        }

        String header = r.out().lines().findFirst().orElseThrow();
        assertThat(header).startsWith("A: qwen2.5-7b-instruct").contains(SideBySide.GAP + "B: gpt-4o-mini");
        assertThat(column(r.out(), 0)).contains(REPLY_ZH.replace(" ", "")).doesNotContain("Hangzhou");
        assertThat(column(r.out(), 1)).contains(REPLY_EN.replace(" ", "")).doesNotContain("西湖");
        for (String row : r.out().split("\n")) {
            assertThat(SideBySide.width(row)).as(row).isLessThanOrEqualTo(ProbeCommand.DEFAULT_WIDTH);
        }
        assertThat(r.out()).contains("recalled by: query");
        assertNoSecrets(r, a, b);
    }

    @Test
    @DisplayName("--layout blocks prints each reply whole, one after the other")
    void blocks() {
        answersA.enqueue(chat(REPLY_ZH));
        answersB.enqueue(chat("第一行\nsecond line"));

        CliRunner.Result r = cli.run("probe", "--layout", "blocks", "--model-a", "m-a", "--model-b", "m-b", ZH);

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).contains("== A: m-a ==\n", "\n" + REPLY_ZH + "\n", "== B: m-b ==\n", "\n第一行\nsecond line\n")
                .contains("b: the same pack (counted in utf8_bytes)");
        assertThat(r.out().indexOf("== A")).isLessThan(r.out().indexOf("== B"));
    }

    @Test
    @DisplayName("P5 both models get the same pack: counted in UTF-8 bytes when they count differently, so within the budget by either count")
    void samePackForBoth() throws InterruptedException {
        answersA.enqueue(chat(REPLY_ZH));
        answersB.enqueue(chat(REPLY_EN));
        JsonNode full = cli.run("--json", "resume", "--query", ZH, "--budget", "100000").json();
        int budget = full.path("tokens").intValue() - 1; // in bytes, one component must be left out

        CliRunner.Result r = cli.run("--json", "probe", "--budget", "" + budget, "--model-a", "gpt-4o",
                "--model-b", "local-qwen", ZH);

        assertThat(r.code()).as(r.toString()).isZero();
        JsonNode out = r.json();
        JsonNode packA = out.path("a").path("pack");
        JsonNode packB = out.path("b").path("pack");
        assertThat(packA).isEqualTo(packB);
        assertThat(packA.path("tokenizer").stringValue()).isEqualTo("utf8_bytes");
        assertThat(packA.path("omitted").isEmpty()).isFalse();
        String context = packA.path("context").stringValue();
        assertThat(TokenCounter.UTF8_BYTES.count(context)).isEqualTo(packA.path("tokens").intValue())
                .isLessThanOrEqualTo(budget);
        assertThat(TokenCounter.forModel("gpt-4o").count(context)).isLessThanOrEqualTo(budget);
        assertThat(context(only(a))).isEqualTo(context);
        assertThat(context(only(b))).isEqualTo(context);
        assertThat(out.path("a").path("reply").stringValue()).isEqualTo(REPLY_ZH);
        assertThat(out.path("b").path("reply").stringValue()).isEqualTo(REPLY_EN);
        assertThat(out.path("a").path("model").stringValue()).isEqualTo("gpt-4o");
        assertThat(out.path("query").stringValue()).isEqualTo(ZH);
        assertThat(out.path("a").path("error").isNull()).isTrue();

        // Both OpenAI models of one encoding: the pack is counted in its tokens.
        answersA.enqueue(chat(REPLY_ZH));
        answersB.enqueue(chat(REPLY_EN));
        JsonNode tokens = cli.run("--json", "probe", "--budget", "" + budget, "--model-a", "gpt-4o",
                "--model-b", "gpt-4.1-mini", ZH).json();
        assertThat(tokens.path("a").path("pack").path("tokenizer").stringValue()).isEqualTo("o200k_base");
        assertThat(tokens.path("a").path("pack").path("omitted").isEmpty()).isTrue();
    }

    @Test
    @DisplayName("X2 one model failing (HTTP 500 with a secret body): the other's reply is printed, the failure in its place, exit 5")
    void oneFails() {
        answersA.enqueue(chat(REPLY_ZH));
        answersB.enqueue(failure(500, ZH));

        CliRunner.Result r = cli.run("probe", "--model-a", "m-a", "--model-b", "m-b", ZH);

        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.PROVIDER);
        assertThat(column(r.out(), 0)).contains(REPLY_ZH.replace(" ", ""));
        assertThat(column(r.out(), 1)).contains("error:chatendpointansweredHTTP500(exit5)");
        assertThat(r.err()).contains("error: model b: chat endpoint answered HTTP 500").doesNotContain("model a");
        assertNoSecrets(r, a, b);

        answersA.enqueue(failure(500, EN));
        answersB.enqueue(chat(REPLY_EN));
        CliRunner.Result json = cli.run("--json", "probe", "--model-a", "m-a", "--model-b", "m-b", EN);

        assertThat(json.code()).as(json.toString()).isEqualTo(ExitCode.PROVIDER);
        JsonNode out = json.json();
        assertThat(out.path("a").path("reply").isNull()).isTrue();
        assertThat(out.path("a").path("error").path("error").stringValue()).isEqualTo("provider_failure");
        assertThat(out.path("a").path("error").path("kind").stringValue()).isEqualTo("http_status");
        assertThat(out.path("a").path("error").path("status").intValue()).isEqualTo(500);
        assertThat(out.path("b").path("reply").stringValue()).isEqualTo(REPLY_EN);
        assertThat(Output.mapper().readTree(json.err().strip()).path("message").stringValue())
                .isEqualTo("model a: chat endpoint answered HTTP 500");
        assertNoSecrets(json, a, b);
    }

    @Test
    @DisplayName("X2 a model that times out and one that answers garbage: both failures shown, sanitized, exit 5")
    void timeoutAndGarbage() {
        cli.env("JIYI_PROBE_TIMEOUT_SECONDS", "1");
        answersA.enqueue(new MockResponse.Builder(chat(REPLY_ZH)).headersDelay(4, TimeUnit.SECONDS).build());
        answersB.enqueue(MockModels.json(200, "{\"choices\": [" + BODY_SECRET + " 你好"));

        CliRunner.Result r = cli.run("probe", "--model-a", "m-a", "--model-b", "m-b", MIXED);

        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.PROVIDER);
        assertThat(r.err()).contains("model a: chat endpoint did not answer within 1 s",
                "model b: chat endpoint answered with something other than JSON");
        assertThat(column(r.out(), 0)).contains("didnotanswerwithin1s");
        assertThat(column(r.out(), 1)).contains("somethingotherthanJSON");
        assertThat(r.err()).doesNotContain("你好").doesNotContain(MIXED);
        assertNoSecrets(r, a, b);
    }

    @Test
    @DisplayName("without probe URLs both models go to the extraction endpoint, with the extraction key")
    void extractionFallback() throws InterruptedException {
        CliRunner plain = new CliRunner(home).env("JIYI_EXTRACT_URL", url(a)).env("JIYI_EXTRACT_MODEL", "extractor")
                .env("JIYI_EXTRACT_API_KEY", EXTRACT_KEY);
        answersA.enqueue(chat(REPLY_ZH));
        answersA.enqueue(chat(REPLY_EN));

        CliRunner.Result r = plain.run("probe", "--model-a", "m-a", "--model-b", "m-b", ZH);

        assertThat(r.code()).as(r.toString()).isZero();
        List<String> models = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RecordedRequest request = a.takeRequest(5, TimeUnit.SECONDS);
            models.add(body(request).path("model").stringValue());
            assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer " + EXTRACT_KEY);
        }
        assertThat(models).containsExactlyInAnyOrder("m-a", "m-b");
        assertNoSecrets(r, a);
    }

    @Test
    @DisplayName("the extraction key is never sent to another server: --url-b gets no key, the extraction URL does")
    void extractionKeyStaysHome() throws InterruptedException {
        CliRunner plain = new CliRunner(home).env("JIYI_EXTRACT_URL", url(a)).env("JIYI_EXTRACT_MODEL", "extractor")
                .env("JIYI_EXTRACT_API_KEY", EXTRACT_KEY);
        answersA.enqueue(chat(REPLY_ZH));
        answersB.enqueue(chat(REPLY_EN));

        CliRunner.Result r = plain.run("probe", "--model-a", "m-a", "--model-b", "m-b", "--url-b", url(b), EN);

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(only(a).getHeaders().get("Authorization")).isEqualTo("Bearer " + EXTRACT_KEY);
        assertThat(only(b).getHeaders().get("Authorization")).isNull();
    }

    @Test
    @DisplayName("JIYI_PROBE_URL serves both; --url-a and a per-model key override it for model A")
    void probeUrlAndOverrides() throws InterruptedException {
        CliRunner shared = new CliRunner(home).env("JIYI_PROBE_URL", url(b)).env("JIYI_PROBE_API_KEY", KEY)
                .env("JIYI_PROBE_A_API_KEY", KEY_A);
        answersA.enqueue(chat(REPLY_ZH));
        answersB.enqueue(chat(REPLY_EN));

        CliRunner.Result r = shared.run("probe", "--model-a", "m-a", "--url-a", url(a), "--model-b", "m-b", EN);

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(only(a).getHeaders().get("Authorization")).isEqualTo("Bearer " + KEY_A);
        RecordedRequest rb = only(b);
        assertThat(rb.getHeaders().get("Authorization")).isEqualTo("Bearer " + KEY);
        assertThat(body(rb).path("model").stringValue()).isEqualTo("m-b");
        assertNoSecrets(r, a, b);
    }

    @Test
    @DisplayName("no endpoint, a bad URL setting, a bad key: exit 2 naming the setting, before any model is called")
    void configurationErrors() throws InterruptedException {
        CliRunner none = new CliRunner(home);
        CliRunner.Result r = none.run("probe", "--model-a", "m-a", "--model-b", "m-b", ZH);
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(r.err()).contains("--url-a: no chat endpoint is configured for model a", "JIYI_PROBE_URL");

        cli.env("JIYI_PROBE_B_URL", "ftp://" + KEY + "@example.com/v1");
        r = cli.run("probe", "--model-a", "m-a", "--model-b", "m-b", ZH);
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(r.err()).contains("probe.b.url: must be an http:// or https:// URL");

        cli.env("JIYI_PROBE_B_URL", url(b)).env("JIYI_PROBE_API_KEY", "sk with spaces " + KEY);
        r = cli.run("probe", "--model-a", "m-a", "--model-b", "m-b", ZH);
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(r.err()).contains("probe.api_key: must be printable ASCII");

        assertThat(a.takeRequest(100, TimeUnit.MILLISECONDS)).isNull();
        assertThat(b.takeRequest(100, TimeUnit.MILLISECONDS)).isNull();
        assertNoSecrets(r, a, b);
    }

    @Test
    @DisplayName("bad input names the field and the rule, never the value, and calls no model")
    void badInput() throws InterruptedException {
        String secretText = "秘密的消息 secret message";
        assertThat(invalid("probe", "--model-a", "m-a", "--model-b", "m-b", "   ")).contains("MESSAGE: is required");
        assertThat(invalid("probe", "--model-a", "m-a", "--model-b", "m-b", "--width", "10", secretText))
                .contains("--width: must be between 40 and 1000").doesNotContain("秘密");
        assertThat(invalid("probe", "--model-a", "m-a", "--model-b", "m-b", "--budget", "0", secretText))
                .contains("budget").doesNotContain("秘密");
        assertThat(invalid("probe", "--model-a", "m-a", "--model-b", "m-b", "--budget", "50", secretText))
                .contains("--budget: leaves no room for the persona and framing", "insufficient_budget")
                .doesNotContain("秘密");
        assertThat(invalid("probe", "--model-a", "m-a", secretText)).contains("--model-b").doesNotContain("秘密");
        assertThat(invalid("probe", "--model-a", "x".repeat(201), "--model-b", "m-b", secretText))
                .contains("--model-a: must be at most 200 characters");
        assertThat(invalid("probe", "--model-a", "m-a", "--model-b", "m-b", "--layout", "grid", secretText))
                .contains("--layout: must be one of columns, blocks").doesNotContain("grid");
        assertThat(a.takeRequest(100, TimeUnit.MILLISECONDS)).isNull();
        assertThat(b.takeRequest(100, TimeUnit.MILLISECONDS)).isNull();
    }

    private String invalid(String... args) {
        CliRunner.Result r = cli.run(args);
        assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.INVALID);
        assertThat(r.out()).isEmpty();
        return r.err();
    }

    @Test
    @DisplayName("a reply with terminal escapes is printed inert, and a cut-off reply says so")
    void inertAndCutOff() {
        answersA.enqueue(chat("红色\u001B[31m警告\u001B[0m done"));
        answersB.enqueue(MockModels.json(200,
                "{\"choices\": [{\"finish_reason\": \"length\", \"message\": {\"content\": \"我记得你说过\"}}]}"));

        CliRunner.Result r = cli.run("probe", "--model-a", "m-a", "--model-b", "m-b", ZH);

        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out()).doesNotContain("\u001B").contains("红色\uFFFD[31m警告");
        assertThat(column(r.out(), 1)).contains("我记得你说过", "[cutoffatthemodel'slengthlimit]", "length");
    }
}
