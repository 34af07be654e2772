package dev.jiyi.authority.index;

import dev.jiyi.authority.InvalidInputException;

import java.util.Objects;

/**
 * A nearest-neighbour query (R3, R5, V1).
 *
 * @param vector the query's embedding, unit length (cosine similarity is the dot product)
 * @param fingerprint only vectors made by this model are compared (V1)
 * @param filter which memories may be returned, applied inside the search
 * @param k at most this many neighbours
 * @param minSimilarity only similarity strictly above this is evidence (R3)
 * @param newest compare only the vectors of the {@code newest} most recent eligible memories (semantic
 *               mode, R5); 0 compares all of them (deep mode)
 */
public record VectorQuery(float[] vector, String fingerprint, Eligibility filter, int k, double minSimilarity,
                          int newest) {

    public VectorQuery {
        Objects.requireNonNull(vector, "vector");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(filter, "filter");
        if (k < 0) {
            throw new InvalidInputException("limit", "must not be negative");
        }
        if (newest < 0) {
            throw new InvalidInputException("limit", "must not be negative");
        }
    }
}
