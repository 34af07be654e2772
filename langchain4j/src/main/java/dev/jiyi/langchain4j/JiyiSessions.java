package dev.jiyi.langchain4j;

import dev.jiyi.engine.ChatWindows;


/**
 * Which jiyi session a LangChain4j conversation is: the session its turns are kept in, its
 * checkpoints saved under and its context pack made for, so that {@code jiyi resume --session} and
 * {@code jiyi checkpoint} reach the same conversation from the command line.
 */
public final class JiyiSessions {

    private JiyiSessions() {
    }

    /** What every session of a LangChain4j conversation starts with. */
    public static final String PREFIX = "langchain4j:";

    /**
     * The session a LangChain4j conversation is in jiyi: {@value #PREFIX} and its memory ID as text,
     * or a hash of it when that is not a valid jiyi ID ({@link ChatWindows#session}).
     */
    public static String of(Object memoryId) {
        if (memoryId == null) {
            throw new IllegalArgumentException("memoryId: is required");
        }
        String text = memoryId.toString();
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("memoryId: must not be blank");
        }
        return ChatWindows.session(PREFIX, text);
    }

}
