package dev.jiyi.opensearch;

import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.transport.Netty4ModulePlugin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * Three OpenSearch nodes in this JVM, started once for every test class that asks, talking HTTP on
 * loopback ports (no docker, no network): real nodes of OpenSearch's server jar, with its Netty
 * transport. OpenSearch's test framework is not used: it needs JUnit 4's randomized runner context
 * on every thread that starts a node, and jiyi's contract tests are JUnit 5. A node can be stopped
 * and started again on its data path ({@link #restart}), as a killed process would be.
 */
public final class TestCluster {

    static final int NODES = 3;

    private static TestCluster shared;

    private final Path base;
    private final int[] httpPorts = new int[NODES];
    private final int[] transportPorts = new int[NODES];
    private final Node[] nodes = new Node[NODES];

    private TestCluster(Path base) throws IOException {
        this.base = base;
        for (int i = 0; i < NODES; i++) {
            httpPorts[i] = freePort();
            transportPorts[i] = freePort();
        }
    }

    /** The cluster every test class of this JVM shares, started on first use, stopped at exit. */
    public static synchronized TestCluster get() {
        if (shared == null) {
            try {
                TestCluster c = new TestCluster(Files.createTempDirectory("jiyi-opensearch-"));
                c.startAll();
                Runtime.getRuntime().addShutdownHook(new Thread(c::stopAll));
                shared = c;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return shared;
    }

    /** The nodes' HTTP addresses, as {@code index.opensearch.url} takes them. */
    public String url() {
        List<String> urls = new ArrayList<>();
        for (int p : httpPorts) {
            urls.add("http://127.0.0.1:" + p);
        }
        return String.join(",", urls);
    }

    /** The folder every node keeps its data under (for scans of what is on disk). */
    public Path dataRoot() {
        return base;
    }

    private void startAll() {
        List<CompletableFuture<Void>> started = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            int n = i;
            started.add(CompletableFuture.runAsync(() -> start(n)));
        }
        started.forEach(CompletableFuture::join);
        waitFor("wait_for_nodes=" + NODES + "&wait_for_status=green");
    }

    private Settings settings(int i) {
        Path home = base.resolve("node-" + i);
        return Settings.builder()
                .put("cluster.name", "jiyi-test")
                .put("node.name", "node-" + i)
                .put("path.home", home.toString())
                .put("path.data", home.resolve("data").toString())
                .put("network.host", "127.0.0.1")
                .put("http.port", httpPorts[i])
                .put("transport.port", transportPorts[i])
                .put("transport.type", "netty4")
                .put("http.type", "netty4")
                .putList("discovery.seed_hosts", java.util.Arrays.stream(transportPorts)
                        .mapToObj(p -> "127.0.0.1:" + p).collect(Collectors.toList()))
                .putList("cluster.initial_cluster_manager_nodes", "node-0", "node-1", "node-2")
                .put("cluster.routing.allocation.disk.threshold_enabled", false)
                .put("indices.breaker.total.use_real_memory", false)
                .build();
    }

    private synchronized void start(int i) {
        try {
            Settings s = settings(i);
            Path config = base.resolve("node-" + i).resolve("config");
            Files.createDirectories(config);
            var env = InternalSettingsPreparer.prepareEnvironment(s, Map.of(), config, () -> "node-" + i);
            PluginInfo netty = new PluginInfo("transport-netty4", "Netty transport", "3.9.0",
                    org.opensearch.Version.CURRENT, "21", Netty4ModulePlugin.class.getName(), List.of(), false);
            Node node = new Node(env, List.of(netty), true) { };
            node.start();
            nodes[i] = node;
        } catch (Exception e) {
            throw new IllegalStateException("starting OpenSearch node " + i, e);
        }
    }

    /** Stops node {@code i} (its data stays) and returns; {@link #startAgain} brings it back. */
    void stop(int i) {
        try {
            nodes[i].close();
            nodes[i].awaitClose(30, java.util.concurrent.TimeUnit.SECONDS);
            nodes[i] = null;
        } catch (Exception e) {
            throw new IllegalStateException("stopping OpenSearch node " + i, e);
        }
    }

    void startAgain(int i) {
        start(i);
        waitFor("wait_for_nodes=" + NODES + "&wait_for_status=green");
    }

    /** Deletes an index (a test's own), if it exists. */
    public void deleteIndex(String index) {
        request("DELETE", "/" + index + "?ignore_unavailable=true");
    }

    /** A request to the first running node; the answer's body. */
    String request(String method, String pathAndQuery) {
        return request(method, pathAndQuery, null);
    }

    /** A request with a JSON body (none when null) to the first running node; the answer's body. */
    String request(String method, String pathAndQuery, String json) {
        HttpClient http = HttpClient.newHttpClient();
        for (int i = 0; i < NODES; i++) {
            if (nodes[i] == null) {
                continue;
            }
            try {
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPorts[i] + pathAndQuery));
                if (json == null) {
                    request.method(method, HttpRequest.BodyPublishers.noBody());
                } else {
                    request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
                }
                return http.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
            } catch (IOException e) {
                // the next node
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no node of the test cluster answers");
    }

    /** Waits until the cluster's health answers {@code condition} (a query string of {@code _cluster/health}). */
    void waitFor(String condition) {
        HttpClient http = HttpClient.newHttpClient();
        for (int t = 0; t < 600; t++) {
            for (int i = 0; i < NODES; i++) {
                if (nodes[i] == null) {
                    continue;
                }
                try {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPorts[i]
                            + "/_cluster/health?timeout=1s&" + condition)).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                        return;
                    }
                } catch (IOException e) {
                    // not up yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("the test cluster did not reach " + condition);
    }

    /** Stops every node and deletes the cluster's folder, so no test run leaves one behind. */
    private void stopAll() {
        for (int i = 0; i < NODES; i++) {
            if (nodes[i] != null) {
                try {
                    nodes[i].close();
                    nodes[i].awaitClose(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (IOException e) {
                    // exiting anyway
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        try (var paths = Files.walk(base)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // exiting anyway: the folder is a temporary one
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
