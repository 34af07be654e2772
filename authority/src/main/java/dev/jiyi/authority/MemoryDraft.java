package dev.jiyi.authority;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A memory to derive from one event, before it is checked against that event. Built once with
 * {@link #builder(String)}; {@link Builder#build()} applies every rule that needs no database (X3,
 * M2), and {@link Authority#addMemories} applies the rest (the event exists in the same scope, may be
 * derived from, contains the quote, and has the role the basis requires).
 */
public final class MemoryDraft {

    /** Confidence of a hand-derived memory when none is given. */
    public static final double DEFAULT_CONFIDENCE = 1.0;

    private final String eventId;
    private final Kind kind;
    private final Basis basis;
    private final String text;
    private final String quote;
    private final String subject;
    private final String factKey;
    private final Instant validAt;
    private final Instant invalidAt;
    private final double confidence;
    private final String gist;
    private final List<String> cueKeys;
    private final Emotion emotion;

    private MemoryDraft(Builder b) {
        this.eventId = Ids.check("event", b.eventId);
        if (b.kind == null) {
            throw new InvalidInputException("kind", "is required");
        }
        if (b.basis == null) {
            throw new InvalidInputException("basis", "is required");
        }
        this.kind = b.kind;
        this.basis = b.basis;
        this.text = Limits.requireText("text", b.text, Limits.MAX_MEMORY_TEXT);
        this.quote = Limits.requireText("quote", b.quote, Limits.MAX_QUOTE);
        this.subject = Limits.optionalText("subject", b.subject, Limits.MAX_LABEL);
        this.factKey = Limits.optionalText("fact_key", b.factKey, Limits.MAX_LABEL);
        this.validAt = b.validAt == null ? null : Times.checkRange("valid_at", Times.truncate(b.validAt));
        this.invalidAt = b.invalidAt == null ? null : Times.checkRange("invalid_at", Times.truncate(b.invalidAt));
        double c = b.confidence == null ? DEFAULT_CONFIDENCE : b.confidence;
        if (!(c >= 0.0 && c <= 1.0)) {
            throw new InvalidInputException("confidence", "must be a number in [0, 1]");
        }
        this.confidence = c;
        this.gist = Limits.optionalText("gist", b.gist, Limits.MAX_GIST);
        if (b.cueKeys.size() > Limits.MAX_CUES) {
            throw new InvalidInputException("cue", "must have at most " + Limits.MAX_CUES + " entries");
        }
        for (int i = 0; i < b.cueKeys.size(); i++) {
            Limits.requireText("cue[" + i + "]", b.cueKeys.get(i), Limits.MAX_LABEL);
        }
        this.cueKeys = List.copyOf(b.cueKeys);
        this.emotion = b.emotion;

        if (factKey != null) {
            if (basis == Basis.INFERENCE) {
                throw new InvalidInputException("fact_key", "an inference must not carry a single-valued fact key");
            }
            if (subject == null) {
                throw new InvalidInputException("subject", "is required with fact_key");
            }
            if (basis != Basis.USER_STATEMENT || !kind.timelineKind()) {
                throw new InvalidInputException("fact_key",
                        "only user_statement facts and preferences may carry a fact key");
            }
        }
        if (basis == Basis.INFERENCE && kind == Kind.GROWTH) {
            throw new InvalidInputException("kind", "an inference must not become growth");
        }
        if (emotion != null && basis != Basis.ASSISTANT_EXPRESSION) {
            throw new InvalidInputException("emotion", "an expressed emotion must come from an assistant_expression");
        }
        if (validAt != null && invalidAt != null && invalidAt.isBefore(validAt)) {
            throw new InvalidInputException("invalid_at", "must not be before valid_at");
        }
    }

    public static Builder builder(String eventId) {
        return new Builder(eventId);
    }

    public String eventId() {
        return eventId;
    }

    public Kind kind() {
        return kind;
    }

    public Basis basis() {
        return basis;
    }

    public String text() {
        return text;
    }

    public String quote() {
        return quote;
    }

    public String subject() {
        return subject;
    }

    public String factKey() {
        return factKey;
    }

    /** Null means "from the source event's occurrence time" (T2). */
    public Instant validAt() {
        return validAt;
    }

    public Instant invalidAt() {
        return invalidAt;
    }

    public double confidence() {
        return confidence;
    }

    public String gist() {
        return gist;
    }

    public List<String> cueKeys() {
        return cueKeys;
    }

    public Emotion emotion() {
        return emotion;
    }

    /** True when this memory takes part in a single-valued fact timeline (T1). */
    public boolean onTimeline() {
        return factKey != null;
    }

    /** Mutable, single-use collector of a draft's fields. */
    public static final class Builder {
        private final String eventId;
        private Kind kind;
        private Basis basis;
        private String text;
        private String quote;
        private String subject;
        private String factKey;
        private Instant validAt;
        private Instant invalidAt;
        private Double confidence;
        private String gist;
        private final List<String> cueKeys = new ArrayList<>();
        private Emotion emotion;

        private Builder(String eventId) {
            this.eventId = eventId;
        }

        public Builder kind(Kind kind) {
            this.kind = kind;
            return this;
        }

        public Builder basis(Basis basis) {
            this.basis = basis;
            return this;
        }

        public Builder text(String text) {
            this.text = text;
            return this;
        }

        public Builder quote(String quote) {
            this.quote = quote;
            return this;
        }

        public Builder subject(String subject) {
            this.subject = subject;
            return this;
        }

        public Builder factKey(String factKey) {
            this.factKey = factKey;
            return this;
        }

        public Builder validAt(Instant validAt) {
            this.validAt = validAt;
            return this;
        }

        public Builder invalidAt(Instant invalidAt) {
            this.invalidAt = invalidAt;
            return this;
        }

        public Builder confidence(Double confidence) {
            this.confidence = confidence;
            return this;
        }

        public Builder gist(String gist) {
            this.gist = gist;
            return this;
        }

        public Builder cue(String cue) {
            this.cueKeys.add(cue);
            return this;
        }

        public Builder cues(List<String> cues) {
            if (cues != null) {
                this.cueKeys.addAll(cues);
            }
            return this;
        }

        public Builder emotion(Emotion emotion) {
            this.emotion = emotion;
            return this;
        }

        public MemoryDraft build() {
            return new MemoryDraft(this);
        }
    }
}
