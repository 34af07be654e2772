package dev.jiyi.authority;

import java.time.Instant;
import java.util.List;

/**
 * A derived, atomic memory (M1) with its exact quote from the source event and its validity.
 *
 * @param rowId its internal row number ({@code memories.seq}): what indexes key it by, never reused
 * @param emotion the assistant-expressed emotion, or null
 * @param revokedAt when a correction revoked it, or null
 */
public record Memory(
        long rowId,
        String id,
        Scope scope,
        String eventId,
        Kind kind,
        Basis basis,
        String text,
        String quote,
        double confidence,
        String subject,
        String factKey,
        Validity validity,
        Instant revokedAt,
        Emotion emotion,
        String gist,
        List<String> cueKeys,
        Instant createdAt) {

    public Memory {
        cueKeys = List.copyOf(cueKeys);
    }

    public boolean revoked() {
        return revokedAt != null;
    }

    /** True when this memory is a member of a single-valued fact timeline (T1): only those have a fact key. */
    public boolean onTimeline() {
        return factKey != null;
    }
}
