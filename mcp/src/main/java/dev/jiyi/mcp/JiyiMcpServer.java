package dev.jiyi.mcp;

import dev.jiyi.authority.Scope;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;

import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;

/**
 * The MCP server over stdio (MCP Java SDK 2.1.0, protocol 2025-11-25) on one engine: the {@link Jiyi}
 * it is given (its SQLite connection, the Lucene index once opened, the embedding model once loaded)
 * serves every call, concurrent calls included, until the host closes stdin.
 *
 * <p><b>Stdout carries protocol messages only.</b> The transport writes to the process's stdout as it
 * was when serving started, and {@code System.out} is pointed at stderr for the server's life, so
 * that nothing printed by any library can corrupt the protocol. Notices (a rebuilt Lucene index, an
 * internal error's class) go to stderr; no user text does.
 *
 * <p>The tools are in {@link McpTools}; no tool changes a persona (S6).
 */
public final class JiyiMcpServer {

    private JiyiMcpServer() {
    }

    /** What the server loads in the background as soon as it serves, so that the first calls do not wait. */
    public enum Warm {
        /** Nothing: each thing loads on the first call that needs it. */
        NONE,
        /** The jieba dictionary, and the Lucene index when it is the home's {@code recall.index}. */
        LEXICAL,
        /** Those and the local embedding model (about 1.3 s and 100 MB), for semantic and deep recall. */
        ALL
    }

    /** What the model is told about this server at initialization. */
    public static final String INSTRUCTIONS = """
            jiyi (记忆) is the user's local long-term memory. Submit each visible user and assistant message with \
            event_submit (stable ID, ISO-8601 time with an offset). At the start of a session, or when the topic \
            changes, call session_resume and put its context before your answer. Use memory_recall when the user \
            refers to the past, and memory_read to see a memory's original message. When the user says a memory \
            is wrong, use memory_correct; when the user asks you to forget something, memory_delete. Use \
            checkpoint_save to record where a long task stands. The persona is read-only here (persona_read). \
            Every tool takes optional persona and project IDs; leave them out to use the server's defaults.""";

    /** How long a stop by signal waits for calls under way before the process ends anyway. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    /**
     * Serves {@code jiyi} over stdio until the host closes {@code in} (or stops the process): the
     * protocol on the process's stdout as it is now, {@code System.out} pointed at stderr meanwhile.
     *
     * @param defaults the scope a call without persona or project uses
     * @param err      where notices go (never user text)
     * @param debug    internal errors name their stack on {@code err}
     * @param out      where a failure to close the session is told
     */
    public static void serve(Jiyi jiyi, Scope defaults, InputStream in, PrintWriter err, boolean debug, Warm warm,
                             String version, Output out) throws InterruptedException {
        PrintStream protocol = System.out;
        protocol.flush();
        System.setOut(System.err);
        try {
            McpTools tools = new McpTools(jiyi, defaults, err, debug);
            McpStdio stdio = new McpStdio(McpJsonDefaults.getMapper(), in, protocol);
            McpSyncServer server = McpServer.sync(stdio)
                    .serverInfo("jiyi", version)
                    .instructions(INSTRUCTIONS)
                    .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                    // McpArguments checks every call with messages that name the field, never the value.
                    .validateToolInputs(false)
                    .tools(tools.specifications())
                    .build();
            if (warm != Warm.NONE) {
                Thread.ofPlatform().daemon().name("jiyi-mcp-warm-up").start(() -> tools.warmUp(warm == Warm.ALL));
            }
            // A host may stop the server with a signal rather than by closing stdin (the SDK's own client
            // does): calls under way get a moment to finish, and the Lucene index commits as it closes.
            Thread hook = Thread.ofPlatform().name("jiyi-mcp-stop").unstarted(() -> {
                try {
                    if (tools.close(STOP_WAIT)) {
                        jiyi.close();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                tools.keepIndexUp();
                stdio.awaitEnd();
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException stopping) {
                    // the JVM is already shutting down: the hook does the rest
                }
                tools.close(); // waits for calls under way; the engine closes after this returns
                try {
                    server.closeGracefully();
                } catch (RuntimeException e) {
                    out.notice("mcp: closing the session failed (" + e.getClass().getSimpleName() + ")");
                }
            }
        } finally {
            System.setOut(protocol);
        }
    }
}
