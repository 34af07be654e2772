package dev.jiyi.engine;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.providers.ChatClient;
import dev.jiyi.providers.ChatExtractionClient;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Endpoint;
import dev.jiyi.providers.Extractor;
import dev.jiyi.providers.LocalEmbedder;
import dev.jiyi.providers.RemoteEmbedder;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Where extraction and embeddings come from (design.md, Configuration): {@code extract.url},
 * {@code extract.model}, {@code extract.api_key}, {@code embed.url}, {@code embed.model},
 * {@code embed.api_key} ({@code JIYI_EXTRACT_URL} ... in the environment), plus timeouts, the
 * embedding batch size and {@code embed.version}, the configured version that is part of every
 * vector's fingerprint (V1). No extraction URL: extraction stays pending. No embedding URL: the
 * local BGE small zh model. The two are read separately: a mistake in one never blocks the other.
 *
 * <p>{@code jiyi probe} talks to two chat models; see {@link #probe}.
 */
public final class ProviderSettings {

    static final Duration EXTRACT_TIMEOUT = Duration.ofSeconds(60);
    static final Duration EMBED_TIMEOUT = Duration.ofSeconds(30);
    static final int EMBED_BATCH = 64;
    /** A chat reply is longer than an extraction and local models are slow: two minutes by default. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(120);

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

    /**
     * The chat client of probe model {@code which} ({@code a} or {@code b}) named {@code model}.
     * The base URL is the first of: the {@code --url-a} / {@code --url-b} flag, {@code probe.a.url} /
     * {@code probe.b.url} ({@code JIYI_PROBE_A_URL}, {@code JIYI_PROBE_B_URL}), {@code probe.url}
     * ({@code JIYI_PROBE_URL}), {@code extract.url}. The key is {@code probe.a.api_key} /
     * {@code probe.b.api_key}, else {@code probe.api_key}; when neither is set, the extraction key is
     * used only for a model whose URL is the extraction URL, so that it is never sent to another
     * server. The timeout is {@code probe.timeout_seconds} (default 120).
     *
     * @param urlFlag the URL given on the command line, or null
     */
    public static ChatClient probe(Config config, String which, String urlFlag, String model) {
        String flag = "--url-" + which;
        Config.Setting url = urlFlag == null || urlFlag.isBlank() ? null : new Config.Setting(flag, urlFlag);
        for (String key : List.of("probe." + which + ".url", "probe.url", "extract.url")) {
            if (url == null) {
                url = config.setting(key);
            }
        }
        if (url == null) {
            throw new InvalidInputException(flag, "no chat endpoint is configured for model " + which + " (set " + flag
                    + ", JIYI_PROBE_" + which.toUpperCase(Locale.ROOT) + "_URL, JIYI_PROBE_URL or JIYI_EXTRACT_URL)");
        }
        Config.Setting key = config.setting("probe." + which + ".api_key");
        key = key != null ? key : config.setting("probe.api_key");
        Config.Setting extractUrl = config.setting("extract.url");
        if (key == null && extractUrl != null && sameBase(url.value(), extractUrl.value())) {
            key = config.setting("extract.api_key");
        }
        return new ChatClient(config.endpoint(url, new Config.Setting("--model-" + which, model), key,
                "probe.timeout_seconds", PROBE_TIMEOUT));
    }

    /** Two base URLs that {@link Endpoint} would call the same (surrounding spaces and trailing slashes aside). */
    private static boolean sameBase(String a, String b) {
        return a.strip().replaceAll("/+$", "").equals(b.strip().replaceAll("/+$", ""));
    }
}
