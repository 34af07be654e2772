package dev.jiyi.spring;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;

import java.util.ArrayList;
import java.util.List;

/** A chat model of the test's own: it answers every prompt with the same words and keeps each prompt's messages. */
final class ScriptedChatModel implements ChatModel {

    static final String REPLY = "好的 / OK";

    private final List<List<Message>> prompts = new ArrayList<>();

    @Override
    public synchronized ChatResponse call(Prompt prompt) {
        prompts.add(List.copyOf(prompt.getInstructions()));
        return new ChatResponse(List.of(new Generation(new AssistantMessage(REPLY))));
    }

    /** Streams the same reply in two chunks, the finish reason on the last, as providers do. */
    @Override
    public reactor.core.publisher.Flux<ChatResponse> stream(Prompt prompt) {
        synchronized (this) {
            prompts.add(List.copyOf(prompt.getInstructions()));
        }
        String first = REPLY.substring(0, 5);
        return reactor.core.publisher.Flux.just(
                new ChatResponse(List.of(new Generation(new AssistantMessage(first)))),
                new ChatResponse(List.of(new Generation(new AssistantMessage(REPLY.substring(5)),
                        org.springframework.ai.chat.metadata.ChatGenerationMetadata.builder().finishReason("STOP").build()))));
    }

    synchronized List<Message> lastPrompt() {
        return prompts.getLast();
    }

    /** The system text of the last prompt, or the empty string when it had none. */
    synchronized String lastSystemText() {
        return lastPrompt().stream().filter(m -> m instanceof SystemMessage).map(Message::getText).findFirst().orElse("");
    }
}
