package dev.jiyi.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;

import java.util.ArrayList;
import java.util.List;

/**
 * A chat model of the test's own: it answers every request with the same words and keeps each
 * request's messages, so a test reads exactly the prompt LangChain4j's pipeline built.
 */
final class RecordingChatModel implements ChatModel {

    private final List<List<ChatMessage>> requests = new ArrayList<>();

    @Override
    public synchronized ChatResponse doChat(ChatRequest request) {
        requests.add(List.copyOf(request.messages()));
        return ChatResponse.builder().aiMessage(AiMessage.from("好的 / OK")).build();
    }

    /** The messages of the last request. */
    synchronized List<ChatMessage> lastPrompt() {
        return requests.getLast();
    }

    /** The text of the last request's user message (what the retriever's content is injected into). */
    synchronized String lastUserText() {
        List<ChatMessage> prompt = lastPrompt();
        for (int i = prompt.size() - 1; i >= 0; i--) {
            if (prompt.get(i) instanceof UserMessage u) {
                return u.singleText();
            }
        }
        throw new AssertionError("the last request had no user message");
    }

    /** The text of the last request's system message, or null when it had none. */
    synchronized String lastSystemText() {
        for (ChatMessage m : lastPrompt()) {
            if (m instanceof SystemMessage s) {
                return s.text();
            }
        }
        return null;
    }

    /** Every message of every request, as text, for a scan of what the model was ever shown. */
    synchronized String everything() {
        StringBuilder all = new StringBuilder();
        for (List<ChatMessage> request : requests) {
            all.append(request).append('\n');
        }
        return all.toString();
    }
}
