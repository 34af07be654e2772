package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Scope;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class ZipfCorpusTest {

    @Test
    @DisplayName("B1 the realistic archive is deterministic, in four scopes, Chinese, English and mixed, its turns a clock apart and ending at END")
    void deterministicTurns() {
        ZipfCorpus a = new ZipfCorpus(7, 5_000);
        ZipfCorpus b = new ZipfCorpus(7, 5_000);
        Set<Scope> scopes = new HashSet<>();
        int chinese = 0;
        int english = 0;
        for (long n = 0; n < 2_000; n++) {
            EventSubmission e = a.event(n);
            assertThat(e).isEqualTo(b.event(n));
            scopes.add(e.scope());
            boolean han = e.text().codePoints().anyMatch(ChineseTokens::isCjk);
            boolean latin = e.text().codePoints().anyMatch(c -> c < 128 && Character.isLetter(c));
            chinese += han ? 1 : 0;
            english += latin ? 1 : 0;
            assertThat(e.text()).isNotBlank();
        }
        assertThat(scopes).containsExactlyInAnyOrderElementsOf(ZipfCorpus.SCOPES);
        assertThat(chinese).isGreaterThan(600);
        assertThat(english).isGreaterThan(600);
        assertThat(a.event(4_999).occurredAt()).isEqualTo(ZipfCorpus.END);
        assertThat(a.event(0).occurredAt()).isEqualTo(ZipfCorpus.END.minusSeconds(ZipfCorpus.GAP_SECONDS * 4_999));
        assertThat(new ZipfCorpus(8, 5_000).event(3).text()).isNotEqualTo(a.event(3).text());
    }

    @Test
    @DisplayName("B1 its vocabulary grows with the archive (Zipf, Heaps) and a few words are everywhere, most are rare")
    void vocabularyGrows() {
        ZipfCorpus c = new ZipfCorpus(ChatCorpus.DEFAULT_SEED, 1_000_000);
        Map<String, Integer> df = new HashMap<>();
        int vocabularyAt2k = 0;
        for (long n = 0; n < 20_000; n++) {
            Set<String> seen = new HashSet<>();
            for (ZipfCorpus.Word w : c.turn(n).words()) {
                if (seen.add(w.text())) {
                    df.merge(w.text(), 1, Integer::sum);
                }
            }
            if (n == 1_999) {
                vocabularyAt2k = df.size();
            }
        }
        assertThat(df.size()).as("ten times the turns, several times the words").isGreaterThan(3 * vocabularyAt2k);
        long once = df.values().stream().filter(v -> v == 1).count();
        assertThat(once).as("most words are rare").isGreaterThan(df.size() / 3);
        assertThat(df.values().stream().mapToInt(Integer::intValue).max().orElseThrow()).as("some are everywhere")
                .isGreaterThan(2_000);
    }

    @Test
    @DisplayName("B1 held-out queries: known items name a turn's rare words, dialogues end in one, long queries are long; none is an archive text")
    void heldOutQueries() {
        ZipfCorpus c = new ZipfCorpus(ChatCorpus.DEFAULT_SEED, 10_000);
        Set<String> archive = new HashSet<>();
        for (long n = 0; n < 10_000; n++) {
            archive.add(c.event(n).text());
        }
        for (ZipfCorpus.QueryKind kind : ZipfCorpus.QueryKind.values()) {
            for (int i = 0; i < 50; i++) {
                ZipfCorpus.Query q = c.query(kind, i);
                assertThat(archive).doesNotContain(q.text());
                assertThat(ZipfCorpus.SCOPES).contains(q.scope());
                assertThat(q.dialogue().isEmpty()).isEqualTo(kind != ZipfCorpus.QueryKind.DIALOGUE);
                if (kind == ZipfCorpus.QueryKind.LONG) {
                    assertThat(ChineseTokens.queryTerms(q.text()).size()).isGreaterThan(30);
                }
            }
            assertThat(c.query(kind, 3)).isEqualTo(c.query(kind, 3));
        }
    }
}
