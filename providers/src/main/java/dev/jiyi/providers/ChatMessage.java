package dev.jiyi.providers;

import java.util.Locale;
import java.util.Objects;

/**
 * One message of a chat-completions request: a role and its text, sent exactly as given.
 *
 * @param role who says it
 * @param content the text, never null (it may be empty)
 */
public record ChatMessage(Role role, String content) {

    /** The roles a request may carry; {@link #wireName()} is the OpenAI spelling. */
    public enum Role {
        SYSTEM, USER, ASSISTANT;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public ChatMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
    }

    public static ChatMessage system(String content) {
        return new ChatMessage(Role.SYSTEM, content);
    }

    public static ChatMessage user(String content) {
        return new ChatMessage(Role.USER, content);
    }
}
