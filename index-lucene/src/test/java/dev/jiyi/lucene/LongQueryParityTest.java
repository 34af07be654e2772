package dev.jiyi.lucene;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.analysis.QueryCoverage;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.fts5.Fts5Index;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static dev.jiyi.lucene.Archive.ALL;
import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.WORK;
import static dev.jiyi.lucene.Archive.fill;
import static dev.jiyi.lucene.Archive.remember;
import static dev.jiyi.lucene.Archive.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long query whose terms hold more than {@link QueryCoverage#SEARCHED_ROWS} rows searches its
 * rarest, on FTS5 and on Lucene alike: both count a term's rows the same way, so they leave out the
 * same common terms, and a row that shares nothing with the query but its most common words is
 * proposed by neither.
 */
class LongQueryParityTest {

    /** Thirty words the filler never uses, one per row below, then the filler's own words. */
    private static final String[] RARE = {"琵琶", "敦煌", "骆驼", "壁画", "飞天", "莫高窟", "沙漠", "月牙泉", "鸣沙山", "胡杨",
        "xylophone", "zeppelin", "quartz", "walrus", "origami", "tundra", "saffron", "glacier", "banjo", "lagoon",
        "琥珀", "蝴蝶", "灯塔", "帆船", "珊瑚", "海螺", "椰子", "芒果", "榴莲", "菠萝"};
    private static final String COMMON = "咖啡 北京大学 周末 爬山 图书馆 读书 下雨 火锅 coffee weekend hiking library rain piano";
    /** A word every filler row holds: alone more rows than one search reads. */
    private static final String EVERYWHERE = "note";

    @TempDir
    Path home;

    @Test
    @DisplayName("R4 L3 a long query (Chinese, English, mixed) whose words hold too many rows searches its rarest on both indexes: the same rows, none holding only its common words")
    void longQueriesSearchTheirRarestTermsAlike() {
        Random random = new Random(20261204);
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of(new Fts5Index()));
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            // Enough rows that the query's common words hold more than a search reads.
            fill(a, DIARY, "bg", 10_000, random);
            fill(a, WORK, "other", 200, random); // a second scope: FTS5 ranks with the scope's own statistics
            Memory[] holders = new Memory[RARE.length];
            for (int i = 0; i < RARE.length; i++) {
                holders[i] = remember(a, DIARY, "rare" + i, "那天提到了" + RARE[i] + " once");
            }
            Memory everywhereOnly = remember(a, DIARY, "everywhere", EVERYWHERE);
            String query = String.join(" ", RARE) + " " + COMMON + " " + EVERYWHERE;
            assertThat(ChineseTokens.queryTerms(query)).as("precondition: a long query").hasSizeGreaterThan(50);

            Fts5Index fts5 = new Fts5Index();
            Eligibility now = Eligibility.current(DIARY, NOW);
            List<Long> byFts5 = rows(memories(a, fts5, query, now));
            List<Long> byLucene = rows(memories(a, lucene, query, now));
            assertThat(byFts5).as("FTS5 and Lucene propose the same rows").containsExactlyInAnyOrderElementsOf(byLucene);
            assertThat(byLucene).as("the rows holding the rarest words are found").contains(holders[0].rowId(),
                    holders[10].rowId(), holders[20].rowId());
            assertThat(byLucene).as("a row holding only the query's commonest word is not").doesNotContain(
                    everywhereOnly.rowId());

            // A short query searches every word it has, the commonest too, and finds that row.
            String brief = RARE[0] + " " + EVERYWHERE;
            List<Long> briefRows = rows(memories(a, lucene, brief, now));
            assertThat(briefRows).contains(holders[0].rowId(), everywhereOnly.rowId());
            assertThat(rows(memories(a, fts5, brief, now))).containsExactlyInAnyOrderElementsOf(briefRows);
        }
    }

    private static List<Candidate> memories(Authority a, LexicalIndex index, String query, Eligibility filter) {
        return a.read(s -> s.memoryCandidates(index, query, filter, ALL));
    }
}
