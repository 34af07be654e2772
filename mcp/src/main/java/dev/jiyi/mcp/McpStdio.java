package dev.jiyi.mcp;

import dev.jiyi.engine.Output;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerSession;
import io.modelcontextprotocol.spec.McpServerTransport;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The SDK's stdio transport, with two additions.
 *
 * <p><b>Every request answered before the end.</b> When stdin ends, the SDK stops writing at once: a
 * request a host sent just before closing stdin (the conversation's last message, submitted on the
 * way out) would go unanswered, and the server could close the engine under it. So this transport
 * counts the requests that come in and the messages that go out, and lets the end of stdin reach the
 * SDK only once every request has been answered (or after {@link #ANSWER_LIMIT}).
 *
 * <p><b>Knowing when the session has ended</b>: at the end of stdin, or when the SDK stops reading
 * after a line it could not take (not JSON-RPC, or over the size limit). The SDK then closes the
 * session, which closes the session's transport; this wrapper sees that close and releases
 * {@link #awaitEnd}.
 */
final class McpStdio implements McpServerTransportProvider {

    /** The longest the end of stdin waits for answers (a call to an extraction model may be slow). */
    static final Duration ANSWER_LIMIT = Duration.ofSeconds(30);

    private final StdioServerTransportProvider delegate;
    private final CountDownLatch ended = new CountDownLatch(1);
    /** Requests read (JSON-RPC messages with a method and an id); only the SDK's reading thread counts. */
    private long requests;
    /** Messages written to stdout (each ends with the one newline the SDK writes after it). */
    private final AtomicLong written = new AtomicLong();

    McpStdio(McpJsonMapper mapper, InputStream in, OutputStream out) {
        this.delegate = new StdioServerTransportProvider(mapper, new Input(in), new Counted(out));
    }

    /** Blocks until the session has ended. */
    void awaitEnd() throws InterruptedException {
        ended.await();
    }

    @Override
    public void setSessionFactory(McpServerSession.Factory sessionFactory) {
        delegate.setSessionFactory(transport -> sessionFactory.create(new Watched(transport)));
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return delegate.notifyClients(method, params);
    }

    @Override
    public Mono<Void> notifyClient(String sessionId, String method, Object params) {
        return delegate.notifyClient(sessionId, method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }

    /** Waits until as many messages have gone out as requests came in, at most {@link #ANSWER_LIMIT}. */
    private void awaitAnswers() {
        long deadline = System.nanoTime() + ANSWER_LIMIT.toNanos();
        while (written.get() < requests && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Stdin, split into lines as the SDK splits it, counting the requests among them; its end is held
     * back until they are answered. Only the SDK's one reading thread uses it.
     */
    private final class Input extends FilterInputStream {

        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        private boolean endSeen;

        Input(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            if (c == -1) {
                end();
            } else {
                scan(new byte[] {(byte) c}, 0, 1);
            }
            return c;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n == -1) {
                end();
            } else {
                scan(b, off, n);
            }
            return n;
        }

        private void scan(byte[] b, int off, int n) {
            int start = off;
            for (int i = off; i < off + n; i++) {
                if (b[i] == '\n') {
                    line.write(b, start, i - start);
                    count(line.toByteArray());
                    line.reset();
                    start = i + 1;
                }
            }
            line.write(b, start, off + n - start);
        }

        private void count(byte[] message) {
            try {
                JsonNode node = Output.mapper().readTree(message);
                if (node != null && node.isObject() && node.has("method") && node.has("id") && !node.get("id").isNull()) {
                    requests++;
                }
            } catch (JacksonException notJson) {
                // not a request: the SDK rejects the line and ends the session
            }
        }

        private void end() {
            if (!endSeen) {
                endSeen = true;
                awaitAnswers();
            }
        }
    }

    /** Stdout, counting the messages written: the SDK writes each, then one newline, then flushes. */
    private final class Counted extends FilterOutputStream {

        Counted(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            if (b == '\n') {
                written.incrementAndGet();
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            int newlines = 0;
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n') {
                    newlines++;
                }
            }
            written.addAndGet(newlines);
        }
    }

    /** The session's transport, which reports its closing. */
    private final class Watched implements McpServerTransport {

        private final McpServerTransport transport;

        Watched(McpServerTransport transport) {
            this.transport = transport;
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return transport.sendMessage(message);
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return transport.unmarshalFrom(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return transport.closeGracefully().doFinally(signal -> ended.countDown());
        }

        @Override
        public void close() {
            try {
                transport.close();
            } finally {
                ended.countDown();
            }
        }

        @Override
        public List<String> protocolVersions() {
            return transport.protocolVersions();
        }
    }
}
