package dev.jiyi.opensearch;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.index.Settings;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where the cluster is and how the home's documents live in it, from the home's settings:
 *
 * <ul>
 * <li>{@code index.opensearch.url}: the nodes' HTTP addresses, comma-separated (required);</li>
 * <li>{@code index.opensearch.index}: the index every home of a deployment shares (default {@value #DEFAULT_INDEX});</li>
 * <li>{@code index.opensearch.shards}, {@code index.opensearch.replicas}: for the index jiyi creates
 *     when it is missing (defaults 1 and 1); an index that exists is used as it is;</li>
 * <li>{@code index.opensearch.catch_up_ms}: how long one search may apply the change log (default 2000).</li>
 * </ul>
 *
 * <p>Credentials come from the environment only ({@code JIYI_OPENSEARCH_USERNAME},
 * {@code JIYI_OPENSEARCH_PASSWORD}), never from a file, and no message ever repeats them or the
 * address's user part.
 */
record OpenSearchOptions(List<URI> nodes, String index, int shards, int replicas, Duration catchUpBudget,
                         String username, String password) {

    static final String URL = "index.opensearch.url";
    static final String INDEX = "index.opensearch.index";
    static final String DEFAULT_INDEX = "jiyi";
    static final String USERNAME_VARIABLE = "JIYI_OPENSEARCH_USERNAME";
    static final String PASSWORD_VARIABLE = "JIYI_OPENSEARCH_PASSWORD";

    /** OpenSearch's rule for index names, narrowed: lower case, digits, '-' and '_', not first. */
    private static final Pattern INDEX_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,99}");

    @Override
    public String toString() {
        return "OpenSearchOptions[nodes=" + nodes + ", index=" + index + ", shards=" + shards + ", replicas="
                + replicas + ", credentials=" + (username == null ? "none" : "from the environment") + "]";
    }

    /** Whether the home names a cluster at all. */
    static boolean configured(Settings settings) {
        return settings.text(URL) != null;
    }

    /** Reads the settings; a bad one is refused with its key and rule, never its value. */
    static OpenSearchOptions of(Settings settings, Map<String, String> environment) {
        String url = settings.text(URL);
        if (url == null) {
            throw new InvalidInputException(URL, "must be set to the cluster's address, e.g. http://localhost:9200");
        }
        List<URI> nodes = new ArrayList<>();
        for (String part : url.split(",", -1)) {
            nodes.add(node(part.strip()));
        }
        String index = settings.text(INDEX) == null ? DEFAULT_INDEX : settings.text(INDEX);
        if (!INDEX_NAME.matcher(index).matches()) {
            throw new InvalidInputException(INDEX, "must be 1 to 100 lower-case letters, digits, '-' or '_', "
                    + "starting with a letter or digit");
        }
        String username = blankToNull(environment.get(USERNAME_VARIABLE));
        String password = blankToNull(environment.get(PASSWORD_VARIABLE));
        if ((username == null) != (password == null)) {
            throw new InvalidInputException(USERNAME_VARIABLE, "must be set together with " + PASSWORD_VARIABLE);
        }
        return new OpenSearchOptions(List.copyOf(nodes), index,
                settings.positiveInteger("index.opensearch.shards", 1),
                settings.integer("index.opensearch.replicas", 1),
                Duration.ofMillis(settings.positiveInteger("index.opensearch.catch_up_ms", 2_000)),
                username, password);
    }

    private static URI node(String part) {
        URI uri;
        try {
            uri = URI.create(part);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(URL, "must be http:// or https:// addresses, comma-separated");
        }
        if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                || uri.getHost() == null) {
            throw new InvalidInputException(URL, "must be http:// or https:// addresses, comma-separated");
        }
        if (uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/")
                || uri.getRawQuery() != null) {
            throw new InvalidInputException(URL, "must be addresses of nodes (scheme, host and port), without a path");
        }
        if (uri.getUserInfo() != null) {
            throw new InvalidInputException(URL, "must not hold credentials; set " + USERNAME_VARIABLE + " and "
                    + PASSWORD_VARIABLE + " instead");
        }
        return uri;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
