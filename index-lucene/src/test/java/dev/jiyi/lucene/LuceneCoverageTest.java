package dev.jiyi.lucene;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.SearchCounts;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static dev.jiyi.lucene.Archive.ALL;
import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.WORK;
import static dev.jiyi.lucene.Archive.events;
import static dev.jiyi.lucene.Archive.memories;
import static dev.jiyi.lucene.Archive.remember;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * R11: Lucene's scores are coverage, BM25 over the query's ideal ({@link dev.jiyi.authority.index.LexicalIndex}),
 * so they compare across queries and lists: a text holding a query's words scores about 1 whether
 * the query is two words or twenty, a turn whose neighbour holds them about the near weight, and a
 * text sharing a single common character with a long query near 0, even as the best match.
 */
class LuceneCoverageTest {

    /** Queries, short and long, Chinese, English and mixed, each with a text of average length holding its words. */
    private static final String[][] HELD = {
        {"zanzibar marmalade", "早餐吃了 zanzibar marmalade 配吐司 note"},
        {"独角兽", "今天在公园看见了独角兽 note"},
        {"what did I say about the zanzibar marmalade, the quokka at breakfast, coffee, hiking, the library, rain "
            + "and the weekend garden?",
            "breakfast: zanzibar marmalade, a quokka, coffee, hiking, library, rain, weekend garden"},
        {"上周末在图书馆读书之后去爬山，下雨了，就去吃火锅喝咖啡", "周末 图书馆 读书 爬山 下雨 火锅 喝咖啡"},
    };

    /**
     * Words no query has, after each text: a memory quoting its whole event holds each word twice,
     * which BM25 rewards, and a longer text gives part of that back, so that the scores sit inside
     * the range rather than at its edge.
     */
    private static final String FILLER = "，随手记一笔 jotted into the notebook";

    /** A long query with 山 in it, and a text sharing nothing else with it. */
    private static final String LONG = "去年秋天我们在黄山看日出，又去布达佩斯的多瑙河边看见了一只独角兽，听说那里的温泉很有名";
    private static final String ONE_CHARACTER = "爬山 hiking club";

    @TempDir
    Path home;

    private static double scoreOf(List<Candidate> found, long row) {
        return found.stream().filter(c -> c.rowId() == row).findFirst().orElseThrow().score();
    }

    @Test
    @DisplayName("R11 R1 a text holding the query's words scores about 1 (0.5 to 2: a long query fully held counts more than its eight ideal words) for two words and for thirty alike, memories and events")
    void holdingTheWordsScoresAboutOne() {
        Random random = SeededRandom.create("LuceneCoverageTest.holdingTheWordsScoresAboutOne");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            Memory[] held = new Memory[HELD.length];
            for (int i = 0; i < HELD.length; i++) {
                Archive.fill(a, DIARY, "bg" + i + "-", 80, random); // the turns around each text are ordinary ones
                held[i] = remember(a, DIARY, "held" + i, HELD[i][1] + FILLER);
            }
            Archive.fill(a, DIARY, "bg-last-", 80, random);
            Eligibility now = Eligibility.current(DIARY, NOW);
            for (int i = 0; i < HELD.length; i++) {
                String q = HELD[i][0];
                String eventId = held[i].eventId();
                long event = a.read(s -> s.eventsById(List.of(eventId))).get(0).sequence();
                double memory = scoreOf(memories(a, lucene, q, now, ALL), held[i].rowId());
                double direct = scoreOf(events(a, lucene, q, DIARY, ALL), event);
                int terms = ChineseTokens.queryTerms(q).size();
                System.out.println("[coverage] " + terms + " terms: memory " + memory
                        + ", event " + direct);
                assertThat(memory).as("memory, %d terms: %s", terms, q).isBetween(0.5, 2.0);
                assertThat(direct).as("event, %d terms: %s", terms, q).isBetween(0.5, 2.0);
            }
        }
    }

    @Test
    @DisplayName("R11 R6 a text sharing one common character of its scope with a long query scores below 0.2, even as the best match")
    void oneCommonCharacterScoresNearZero() {
        Random random = SeededRandom.create("LuceneCoverageTest.oneCommonCharacterScoresNearZero");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            // 爬山 in one text of six of the scope (IDF is the scope's, R11), and in nothing of another scope
            Archive.fill(a, WORK, "bg", 300, random);
            Archive.fill(a, DIARY, "other", 30, random);
            Memory one = remember(a, WORK, "one", ONE_CHARACTER);
            Set<String> shared = new HashSet<>(ChineseTokens.queryTerms(LONG));
            shared.retainAll(JiyiAnalyzer.pieces(ONE_CHARACTER));
            assertThat(shared).as("precondition: one character in common").containsExactly("山");
            assertThat(ChineseTokens.queryTerms(LONG)).as("precondition: a long query").hasSizeGreaterThan(20);

            List<Candidate> memories = memories(a, lucene, LONG, Eligibility.current(WORK, NOW), ALL);
            assertThat(Archive.rows(memories)).contains(one.rowId());
            assertThat(memories).allSatisfy(c -> assertThat(c.score()).isPositive().isLessThan(0.2));
            List<Candidate> events = events(a, lucene, LONG, WORK, ALL);
            assertThat(events).isNotEmpty()
                    .allSatisfy(c -> assertThat(c.score()).isPositive().isLessThan(0.2));
            System.out.println("[coverage] one character: best memory " + memories.get(0) + ", event " + events.get(0));
        }
    }

    @Test
    @DisplayName("R6 whether some row holds the minimum evidence skips the rows that cannot and stops at the first row that does: rows of growing coverage are all offered to find the best one, a few to find one over the floor, none of those holding only a common word (Chinese and English words)")
    void minimumEvidenceStopsAtTheFirstRowThatHoldsIt() {
        String[] words = {"苹果", "quokka", "香蕉", "zanzibar", "葡萄", "marmalade", "西瓜", "kalman", "草莓", "lisbon",
            "菠萝", "potluck", "芒果", "guitar", "樱桃", "walrus"};
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            Archive.fill(a, DIARY, "bg-", 40, SeededRandom.create("LuceneCoverageTest.minimumEvidence"));
            // Rows holding only the query's commonest word, written first: far below any floor, never to be offered.
            for (int i = 0; i < 30; i++) {
                remember(a, DIARY, "common" + i, words[0] + " 随手记 note " + i);
            }
            // Row k holds the first k words: each row written holds more of the query than the one before.
            for (int k = 1; k <= words.length; k++) {
                remember(a, DIARY, "ladder" + k, String.join(" ", java.util.Arrays.copyOf(words, k)));
            }
            String query = String.join(" ", words);
            Eligibility now = Eligibility.current(DIARY, NOW);
            double best = a.read(s -> lucene.coverage(s, query, now).held());
            SearchCounts.Totals toBest = evidenceSearch(lucene, () -> a.read(s -> lucene.coverage(s, query, now).held()));
            assertThat(best).as("the last row holds every word, more than the ideal's eight").isGreaterThan(1.0);
            for (double floor : new double[] {0.25, 0.5}) {
                boolean[] reached = new boolean[1];
                SearchCounts.Totals toFloor = evidenceSearch(lucene,
                        () -> reached[0] = a.read(s -> lucene.coverage(s, query, now).reaches(floor)));
                assertThat(reached[0]).as("a row holds %s", floor).isTrue();
                assertThat(toFloor.collected()).as("the row found").isEqualTo(1);
                assertThat(toFloor.visited()).as("rows offered to find one holding %s, against %s to find the best", floor,
                        toBest.visited()).isLessThan(toBest.visited() / 2);
            }
            boolean over = a.read(s -> lucene.coverage(s, query, now).reaches(Math.nextUp(best)));
            assertThat(over).as("none holds more than the best").isFalse();
        }
    }

    /** What the evidence searches of {@code search} did. */
    private static SearchCounts.Totals evidenceSearch(LuceneIndex lucene, Runnable search) {
        SearchCounts.Totals before = lucene.searchCounts().totals(SearchCounts.Search.EVIDENCE);
        search.run();
        return lucene.searchCounts().totals(SearchCounts.Search.EVIDENCE).minus(before);
    }
}
