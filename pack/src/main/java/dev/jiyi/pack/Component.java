package dev.jiyi.pack;

/** The components of a context pack, in the order they are added (P2); each is a key of the context. */
public enum Component {
    PERSONA("persona"),
    CHECKPOINT("checkpoint"),
    AGREEMENTS_AND_GROWTH("agreements_and_growth"),
    RECALLED_MEMORIES("recalled_memories"),
    CURRENT_EMOTION("current_emotion"),
    RECENT_EVENTS("recent_events");

    private final String key;

    Component(String key) {
        this.key = key;
    }

    /** Its key in the context and its name in the metadata. */
    public String key() {
        return key;
    }
}
