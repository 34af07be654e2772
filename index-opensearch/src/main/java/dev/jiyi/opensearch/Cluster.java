package dev.jiyi.opensearch;

import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.message.BasicHeader;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.opensearch.client.Request;
import org.opensearch.client.Response;
import org.opensearch.client.ResponseException;
import org.opensearch.client.RestClient;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * The cluster as jiyi talks to it: JSON over HTTP through OpenSearch's low-level REST client, which
 * spreads requests over the nodes given and skips a node that does not answer. A request the
 * cluster refuses for load (429) is retried with a growing pause: that is the follower's
 * backpressure. An error says what was asked and what the cluster answered (status and error
 * type), never a document's text or the credentials.
 */
final class Cluster implements Closeable {

    static final ObjectMapper JSON = JsonMapper.builder().build();

    /** Tries of a request the cluster refused for load, and the first pause between them. */
    private static final int TRIES = 8;
    private static final long FIRST_PAUSE_MS = 50;

    private final RestClient client;

    private Cluster(RestClient client) {
        this.client = client;
    }

    static Cluster connect(OpenSearchOptions options) {
        HttpHost[] hosts = new HttpHost[options.nodes().size()];
        for (int i = 0; i < hosts.length; i++) {
            URI u = options.nodes().get(i);
            int port = u.getPort() > 0 ? u.getPort() : u.getScheme().equals("https") ? 443 : 9200;
            hosts[i] = new HttpHost(u.getScheme(), u.getHost(), port);
        }
        // A purge's merge or a large bulk may take a while on a busy cluster: two minutes an answer.
        var builder = RestClient.builder(hosts).setRequestConfigCallback(config -> config
                .setResponseTimeout(org.apache.hc.core5.util.Timeout.ofMinutes(2)));
        if (options.username() != null) {
            String token = Base64.getEncoder().encodeToString(
                    (options.username() + ":" + options.password()).getBytes(StandardCharsets.UTF_8));
            builder.setDefaultHeaders(new Header[] {new BasicHeader("Authorization", "Basic " + token)});
        }
        return new Cluster(builder.build());
    }

    static ObjectNode object() {
        return JSON.createObjectNode();
    }

    /** A JSON request; the answer's body, or an {@link IOException} saying what failed. */
    JsonNode call(String what, String method, String path, Map<String, String> parameters, JsonNode body)
            throws IOException {
        return send(what, method, path, parameters, body == null ? null : JSON.writeValueAsString(body), false);
    }

    /** A bulk request of newline-delimited JSON lines. */
    JsonNode bulk(String what, String path, Map<String, String> parameters, String lines) throws IOException {
        return send(what, "POST", path, parameters, lines, true);
    }

    /** Whether {@code path} exists (a HEAD request: 200 or 404). */
    boolean exists(String what, String path) throws IOException {
        try {
            Response r = client.performRequest(new Request("HEAD", path));
            return r.getStatusLine().getStatusCode() == 200;
        } catch (ResponseException e) {
            if (e.getResponse().getStatusLine().getStatusCode() == 404) {
                return false;
            }
            throw failure(what, e);
        }
    }

    private JsonNode send(String what, String method, String path, Map<String, String> parameters, String body,
                          boolean ndjson) throws IOException {
        long pause = FIRST_PAUSE_MS;
        for (int attempt = 1; ; attempt++) {
            Request request = new Request(method, path);
            parameters.forEach(request::addParameter);
            if (body != null) {
                request.setEntity(new org.apache.hc.core5.http.io.entity.StringEntity(body,
                        ndjson ? org.apache.hc.core5.http.ContentType.create("application/x-ndjson", StandardCharsets.UTF_8)
                               : org.apache.hc.core5.http.ContentType.APPLICATION_JSON));
            }
            try {
                Response r = client.performRequest(request);
                String text = r.getEntity() == null ? "{}" : EntityUtils.toString(r.getEntity(), StandardCharsets.UTF_8);
                return JSON.readTree(text.isEmpty() ? "{}" : text);
            } catch (java.net.ConnectException | org.apache.hc.core5.http.ConnectionClosedException e) {
                throw new IOException(what + ": no node of the cluster answered", e);
            } catch (ResponseException e) {
                if (e.getResponse().getStatusLine().getStatusCode() == 429 && attempt < TRIES) {
                    sleep(pause);
                    pause *= 2;
                    continue;
                }
                throw failure(what, e);
            } catch (org.apache.hc.core5.http.ParseException e) {
                throw new IOException(what + ": the cluster's answer could not be read", e);
            }
        }
    }

    /** The status and the error type of a refused request: no reason text, which may quote a document. */
    private static IOException failure(String what, ResponseException e) {
        int status = e.getResponse().getStatusLine().getStatusCode();
        String type = "";
        try {
            if (e.getResponse().getEntity() != null) {
                JsonNode error = JSON.readTree(EntityUtils.toString(e.getResponse().getEntity(), StandardCharsets.UTF_8))
                        .path("error");
                String t = error.isObject() ? error.path("type").asString("") : "";
                type = t.isEmpty() ? "" : " (" + t + ")";
            }
        } catch (IOException | org.apache.hc.core5.http.ParseException | RuntimeException ignored) {
            // the status alone then
        }
        return new IOException(what + ": the cluster answered " + status + type);
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the cluster was busy", e);
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
