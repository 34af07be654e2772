package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.mcp.JiyiMcpServer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;


/**
 * {@code jiyi mcp}: the MCP server over stdio (MCP Java SDK 2.1.0, protocol 2025-11-25). One process
 * serves one host with one engine: the {@link Jiyi} this command opened (its SQLite connection, the
 * Lucene index once opened, the embedding model once loaded) serves every call, concurrent calls
 * included, until the host closes stdin.
 *
 * <p><b>Stdout carries protocol messages only.</b> The transport writes to the process's stdout as it
 * was when the command started, and {@code System.out} is pointed at stderr for the server's life, so
 * that nothing printed by any library can corrupt the protocol. Notices (a rebuilt Lucene index, an
 * internal error's class) go to stderr; no user text does.
 *
 * <p>The server is {@link JiyiMcpServer}, in the mcp module; this verb opens the engine and hands it over.
 */
@Command(name = "mcp", description = {"Serve memory to an MCP host (Claude Desktop, an agent) over stdio.",
        "It runs until the host closes stdin. Tools: event_submit, memory_recall, memory_read, session_resume,",
        "checkpoint_save, memory_correct, memory_delete and persona_read. Personas are read-only there: change",
        "them with `jiyi persona`. See docs/mcp.md."})
final class McpCommand extends Verb {

    @Option(names = "--warm", paramLabel = "WHAT", defaultValue = "lexical",
            description = "Load in the background at start: none, lexical (default: the dictionary, and the Lucene "
                    + "index when recall.index is lucene) or all (also the local embedding model).")
    JiyiMcpServer.Warm warm;

    @Override
    int run(Jiyi jiyi, Output out) throws InterruptedException {
        JiyiMcpServer.serve(jiyi, scope(), root().stdin(), spec.commandLine().getErr(),
                root().env().get("JIYI_DEBUG") != null, warm, version(), out);
        return ExitCode.OK;
    }

    /** The version {@code jiyi --version} prints, without the name. */
    private static String version() {
        String v = JiyiCommand.class.getAnnotation(Command.class).version()[0];
        return v.startsWith("jiyi ") ? v.substring("jiyi ".length()) : v;
    }
}
