package dev.jiyi.cli;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.Weights;

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
final class Config {

    private final Properties file = new Properties();
    private final Map<String, String> env;

    private Config(Map<String, String> env) {
        this.env = env;
    }

    static Config load(Home home, Map<String, String> env) {
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

    String get(String key) {
        String fromEnv = env.get("JIYI_" + key.toUpperCase(Locale.ROOT).replace('.', '_'));
        return fromEnv != null ? fromEnv : file.getProperty(key);
    }

    private double number(String key, double fallback) {
        String v = get(key);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return Double.parseDouble(v.strip());
        } catch (NumberFormatException e) {
            throw new InvalidInputException(key, "must be a number");
        }
    }

    private int integer(String key, int fallback) {
        double v = number(key, fallback);
        if (v != Math.rint(v) || v < 0 || v > 1_000_000) {
            throw new InvalidInputException(key, "must be a whole number in [0, 1000000]");
        }
        return (int) v;
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

    /** Recall settings: defaults from {@link RecallConfig#DEFAULT}, overridden here. */
    RecallConfig recall() {
        RecallConfig d = RecallConfig.DEFAULT;
        Weights w = d.weights();
        try {
            return new RecallConfig(
                    integer("recall.candidate_limit", d.candidateLimit()),
                    integer("recall.event_candidate_limit", d.eventCandidateLimit()),
                    number("recall.event_evidence", d.eventEvidence()),
                    number("recall.context_evidence", d.contextEvidence()),
                    new Weights(
                            number("recall.weight.lexical", w.lexical()),
                            number("recall.weight.cosine", w.cosine()),
                            number("recall.weight.related", w.related()),
                            number("recall.weight.basis", w.basis()),
                            number("recall.weight.confidence", w.confidence()),
                            number("recall.weight.freshness", w.freshness())),
                    days("forgetting.half_life_days", d.freshnessHalfLife()),
                    days("forgetting.gist_after_days", d.gistAfter()),
                    days("forgetting.decade_after_days", d.decadeAfter()),
                    hours("emotion.half_life_hours", d.emotionHalfLife()),
                    number("recall.cosine_threshold", d.cosineThreshold()),
                    integer("recall.raw_text_cap", d.rawTextCap()));
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException("recall settings", e.getMessage());
        }
    }
}
