package dev.jiyi.providers;

import okhttp3.OkHttpClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Objects;

/**
 * A plain chat turn through an OpenAI-compatible {@code /chat/completions} endpoint: the messages
 * and the model in, the first choice's text out. Nothing else is sent (no temperature, no token
 * limit: the endpoint's defaults apply), so two models are compared as they normally answer.
 *
 * <p>The request, the key, the timeout and every failure go through the same plumbing as
 * extraction ({@link OpenAiHttp}): failures are {@link ProviderException}s in jiyi's own words,
 * never a response body, a credential or a URL (X2, O7).
 */
public final class ChatClient {

    private final Endpoint endpoint;
    private final OpenAiHttp http;

    public ChatClient(Endpoint endpoint) {
        this(endpoint, OpenAiHttp.sharedClient());
    }

    /** @param client shared for its connections; its timeouts are replaced by the endpoint's */
    public ChatClient(Endpoint endpoint, OkHttpClient client) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.http = new OpenAiHttp(endpoint, client, "chat endpoint");
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    /**
     * Sends {@code messages} and returns the reply.
     *
     * @throws ProviderException HTTP_STATUS, TIMEOUT, NETWORK, or MALFORMED_ANSWER when the answer has
     *                           no {@code choices[0].message.content} string
     */
    public ChatReply reply(List<ChatMessage> messages) {
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("a chat request needs at least one message");
        }
        ObjectNode body = OpenAiHttp.JSON.createObjectNode();
        body.put("model", endpoint.model());
        ArrayNode array = body.putArray("messages");
        for (ChatMessage m : messages) {
            array.addObject().put("role", m.role().wireName()).put("content", m.content());
        }
        JsonNode answer = http.post("chat/completions", body);
        JsonNode choice = answer.path("choices").path(0);
        JsonNode content = choice.path("message").path("content");
        if (!content.isString()) {
            throw http.malformed("answered without a choices[0].message.content string");
        }
        JsonNode finish = choice.path("finish_reason");
        JsonNode usage = answer.path("usage");
        return new ChatReply(content.stringValue(), finish.isString() ? finish.stringValue() : null,
                count(usage.path("prompt_tokens")), count(usage.path("completion_tokens")));
    }

    private static Integer count(JsonNode n) {
        return n.isIntegralNumber() && n.canConvertToInt() && n.intValue() >= 0 ? n.intValue() : null;
    }
}
