package dev.jiyi.providers;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class FingerprintsTest {

    @Test
    @DisplayName("V1 a different endpoint, model or version gives a different fingerprint")
    void distinct() {
        Set<String> fingerprints = Set.of(
                Fingerprints.remote("http://127.0.0.1:8080/v1", "bge-m3", "1"),
                Fingerprints.remote("http://127.0.0.1:8081/v1", "bge-m3", "1"),
                Fingerprints.remote("http://127.0.0.1:8080/v2", "bge-m3", "1"),
                Fingerprints.remote("https://127.0.0.1:8080/v1", "bge-m3", "1"),
                Fingerprints.remote("http://127.0.0.1:8080/v1", "bge-m3-q", "1"),
                Fingerprints.remote("http://127.0.0.1:8080/v1", "bge-m3", "2"),
                Fingerprints.local("bge-small-zh-v1.5-q", "langchain4j-embeddings-1.11.0-beta19", "1"),
                Fingerprints.local("bge-small-zh-v1.5-q", "langchain4j-embeddings-1.12.0", "1"),
                Fingerprints.local("bge-small-zh-v1.5-q", "langchain4j-embeddings-1.11.0-beta19", "2"));

        assertThat(fingerprints).hasSize(9);
    }

    @Test
    @DisplayName("V1 the same endpoint written differently gives the same fingerprint")
    void sameEndpoint() {
        assertThat(Fingerprints.remote("HTTP://API.Example.com/v1///", "m", "1"))
                .isEqualTo(Fingerprints.remote(" http://api.example.com/v1", "m", "1"))
                .isEqualTo("openai-compatible:http://api.example.com/v1|m|1");
    }

    @Test
    @DisplayName("V1 O7 a fingerprint never holds user-info, query or fragment")
    void noCredentials() {
        String fingerprint = Fingerprints.remote(
                "https://alice:s3cret@api.example.com:8443/openai/v1/?api-key=k3y&x=1#s3ction", "gpt", "1");

        assertThat(fingerprint).isEqualTo("openai-compatible:https://api.example.com:8443/openai/v1|gpt|1")
                .doesNotContain("alice").doesNotContain("s3cret").doesNotContain("k3y").doesNotContain("s3ction");
        assertThat(Fingerprints.remote("token@localhost:8080?key=k3y", "m", "1"))
                .isEqualTo("openai-compatible:localhost:8080|m|1");
        assertThat(Fingerprints.remote("http://a@b:c@host/v1#frag@x", "m", "1"))
                .isEqualTo("openai-compatible:http://host/v1|m|1");
    }

    @Test
    @DisplayName("V1 a path keeps its case; only scheme and host are lower-cased")
    void pathCase() {
        assertThat(Fingerprints.remote("http://Host/Azure/V1", "m", "1"))
                .isEqualTo("openai-compatible:http://host/Azure/V1|m|1");
    }

    @Test
    @DisplayName("V1 the local fingerprint is model name @ artifact version | configured version")
    void local() {
        assertThat(Fingerprints.local("bge-small-zh-v1.5-q", "langchain4j-embeddings-1.11.0-beta19", "1"))
                .isEqualTo("local:bge-small-zh-v1.5-q@langchain4j-embeddings-1.11.0-beta19|1");
    }
}
