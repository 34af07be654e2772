package dev.jiyi.authority;

import dev.jiyi.authority.internal.Codes;

/** Why a memory is believed: what its source event shows. */
public enum Basis {
    /** The user said it; the source event must have role user. */
    USER_STATEMENT(Role.USER),
    /** The assistant expressed it; the source event must have role assistant. */
    ASSISTANT_EXPRESSION(Role.ASSISTANT),
    /** Concluded from the source rather than stated in it; any role. */
    INFERENCE(null);

    private final Role requiredRole;

    Basis(Role requiredRole) {
        this.requiredRole = requiredRole;
    }

    /** The role the source event must have, or null when any role will do. */
    public Role requiredRole() {
        return requiredRole;
    }

    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Basis parse(String field, String value) {
        return Codes.parse(Basis.class, field, value);
    }
}
