package dev.jiyi.providers;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The in-process BGE small zh model. One class, so the model (about 1.3 s) loads once. */
class LocalEmbedderTest {

    private static final LocalEmbedder EMBEDDER = new LocalEmbedder("1");

    private static final List<String> TEXTS = List.of(
            "我养了一只猫", "宠物", "今天天气很好",
            "I adopted a puppy", "pet", "The quarterly tax report is due on Friday",
            "我养了一只猫");

    private static List<float[]> vectors;

    @BeforeAll
    static void embedOnce() {
        vectors = EMBEDDER.embed(TEXTS);
    }

    static double cosine(float[] a, float[] b) {
        double dot = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
        }
        return dot;
    }

    @Test
    @DisplayName("V1 one vector per text, 512 dimensions, unit length; the model is now loaded")
    void shape() {
        assertThat(vectors).hasSize(TEXTS.size());
        for (float[] v : vectors) {
            assertThat(v).hasSize(LocalModel.BGE_SMALL_ZH.dimensions());
            assertThat(cosine(v, v)).isCloseTo(1.0, within(1e-5));
        }
        assertThat(EMBEDDER.loaded()).isTrue();
    }

    @Test
    @DisplayName("V1 the same text gives the same vector")
    void deterministic() {
        assertThat(vectors.get(6)).isEqualTo(vectors.get(0));
        assertThat(EMBEDDER.embed("我养了一只猫")).isEqualTo(vectors.get(0));
    }

    @Test
    @DisplayName("R3 a cat is closer to pets than the weather is, above 0.5 (measured 0.604 vs 0.362)")
    void chineseSimilarity() {
        double cat = cosine(vectors.get(0), vectors.get(1));
        double weather = cosine(vectors.get(2), vectors.get(1));

        assertThat(cat).isGreaterThan(weather).isGreaterThan(0.5);
    }

    @Test
    @DisplayName("R3 a puppy is closer to a pet than a tax report is (English)")
    void englishSimilarity() {
        assertThat(cosine(vectors.get(3), vectors.get(4))).isGreaterThan(cosine(vectors.get(5), vectors.get(4)));
    }

    @Test
    @DisplayName("V1 more texts than one batch keep their order")
    void batches() {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            texts.add(i == 37 ? "宠物" : "第" + i + "条");
        }

        List<float[]> many = EMBEDDER.embed(texts);

        assertThat(many).hasSize(40);
        assertThat(cosine(many.get(37), vectors.get(1))).isCloseTo(1.0, within(1e-5));
    }

    @Test
    @DisplayName("V1 no texts: no vectors; a blank text is LOCAL_MODEL naming its position")
    void edges() {
        assertThat(EMBEDDER.embed(List.of())).isEmpty();
        assertThatThrownBy(() -> EMBEDDER.embed(List.of("猫", " ")))
                .isInstanceOfSatisfying(ProviderException.class,
                        e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.LOCAL_MODEL))
                .hasMessage("local embedding model: text 1: must not be blank");
    }

    @Test
    @DisplayName("V1 the fingerprint is the model, its artifact version and the configured version")
    void fingerprint() {
        assertThat(EMBEDDER.fingerprint())
                .isEqualTo("local:bge-small-zh-v1.5-q@langchain4j-embeddings-1.11.0-beta19|1")
                .isNotEqualTo(new LocalEmbedder("2").fingerprint());
    }

    @Test
    @DisplayName("V1 DJL is kept offline")
    void offline() {
        assertThat(System.getProperty("ai.djl.offline")).isEqualTo("true");
    }
}
