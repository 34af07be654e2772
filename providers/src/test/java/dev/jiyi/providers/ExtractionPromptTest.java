package dev.jiyi.providers;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ExtractionPromptTest {

    @Test
    @DisplayName("X1 docs/extraction.md shows the system prompt word for word")
    void documented() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "extraction.md"), StandardCharsets.UTF_8);
        int start = doc.indexOf("```text\n") + "```text\n".length();
        int end = doc.indexOf("```", start);

        assertThat(doc.substring(start, end)).isEqualTo(ExtractionPrompt.SYSTEM);
        assertThat(doc).contains("(version `" + ExtractionPrompt.VERSION + "`)");
    }

    @Test
    @DisplayName("X1 the prompt asks for a JSON object (json_object mode requires the word) and names every field")
    void prompt() {
        assertThat(ExtractionPrompt.SYSTEM).contains("JSON object", "{\"memories\": [...]}", "verbatim",
                "Chinese, English or mixed", "\"text\"", "\"quote\"", "\"kind\"", "\"basis\"", "\"confidence\"",
                "\"subject\"", "\"fact_key\"", "\"valid_at\"", "\"gist\"", "\"cues\"", "\"emotion\"",
                "not a calibrated probability", "never has kind growth");
    }

    @Test
    @DisplayName("X1 the user message is the event as JSON, the text escaped and unchanged")
    void user() {
        String text = " 他说：\"别忘了\"\n\tand a backslash \\ ";

        JsonNode event = ProviderTestKit.JSON.readTree(ExtractionPrompt.user(
                new ExtractionInput("evt-1", "assistant", "conversation", "2024-05-01T02:00:00Z", text)));

        assertThat(event.path("text").stringValue()).isEqualTo(text);
        assertThat(event.path("event_id").stringValue()).isEqualTo("evt-1");
        assertThat(event.path("role").stringValue()).isEqualTo("assistant");
        assertThat(event.path("category").stringValue()).isEqualTo("conversation");
        assertThat(event.path("occurred_at").stringValue()).isEqualTo("2024-05-01T02:00:00Z");
        assertThat(event.size()).isEqualTo(5);
    }
}
