package dev.jiyi.cli;

import dev.jiyi.authority.FileBytes;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static dev.jiyi.cli.McpServerTest.args;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server whose home recalls through Lucene keeps the index up with its own writes between calls:
 * what {@code event_submit} wrote is applied and committed with no recall asking for it, so the
 * next recall has nothing left to apply, and a deletion is purged from the index's files at once.
 * Another process reads the server's last commit ({@code doctor}), and the test reads the files.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class McpKeepUpTest {

    @TempDir
    Path home;

    @Test
    @DisplayName("L2 after event_submit the server's Lucene index applies and commits the turns with no recall in between (zh, en, mixed)")
    void writesAreCommittedBetweenCalls() throws Exception {
        CliRunner cli = luceneHome();
        List<String> stderr = new CopyOnWriteArrayList<>();
        McpSyncClient client = McpServerTest.startClient(cli, stderr);
        try {
            // A recall first, so that the server holds the index (its writer) before anyone else opens it.
            assertThat(call(client, "memory_recall", args("query", "西湖 Madrid")).isError()).isFalse();
            String[][] turns = {{"k1", "我下周去杭州看西湖"}, {"k2", "I am learning Spanish for a trip to Madrid"},
                    {"k3", "周末的 pottery class 在望京"}};
            for (String[] t : turns) {
                submit(client, t[0], t[1]);
            }
            awaitCommitted(cli, turns.length);
            assertThat(stderr).noneMatch(l -> l.contains("keeping the index up") || l.contains("looking at the change log"));
        } finally {
            client.closeGracefully();
        }
    }

    @Test
    @DisplayName("L2 a turn another process writes (jiyi event submit beside the server) reaches the server's Lucene commit with no call to the server")
    void otherProcessesWritesAreKeptUpWith() throws Exception {
        CliRunner cli = luceneHome();
        McpSyncClient client = McpServerTest.startClient(cli, new CopyOnWriteArrayList<>());
        try {
            assertThat(call(client, "memory_recall", args("query", "西湖")).isError()).isFalse();
            CliRunner.Result r = cli.run("event", "submit", "--id", "hook1", "--role", "user", "--session", "s1",
                    "--text", "捕获钩子写的一轮 a turn the capture hook wrote");
            assertThat(r.code()).as(r.err()).isZero();
            awaitCommitted(cli, 1);
        } finally {
            client.closeGracefully();
        }
    }

    @Test
    @DisplayName("D1 L2 L4 after memory_delete the server purges the deleted text from its Lucene files with no recall in between")
    void deletionsArePurgedBetweenCalls() throws Exception {
        CliRunner cli = luceneHome();
        McpSyncClient client = McpServerTest.startClient(cli, new CopyOnWriteArrayList<>());
        try {
            assertThat(call(client, "memory_recall", args("query", "暗号 locker")).isError()).isFalse();
            submit(client, "secret", "我的储物柜暗号是 qorvexite，locker code 别告诉别人");
            submit(client, "kept", "我下周去杭州看西湖 West Lake");
            awaitCommitted(cli, 2);
            assertThat(luceneFilesContaining(cli, "orvexit")).as("the check can see the term").isNotEmpty();

            assertThat(call(client, "memory_delete", args("event_id", "secret")).isError()).isFalse();
            awaitCommitted(cli, 1);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!luceneFilesContaining(cli, "orvexit").isEmpty() && System.nanoTime() < end) {
                Thread.sleep(200);
            }
            assertThat(luceneFilesContaining(cli, "orvexit")).as("no residue, and no recall asked").isEmpty();
        } finally {
            client.closeGracefully();
        }
    }

    /** A home whose recall index is Lucene. */
    private CliRunner luceneHome() throws IOException {
        Files.createDirectories(home);
        Files.writeString(home.resolve("config.properties"), "recall.index=lucene\n", StandardCharsets.UTF_8);
        return new CliRunner(home);
    }

    private static void submit(McpSyncClient client, String id, String text) {
        CallToolResult r = call(client, "event_submit", args("id", id, "role", "user", "text", text, "session", "s1",
                "occurred_at", "2024-05-01T10:00:00+08:00"));
        assertThat(r.isError()).as(r.content().toString()).isFalse();
    }

    /** The files under the home's Lucene folder holding {@code text}; the server may be replacing files meanwhile. */
    private static List<String> luceneFilesContaining(CliRunner cli, String text) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return FileBytes.filesContaining(cli.home().resolve("lucene"), text);
            } catch (NoSuchFileException | UncheckedIOException e) {
                if (attempt == 20) {
                    throw e;
                }
                try {
                    Thread.sleep(50); // a file the server replaced while the scan read the folder
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static CallToolResult call(McpSyncClient client, String tool, Map<String, Object> args) {
        return client.callTool(new McpSchema.CallToolRequest(tool, args));
    }

    /**
     * Waits (up to 30 s) until the index the server last committed holds {@code events} events and
     * every change-log entry; its {@code doctor --json} object then.
     */
    private static JsonNode awaitCommitted(CliRunner cli, int events) throws InterruptedException {
        JsonNode lucene = null;
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); System.nanoTime() < end; Thread.sleep(200)) {
            CliRunner.Result r = cli.run("--json", "doctor");
            lucene = r.json().path("lucene");
            // read_only: the server holds the index, so this doctor's own catch-up cannot have committed it
            assertThat(lucene.path("read_only").asBoolean()).as("the server holds the index: " + lucene).isTrue();
            if (lucene.path("events").asLong(-1) == events
                    && lucene.path("applied_seq").asLong(-1) == lucene.path("change_log_head").asLong(-2)) {
                return lucene;
            }
        }
        throw new AssertionError("the server's last Lucene commit did not reach " + events + " events: " + lucene);
    }
}
