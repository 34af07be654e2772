package dev.jiyi.providers;

import java.util.Objects;

/**
 * A chat model's answer: the first choice's text and what the endpoint said about it.
 *
 * @param content the reply text, exactly as the endpoint sent it
 * @param finishReason why the model stopped ({@code stop}, {@code length}, ...), or null when not said
 * @param promptTokens the prompt's token count as the endpoint reported it, or null
 * @param completionTokens the reply's token count as the endpoint reported it, or null
 */
public record ChatReply(String content, String finishReason, Integer promptTokens, Integer completionTokens) {

    public ChatReply {
        Objects.requireNonNull(content, "content");
    }

    /** True when the model was cut off at its length limit, so the reply is incomplete. */
    public boolean truncated() {
        return "length".equals(finishReason);
    }
}
