package dev.jiyi.authority;

import dev.jiyi.authority.internal.Codes;

/** What an event is. Reference and persona events are sources only, never lived experience (E6). */
public enum Category {
    CONVERSATION, REFERENCE, PERSONA, CORRECTION;

    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** False for reference and persona material, which is archived but never derived into memories. */
    public boolean derivable() {
        return this == CONVERSATION || this == CORRECTION;
    }

    public static Category parse(String field, String value) {
        return Codes.parse(Category.class, field, value);
    }
}
