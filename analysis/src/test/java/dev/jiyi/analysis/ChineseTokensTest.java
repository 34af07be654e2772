package dev.jiyi.analysis;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class ChineseTokensTest {

    @Test
    @DisplayName("R1 index mode emits the word, its sub-words and every CJK character")
    void indexModeAndUnigrams() {
        assertThat(ChineseTokens.terms("我在北京大学读书"))
                .contains("北京大学", "北京", "大学", "读书", "北", "京", "大", "学", "读", "书", "我", "在");
        assertThat(ChineseTokens.terms("这本书")).contains("书");
        assertThat(ChineseTokens.terms("书")).containsExactly("书");
    }

    @Test
    @DisplayName("English is lower-cased and NFKC-normalized; mixed text keeps both scripts")
    void englishAndMixed() {
        assertThat(ChineseTokens.terms("I moved to Shanghai")).contains("i", "move", "to", "shanghai");
        assertThat(ChineseTokens.terms("moving moves")).containsExactly("move", "move");
        assertThat(ChineseTokens.terms("ＡＩ")).containsExactly("ai");
        assertThat(ChineseTokens.terms("我喜欢Python和Java编程"))
                .contains("python", "java", "喜欢", "编程", "喜", "欢", "编", "程");
    }

    @Test
    @DisplayName("Porter stems: the classic examples")
    void porterStems() {
        String[][] pairs = {{"caresses", "caress"}, {"ponies", "poni"}, {"cats", "cat"}, {"feed", "feed"},
                {"agreed", "agre"}, {"plastered", "plaster"}, {"motoring", "motor"}, {"sing", "sing"},
                {"conflated", "conflat"}, {"hopping", "hop"}, {"falling", "fall"}, {"filing", "file"},
                {"happy", "happi"}, {"relational", "relat"}, {"conditional", "condit"}, {"generalization", "gener"},
                {"hopefulness", "hope"}, {"electrical", "electr"}, {"adjustment", "adjust"}, {"adoption", "adopt"},
                {"controlling", "control"}, {"roll", "roll"}, {"books", "book"}, {"painting", "paint"},
                {"running", "run"}, {"is", "is"}, {"a", "a"}};
        for (String[] p : pairs) {
            assertThat(PorterStemmer.stem(p[0])).as(p[0]).isEqualTo(p[1]);
        }
    }

    @Test
    @DisplayName("R1 an English irregular form is the term of the word it is a form of, then stemmed as that word is (English, mixed); forms left out stay themselves")
    void irregularForms() {
        String[][] same = {{"bought", "buy"}, {"went", "go"}, {"gone", "going"}, {"met", "meeting"}, {"ran", "running"},
                {"children", "child"}, {"women", "woman"}, {"taught", "teaching"}, {"wrote", "writes"}, {"goes", "go"},
                {"said", "say"}, {"found", "find"}, {"thought", "think"}};
        for (String[] pair : same) {
            assertThat(ChineseTokens.terms(pair[0])).as(pair[0]).isEqualTo(ChineseTokens.terms(pair[1]));
        }
        assertThat(ChineseTokens.terms("上个月我们went to 里斯本")).contains("go", "上个月", "里").doesNotContain("went");
        assertThat(ChineseTokens.queryTerms("What car did I buy?")).isEqualTo(ChineseTokens.queryTerms("car bought"));
        assertThat(ChineseTokens.terms("rose rise")).containsExactly("rose", "rise");
        assertThat(ChineseTokens.terms("founded found")).containsExactly("found", "find");
        assertThat(ChineseTokens.terms("left led lit fed")).as("forms left out").containsExactly("left", "led", "lit", "fed");
        assertThat(ChineseTokens.terms("I won't win")).as("won't is no win").containsExactly("i", "won", "t", "win");
    }

    @Test
    @DisplayName("R1 R6 the irregular forms list: lower-case words, no form listed twice or also a listed word, none a stop word or a form of one")
    void irregularFormsList() {
        java.util.Set<String> words = new java.util.HashSet<>();
        java.util.Set<String> forms = new java.util.HashSet<>();
        for (WordLists.Line line : WordLists.read("english-irregular-forms.txt")) {
            String[] parts = line.text().split("\\s*:\\s*");
            assertThat(parts).as("line %d", line.number()).hasSize(2);
            assertThat(parts[0]).as("line %d", line.number()).matches("[a-z]+").satisfies(w -> assertThat(StopWords.contains(w)).isFalse());
            assertThat(words.add(parts[0])).as("line %d", line.number()).isTrue();
            for (String form : parts[1].split("\\s+")) {
                assertThat(form).as("line %d", line.number()).matches("[a-z]+");
                assertThat(StopWords.contains(form)).as(form).isFalse();
                assertThat(forms.add(form)).as(form).isTrue();
                assertThat(EnglishStems.stem(form)).as(form).isEqualTo(EnglishStems.stem(parts[0]));
            }
        }
        assertThat(words).doesNotContainAnyElementsOf(forms).hasSizeGreaterThan(100);
    }

    @Test
    @DisplayName("R6 query terms drop common words in Chinese and English")
    void queryTermsDropStopWords() {
        assertThat(ChineseTokens.queryTerms("的 我 了 the a")).isEmpty();
        assertThat(ChineseTokens.queryTerms("What did I say about the book?")).containsExactly("sai", "book");
        assertThat(ChineseTokens.queryTerms("我的书")).containsExactly("书");
        assertThat(ChineseTokens.queryTerms("我在北京大学读书")).contains("北京大学", "北京", "读书", "书")
                .doesNotContain("我", "在");
    }

    @Test
    @DisplayName("R6 a stop word's characters go with it: 什么 leaves no 什, 为什么 nothing; a character a real word shares stays (Chinese, mixed)")
    void stopWordCharactersGoWithIt() {
        assertThat(ChineseTokens.queryTerms("为什么")).isEmpty();
        assertThat(ChineseTokens.queryTerms("什么时候去 Shanghai")).containsExactly("时", "时候", "候", "shanghai");
        assertThat(ChineseTokens.queryTerms("我的猫叫什么名字")).doesNotContain("什", "么").contains("名字", "猫");
        // 什 of 什锦 is a character of a word, not of a stop word; a word made of one-character stop
        // words is no stop word and stays, with its characters.
        assertThat(ChineseTokens.queryTerms("什锦炒饭")).contains("什锦", "什");
        assertThat(ChineseTokens.queryTerms("地下车库在哪")).contains("地下", "车库");
        assertThat(ChineseTokens.queryTerms("过去的事")).contains("过去");
        assertThat(ChineseTokens.queryTerms("上下班")).contains("上下");
        // Question words made of such characters are stop words of their own.
        assertThat(ChineseTokens.queryTerms("住在哪个城市")).doesNotContain("哪个", "哪", "个").contains("城市");
    }

    @Test
    @DisplayName("R1 Han characters outside the Basic Multilingual Plane are indexed one by one")
    void supplementaryHan() {
        assertThat(ChineseTokens.terms("𠮷野家的牛丼")).contains("𠮷", "野", "家");
        assertThat(ChineseTokens.terms("𠮷".repeat(3))).containsExactly("𠮷", "𠮷", "𠮷");
        assertThat(ChineseTokens.terms("\uD842 lone \uDFB7 halves")).containsExactly("lone", "half");
    }

    @Test
    @DisplayName("normalization folds case per code point: İ becomes i, and long runs stay linear")
    void caseFolding() {
        assertThat(ChineseTokens.normalize("İSTANBUL Straße ＡＢＣ")).isEqualTo("istanbul straße abc");
        String run = "İ".repeat(200_000);
        assertThat(ChineseTokens.normalize(run)).hasSize(200_000).matches("i+");
    }

    @Test
    void punctuationAndSpacesAreNotTokens() {
        assertThat(ChineseTokens.terms("你好，世界！ hello, world.")).allMatch(t -> !t.isBlank())
                .doesNotContain("，", "！", ",", ".");
        assertThat(ChineseTokens.terms("  ")).isEmpty();
        assertThat(ChineseTokens.terms("")).isEmpty();
    }

    @Test
    void eachCjkCharacterAppearsOnceAsAUnigramPerOccurrence() {
        // 书 is a one-character jieba word here; it must not be indexed twice at one position.
        assertThat(ChineseTokens.tokenize("书").stream().filter(t -> t.text().equals("书"))).hasSize(1);
    }

    /** Property check over seeded random mixed text; the seed is printed for replay. */
    @Test
    void offsetsPointIntoTheNormalizedTextAndTokenizationIsDeterministic() {
        long seed = Long.getLong("jiyi.test.seed", System.nanoTime());
        System.out.println("[seed] ChineseTokensTest -Djiyi.test.seed=" + seed);
        Random random = new Random(seed);
        String alphabet = "abcXYZ019 ,.!?\"*()-:^书本北京大学读我的了你好，。！「」ＡＩ　\t\n";
        for (int run = 0; run < 300; run++) {
            StringBuilder sb = new StringBuilder();
            int length = random.nextInt(40);
            for (int i = 0; i < length; i++) {
                int pick = random.nextInt(20);
                if (pick == 0) {
                    sb.appendCodePoint(0x1F600 + random.nextInt(50));
                } else if (pick == 1) {
                    sb.append((char) (0x4E00 + random.nextInt(0x9FA5 - 0x4E00)));
                } else {
                    sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
            }
            String text = sb.toString();
            String normalized = ChineseTokens.normalize(text);
            for (Token token : ChineseTokens.tokenize(text)) {
                assertThat(token.end()).as("seed %d", seed).isLessThanOrEqualTo(normalized.length());
                String surface = normalized.substring(token.start(), token.end());
                assertThat(token.text()).as("seed %d", seed).isIn(surface, EnglishStems.stem(surface));
            }
            assertThat(ChineseTokens.tokenize(text)).isEqualTo(ChineseTokens.tokenize(text));
        }
    }
}
