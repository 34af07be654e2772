package dev.jiyi.engine;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.providers.ChatClient;
import dev.jiyi.providers.ChatExtractionClient;
import dev.jiyi.providers.Embedders;
import dev.jiyi.providers.Endpoint;
import dev.jiyi.providers.Extractor;
import dev.jiyi.providers.LocalEmbedder;
import dev.jiyi.providers.LocalModel;
import dev.jiyi.providers.RemoteEmbedder;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Where extraction and embeddings come from (design.md, Configuration): {@code extract.url},
 * {@code extract.model}, {@code extract.api_key}, {@code embed.url}, {@code embed.model},
 * {@code embed.api_key} ({@code JIYI_EXTRACT_URL} ... in the environment), plus timeouts, the
 * embedding batch size and {@code embed.version}, the configured version that is part of every
 * vector's fingerprint (V1). No extraction URL: extraction stays pending. No embedding URL: a
 * user's own ONNX model, else the bundled BGE small zh and en models, one per language. The two
 * are read separately: a mistake in one never blocks the other.
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

    /**
     * The embedding models: the endpoint when an embedding URL is configured; else a user's own
     * ONNX export when {@code embed.onnx.model} is set (with {@code embed.onnx.tokenizer},
     * {@code embed.onnx.pooling} cls or mean, optional {@code embed.onnx.query_prefix} and
     * {@code embed.onnx.standalone_threshold}); else the bundled pair, Chinese and English.
     */
    static Embedders embedders(Config config) {
        Endpoint embed = config.endpoint("embed", EMBED_TIMEOUT);
        String version = config.get("embed.version");
        version = version == null || version.isBlank() ? "1" : version.strip();
        if (embed != null) {
            return Embedders.of(new RemoteEmbedder(embed, version,
                    config.positiveInteger("embed.batch_size", EMBED_BATCH)));
        }
        String model = config.text("embed.onnx.model");
        if (model == null) {
            return Embedders.bundled(version);
        }
        String tokenizer = config.text("embed.onnx.tokenizer");
        if (tokenizer == null) {
            throw new InvalidInputException("embed.onnx.tokenizer", "is required with embed.onnx.model");
        }
        String poolingText = config.text("embed.onnx.pooling");
        LocalModel.Pooling pooling = poolingText == null ? LocalModel.Pooling.MEAN : LocalModel.Pooling.parse(poolingText);
        if (pooling == null) {
            throw new InvalidInputException("embed.onnx.pooling", "must be cls or mean");
        }
        double standalone = config.number("embed.onnx.standalone_threshold", Double.NaN);
        if (!Double.isNaN(standalone) && !(standalone >= -1 && standalone <= 1)) {
            throw new InvalidInputException("embed.onnx.standalone_threshold", "must be in [-1, 1]");
        }
        String prefix = config.get("embed.onnx.query_prefix");
        return Embedders.of(new LocalEmbedder(LocalModel.onnx(readable("embed.onnx.model", model),
                readable("embed.onnx.tokenizer", tokenizer), pooling, standalone, prefix == null ? "" : prefix), version));
    }

    /**
     * An absolute path (a relative one would depend on where the host started the process) to a
     * readable file.
     */
    private static Path readable(String key, String value) {
        Path p;
        try {
            p = Path.of(value.strip());
        } catch (InvalidPathException e) {
            throw new InvalidInputException(key, "must be a path");
        }
        if (!p.isAbsolute()) {
            throw new InvalidInputException(key, "must be an absolute path");
        }
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            throw new InvalidInputException(key, "must be a readable file");
        }
        return p;
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
