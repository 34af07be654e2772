package dev.jiyi.pack;

import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.jiyi.pack.PackFixture.cl100k;
import static dev.jiyi.pack.PackFixture.independentCount;
import static dev.jiyi.pack.PackFixture.o200k;
import static dev.jiyi.pack.PackFixture.parse;
import static dev.jiyi.pack.PackFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/** P5: what counts the context, by model name, and that the count is the count of the context text itself. */
class TokenCountTest {

    static final List<String> SAMPLES = List.of(
            "",
            "hello world",
            "我在北京大学读书，今天天气很好。",
            "Mixed 中英文 text with emoji 😀🎉 and tabs\tand\nnewlines",
            "{\"about\":\"json-ish \\\"quoted\\\" text\",\"n\":[1,2,3]}",
            "<|endoftext|>",
            "before <|endoftext|> after <|fim_prefix|><|fim_middle|><|fim_suffix|> <|endofprompt|> <|im_start|>",
            "「引号」《书名》——破折号…省略号 ＡＩ　全角",
            "a".repeat(5000),
            "书".repeat(3000));

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "NULL", value = {
            "gpt-4, cl100k_base",
            "GPT-4, cl100k_base",
            "gpt-4-turbo, cl100k_base",
            "gpt-3.5-turbo, cl100k_base",
            "openai/gpt-4, cl100k_base",
            "cl100k_base, cl100k_base",
            "gpt-4o, o200k_base",
            "GPT-4o, o200k_base",
            "gpt-4o-mini, o200k_base",
            "openai/gpt-4o, o200k_base",
            "o200k_base, o200k_base",
            "gpt-5, o200k_base",
            "o3-mini, o200k_base",
            "claude-x, utf8_bytes",
            "claude-3-5-sonnet, utf8_bytes",
            "deepseek-chat, utf8_bytes",
            "qwen-max, utf8_bytes",
            "'', utf8_bytes",
            "NULL, utf8_bytes"})
    @DisplayName("P5 the model name picks the counter: cl100k_base for gpt-4 / gpt-3.5, o200k_base for gpt-4o and newer, UTF-8 bytes for unknown models and none")
    void mapping(String model, String tokenizer) {
        assertThat(TokenCounter.forModel(model).name()).isEqualTo(tokenizer);
    }

    @Test
    @DisplayName("P5 each counter's count equals an independent count (jtokkit used directly, getBytes(UTF_8).length); special-token spellings are ordinary text and never throw")
    void countsMatchIndependentCounts() {
        TokenCounter cl = TokenCounter.forModel("gpt-4");
        TokenCounter o2 = TokenCounter.forModel("gpt-4o");
        TokenCounter bytes = TokenCounter.forModel("deepseek-chat");
        for (String s : SAMPLES) {
            assertThatCode(() -> cl.count(s)).doesNotThrowAnyException();
            assertThat(cl.count(s)).as("cl100k of %s", abbreviate(s)).isEqualTo(cl100k(s));
            assertThat(o2.count(s)).as("o200k of %s", abbreviate(s)).isEqualTo(o200k(s));
            assertThat(bytes.count(s)).as("bytes of %s", abbreviate(s)).isEqualTo(utf8(s));
        }
        assertThat(cl.count("<|endoftext|>")).as("counted as ordinary text, not one special token").isGreaterThan(1);
    }

    @Test
    @DisplayName("P5 UTF-8 bytes are a conservative estimate: never fewer than the cl100k or o200k tokens of the same text (seeded)")
    void bytesAreConservative() {
        Random random = SeededRandom.create("TokenCountTest.bytesAreConservative");
        List<String> texts = new ArrayList<>(SAMPLES);
        for (int i = 0; i < 300; i++) {
            texts.add(SeededRandom.mixedText(random, 300));
        }
        for (String s : texts) {
            assertThat(utf8(s)).as("bytes >= tokens for %s", abbreviate(s)).isGreaterThanOrEqualTo(cl100k(s))
                    .isGreaterThanOrEqualTo(o200k(s));
        }
    }

    @Test
    @DisplayName("P5 a pack of text holding <|endoftext|> and other special-token spellings does not throw, and its count matches for every model")
    void specialTokensInThePack(@TempDir Path dir) {
        try (PackFixture f = new PackFixture(dir)) {
            Scope scope = Scope.DEFAULT;
            f.authority.editPersona("default", "You are helpful. <|endoftext|> 你好 <|im_start|>system");
            f.said(scope, "old", Kind.AGREEMENT, "约定 <|endoftext|> agreement", 100);
            f.said(scope, "old", Kind.FACT, "token <|endoftext|> 在文本里 <|fim_prefix|>", 90);
            f.event(scope, "s1", Role.USER, "最后一句 <|endoftext|><|endofprompt|>", f.minutesAgo(1));
            for (String model : Arrays.asList("gpt-4", "gpt-4o", "claude-x", null)) {
                for (int budget : new int[] {1, 50, 200, 400, 800, 4000}) {
                    Pack p = f.pack(scope, budget, model, "endoftext 文本", "s1");
                    assertThat(p.tokenizer()).isEqualTo(PackFixture.expectedTokenizer(model));
                    assertThat(p.tokens()).isEqualTo(independentCount(model, p.context())).isLessThanOrEqualTo(budget);
                }
                Pack all = f.pack(scope, 4000, model, "endoftext 文本", "s1");
                assertThat(all.status()).isEqualTo(Pack.OK);
                assertThat(all.context()).contains("<|endoftext|>");
                assertThat(parse(all.context()).isObject()).isTrue();
            }
        }
    }

    @Test
    @DisplayName("P5 the pack's tokens are the count of the context text by its model's counter (cl100k, o200k, bytes), never more than the budget; metadata is outside it")
    void packCountIsTheContextCount(@TempDir Path dir) {
        try (PackFixture f = new PackFixture(dir)) {
            Scope scope = new Scope("小明", "项目-甲");
            for (int i = 0; i < 12; i++) {
                f.said(scope, "old", i % 3 == 0 ? Kind.AGREEMENT : Kind.PREFERENCE,
                        "我喜欢第" + i + "种茶 I like tea number " + i, 1000 - i);
                f.event(scope, "s1", i % 2 == 0 ? Role.USER : Role.ASSISTANT, "聊茶 talking about tea " + i, f.minutesAgo(60 - i));
            }
            for (String model : Arrays.asList("gpt-4", "gpt-4o", "claude-x", "deepseek-chat", null)) {
                Pack big = f.pack(scope, PackRequest.MAX_BUDGET, model, "茶 tea", "s1");
                assertThat(big.tokens()).isEqualTo(independentCount(model, big.context()));
                for (int budget = 1; budget <= big.tokens() + 50; budget += Math.max(1, big.tokens() / 37)) {
                    Pack p = f.pack(scope, budget, model, "茶 tea", "s1");
                    assertThat(p.tokenizer()).isEqualTo(PackFixture.expectedTokenizer(model));
                    assertThat(p.tokens()).as("model %s budget %d", model, budget)
                            .isEqualTo(independentCount(model, p.context())).isLessThanOrEqualTo(budget);
                    assertThat(p.budget()).isEqualTo(budget);
                }
            }
            // A CJK-heavy context costs more in bytes than in tokens: the byte count is the conservative one.
            Pack bytes = f.pack(scope, PackRequest.MAX_BUDGET, null, "茶 tea", "s1");
            Pack tokens = f.pack(scope, PackRequest.MAX_BUDGET, "gpt-4", "茶 tea", "s1");
            assertThat(bytes.context()).isEqualTo(tokens.context());
            assertThat(bytes.tokens()).isGreaterThan(tokens.tokens());
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
