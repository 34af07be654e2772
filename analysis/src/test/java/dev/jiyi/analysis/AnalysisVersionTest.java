package dev.jiyi.analysis;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the token stream to {@link ChineseTokens#VERSION}. Indexes delete rows by re-tokenizing the
 * stored text, so a silent change of the stream would leave entries behind; a changed stream must
 * come with a new version, which makes every index rebuild itself.
 */
class AnalysisVersionTest {

    private static final List<String> CORPUS = List.of(
            "我住在上海，在一家做机器学习的公司上班。",
            "I moved to Hangzhou last year; moving again is tiring.",
            "周末去 Hangzhou 西湖散步, and I love 龙井 green tea！",
            "ＦＵＬＬ－ＷＩＤＴＨ Ｔｅｘｔ １２３ and İstanbul",
            "𠮷野家 の 牛丼 and 北京大学 生命科学 研究所",
            "2024-05-01T10:00:00+08:00 NEAR(\"x\" AND y*) ^z:w -q",
            "结婚的和尚未结婚的 · 南京市长江大桥 · 工信处女干事每月经过下属科室",
            "We went to Lisbon, bought two knives and met the children; 我们 went 回家, the rose rose.",
            "She goes; he won't win, left the LEDs lit, is fed up and has thoughts: 他 thought so.");

    /**
     * The expected digest for {@code analysis-2} (English irregular forms as their word's term); change
     * both together, never one alone. {@code analysis-1} (Porter stems alone) gave
     * {@code 2caa75f7ced6a5aa61adbcf59f78f36c5c461c4f5f7a8c6656ced70c13b065e4} without the last two lines.
     */
    private static final String ANALYSIS_2 = "5065b592f83fc37e90b2095bfaee69e9854d06bd3bc75c881521de57ad4fcb66";

    @Test
    void tokenStreamMatchesItsVersion() throws NoSuchAlgorithmException {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        for (String text : CORPUS) {
            for (String term : ChineseTokens.terms(text)) {
                digest.update(term.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
            }
            digest.update((byte) '\n');
        }
        String actual = HexFormat.of().formatHex(digest.digest());
        assertThat(ChineseTokens.VERSION).isEqualTo("analysis-2");
        assertThat(actual)
                .as("the token stream of %s changed: give ChineseTokens.VERSION a new value and pin the new digest here",
                        ChineseTokens.VERSION)
                .isEqualTo(ANALYSIS_2);
    }
}
