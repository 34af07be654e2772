package dev.jiyi.engine;

import dev.jiyi.authority.InvalidInputException;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The index backends a home can search, by the name {@code --index} and {@code recall.index} take.
 * Each is opened by {@link Backends}; adding one is a module, a constant here and a line there.
 */
public enum IndexKind {
    /** SQLite FTS5 in the authority's own file: always there, always current. */
    FTS5,
    /** The derived Lucene index in the home's {@code lucene} folder: BM25 and HNSW, built on first use. */
    LUCENE,
    /**
     * A derived index on an OpenSearch cluster ({@code index.opensearch.url}): BM25 in the cluster,
     * vectors compared exactly from the authority; the home keeps its state in {@code opensearch}.
     */
    OPENSEARCH;

    /** The name as users write it: {@code fts5}, {@code lucene}, {@code opensearch}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Every name, in order, for help texts and schemas. */
    public static String[] codes() {
        return Arrays.stream(values()).map(IndexKind::code).toArray(String[]::new);
    }

    /** Parses a name; the error names {@code field} and the choices, never the value. */
    public static IndexKind parse(String field, String value) {
        for (IndexKind k : values()) {
            if (k.code().equals(value)) {
                return k;
            }
        }
        throw new InvalidInputException(field, "must be " + Arrays.stream(values()).map(IndexKind::code)
                .collect(Collectors.joining(" or ")));
    }
}
