package dev.jiyi.authority;

import dev.jiyi.authority.internal.Codes;

/** The host-asserted author of an event. */
public enum Role {
    USER, ASSISTANT, SYSTEM;

    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Role parse(String field, String value) {
        return Codes.parse(Role.class, field, value);
    }
}
