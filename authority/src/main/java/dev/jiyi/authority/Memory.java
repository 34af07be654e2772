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

    /**
     * What the lexical indexes find this memory by: its text, quote, subject, gist and cue keys, one
     * per line. FTS5 and Lucene index the same text.
     */
    public String searchText() {
        return searchText(text, quote, subject, gist, cueKeys);
    }

    /** {@link #searchText()} of a memory not yet stored (a draft about to be inserted). */
    public static String searchText(String text, String quote, String subject, String gist, List<String> cueKeys) {
        StringBuilder sb = new StringBuilder(text).append('\n').append(quote);
        if (subject != null) {
            sb.append('\n').append(subject);
        }
        if (gist != null) {
            sb.append('\n').append(gist);
        }
        for (String cue : cueKeys) {
            sb.append('\n').append(cue);
        }
        return sb.toString();
    }

    /** True when this memory is a member of a single-valued fact timeline (T1): only those have a fact key. */
    public boolean onTimeline() {
        return factKey != null;
    }
}
