package dev.jiyi.authority;

/**
 * The partition every event, memory, relation and checkpoint lives in (S1). Scope IDs are
 * partitions, not security boundaries (S7): any local client may name any scope.
 */
public record Scope(String personaId, String projectId) {

    public static final String DEFAULT_ID = "default";
    public static final Scope DEFAULT = new Scope(DEFAULT_ID, DEFAULT_ID);

    public Scope {
        Ids.checkScopeId("persona", personaId);
        Ids.checkScopeId("project", projectId);
    }

    @Override
    public String toString() {
        return personaId + "/" + projectId;
    }
}
