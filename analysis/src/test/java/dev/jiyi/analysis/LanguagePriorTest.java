package dev.jiyi.analysis;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LanguagePriorTest {

    @Test
    @DisplayName("R6 a word's specificity follows its frequency in the language: common Chinese and English words weigh less than rare ones, unknown words and digits fully")
    void specificityFollowsFrequency() {
        // Chinese, from jieba's dictionary frequencies.
        assertThat(LanguagePrior.specificity("的")).isLessThan(LanguagePrior.specificity("一下"));
        assertThat(LanguagePrior.specificity("一下")).isLessThan(LanguagePrior.specificity("论坛"));
        assertThat(LanguagePrior.specificity("论坛")).isLessThan(LanguagePrior.specificity("渐近"));
        // English, from the ranks of BERT's vocabulary, by Porter stem as the index keeps them.
        assertThat(LanguagePrior.specificity("the")).isLessThan(LanguagePrior.specificity("place"));
        assertThat(LanguagePrior.specificity("place")).isLessThan(LanguagePrior.specificity("revolut"));
        assertThat(LanguagePrior.specificity(PorterStemmer.stem("explained")))
                .isEqualTo(LanguagePrior.specificity(PorterStemmer.stem("explain")));
        // A single letter is common, whatever the list says of it.
        assertThat(LanguagePrior.specificity("x")).isLessThan(0.5).isEqualTo(LanguagePrior.specificity("b"))
                .isEqualTo(LanguagePrior.specificity("2"));
        // What the prior does not know is as telling as a word can be.
        for (String unknown : new String[] {"kalman", "4711", "佐尔坦", "zxqv", "ß"}) {
            assertThat(LanguagePrior.specificity(unknown)).as(unknown).isEqualTo(1.0);
        }
        // Every value is in (0, 1]; a phrase is as specific as its most specific piece.
        for (String w : new String[] {"的", "the", "我", "and", "是"}) {
            assertThat(LanguagePrior.specificity(w)).as(w).isGreaterThan(0).isLessThan(0.5);
        }
        assertThat(LanguagePrior.specificity("the kalman")).isEqualTo(1.0);
        assertThat(LanguagePrior.specificity("一下 论坛")).isEqualTo(LanguagePrior.specificity("论坛"));
    }
}
