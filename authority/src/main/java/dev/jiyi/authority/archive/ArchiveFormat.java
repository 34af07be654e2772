package dev.jiyi.authority.archive;

import dev.jiyi.authority.InvalidInputException;

import java.util.Locale;

/**
 * The two shapes of an archive (O3, {@code docs/archive.md}): the same header and the same row
 * objects, one per line. {@code jsonl} writes the header and each row as a line of its own;
 * {@code json} writes one JSON document, the header object with its rows in a {@code rows} array.
 * Import tells them apart by themselves.
 */
public enum ArchiveFormat {
    JSON, JSONL;

    /** Parses {@code json} or {@code jsonl}. */
    public static ArchiveFormat parse(String field, String value) {
        if (value != null) {
            for (ArchiveFormat f : values()) {
                if (f.code().equals(value)) {
                    return f;
                }
            }
        }
        throw new InvalidInputException(field, "must be json or jsonl");
    }

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
