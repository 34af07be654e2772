package dev.jiyi.analysis;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

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
}
