package dev.jiyi.providers;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import static dev.jiyi.providers.LocalEmbedderTest.cosine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The bundled English model, the choice of model by language, the standalone thresholds, and a
 * user's own ONNX export loaded from disk (the bundled Chinese model's own files, copied out of its
 * jar). One class, so each model loads once.
 */
class LocalModelTest {

    @TempDir
    static Path dir;

    static final LocalEmbedder EN = new LocalEmbedder(LocalModel.BGE_SMALL_EN, "1");
    static final LocalEmbedder ZH = new LocalEmbedder(LocalModel.BGE_SMALL_ZH, "1");

    static Path onnx;
    static Path tokenizer;

    @BeforeAll
    static void copyTheBundledChineseModel() throws IOException {
        onnx = copy("bge-small-zh-v1.5-q.onnx", dir.resolve("model.onnx"));
        tokenizer = copy("bge-small-zh-v1.5-q-tokenizer.json", dir.resolve("tokenizer.json"));
    }

    private static Path copy(String resource, Path to) throws IOException {
        try (InputStream in = dev.langchain4j.model.embedding.onnx.bgesmallzhv15q.BgeSmallZhV15QuantizedEmbeddingModel.class
                .getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
        }
        return to;
    }

    @Test
    @DisplayName("V1 the English model: 384 dimensions, unit length, its own fingerprint; pet is closer to a cat "
            + "than to a tax report; a query carries BGE's retrieval instruction, a text does not")
    void english() {
        List<float[]> v = EN.embed(List.of("I have a cat", "The quarterly tax report is due on Friday"));
        float[] pet = EN.embedQuery("pet");
        assertThat(v).allSatisfy(x -> {
            assertThat(x).hasSize(384);
            assertThat(cosine(x, x)).isCloseTo(1.0, within(1e-5));
        });
        assertThat(cosine(pet, v.get(0))).isGreaterThan(cosine(pet, v.get(1)) + 0.1);
        assertThat(pet).isNotEqualTo(EN.embed("pet"))
                .isEqualTo(EN.embed("Represent this sentence for searching relevant passages: pet"));
        assertThat(EN.fingerprint()).isEqualTo("local:bge-small-en-v1.5-q@langchain4j-embeddings-1.11.0-beta19|1")
                .isNotEqualTo(ZH.fingerprint());
        assertThat(EN.loaded()).isTrue();
    }

    @Test
    @DisplayName("V1 the bundled pair: text with a Han character goes to the Chinese model, any other to the "
            + "English one; one model embeds everything when it is the only one")
    void modelByLanguage() {
        Embedders pair = Embedders.bundled("1");
        assertThat(pair.forText("我养了一只猫").fingerprint()).contains("bge-small-zh");
        assertThat(pair.forText("我在用 Spring Boot 写服务").fingerprint()).contains("bge-small-zh");
        assertThat(pair.forText("I have a cat").fingerprint()).contains("bge-small-en");
        assertThat(pair.forText("Café au lait, 42").fingerprint()).contains("bge-small-en");
        assertThat(pair.all()).hasSize(2);
        assertThat(pair.single()).isFalse();

        Embedders one = Embedders.of(ZH);
        assertThat(one.forText("I have a cat")).isSameAs(ZH);
        assertThat(one.all()).containsExactly(ZH);
    }

    @Test
    @DisplayName("R6 R11 a bundled model answers alone only in its own language; the English one from 0.55 in a "
            + "home of up to 100 of its vectors, rising along the logarithm to 0.62 from 600; the Chinese one "
            + "from 0.55 at any size; never below the floor in force")
    void standaloneThresholds() {
        assertThat(ZH.standaloneThreshold("宠物", 0.5, 5)).isEqualTo(0.55);
        assertThat(ZH.standaloneThreshold("宠物", 0.5, 100_000)).isEqualTo(0.55);
        assertThat(ZH.standaloneThreshold("pet", 0.5, 5)).isInfinite();
        assertThat(EN.standaloneThreshold("pet", 0.5, 5)).isEqualTo(0.55);
        assertThat(EN.standaloneThreshold("pet", 0.5, 100)).isEqualTo(0.55);
        assertThat(EN.standaloneThreshold("pet", 0.5, 245)).isCloseTo(0.585, within(0.002));
        assertThat(EN.standaloneThreshold("pet", 0.5, 600)).isEqualTo(0.62);
        assertThat(EN.standaloneThreshold("pet", 0.5, 1_000_000)).isEqualTo(0.62);
        assertThat(EN.standaloneThreshold("宠物 pet", 0.5, 5)).isInfinite();
        assertThat(EN.standaloneThreshold("Где моя кошка?", 0.5, 5)).as("Cyrillic").isInfinite();
        assertThat(EN.standaloneThreshold("내 고양이", 0.5, 5)).as("Hangul").isInfinite();
        assertThat(EN.standaloneThreshold("42?", 0.5, 5)).as("no letter").isInfinite();
        assertThat(EN.standaloneThreshold("Café, 2 pets?", 0.5, 5)).isEqualTo(0.55);
        assertThat(EN.standaloneThreshold("pet", 0.7, 5)).isEqualTo(0.7);
    }

    @Test
    @DisplayName("V1 a user's own ONNX export (model file, tokenizer.json, CLS pooling) gives the same vectors as "
            + "the bundled model made from the same files, under a fingerprint of its own")
    void usersOwnModel() {
        LocalEmbedder own = new LocalEmbedder(LocalModel.onnx(onnx, tokenizer, LocalModel.Pooling.CLS, Double.NaN, ""), "1");
        List<String> texts = List.of("我养了一只猫", "I have a cat", "宠物");

        List<float[]> mine = own.embed(texts);
        List<float[]> bundled = ZH.embed(texts);

        for (int i = 0; i < texts.size(); i++) {
            assertThat(cosine(mine.get(i), bundled.get(i))).as(texts.get(i)).isCloseTo(1.0, within(1e-5));
        }
        assertThat(own.fingerprint()).matches("local:onnx@[0-9a-f]{16}-cls\\|1");
        assertThat(own.cosineThreshold()).isEqualTo(Embedder.DEFAULT_COSINE_THRESHOLD);
        // Any language: the threshold in force, or the configured standalone threshold.
        assertThat(own.standaloneThreshold("pet", 0.3, 5)).isEqualTo(0.3);
        assertThat(own.standaloneThreshold("宠物", 0.3, 5)).isEqualTo(0.3);
        assertThat(new LocalEmbedder(LocalModel.onnx(onnx, tokenizer, LocalModel.Pooling.CLS, 0.6, ""), "1")
                .standaloneThreshold("宠物", 0.3, 5)).isEqualTo(0.6);
    }

    @Test
    @DisplayName("V1 a user's model's fingerprint changes with its pooling, its tokenizer or its file, not with "
            + "its path or name; the query prefix is applied to queries only")
    void usersOwnFingerprint() throws IOException {
        String cls = LocalModel.onnx(onnx, tokenizer, LocalModel.Pooling.CLS, Double.NaN, "").version();
        String fingerprint = new LocalEmbedder(LocalModel.onnx(onnx, tokenizer, LocalModel.Pooling.CLS, Double.NaN, ""),
                "1").fingerprint();
        assertThat(LocalModel.onnx(onnx, tokenizer, LocalModel.Pooling.MEAN, Double.NaN, "").version()).isNotEqualTo(cls);

        Path moved = Files.createDirectory(dir.resolve("moved"));
        Path sameModel = Files.copy(onnx, moved.resolve("renamed.onnx"));
        Path sameTokenizer = Files.copy(tokenizer, moved.resolve("tokenizer.json"));
        assertThat(new LocalEmbedder(LocalModel.onnx(sameModel, sameTokenizer, LocalModel.Pooling.CLS, Double.NaN, ""),
                "1").fingerprint()).isEqualTo(fingerprint).doesNotContain(dir.toString()).doesNotContain("onnx@" + "model");

        Path otherTokenizer = Files.writeString(moved.resolve("other.json"),
                Files.readString(tokenizer).replaceFirst("\\{", "{ "));
        assertThat(LocalModel.onnx(sameModel, otherTokenizer, LocalModel.Pooling.CLS, Double.NaN, "").version())
                .isNotEqualTo(cls);

        byte[] bytes = Files.readAllBytes(onnx);
        bytes[bytes.length - 1] ^= 1;
        Path otherModel = Files.write(moved.resolve("other.onnx"), bytes);
        assertThat(LocalModel.onnx(otherModel, tokenizer, LocalModel.Pooling.CLS, Double.NaN, "").version())
                .isNotEqualTo(cls);

        LocalEmbedder prefixed = new LocalEmbedder(LocalModel.onnx(onnx, tokenizer, LocalModel.Pooling.CLS, Double.NaN,
                "query: "), "1");
        assertThat(prefixed.embedQuery("宠物")).isEqualTo(prefixed.embed("query: 宠物"));
        assertThat(prefixed.embed(List.of("宠物")).getFirst()).isNotEqualTo(prefixed.embedQuery("宠物"));
    }

    @Test
    @DisplayName("V1 a missing or unreadable model file or tokenizer is NOT_CONFIGURED naming the setting, "
            + "never the path")
    void unreadableFiles() {
        Path missing = dir.resolve("nope.onnx");
        assertThatThrownBy(() -> LocalModel.onnx(missing, tokenizer, LocalModel.Pooling.CLS, Double.NaN, ""))
                .isInstanceOfSatisfying(ProviderException.class,
                        e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.NOT_CONFIGURED))
                .hasMessage("embed.onnx.model: must be a readable file");
        assertThatThrownBy(() -> LocalModel.onnx(onnx, dir, LocalModel.Pooling.MEAN, Double.NaN, ""))
                .hasMessage("embed.onnx.tokenizer: must be a readable file");
        assertThat(LocalModel.Pooling.parse(" CLS ")).isEqualTo(LocalModel.Pooling.CLS);
        assertThat(LocalModel.Pooling.parse("max")).isNull();
    }
}
