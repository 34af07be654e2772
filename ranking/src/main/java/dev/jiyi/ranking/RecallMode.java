package dev.jiyi.ranking;

/**
 * How recall finds candidates. {@code FAST} uses the lexical index, source-event keys and one-hop
 * links only, and never embeds the query (R4); {@code SEMANTIC} also compares the query's vector with
 * the most recent eligible vectors (2,000 by default) and {@code DEEP} with all of them (R5).
 */
public enum RecallMode {
    FAST, SEMANTIC, DEEP
}
