package dev.jiyi.cli;

import dev.jiyi.engine.Output;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jiyi mcp} at the byte level: a separate JVM fed raw JSON-RPC lines, its stdout and stderr
 * read as they are, so that anything other than protocol messages on stdout, user text on stderr,
 * or a server that outlives its host would show.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class McpStdioTest {

    private static final String SECRET = "秘密-SECRET-5e2a";

    @TempDir
    Path home;

    /** A running server: its stdin, its stdout lines as they come, its stderr lines. */
    private record Server(Process process, OutputStream in, BlockingQueue<String> out, List<String> err) {

        static Server start(CliRunner cli) throws IOException {
            return start(cli, Main.class);
        }

        /** Starts {@code jiyi mcp} through {@code main} (a main class taking jiyi's arguments). */
        static Server start(CliRunner cli, Class<?> main) throws IOException {
            ProcessBuilder pb = cli.process("mcp");
            List<String> command = new ArrayList<>(pb.command());
            command.set(command.indexOf(Main.class.getName()), main.getName());
            Process p = pb.command(command).start();
            BlockingQueue<String> out = new LinkedBlockingQueue<>();
            List<String> err = new CopyOnWriteArrayList<>();
            drain(p.getInputStream(), out::add, "stdout");
            drain(p.getErrorStream(), err::add, "stderr");
            return new Server(p, p.getOutputStream(), out, err);
        }

        private static void drain(InputStream stream, Consumer<String> sink, String name) {
            Thread.ofPlatform().daemon().name("mcp-test-" + name).start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        sink.accept(line);
                    }
                } catch (IOException e) {
                    sink.accept("(read failed: " + e.getClass().getSimpleName() + ")");
                }
            });
        }

        void send(String line) throws IOException {
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        /**
         * The response of {@code id}, reading stdout until it arrives. Responses may come in any order
         * (calls run concurrently): every line read is kept in {@code seen}, where later calls find theirs.
         */
        JsonNode response(int id, List<String> seen) throws InterruptedException {
            while (true) {
                for (String line : seen) {
                    JsonNode node = json(line);
                    if (node.has("id") && node.get("id").asInt() == id) {
                        return node;
                    }
                }
                String line = out.poll(60, TimeUnit.SECONDS);
                assertThat(line).as("response " + id + " within 60 s; stderr: " + err).isNotNull();
                seen.add(line);
            }
        }
    }

    /**
     * {@link Main} with a library that prints to {@code System.out} whenever stdin is read, as careless
     * libraries do: the server's guard must send that to stderr, never into the protocol.
     */
    static final class NoisyMain {
        static final String NOISE = "NOISE printed to System.out by a library";

        public static void main(String[] args) {
            InputStream in = System.in;
            System.setIn(new FilterInputStream(in) {
                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    System.out.println(NOISE);
                    return super.read(b, off, len);
                }
            });
            Main.main(args);
        }
    }

    /** A stdout line as JSON; anything else on stdout fails the test. */
    private static JsonNode json(String line) {
        try {
            return Output.mapper().readTree(line);
        } catch (tools.jackson.core.JacksonException e) {
            throw new AssertionError("stdout carries something other than a protocol message: " + line, e);
        }
    }

    private static String request(int id, String method, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}";
    }

    private static String toolCall(int id, String tool, String arguments) {
        return request(id, "tools/call", "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}");
    }

    private static final String INITIALIZE = request(1, "initialize", "{\"protocolVersion\":\"2025-11-25\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw-test\",\"version\":\"1\"}}");

    @Test
    @DisplayName("O7 E5 stdout carries JSON-RPC messages only, even when a library prints to System.out, and stderr no "
            + "user text; requests sent just before stdin closes are answered and stored, then the server exits 0")
    void stdoutCarriesProtocolOnly() throws Exception {
        Server server = Server.start(new CliRunner(home), NoisyMain.class);
        List<String> seen = new ArrayList<>();
        server.send(INITIALIZE);
        assertThat(server.response(1, seen).get("result").get("serverInfo").get("name").stringValue()).isEqualTo("jiyi");
        server.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        server.send(request(2, "tools/list", "{}"));
        server.send(toolCall(3, "event_submit", "{\"id\":\"raw-1\",\"role\":\"user\",\"text\":\"我的" + SECRET
                + "是蓝色的\\nsecond line\",\"session\":\"s\",\"occurred_at\":\"2024-05-01T10:00:00+08:00\"}"));
        Map<Integer, JsonNode> responses = new HashMap<>();
        for (int id : new int[] {2, 3}) {
            responses.put(id, server.response(id, seen));
        }
        // The Lucene index is built on first use: its notice goes to stderr.
        server.send(toolCall(4, "memory_recall", "{\"query\":\"蓝色\",\"index\":\"lucene\"}"));
        server.send(toolCall(5, "session_resume", "{\"budget\":4000,\"query\":\"蓝色\"}"));
        server.send(toolCall(6, "memory_recall", "{\"query\":\"蓝色\",\"limit\":\"" + SECRET + "\"}"));
        server.send(request(7, "ping", "{}"));
        // E5: the last message of a conversation, sent as the host closes stdin, is still stored and answered.
        server.send(toolCall(8, "event_submit", "{\"id\":\"raw-last\",\"role\":\"assistant\",\"text\":\"再见\","
                + "\"session\":\"s\",\"occurred_at\":\"2024-05-01T10:05:00+08:00\"}"));
        server.in().close();
        assertThat(server.process().waitFor(60, TimeUnit.SECONDS)).as("exits after stdin closes; stderr: " + server.err())
                .isTrue();
        assertThat(server.process().exitValue()).isZero();
        for (int id = 4; id <= 8; id++) {
            responses.put(id, server.response(id, seen));
        }
        assertThat(responses.get(2).get("result").get("tools")).hasSize(8);
        assertThat(responses.get(3).get("result").get("isError").asBoolean()).isFalse();
        assertThat(responses.get(4).get("result").get("structuredContent").get("results").toString()).contains(SECRET);
        assertThat(responses.get(5).get("result").get("structuredContent").get("context").stringValue()).contains(SECRET);
        JsonNode bad = responses.get(6).get("result");
        assertThat(bad.get("isError").asBoolean()).isTrue();
        assertThat(bad.toString()).contains("limit: must be an integer").doesNotContain(SECRET);
        assertThat(responses.get(8).get("result").get("structuredContent").get("status").stringValue())
                .isEqualTo("created");
        assertThat(new CliRunner(home).query("SELECT id FROM events ORDER BY sequence")).containsExactly("raw-1", "raw-last");
        Thread.sleep(200); // the drain threads read to the end of the streams
        seen.addAll(server.out());
        for (String line : seen) {
            JsonNode node = json(line);
            assertThat(node.isObject()).as(line).isTrue();
            assertThat(node.get("jsonrpc").stringValue()).as(line).isEqualTo("2.0");
            assertThat(node.has("id") || node.has("method")).as(line).isTrue();
        }
        assertThat(String.join("\n", server.err())).contains("lucene index rebuilt").contains(NoisyMain.NOISE)
                .doesNotContain(SECRET).doesNotContain("蓝色");
    }

    @Test
    @DisplayName("O7 a line that is not JSON-RPC ends the session, and the server process exits instead of hanging")
    void malformedLineEndsTheServer() throws Exception {
        Server server = Server.start(new CliRunner(home));
        server.send(INITIALIZE);
        server.response(1, new ArrayList<>());
        server.send("this is not JSON " + SECRET);
        assertThat(server.process().waitFor(30, TimeUnit.SECONDS)).as("exits; stderr: " + server.err()).isTrue();
        assertThat(server.process().exitValue()).isZero();
        assertThat(String.join("\n", server.err())).doesNotContain(SECRET);
    }
}
