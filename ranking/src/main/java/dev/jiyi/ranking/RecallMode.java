package dev.jiyi.ranking;

import dev.jiyi.authority.InvalidInputException;

import java.util.Locale;

/**
 * How recall finds candidates. {@code FAST} uses the lexical index, source-event keys and one-hop
 * links only, and never embeds the query (R4); {@code SEMANTIC} also compares the query's vector with
 * the most recent eligible vectors (2,000 by default) and {@code DEEP} with all of them (R5).
 */
public enum RecallMode {
    FAST, SEMANTIC, DEEP;

    /** The name as users write it: {@code fast}, {@code semantic}, {@code deep}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a mode in any case; the error names {@code field}, never the value. */
    public static RecallMode parse(String field, String value) {
        for (RecallMode m : values()) {
            if (m.name().equalsIgnoreCase(value.strip())) {
                return m;
            }
        }
        throw new InvalidInputException(field, "must be one of fast, semantic, deep");
    }
}
