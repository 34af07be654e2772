package dev.jiyi.langchain4j;

import dev.jiyi.authority.Ids;
import dev.jiyi.authority.InvalidInputException;
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
     * The session a LangChain4j conversation is in jiyi: {@value #PREFIX} and its memory ID as text
     * when that makes a valid jiyi ID (no whitespace, at most 200 characters in all), else
     * {@value #PREFIX} and 32 hex digits of the memory ID's SHA-256. Every memory ID maps to one
     * session, the same one every time, and never to a session the command line or another host
     * writes (such as {@code default}), so forgetting a conversation can only reach its own turns.
     */
    public static String of(Object memoryId) {
        if (memoryId == null) {
            throw new IllegalArgumentException("memoryId: is required");
        }
        String text = memoryId.toString();
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("memoryId: must not be blank");
        }
        try {
            return Ids.check("session", PREFIX + text);
        } catch (InvalidInputException notAnId) {
            return PREFIX + ChatWindows.hash(text);
        }
    }

}
