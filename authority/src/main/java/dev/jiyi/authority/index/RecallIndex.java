package dev.jiyi.authority.index;

import java.util.Objects;

/**
 * What recall searches: a lexical index and a vector index, named after the lexical one. FTS5 pairs
 * with the exact scan of the vector cache; the Lucene index is both.
 */
public record RecallIndex(LexicalIndex lexical, VectorIndex vectors) {

    public RecallIndex {
        Objects.requireNonNull(lexical, "lexical");
        Objects.requireNonNull(vectors, "vectors");
    }

    public String name() {
        return lexical.name();
    }
}
