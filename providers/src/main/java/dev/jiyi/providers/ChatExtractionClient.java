package dev.jiyi.providers;

import okhttp3.OkHttpClient;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Extraction through an OpenAI-compatible {@code /chat/completions} endpoint with JSON-object
 * answers (X1): the {@link ExtractionPrompt} at temperature 0, {@code response_format}
 * {@code json_object}, the key as a bearer token when one is set, the endpoint's timeout for the
 * whole call. Failures are {@link ProviderException}s whose messages are safe to store (X2).
 *
 * <p>{@link #parse(String)} checks only JSON types; ranges, enum values and quotes are the
 * authority's to judge, so nothing here alters a string.
 */
public final class ChatExtractionClient implements Extractor {

    private final Endpoint endpoint;
    private final OpenAiHttp http;

    public ChatExtractionClient(Endpoint endpoint) {
        this(endpoint, OpenAiHttp.sharedClient());
    }

    /** @param client shared for its connections; its timeouts are replaced by the endpoint's */
    public ChatExtractionClient(Endpoint endpoint, OkHttpClient client) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.http = new OpenAiHttp(endpoint, client, "extraction endpoint");
    }

    @Override
    public String fingerprint() {
        return Fingerprints.remote(endpoint.baseUrl(), endpoint.model(), ExtractionPrompt.VERSION);
    }

    @Override
    public ExtractionAnswer extract(ExtractionInput input) {
        ObjectNode body = OpenAiHttp.JSON.createObjectNode();
        body.put("model", endpoint.model());
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", ExtractionPrompt.SYSTEM);
        messages.addObject().put("role", "user").put("content", ExtractionPrompt.user(input));
        body.putObject("response_format").put("type", "json_object");
        body.put("temperature", 0);

        JsonNode choice = http.post("chat/completions", body).path("choices").path(0);
        JsonNode content = choice.path("message").path("content");
        if (!content.isString()) {
            throw http.malformed("answered without a choices[0].message.content string");
        }
        try {
            return parse(content.stringValue());
        } catch (ProviderException e) {
            if ("length".equals(choice.path("finish_reason").asString(""))) {
                throw http.malformed("cut its answer off at the model's length limit");
            }
            throw e;
        }
    }

    /**
     * Reads a model's answer: one JSON object with a {@code memories} array. Items of the documented
     * JSON types become {@link ExtractedMemory}s; every other item becomes one {@link ItemProblem}
     * per broken field, and the good items survive. Unknown keys are ignored.
     *
     * @throws ProviderException MALFORMED_ANSWER when the content is not such an object
     */
    public static ExtractionAnswer parse(String content) {
        String digest = sha256(content);
        JsonNode root;
        try {
            root = OpenAiHttp.JSON.readTree(content);
        } catch (JacksonException e) {
            throw malformed("extraction answer is not JSON");
        }
        if (root == null || !root.isObject()) {
            throw malformed("extraction answer is not a JSON object");
        }
        JsonNode items = root.get("memories");
        if (items == null || !items.isArray()) {
            throw malformed("extraction answer: memories: must be an array");
        }
        List<ExtractedMemory> memories = new ArrayList<>();
        List<ItemProblem> problems = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            JsonNode item = items.get(i);
            if (!item.isObject()) {
                problems.add(new ItemProblem(i, "memory", "must be a JSON object"));
                continue;
            }
            ItemReader r = new ItemReader(i, problems);
            int before = problems.size();
            String text = r.requiredString(item, "text");
            String quote = r.requiredString(item, "quote");
            String kind = r.requiredString(item, "kind");
            String basis = r.requiredString(item, "basis");
            double confidence = r.requiredNumber(item, "confidence");
            String subject = r.optionalString(item, "subject");
            String factKey = r.optionalString(item, "fact_key");
            String validAt = r.optionalString(item, "valid_at");
            String gist = r.optionalString(item, "gist");
            List<String> cues = r.cues(item);
            ExtractedMemory.Emotion emotion = r.emotion(item);
            if (problems.size() == before) {
                memories.add(new ExtractedMemory(i, text, quote, kind, basis, confidence, subject, factKey, validAt,
                        gist, cues, emotion));
            }
        }
        return new ExtractionAnswer(memories, problems, digest);
    }

    private static ProviderException malformed(String message) {
        return new ProviderException(ProviderException.Kind.MALFORMED_ANSWER, message);
    }

    private static String sha256(String content) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(content.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** Reads one item's fields, adding a problem (field and rule, never the value) for each bad one. */
    private static final class ItemReader {

        private final int index;
        private final List<ItemProblem> problems;

        ItemReader(int index, List<ItemProblem> problems) {
            this.index = index;
            this.problems = problems;
        }

        String requiredString(JsonNode node, String field) {
            return string(node, field, field, true);
        }

        String optionalString(JsonNode node, String field) {
            return string(node, field, field, false);
        }

        double requiredNumber(JsonNode node, String field) {
            return number(node, field, field);
        }

        List<String> cues(JsonNode item) {
            JsonNode cues = item.get("cues");
            if (cues == null || cues.isNull()) {
                return List.of();
            }
            List<String> result = new ArrayList<>();
            if (cues.isArray()) {
                for (JsonNode cue : cues) {
                    if (!cue.isString()) {
                        break;
                    }
                    result.add(cue.stringValue());
                }
                if (result.size() == cues.size()) {
                    return result;
                }
            }
            problems.add(new ItemProblem(index, "cues", "must be an array of strings"));
            return List.of();
        }

        ExtractedMemory.Emotion emotion(JsonNode item) {
            JsonNode emotion = item.get("emotion");
            if (emotion == null || emotion.isNull()) {
                return null;
            }
            if (!emotion.isObject()) {
                problems.add(new ItemProblem(index, "emotion", "must be a JSON object"));
                return null;
            }
            int before = problems.size();
            String label = string(emotion, "label", "emotion.label", true);
            double valence = number(emotion, "valence", "emotion.valence");
            double arousal = number(emotion, "arousal", "emotion.arousal");
            return problems.size() == before ? new ExtractedMemory.Emotion(label, valence, arousal) : null;
        }

        private String string(JsonNode node, String key, String field, boolean required) {
            JsonNode value = node.get(key);
            if (value == null || value.isNull()) {
                if (required) {
                    problems.add(new ItemProblem(index, field, "is required"));
                }
                return null;
            }
            if (!value.isString()) {
                problems.add(new ItemProblem(index, field, "must be a string"));
                return null;
            }
            return value.stringValue();
        }

        private double number(JsonNode node, String key, String field) {
            JsonNode value = node.get(key);
            if (value == null || value.isNull()) {
                problems.add(new ItemProblem(index, field, "is required"));
                return Double.NaN;
            }
            if (!value.isNumber()) {
                problems.add(new ItemProblem(index, field, "must be a number"));
                return Double.NaN;
            }
            return value.numberValue().doubleValue();
        }
    }
}
