package dev.jiyi.langchain4j;

import dev.jiyi.authority.Ids;
import dev.jiyi.authority.InvalidInputException;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Which jiyi session a LangChain4j conversation is: the session its turns are kept in, its
 * checkpoints saved under and its context pack made for, so that {@code jiyi resume --session} and
 * {@code jiyi checkpoint} reach the same conversation from the command line.
 */
public final class JiyiSessions {

    private JiyiSessions() {
    }

    /**
     * The session a LangChain4j conversation is in jiyi: its memory ID as text when that is a valid
     * jiyi ID (no whitespace, at most 200 characters), else {@code conversation-} and 32 hex digits
     * of its SHA-256, so every memory ID maps to one session and the same one every time.
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
            return Ids.check("session", text);
        } catch (InvalidInputException notAnId) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
                return "conversation-" + HexFormat.of().formatHex(digest, 0, 16);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is missing from this JVM", e);
            }
        }
    }

}
