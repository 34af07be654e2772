package dev.jiyi.authority;

import java.util.List;

/**
 * One extraction answer for one event, ready for {@link Authority#applyExtraction}: the items that
 * became drafts (each with its position in the answer) and those already rejected for their shape.
 *
 * @param extractor the extraction model's fingerprint (endpoint, model, prompt version; no key)
 * @param digest a digest of the model's answer, kept for audit
 */
public record ExtractionBatch(String extractor, String digest, List<Proposed> proposed, List<Rejection> rejected) {

    /** The longest fingerprint accepted (a URL, a model name and a version). */
    public static final int MAX_FINGERPRINT = 2_000;

    public ExtractionBatch {
        Limits.requireText("extractor", extractor, MAX_FINGERPRINT);
        Limits.requireText("digest", digest, Limits.MAX_LABEL);
        proposed = List.copyOf(proposed);
        rejected = List.copyOf(rejected);
    }

    /** A draft and its position in the model's answer. */
    public record Proposed(int index, MemoryDraft draft) {
    }
}
