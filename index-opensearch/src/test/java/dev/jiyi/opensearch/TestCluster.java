package dev.jiyi.opensearch;

import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.transport.Netty4ModulePlugin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
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

    /** Every port handed out in this JVM, so two nodes never get the same one. */
    private static final Set<Integer> CHOSEN = ConcurrentHashMap.newKeySet();

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
            started.add(CompletableFuture.runAsync(() -> start(n, false)));
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

    /**
     * Starts node {@code i}, trying up to three times: the ports were free when chosen, but another
     * process of the machine may bind one before the node does. A node that failed is closed (its
     * data folder's lock released) before the next try, which takes new ports unless the node is
     * coming back on its old data ({@code again}), where the other nodes know its transport port.
     */
    private synchronized void start(int i, boolean again) {
        Exception failed = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            Node node = null;
            try {
                if (attempt > 0 && !again) {
                    httpPorts[i] = freePort();
                    transportPorts[i] = freePort();
                }
                Settings s = settings(i);
                Path config = base.resolve("node-" + i).resolve("config");
                Files.createDirectories(config);
                var env = InternalSettingsPreparer.prepareEnvironment(s, Map.of(), config, () -> "node-" + i);
                PluginInfo netty = new PluginInfo("transport-netty4", "Netty transport", "3.9.0",
                        org.opensearch.Version.CURRENT, "21", Netty4ModulePlugin.class.getName(), List.of(), false);
                node = new Node(env, List.of(netty), true) { };
                node.start();
                nodes[i] = node;
                return;
            } catch (Exception e) {
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
                closeQuietly(node);
                if (attempt < 2) {
                    pause(1_000);
                }
            }
        }
        throw new IllegalStateException("starting OpenSearch node " + i + " (three tries)", failed);
    }

    private static void closeQuietly(Node node) {
        if (node == null) {
            return;
        }
        try {
            node.close();
            node.awaitClose(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            // the next try reports its own failure
        }
    }

    /** Sleeps, keeping the thread's interrupt: a test that waits on the cluster stops when asked. */
    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
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
        start(i, true);
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
            pause(100);
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

    /**
     * A port free now, below Linux's ephemeral range (32768 and up), so that no outgoing connection
     * of the starting nodes (each dials the others' transport ports) is given it by the kernel
     * before its node binds it.
     */
    private static int freePort() throws IOException {
        var random = ThreadLocalRandom.current();
        for (int t = 0; t < 100; t++) {
            int port = random.nextInt(20_000, 32_000);
            if (!CHOSEN.add(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            } catch (IOException e) {
                // taken: another
            }
        }
        try (ServerSocket s = new ServerSocket(0)) { // (a hundred taken: any free one, even an ephemeral one)
            CHOSEN.add(s.getLocalPort());
            return s.getLocalPort();
        }
    }
}
