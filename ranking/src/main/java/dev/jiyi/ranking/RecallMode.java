package dev.jiyi.ranking;

/**
 * How recall finds candidates. {@code FAST} uses the lexical index, source-event keys and one-hop
 * links only; {@code SEMANTIC} also scans recent vectors and {@code DEEP} all vectors (vectors come
 * with the embeddings change; until then both add a warning and rank lexically).
 */
public enum RecallMode {
    FAST, SEMANTIC, DEEP
}
