package dev.jiyi.providers;

import java.util.List;

/**
 * The model's answer for one event: the well-typed items and the items rejected for their shape.
 *
 * @param digest SHA-256 (hex) of the message content, to recognise the same completion applied twice
 */
public record ExtractionAnswer(List<ExtractedMemory> memories, List<ItemProblem> problems, String digest) {

    public ExtractionAnswer {
        memories = List.copyOf(memories);
        problems = List.copyOf(problems);
    }
}
