package dev.jiyi.mcp;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.JiyiException;
import dev.jiyi.authority.Scope;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.LocalEmbedder;
import dev.jiyi.providers.ProviderException;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The tools of one {@code jiyi mcp} process over its one engine: each call's arguments are checked
 * against the tool's declared parameters, run, and answered with the CLI's {@code --json} document as
 * structured content (and the same JSON as text), or with a tool error ({@code isError}) whose text
 * names the field and the rule, never the value (O7). A failing call never stops the server.
 *
 * <p>Calls run concurrently on the SDK's worker threads. The engine is safe for that: the authority
 * and the Lucene index serialize their own work (their methods are synchronized, always taken in
 * the order authority, then Lucene), and the embedding model is loaded once per process. A
 * read-write gate lets {@link #close} wait for the calls under way before the engine is closed;
 * a call that arrives after it is refused. After a call that writes, {@link IndexKeeper} brings the
 * home's recall index up to the write between calls.
 */
final class McpTools {

    private final Jiyi jiyi;
    private final Scope defaults;
    private final Output log;
    private final PrintWriter err;
    private final boolean debug;
    private final List<McpTool> tools;
    private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    private final IndexKeeper keeper;

    /**
     * @param defaults the scope of the server's {@code --persona} and {@code --project}
     * @param err where notices and internal errors go (stderr: stdout carries the protocol only)
     * @param debug print the stack trace of an internal error ({@code JIYI_DEBUG})
     */
    McpTools(Jiyi jiyi, Scope defaults, PrintWriter err, boolean debug) {
        this.jiyi = jiyi;
        this.defaults = defaults;
        this.err = err;
        this.log = new Output(err, err, false);
        this.debug = debug;
        this.tools = List.of(McpWriteTools.submit(jiyi), McpReadTools.recall(jiyi), McpReadTools.read(jiyi),
                McpReadTools.resume(jiyi), McpWriteTools.checkpoint(jiyi), McpWriteTools.correct(jiyi),
                McpWriteTools.delete(jiyi), McpReadTools.persona(jiyi));
        this.keeper = new IndexKeeper(jiyi, gate.readLock(), log);
    }

    List<McpTool> tools() {
        return tools;
    }

    /** The tools as the SDK's server takes them. */
    List<SyncToolSpecification> specifications() {
        return tools.stream().map(t -> SyncToolSpecification.builder()
                .tool(t.definition())
                .callHandler((exchange, request) -> call(t, request.arguments()))
                .build()).toList();
    }

    /** Runs one call of {@code tool}; never throws. */
    CallToolResult call(McpTool tool, Map<String, Object> arguments) {
        if (!gate.readLock().tryLock()) {
            return error(ExitCode.name(ExitCode.REFUSED), "the server is shutting down");
        }
        try {
            McpArguments args = McpArguments.check(tool.params(), arguments);
            Scope scope = new Scope(args.string("persona", defaults.personaId()),
                    args.string("project", defaults.projectId()));
            Map<String, Object> result = tool.handler().call(args, scope);
            if (tool.hints() != McpTool.Hints.READ_ONLY) {
                keeper.wrote();
            }
            return success(result);
        } catch (McpTool.Failure e) {
            return error(e.code(), e.getMessage());
        } catch (JiyiException | ProviderException e) {
            // Domain and provider messages are jiyi's own words: a field and a rule, no user text (O7, X2).
            return error(ExitCode.name(ExitCode.of(e)), e.getMessage());
        } catch (RuntimeException e) {
            log.error(ExitCode.INTERNAL, "mcp " + tool.name() + ": internal error: " + e.getClass().getName());
            if (debug) {
                e.printStackTrace(err);
                err.flush();
            }
            return error(ExitCode.name(ExitCode.INTERNAL), "internal error: " + e.getClass().getName());
        } finally {
            jiyi.takeNotices().forEach(log::notice);
            gate.readLock().unlock();
        }
    }

    private static CallToolResult success(Map<String, Object> result) {
        return CallToolResult.builder()
                .structuredContent(result)
                .addTextContent(Output.mapper().writeValueAsString(result))
                .isError(false)
                .build();
    }

    private static CallToolResult error(String code, String message) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("error", code);
        m.put("message", message);
        return CallToolResult.builder()
                .structuredContent(m)
                .addTextContent(code + ": " + message)
                .isError(true)
                .build();
    }

    /**
     * Loads what the first calls would otherwise wait for: the jieba dictionary; the Lucene index,
     * caught up with the change log, when it is the home's {@code recall.index}; and, with
     * {@code model}, the local embedding models the home has vectors of. Runs inside the gate, so that closing waits for it;
     * a failure is a notice on stderr, and the call that needs the thing tries again.
     */
    void warmUp(boolean model) {
        if (!gate.readLock().tryLock()) {
            return;
        }
        try {
            ChineseTokens.warmUp();
            jiyi.backend(jiyi.defaultIndex()).warmUp(jiyi.authority());
            if (model) {
                // The models the home has vectors of (a Chinese home never loads the English model);
                // in a home without vectors yet, the first.
                List<Embedder> all = jiyi.embedders().all();
                List<Embedder> held = all.stream()
                        .filter(e -> jiyi.authority().read(s -> s.hasVectors(e.fingerprint()))).toList();
                for (Embedder e : held.isEmpty() ? all.subList(0, 1) : held) {
                    if (e instanceof LocalEmbedder local) {
                        local.embed(List.of("预热 warm-up"));
                    }
                }
            }
        } catch (JiyiException | ProviderException e) {
            log.notice("warm-up stopped: " + e.getMessage());
        } catch (RuntimeException e) {
            log.notice("warm-up stopped: " + e.getClass().getName());
        } finally {
            jiyi.takeNotices().forEach(log::notice);
            gate.readLock().unlock();
        }
    }

    /** Starts looking for other processes' writes to keep the recall index up with ({@link IndexKeeper#start}). */
    void keepIndexUp() {
        keeper.start();
    }

    /** Waits for the calls under way to end and refuses every later one: the engine may then be closed. */
    void close() {
        keeper.closing();
        gate.writeLock().lock();
        keeper.close();
    }

    /**
     * {@link #close}, waiting at most {@code timeout} for the calls under way; false when one is still
     * running then (the engine must stay open).
     */
    boolean close(Duration timeout) throws InterruptedException {
        keeper.closing();
        if (!gate.writeLock().tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        keeper.close();
        return true;
    }
}
