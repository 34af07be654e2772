package dev.jiyi.ranking;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.RecallRow;
import dev.jiyi.authority.Scope;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * F4: the assistant's current emotion is its most recent expressed emotion, with valence and
 * arousal decayed toward zero (half-life 6 hours by default) and omitted once the decay factor is
 * below 0.01. It is a reading of memories; it never changes the persona.
 */
public final class CurrentEmotion {

    /** Below this decay factor the emotion is omitted. */
    public static final double OMIT_BELOW = 0.01;

    /** The decayed emotion, the memory it comes from, and the decay factor applied. */
    public record State(Emotion emotion, String memoryId, Instant expressedAt, double decay) {
    }

    private final Authority authority;
    private final RecallConfig config;

    public CurrentEmotion(Authority authority, RecallConfig config) {
        this.authority = authority;
        this.config = config;
    }

    public Optional<State> at(Scope scope, Instant now) {
        Optional<RecallRow> latest = authority.read(s -> s.latestEmotion(scope, now));
        if (latest.isEmpty()) {
            return Optional.empty();
        }
        RecallRow row = latest.get();
        Duration age = Duration.between(row.occurredAt(), now);
        double decay = Math.pow(0.5, (double) Math.max(0, age.toSeconds()) / config.emotionHalfLife().toSeconds());
        if (decay < OMIT_BELOW) {
            return Optional.empty();
        }
        Emotion e = row.memory().emotion();
        return Optional.of(new State(new Emotion(e.label(), e.valence() * decay, e.arousal() * decay),
                row.memory().id(), row.occurredAt(), decay));
    }
}
