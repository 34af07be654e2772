package dev.jiyi.authority;

import dev.jiyi.authority.internal.Codes;

/** Links between memories: a one-hop {@code related} link, or {@code corrects} lineage. */
public enum RelationType {
    RELATED, CORRECTS;

    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static RelationType parse(String field, String value) {
        return Codes.parse(RelationType.class, field, value);
    }
}
