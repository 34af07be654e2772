package dev.jiyi.providers;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** {@link ChatExtractionClient#parse(String)}: the model's answer, by JSON type only. */
class ExtractionParseTest {

    private static final String FULL_ITEM = """
            {"text": "用户住在杭州", "quote": "  我住在杭州，\\t西湖边。 ", "kind": "fact", "basis": "user_statement",
             "confidence": 0.9, "subject": "user", "fact_key": "home_city", "valid_at": "2024-03-01T00:00:00+08:00",
             "gist": "住在杭州", "cues": ["IMG_0412.jpg", "西湖"],
             "emotion": {"label": "开心", "valence": 0.6, "arousal": 0.3}}""";

    @Test
    @DisplayName("X3 a good batch parses every field, quotes byte-exact with their spaces")
    void goodBatch() {
        String content = "{\"memories\": [" + FULL_ITEM + ", "
                + "{\"text\": \"User likes tea\", \"quote\": \"I prefer tea\", \"kind\": \"preference\","
                + " \"basis\": \"user_statement\", \"confidence\": 1}]}";

        ExtractionAnswer answer = ChatExtractionClient.parse(content);

        assertThat(answer.problems()).isEmpty();
        assertThat(answer.memories()).hasSize(2);
        ExtractedMemory zh = answer.memories().get(0);
        assertThat(zh.index()).isZero();
        assertThat(zh.text()).isEqualTo("用户住在杭州");
        assertThat(zh.quote().getBytes(StandardCharsets.UTF_8))
                .isEqualTo("  我住在杭州，\t西湖边。 ".getBytes(StandardCharsets.UTF_8));
        assertThat(zh.kind()).isEqualTo("fact");
        assertThat(zh.basis()).isEqualTo("user_statement");
        assertThat(zh.confidence()).isEqualTo(0.9);
        assertThat(zh.subject()).isEqualTo("user");
        assertThat(zh.factKey()).isEqualTo("home_city");
        assertThat(zh.validAt()).isEqualTo("2024-03-01T00:00:00+08:00");
        assertThat(zh.gist()).isEqualTo("住在杭州");
        assertThat(zh.cues()).containsExactly("IMG_0412.jpg", "西湖");
        assertThat(zh.emotion()).isEqualTo(new ExtractedMemory.Emotion("开心", 0.6, 0.3));

        ExtractedMemory en = answer.memories().get(1);
        assertThat(en.index()).isEqualTo(1);
        assertThat(en.confidence()).isEqualTo(1.0);
        assertThat(en.subject()).isNull();
        assertThat(en.factKey()).isNull();
        assertThat(en.validAt()).isNull();
        assertThat(en.gist()).isNull();
        assertThat(en.cues()).isEmpty();
        assertThat(en.emotion()).isNull();
    }

    @Test
    @DisplayName("X1 an empty memories array is a valid answer")
    void emptyBatch() {
        ExtractionAnswer answer = ChatExtractionClient.parse("{\"memories\": []}");

        assertThat(answer.memories()).isEmpty();
        assertThat(answer.problems()).isEmpty();
    }

    @Test
    @DisplayName("X1 unknown keys, at the top and in items, are ignored; JSON null is an absent optional field")
    void unknownKeysAndNulls() {
        String content = """
                {"thoughts": "ignore me", "memories": [
                  {"text": "t", "quote": "q", "kind": "episode", "basis": "inference", "confidence": 0.4,
                   "importance": 5, "subject": null, "fact_key": null, "valid_at": null, "gist": null,
                   "cues": null, "emotion": null, "extra": {"nested": [1, 2]}}],
                 "version": 2}""";

        ExtractionAnswer answer = ChatExtractionClient.parse(content);

        assertThat(answer.problems()).isEmpty();
        ExtractedMemory m = answer.memories().getFirst();
        assertThat(m.subject()).isNull();
        assertThat(m.gist()).isNull();
        assertThat(m.cues()).isEmpty();
        assertThat(m.emotion()).isNull();
    }

    @Test
    @DisplayName("X3 values are not range-checked here: the authority judges kind, basis and confidence")
    void noRangeChecks() {
        String content = "{\"memories\": [{\"text\": \"\", \"quote\": \"not in the event\", \"kind\": \"banana\","
                + " \"basis\": \"guess\", \"confidence\": 7.5, \"emotion\": {\"label\": \"\", \"valence\": -3,"
                + " \"arousal\": 2}}]}";

        ExtractedMemory m = ChatExtractionClient.parse(content).memories().getFirst();

        assertThat(m.kind()).isEqualTo("banana");
        assertThat(m.basis()).isEqualTo("guess");
        assertThat(m.confidence()).isEqualTo(7.5);
        assertThat(m.emotion()).isEqualTo(new ExtractedMemory.Emotion("", -3, 2));
    }

    @Test
    @DisplayName("X3 items of the wrong shape become problems with index, field and rule; good items survive")
    void itemProblems() {
        String good = "{\"text\": \"t\", \"quote\": \"q\", \"kind\": \"fact\", \"basis\": \"user_statement\","
                + " \"confidence\": 0.5}";
        String content = "{\"memories\": [" + good + ","
                + "{\"text\": 1, \"quote\": \"q\", \"kind\": \"fact\", \"basis\": \"user_statement\", \"confidence\": 0.5},"
                + "{\"text\": \"t\", \"kind\": \"fact\", \"basis\": \"user_statement\", \"confidence\": 0.5},"
                + "\"just a string\","
                + "{\"text\": \"t\", \"quote\": \"q\", \"kind\": \"fact\", \"basis\": \"user_statement\", \"confidence\": \"0.9\"},"
                + "{\"text\": \"t\", \"quote\": \"q\", \"kind\": \"emotion\", \"basis\": \"assistant_expression\","
                + " \"confidence\": 0.5, \"emotion\": {\"label\": \"calm\", \"valence\": \"high\"}},"
                + "{\"text\": \"t\", \"quote\": \"q\", \"kind\": \"fact\", \"basis\": \"user_statement\", \"confidence\": 0.5,"
                + " \"cues\": [\"ok\", 3], \"gist\": [\"no\"], \"subject\": 5},"
                + "{\"text\": \"t\", \"quote\": null, \"kind\": \"fact\", \"basis\": \"user_statement\", \"confidence\": 0.5,"
                + " \"emotion\": \"happy\"},"
                + good + "]}";

        ExtractionAnswer answer = ChatExtractionClient.parse(content);

        assertThat(answer.memories()).extracting(ExtractedMemory::index).containsExactly(0, 8);
        assertThat(answer.problems())
                .extracting(ItemProblem::index, ItemProblem::field, ItemProblem::rule)
                .containsExactly(
                        tuple(1, "text", "must be a string"),
                        tuple(2, "quote", "is required"),
                        tuple(3, "memory", "must be a JSON object"),
                        tuple(4, "confidence", "must be a number"),
                        tuple(5, "emotion.valence", "must be a number"),
                        tuple(5, "emotion.arousal", "is required"),
                        tuple(6, "subject", "must be a string"),
                        tuple(6, "gist", "must be a string"),
                        tuple(6, "cues", "must be an array of strings"),
                        tuple(7, "quote", "is required"),
                        tuple(7, "emotion", "must be a JSON object"));
    }

    @Test
    @DisplayName("X2 a problem names the field and the rule, never the item's text")
    void problemsHoldNoText() {
        String content = "{\"memories\": [{\"text\": \"秘密文本\", \"quote\": [\"秘密引文\"], \"kind\": \"fact\","
                + " \"basis\": \"user_statement\", \"confidence\": 0.5}]}";

        ItemProblem problem = ChatExtractionClient.parse(content).problems().getFirst();

        assertThat(problem.toString()).doesNotContain("秘密");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"items\": []}",
        "{\"memories\": {\"text\": \"t\"}}",
        "{\"memories\": null}",
        "[{\"memories\": []}]",
        "\"memories\"",
        "Here are the memories: {\"memories\": []}",
        "{\"memories\": []} and more",
        "{\"memories\": [], \"memories\": []}",
        "{\"memories\": [",
        ""
    })
    @DisplayName("X1 content that is not one JSON object with a memories array is MALFORMED_ANSWER")
    void malformedContent(String content) {
        assertThatThrownBy(() -> ChatExtractionClient.parse(content))
                .isInstanceOfSatisfying(ProviderException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ProviderException.Kind.MALFORMED_ANSWER);
                    assertThat(e.getMessage()).startsWith("extraction answer").doesNotContain("Here are");
                    assertThat(e.getCause()).isNull();
                });
    }

    @Test
    @DisplayName("X5 the digest is the SHA-256 of the content (UTF-8): equal for equal contents, different otherwise")
    void digest() {
        String a = "{\"memories\": []}";

        assertThat(ChatExtractionClient.parse(a).digest())
                .isEqualTo("2c57b9947c8f227b2be9bf01d8e9622c8ce0173ae8ba5ea7a7fc3992c1e51dc7")
                .isEqualTo(ChatExtractionClient.parse(new String(a.toCharArray())).digest())
                .isNotEqualTo(ChatExtractionClient.parse("{\"memories\":[]}").digest());
        assertThat(ChatExtractionClient.parse("{\"memories\": [], \"note\": \"记忆\"}").digest())
                .isEqualTo("7a485ac7686c0fbbf06446f2914f05bab6f84d44f0d8a93f2c094fb9071b99c4");
    }

    @Test
    @DisplayName("X1 a memory keeps its cues in order")
    void cuesInOrder() {
        String content = "{\"memories\": [{\"text\": \"t\", \"quote\": \"q\", \"kind\": \"observation\","
                + " \"basis\": \"inference\", \"confidence\": 0.2, \"cues\": [\"b\", \"a\", \"b\"]}]}";

        assertThat(ChatExtractionClient.parse(content).memories().getFirst().cues())
                .isEqualTo(List.of("b", "a", "b"));
    }
}
