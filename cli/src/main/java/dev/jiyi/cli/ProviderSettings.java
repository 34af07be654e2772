package dev.jiyi.cli;

import dev.jiyi.providers.ChatExtractionClient;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Endpoint;
import dev.jiyi.providers.Extractor;
import dev.jiyi.providers.LocalEmbedder;
import dev.jiyi.providers.RemoteEmbedder;

import java.time.Duration;

/**
 * Where extraction and embeddings come from (design.md, Configuration): {@code extract.url},
 * {@code extract.model}, {@code extract.api_key}, {@code embed.url}, {@code embed.model},
 * {@code embed.api_key} ({@code JIYI_EXTRACT_URL} ... in the environment), plus timeouts, the
 * embedding batch size and {@code embed.version}, the configured version that is part of every
 * vector's fingerprint (V1). No extraction URL: extraction stays pending. No embedding URL: the
 * local BGE small zh model. The two are read separately: a mistake in one never blocks the other.
 */
final class ProviderSettings {

    static final Duration EXTRACT_TIMEOUT = Duration.ofSeconds(60);
    static final Duration EMBED_TIMEOUT = Duration.ofSeconds(30);
    static final int EMBED_BATCH = 64;

    /** Why extraction cannot run, in words that are safe to store on an event (X2). */
    static final String NO_EXTRACTOR = "no extraction endpoint is configured (set JIYI_EXTRACT_URL and JIYI_EXTRACT_MODEL)";

    private ProviderSettings() {
    }

    /** The extraction client, or null when none is configured. */
    static Extractor extractor(Config config) {
        Endpoint extract = config.endpoint("extract", EXTRACT_TIMEOUT);
        return extract == null ? null : new ChatExtractionClient(extract);
    }

    /** The embedding model: remote when an embedding URL is configured, else the local model. */
    static Embedder embedder(Config config) {
        Endpoint embed = config.endpoint("embed", EMBED_TIMEOUT);
        String version = config.get("embed.version");
        version = version == null || version.isBlank() ? "1" : version.strip();
        return embed == null ? new LocalEmbedder(version)
                : new RemoteEmbedder(embed, version, config.positiveInteger("embed.batch_size", EMBED_BATCH));
    }
}
