package dev.jiyi.providers;

import java.util.Locale;
import java.util.Objects;

/**
 * Names what produced a vector or an extraction (V1): vectors are compared only with vectors of the
 * same fingerprint, so a change of endpoint, model or configured version shows up as incomplete
 * coverage instead of silently mixing spaces. A fingerprint is stored in the database, so it never
 * holds a credential: the URL loses its user-info, query and fragment.
 *
 * <pre>
 * openai-compatible:http://127.0.0.1:8080/v1|bge-m3|1
 * local:bge-small-zh-v1.5-q@langchain4j-embeddings-1.11.0-beta19|1
 * </pre>
 */
public final class Fingerprints {

    private Fingerprints() {
    }

    /** An OpenAI-compatible endpoint: its base URL without secrets, the model, a version. */
    public static String remote(String baseUrl, String model, String version) {
        return "openai-compatible:" + withoutSecrets(baseUrl) + "|" + Objects.requireNonNull(model, "model")
                + "|" + Objects.requireNonNull(version, "version");
    }

    /** A model that runs in this process: its name, the version of the artifact that ships it, a version. */
    public static String local(String modelName, String modelVersion, String configuredVersion) {
        return "local:" + Objects.requireNonNull(modelName, "modelName") + "@"
                + Objects.requireNonNull(modelVersion, "modelVersion") + "|"
                + Objects.requireNonNull(configuredVersion, "configuredVersion");
    }

    /**
     * {@code https://user:key@Host:8443/v1/?k=secret#x} becomes {@code https://host:8443/v1}: no
     * user-info, query or fragment, no trailing slash, scheme and host in lower case. Works on any
     * string, so that a URL the HTTP client would refuse still gets a fingerprint without secrets.
     */
    static String withoutSecrets(String baseUrl) {
        String url = Objects.requireNonNull(baseUrl, "baseUrl").strip();
        int query = firstOf(url, '?', '#');
        if (query >= 0) {
            url = url.substring(0, query);
        }
        int schemeEnd = url.indexOf("://");
        int authorityStart = schemeEnd < 0 ? 0 : schemeEnd + 3;
        int authorityEnd = url.indexOf('/', authorityStart);
        if (authorityEnd < 0) {
            authorityEnd = url.length();
        }
        String authority = url.substring(authorityStart, authorityEnd);
        authority = authority.substring(authority.lastIndexOf('@') + 1);
        String result = url.substring(0, authorityStart).toLowerCase(Locale.ROOT)
                + authority.toLowerCase(Locale.ROOT) + url.substring(authorityEnd);
        while (result.endsWith("/")) {
            result = result.substring(0, result.length() - 1);
        }
        return result;
    }

    private static int firstOf(String s, char a, char b) {
        int i = s.indexOf(a);
        int j = s.indexOf(b);
        return i < 0 ? j : j < 0 ? i : Math.min(i, j);
    }
}
