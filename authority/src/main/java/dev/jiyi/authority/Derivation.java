package dev.jiyi.authority;

/** One memory to derive, with the scope it is derived in (a batch may span scopes). */
public record Derivation(Scope scope, MemoryDraft draft) {

    public Derivation {
        if (scope == null) {
            throw new InvalidInputException("scope", "is required");
        }
        if (draft == null) {
            throw new InvalidInputException("memory", "is required");
        }
    }
}
