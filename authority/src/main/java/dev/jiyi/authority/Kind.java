package dev.jiyi.authority;

import dev.jiyi.authority.internal.Codes;

/** What a memory records. */
public enum Kind {
    FACT, PREFERENCE, EPISODE, OBSERVATION, EMOTION, AGREEMENT, GROWTH;

    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Kinds that can join a single-valued fact timeline (T1), given a user statement and a key. */
    public boolean timelineKind() {
        return this == FACT || this == PREFERENCE;
    }

    public static Kind parse(String field, String value) {
        return Codes.parse(Kind.class, field, value);
    }
}
