package dev.jiyi.providers;

import java.time.Duration;

/**
 * An OpenAI-compatible API: a base URL such as {@code http://127.0.0.1:8080/v1} (the client appends
 * {@code /chat/completions} or {@code /embeddings}), a model name, an optional API key (sent as a
 * bearer token) and the longest a call may take. {@link #toString()} never shows the key.
 */
public record Endpoint(String baseUrl, String model, String apiKey, Duration timeout) {

    public Endpoint {
        if (baseUrl == null || baseUrl.isBlank()) {
            throw new ProviderException(ProviderException.Kind.NOT_CONFIGURED, "endpoint: a base URL is required");
        }
        if (model == null || model.isBlank()) {
            throw new ProviderException(ProviderException.Kind.NOT_CONFIGURED, "model: is required");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new ProviderException(ProviderException.Kind.NOT_CONFIGURED, "timeout: must be positive");
        }
        baseUrl = baseUrl.strip();
        while (baseUrl.endsWith("/")) {
            baseUrl = baseUrl.substring(0, baseUrl.length() - 1);
        }
        apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
    }

    @Override
    public String toString() {
        return "Endpoint[" + model + (apiKey == null ? "" : ", key set") + ", timeout " + timeout.toMillis() + " ms]";
    }
}
