package dev.jiyi.ranking;

import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Times;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * Ordinary forgetting (F1-F3): ranking decays with age, and old episodes, observations and emotions
 * are shown as a gist with, later, a decade for a time label. Nothing is deleted; {@code memory read}
 * still shows the original text, time and quote.
 */
final class Forgetting {

    /** Characters of an extracted topic cue at most. */
    static final int TOPIC_CUE_LENGTH = 40;

    private final RecallConfig config;

    Forgetting(RecallConfig config) {
        this.config = config;
    }

    /** F1: 0.5^(age / half-life), 1 for anything not older than the query time. */
    double freshness(Instant occurredAt, Instant now) {
        Duration age = Duration.between(occurredAt, now);
        if (age.isNegative() || age.isZero()) {
            return 1.0;
        }
        double halfLives = (double) age.toSeconds() / config.freshnessHalfLife().toSeconds();
        return Math.pow(0.5, halfLives);
    }

    /** F2/F3: kinds that fade to a gist with age; facts, preferences, agreements and growth never do. */
    static boolean fades(Kind kind) {
        return kind == Kind.EPISODE || kind == Kind.OBSERVATION || kind == Kind.EMOTION;
    }

    /** The text to show and how it was chosen. */
    record Shown(String text, Presentation presentation) {
    }

    /** F2/F3: the full text, or for an old episode, observation or emotion its gist or a topic cue. */
    Shown presentation(Memory m, Instant occurredAt, Instant now) {
        if (!fades(m.kind()) || !Duration.between(occurredAt, now).minus(config.gistAfter()).isPositive()) {
            return new Shown(m.text(), Presentation.FULL);
        }
        if (m.gist() != null) {
            return new Shown(m.gist(), Presentation.GIST);
        }
        return new Shown(topicCue(m.text()), Presentation.TOPIC_CUE);
    }

    /** F2: the exact UTC time, or a decade once an episode, observation or emotion is old enough. */
    String timeLabel(Kind kind, Instant occurredAt, Instant now) {
        if (kind != null && fades(kind) && Duration.between(occurredAt, now).minus(config.decadeAfter()).isPositive()) {
            int year = occurredAt.atZone(ZoneOffset.UTC).getYear();
            return (year / 10 * 10) + "s";
        }
        return Times.format(occurredAt);
    }

    /**
     * An extractive topic cue: the text's first clause, at most {@link #TOPIC_CUE_LENGTH} characters
     * (whole code points), with an ellipsis when cut.
     */
    static String topicCue(String text) {
        String trimmed = text.strip();
        int end = trimmed.length();
        for (int i = 0; i < trimmed.length(); i++) {
            char c = trimmed.charAt(i);
            if ("。！？!?；;\n".indexOf(c) >= 0 || (c == '.' && i + 1 < trimmed.length()
                    && Character.isWhitespace(trimmed.charAt(i + 1)))) {
                end = i;
                break;
            }
        }
        String clause = trimmed.substring(0, end).strip();
        if (clause.isEmpty()) {
            clause = trimmed;
        }
        if (clause.codePointCount(0, clause.length()) > TOPIC_CUE_LENGTH) {
            return clause.substring(0, clause.offsetByCodePoints(0, TOPIC_CUE_LENGTH)) + "…";
        }
        return clause;
    }
}
