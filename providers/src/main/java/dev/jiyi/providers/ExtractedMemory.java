package dev.jiyi.providers;

import java.util.List;

/**
 * One item of the model's answer that has the documented JSON types. Nothing here is checked
 * against jiyi's rules yet (kind and basis are still strings, the quote is not yet looked up in the
 * event): the authority does that. Optional fields are null when absent; {@code cues} is empty.
 *
 * @param index the item's position in the answer's {@code memories} array
 */
public record ExtractedMemory(int index, String text, String quote, String kind, String basis, double confidence,
                              String subject, String factKey, String validAt, String gist, List<String> cues,
                              Emotion emotion) {

    public ExtractedMemory {
        cues = cues == null ? List.of() : List.copyOf(cues);
    }

    /** An expressed emotion as the model gave it; numbers are not range-checked here. */
    public record Emotion(String label, double valence, double arousal) {
    }
}
