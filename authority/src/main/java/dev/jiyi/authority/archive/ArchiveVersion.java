package dev.jiyi.authority.archive;

import java.util.Map;

/**
 * Every archive format version a jiyi has written, each of which import reads: the list is added
 * to, never shortened. A version is the layout of its header and rows; a row of an older version is
 * brought to the current layout ({@link #upgrade}) before it is checked and inserted, so that
 * import has one set of checks. {@code ArchiveRoundTripTest} imports a fixture of each version.
 */
enum ArchiveVersion {

    /** jiyi 0.1 (schema 12): the tables and columns of {@link ArchiveTable}, the header of {@link ArchiveReader#header}. */
    V1;

    /** What an archive calls itself in its header. */
    static final String FORMAT = "jiyi-archive";

    /** The version export writes. */
    static final ArchiveVersion CURRENT = V1;

    /** The version's number in the header. */
    int number() {
        return ordinal() + 1;
    }

    /** The version numbered {@code number}, or null when no jiyi wrote one (or this one is too old to know it). */
    static ArchiveVersion numbered(long number) {
        return number >= 1 && number <= values().length ? values()[(int) number - 1] : null;
    }

    /**
     * One row of this version, as a row of {@link #CURRENT} (the fields by name, values as the
     * reader read them). The current version's rows are as they are.
     */
    Map<String, Object> upgrade(ArchiveTable table, Map<String, Object> fields) {
        return switch (this) {
            case V1 -> fields;
        };
    }
}
