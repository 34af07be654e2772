package dev.jiyi.authority.index;

import java.util.List;

/**
 * What a {@link VectorIndex} found.
 *
 * @param nearest the neighbours, best first, each scored by its cosine similarity
 * @param compared how many eligible vectors the search compared: fewer than the covered memories
 *                 when a semantic query looked only at the newest (R5)
 */
public record Neighbours(List<Candidate> nearest, long compared) {

    public Neighbours {
        nearest = List.copyOf(nearest);
    }
}
