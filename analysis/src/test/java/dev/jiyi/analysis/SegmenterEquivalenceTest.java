package dev.jiyi.analysis;

import com.huaban.analysis.jieba.JiebaSegmenter;
import com.huaban.analysis.jieba.SegToken;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * jiyi's own segmenter over the precompiled dictionary must cut text exactly as
 * com.huaban:jieba-analysis does in index mode: same words, same order.
 */
class SegmenterEquivalenceTest {

    private static JiebaSegmenter jieba;
    private static Segmenter ours;

    @BeforeAll
    static void load() {
        PrintStream out = System.out;
        System.setOut(new PrintStream(OutputStream.nullOutputStream()));
        try {
            jieba = new JiebaSegmenter();
        } finally {
            System.setOut(out);
        }
        ours = new Segmenter(JiebaDictionary.load());
    }

    private static List<String> jiebaWords(String text) {
        List<String> words = new ArrayList<>();
        for (SegToken t : jieba.process(text, JiebaSegmenter.SegMode.INDEX)) {
            words.add(t.word);
        }
        return words;
    }

    private static List<String> ourWords(String text) {
        List<String> words = new ArrayList<>();
        for (Segmenter.Segment s : ours.indexMode(text)) {
            words.add(text.substring(s.start(), s.end()));
        }
        return words;
    }

    private static void assertSame(String text) {
        String normalized = ChineseTokens.normalize(text);
        assertThat(ourWords(normalized)).as("segmenting %s", normalized).isEqualTo(jiebaWords(normalized));
    }

    @Test
    @DisplayName("R1 index mode matches jieba on Chinese, English and mixed sentences")
    void fixedSentences() {
        for (String text : List.of(
                "我在北京大学读书", "这本书很好看", "我来到北京清华大学", "小明硕士毕业于中国科学院计算所，后在日本京都大学深造",
                "他来到了网易杭研大厦", "工信处女干事每月经过下属科室都要亲口交代24口交换机等技术性器件的安装工作",
                "I moved to Shanghai last spring, and I love C++ and c# 3.14 too.", "我喜欢Python和Java编程，尤其是AT&T的历史",
                "卡拉OK和T恤，A股涨了3.5%", "结婚的和尚未结婚的", "南京市长江大桥", "今天天气不错，我们去颐和园吧！",
                "研究生命起源", "张三丰在武当山上练太极拳", "", "   ", "，。！？", "abc_def-ghi.jkl+mno#pq&r")) {
            assertSame(text);
        }
    }

    @Test
    @DisplayName("R1 index mode matches jieba on the MADial-Bench Chinese memories and dialogues")
    void madialChinese() throws IOException {
        Path dir = Path.of("..", "..", "shared", "datasets", "madial-bench", "data", "ch");
        if (!Files.isDirectory(dir)) {
            dir = Path.of("..", "shared", "datasets", "madial-bench", "data", "ch");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(dir), "shared datasets not present");
        int checked = 0;
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    assertSame(line);
                    checked++;
                }
            }
        }
        assertThat(checked).isGreaterThan(300);
    }

    @Test
    @DisplayName("R1 index mode matches jieba on seeded random CJK text")
    void randomText() {
        long seed = Long.getLong("jiyi.test.seed", System.nanoTime());
        System.out.println("[seed] SegmenterEquivalenceTest -Djiyi.test.seed=" + seed);
        Random random = new Random(seed);
        String common = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严龙飞";
        for (int run = 0; run < 500; run++) {
            StringBuilder sb = new StringBuilder();
            int length = 1 + random.nextInt(30);
            for (int i = 0; i < length; i++) {
                int pick = random.nextInt(12);
                if (pick == 0) {
                    sb.append(' ');
                } else if (pick == 1) {
                    sb.append((char) ('a' + random.nextInt(26)));
                } else if (pick == 2) {
                    sb.append((char) (0x4E00 + random.nextInt(0x9FA5 - 0x4E00)));
                } else {
                    sb.append(common.charAt(random.nextInt(common.length())));
                }
            }
            String text = sb.toString();
            assertThat(ourWords(text)).as("seed %d text %s", seed, text).isEqualTo(jiebaWords(text));
        }
    }
}
