package dev.jiyi.analysis;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class QueryCoverageTest {

    @Test
    @DisplayName("R4 L3 a search asks for the query's terms some row holds, in the query's order (Chinese, English, mixed)")
    void searchedKeepsHeldTermsInOrder() {
        List<String> terms = ChineseTokens.queryTerms("我上周在 Shanghai 吃了小笼包 with Alice");
        Map<String, Long> rows = new HashMap<>();
        for (String t : terms) {
            rows.put(t, 5L);
        }
        rows.put("alic", 0L); // no row holds it: it matches nothing, so it is not searched
        List<String> searched = QueryCoverage.searched(terms, rows::get);
        List<String> expected = new ArrayList<>(terms);
        expected.remove("alic");
        assertThat(terms).contains("alic", "小笼包", "shanghai");
        assertThat(searched).containsExactlyElementsOf(expected);
    }

    @Test
    @DisplayName("R4 L3 a query whose terms hold more than SEARCHED_ROWS rows searches its rarest while they hold no more, at least SEARCHED_TERMS, in the query's order")
    void commonTermsOfALongQueryAreLeftOut() {
        List<String> terms = new ArrayList<>();
        Map<String, Long> rows = new HashMap<>();
        for (int i = 0; i < 60; i++) {
            String term = (i % 2 == 0 ? "词" : "word") + i;
            terms.add(term);
            rows.put(term, i % 3 == 0 ? 7_000L : 100L + i); // every third term is common
        }
        List<String> searched = QueryCoverage.searched(terms, rows::get);
        assertThat(searched).as("all 40 uncommon terms (4,000-odd rows), and of the common ones as many as fit")
                .containsAll(terms.stream().filter(t -> rows.get(t) < 7_000L).toList());
        long held = searched.stream().mapToLong(rows::get).sum();
        assertThat(held).isLessThanOrEqualTo(QueryCoverage.SEARCHED_ROWS);
        assertThat(searched).filteredOn(t -> rows.get(t) == 7_000L).hasSize(2)
                .containsExactly("词0", "word3"); // equal counts: the earlier in the query
        assertThat(terms).containsSubsequence(searched);

        // Under the budget nothing is left out, however many terms.
        Map<String, Long> few = new HashMap<>();
        terms.forEach(t -> few.put(t, 10L));
        assertThat(QueryCoverage.searched(terms, few::get)).containsExactlyElementsOf(terms);

        // Terms each holding more than the budget: the SEARCHED_TERMS rarest all the same.
        Map<String, Long> huge = new HashMap<>();
        for (int i = 0; i < terms.size(); i++) {
            huge.put(terms.get(i), 100_000L + i);
        }
        assertThat(QueryCoverage.searched(terms, huge::get)).containsExactlyElementsOf(
                terms.subList(0, QueryCoverage.SEARCHED_TERMS));
    }

    @Test
    @DisplayName("R6 a query no row holds searches nothing")
    void nothingHeldSearchesNothing() {
        assertThat(QueryCoverage.searched(ChineseTokens.queryTerms("量子色动力学 asymptotic freedom"), t -> 0L)).isEmpty();
        assertThat(QueryCoverage.searched(List.of(), t -> 1L)).isEmpty();
    }

    @Test
    @DisplayName("R6 a query of several sentences is measured by its last sentence too: a question after a chatty preamble (Chinese, English, mixed); one sentence is not split")
    void lastSentenceOfAQuery() {
        assertThat(QueryCoverage.lastSentence("最近工作特别忙，周末也没休息。对了，书法展在哪里举行？")).isEqualTo("对了，书法展在哪里举行？");
        assertThat(QueryCoverage.lastSentence("Work has been crazy this week. Anyway, where is my sister's wedding?"))
                .isEqualTo("Anyway, where is my sister's wedding?");
        assertThat(QueryCoverage.lastSentence("今天好累!\n Where did I park the car?")).isEqualTo("Where did I park the car?");
        assertThat(QueryCoverage.lastSentence("Tell me about quantum physics. Thanks!")).isEqualTo("Thanks!");
        // One sentence, a decimal point, a full stop without a space, trailing punctuation alone: nothing to split.
        assertThat(QueryCoverage.lastSentence("书法展在哪里举行？")).isNull();
        assertThat(QueryCoverage.lastSentence("The price went up 3.5 percent")).isNull();
        assertThat(QueryCoverage.lastSentence("see docs.rs for the api")).isNull();
        assertThat(QueryCoverage.lastSentence("书法展在哪里？？。 ... !")).isNull();
    }

    @Test
    @DisplayName("R6 in the evidence ideal a word no row holds counts by how common it is in the language: 一下 and place weigh less than a name; held words weigh by scope and language; the ranking ideal is the scope's alone")
    void evidenceWeighsByTheLanguage() {
        double one = 4.0;
        long rows = 200;
        Map<String, Double> held = Map.of("创业", 3.0);
        double common = QueryCoverage.evidenceIdeal(held, Set.of("一下", "哪里"), one, rows);
        double rare = QueryCoverage.evidenceIdeal(held, Set.of("蔡司", "佐尔坦"), one, rows);
        assertThat(common).isLessThan(rare);
        double creation = 3.0 * LanguagePrior.specificity("创业");
        assertThat(rare).isCloseTo(creation + 2 * one, within(1e-9)); // unknown words count in full
        assertThat(QueryCoverage.evidenceIdeal(Map.of("lisbon", 3.0), Set.of("place"), one, rows))
                .isLessThan(QueryCoverage.evidenceIdeal(Map.of("lisbon", 3.0), Set.of("kalman"), one, rows));
        // An everyday word the scope rarely used is less than a telling word it used as rarely.
        assertThat(QueryCoverage.evidenceWeight("work", one, one, rows))
                .isLessThan(QueryCoverage.evidenceWeight("sister", one, one, rows))
                .isLessThan(QueryCoverage.evidenceWeight("kalman", one, one, rows));
        // In a small table the scope's IDF gives way to the IDF of a word one row holds.
        assertThat(QueryCoverage.evidenceWeight("吉他", 0.1, one, 5)).isGreaterThan(QueryCoverage.evidenceWeight("吉他", 0.1, one, 500));
        assertThat(QueryCoverage.evidenceWeight("吉他", 0.1, one, 0)).isCloseTo(one * LanguagePrior.specificity("吉他"), within(1e-9));
        // Ranking's ideal is unchanged: absent words as if one row held them.
        assertThat(QueryCoverage.ideal(held, Map.of("一下", one))).isCloseTo(3.0 + one, within(1e-9));
    }
}
