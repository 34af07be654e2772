package dev.jiyi.engine;

import dev.jiyi.ranking.Weights;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.index.Settings;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.Signal;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Settings: {@code $JIYI_HOME/config.properties}, overridden by environment variables (the key in
 * upper case with dots as underscores and a {@code JIYI_} prefix: {@code recall.weight.lexical} is
 * {@code JIYI_RECALL_WEIGHT_LEXICAL}), overridden by flags. Keys are listed in docs/recall.md.
 */
public final class Config implements Settings {

    /** The longest endpoint URL accepted (it becomes part of fingerprints). */
    static final int MAX_URL = 1_000;

    private final Properties file = new Properties();
    private final Map<String, String> env;

    private Config(Map<String, String> env) {
        this.env = env;
    }

    public static Config load(Home home, Map<String, String> env) {
        Config config = new Config(env);
        Path path = home.dir().resolve("config.properties");
        if (Files.isRegularFile(path)) {
            try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
                config.file.load(r);
            } catch (IOException | IllegalArgumentException e) {
                throw new InvalidInputException("config.properties", "cannot be read as a properties file");
            }
        }
        return config;
    }

    @Override
    public String get(String key) {
        String fromEnv = env.get("JIYI_" + key.toUpperCase(Locale.ROOT).replace('.', '_'));
        return fromEnv != null ? fromEnv : file.getProperty(key);
    }

    private Duration days(String key, Duration fallback) {
        double d = number(key, fallback.toSeconds() / 86_400.0);
        if (!(d > 0)) {
            throw new InvalidInputException(key, "must be a positive number of days");
        }
        return Duration.ofSeconds(Math.round(d * 86_400));
    }

    private Duration hours(String key, Duration fallback) {
        double h = number(key, fallback.toSeconds() / 3_600.0);
        if (!(h > 0)) {
            throw new InvalidInputException(key, "must be a positive number of hours");
        }
        return Duration.ofSeconds(Math.round(h * 3_600));
    }

    /**
     * The OpenAI-compatible endpoint configured under {@code prefix} ({@code extract}, {@code embed}),
     * or null when it has no URL. A URL without a model is a configuration error, reported by key;
     * neither the URL nor an API key is ever part of an error.
     */
    dev.jiyi.providers.Endpoint endpoint(String prefix, Duration timeout) {
        Setting url = setting(prefix + ".url");
        if (url == null) {
            return null;
        }
        return endpoint(url, new Setting(prefix + ".model", get(prefix + ".model")), setting(prefix + ".api_key"),
                prefix + ".timeout_seconds", timeout);
    }

    /**
     * A value and the name it was given under: a settings key ({@code probe.url}) or a flag
     * ({@code --url-a}). Errors name it, never the value.
     */
    record Setting(String name, String value) {
    }

    /** The setting {@code key}, or null when it is unset or blank. */
    Setting setting(String key) {
        String v = get(key);
        return v == null || v.isBlank() ? null : new Setting(key, v);
    }

    /**
     * An endpoint from settings already chosen (the URL non-null), checked by the rules of every
     * endpoint: an http(s) URL, a model, a printable key, a timeout in (0, 3600] seconds read from
     * {@code timeoutKey}. Errors name the setting that broke a rule.
     */
    dev.jiyi.providers.Endpoint endpoint(Setting url, Setting model, Setting key, String timeoutKey,
                                         Duration timeout) {
        if (model.value() == null || model.value().isBlank()) {
            throw new InvalidInputException(model.name(), "is required when " + url.name() + " is set");
        }
        if (okhttp3.HttpUrl.parse(url.value().strip()) == null || url.value().strip().length() > MAX_URL) {
            throw new InvalidInputException(url.name(), "must be an http:// or https:// URL of at most "
                    + MAX_URL + " characters");
        }
        if (model.value().strip().length() > dev.jiyi.authority.Limits.MAX_LABEL) {
            throw new InvalidInputException(model.name(), "must be at most " + dev.jiyi.authority.Limits.MAX_LABEL
                    + " characters");
        }
        if (key != null && !key.value().strip().chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            throw new InvalidInputException(key.name(), "must be printable ASCII without spaces");
        }
        double seconds = number(timeoutKey, timeout.toSeconds());
        if (!(seconds > 0 && seconds <= 3_600)) {
            throw new InvalidInputException(timeoutKey, "must be a number of seconds in (0, 3600]");
        }
        return new dev.jiyi.providers.Endpoint(url.value(), model.value(), key == null ? null : key.value(),
                Duration.ofMillis(Math.round(seconds * 1_000)));
    }

    /** {@code recall.index}: the index recall uses when a request names none; FTS5 unless set. */
    IndexKind recallIndex() {
        String v = text("recall.index");
        return v == null ? IndexKind.FTS5 : IndexKind.parse("recall.index", v);
    }

    /** Recall settings: defaults from {@link RecallConfig#DEFAULT}, overridden here. */
    RecallConfig recall() {
        RecallConfig d = RecallConfig.DEFAULT;
        try {
            Weights w = d.weights();
            for (Signal s : Signal.weighted()) {
                w = w.with(s, number(s.weightKey(), w.of(s)));
            }
            return d.toBuilder()
                    .candidateLimit(integer("recall.candidate_limit", d.candidateLimit()))
                    .eventCandidateLimit(integer("recall.event_candidate_limit", d.eventCandidateLimit()))
                    .eventEvidence(number("recall.event_evidence", d.eventEvidence()))
                    .weights(w)
                    .freshnessHalfLife(days("forgetting.half_life_days", d.freshnessHalfLife()))
                    .gistAfter(days("forgetting.gist_after_days", d.gistAfter()))
                    .decadeAfter(days("forgetting.decade_after_days", d.decadeAfter()))
                    .emotionHalfLife(hours("emotion.half_life_hours", d.emotionHalfLife()))
                    .cosineThreshold(number("recall.cosine_threshold", d.cosineThreshold()))
                    .rawTextCap(integer("recall.raw_text_cap", d.rawTextCap()))
                    .semanticLimit(integer("recall.semantic_limit", d.semanticLimit()))
                    .precision(new RecallConfig.Precision(
                            number("recall.min_evidence", d.precision().minEvidence()),
                            number("recall.context.near", d.precision().contextNear()),
                            number("recall.context.far", d.precision().contextFar()),
                            number("recall.context.shared", d.precision().contextShared()),
                            number("recall.dialogue_decay", d.precision().dialogueDecay())))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException("recall settings", e.getMessage());
        }
    }
}
