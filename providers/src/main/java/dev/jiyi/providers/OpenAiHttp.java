package dev.jiyi.providers;

import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.time.Duration;
import javax.net.ssl.SSLException;

/**
 * One POST of a JSON object to an OpenAI-compatible endpoint, shared by {@link ChatExtractionClient}
 * and {@link RemoteEmbedder}: the bearer key, the timeouts, and the translation of every failure into
 * a {@link ProviderException} whose message is jiyi's own words plus numbers (X2, O7).
 *
 * <p>No failure keeps its cause: OkHttp's messages name the host and port, Jackson's quote the
 * content, and a cause is printed wherever the exception is. The exception class name, which
 * leaks nothing, goes into the message instead when it is the only clue.
 */
final class OpenAiHttp {

    /**
     * Jackson 3 defaults (text after the value is an error) plus: a key twice in one object is an
     * error, since either reading of it would be a guess.
     */
    static final JsonMapper JSON = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private static final MediaType JSON_TYPE = MediaType.get("application/json; charset=utf-8");

    /** The largest answer read: a model's JSON is kilobytes; anything near this is not an answer. */
    static final long MAX_ANSWER_BYTES = 16L * 1024 * 1024;

    private final OkHttpClient client;
    private final HttpUrl baseUrl;
    private final String apiKey;
    private final Duration timeout;
    private final String what;

    /**
     * @param client a client to share connections and threads with; its timeouts are replaced by the
     *               endpoint's
     * @param what   how messages name the endpoint: {@code "extraction endpoint"}, {@code "embedding endpoint"}
     */
    OpenAiHttp(Endpoint endpoint, OkHttpClient client, String what) {
        HttpUrl url = HttpUrl.parse(endpoint.baseUrl());
        if (url == null) {
            throw new ProviderException(ProviderException.Kind.NOT_CONFIGURED,
                    "endpoint: the base URL must be an http or https URL");
        }
        Duration t = endpoint.timeout();
        this.client = client.newBuilder().callTimeout(t).connectTimeout(t).readTimeout(t).writeTimeout(t).build();
        this.baseUrl = url;
        this.apiKey = endpoint.apiKey();
        this.timeout = t;
        this.what = what;
    }

    /** The client used when the caller gives none: one connection pool and dispatcher per JVM. */
    static OkHttpClient sharedClient() {
        return SharedClient.INSTANCE;
    }

    private static final class SharedClient {
        static final OkHttpClient INSTANCE = new OkHttpClient();
    }

    /**
     * POSTs {@code body} to {@code baseUrl/path} and returns the answer parsed as JSON.
     *
     * @throws ProviderException HTTP_STATUS, TIMEOUT, NETWORK, or MALFORMED_ANSWER when the body is not JSON
     */
    JsonNode post(String path, ObjectNode body) {
        Request.Builder request = new Request.Builder()
                .url(baseUrl.newBuilder().addPathSegments(path).build())
                .header("Accept", "application/json")
                .post(RequestBody.create(JSON.writeValueAsString(body), JSON_TYPE));
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        String text;
        try (Response response = client.newCall(request.build()).execute()) {
            if (!response.isSuccessful()) {
                throw new ProviderException(ProviderException.Kind.HTTP_STATUS, response.code(),
                        what + " answered HTTP " + response.code(), null);
            }
            okio.BufferedSource source = response.body().source();
            if (source.request(MAX_ANSWER_BYTES + 1)) {
                throw malformed("answered more than " + MAX_ANSWER_BYTES / (1024 * 1024) + " MiB");
            }
            text = source.readUtf8();
        } catch (InterruptedIOException e) {
            if (Thread.currentThread().isInterrupted()) {
                throw new ProviderException(ProviderException.Kind.NETWORK, 0,
                        what + " call was interrupted", null);
            }
            throw new ProviderException(ProviderException.Kind.TIMEOUT, 0,
                    what + " did not answer within " + describe(timeout), null);
        } catch (IOException e) {
            throw new ProviderException(ProviderException.Kind.NETWORK, 0, what + describe(e), null);
        }
        try {
            return JSON.readTree(text);
        } catch (JacksonException e) {
            throw malformed("answered with something other than JSON");
        }
    }

    /** A MALFORMED_ANSWER failure: {@code detail} follows the endpoint's name and must hold no content. */
    ProviderException malformed(String detail) {
        return new ProviderException(ProviderException.Kind.MALFORMED_ANSWER, 0, what + " " + detail, null);
    }

    static String describe(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    private static String describe(IOException e) {
        return switch (e) {
            case ConnectException c -> " could not be reached (connection refused)";
            case UnknownHostException u -> " could not be reached (unknown host)";
            case NoRouteToHostException n -> " could not be reached (no route to host)";
            case SSLException s -> " could not be reached (TLS failure: " + e.getClass().getSimpleName() + ")";
            default -> " call failed (" + e.getClass().getSimpleName() + ")";
        };
    }
}
