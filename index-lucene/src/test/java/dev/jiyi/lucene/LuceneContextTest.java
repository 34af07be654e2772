package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Candidate;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.LexicalIndex;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.fts5.Fts5Index;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static dev.jiyi.lucene.Archive.ALL;
import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.WORK;
import static dev.jiyi.lucene.Archive.events;
import static dev.jiyi.lucene.Archive.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * R1, L2, D1: the turn context in the Lucene index ({@link dev.jiyi.authority.TurnContext}). A
 * conversation turn is found by the words of the turns around it, within its dialogue only; its
 * context follows the change log as turns arrive and are deleted, to exactly what a rebuild (and
 * FTS5) computes; and a deleted turn's terms leave its neighbours' documents and the index files.
 */
class LuceneContextTest {

    static final double NEAR = 0.5;
    private static final double FAR = 0.25;
    private static final Instant T0 = Archive.SAID;

    @TempDir
    Path home;

    private LuceneIndex open(String name) {
        return LuceneIndex.open(home.resolve(name), LuceneIndex.Options.defaults());
    }

    private static Event add(Authority a, Scope scope, String session, String id, Category category, Instant at,
                             String text) {
        return a.submitEvent(new EventSubmission(id, scope, Role.USER, text, "lucene-test", category, session, at))
                .event();
    }

    /** One turn after another, a minute apart, alternating user and assistant. */
    private static List<Event> dialogue(Authority a, Scope scope, String session, String prefix, String... texts) {
        List<Event> out = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            out.add(a.submitEvent(new EventSubmission(prefix + i, scope, i % 2 == 0 ? Role.USER : Role.ASSISTANT,
                    texts[i], "lucene-test", Category.CONVERSATION, session, T0.plus(Duration.ofMinutes(i)))).event());
        }
        return out;
    }

    static List<Candidate> contexts(Authority a, LexicalIndex index, String query, Scope scope) {
        return a.read(s -> s.contextCandidates(index, query, scope, NEAR, FAR, ALL));
    }

    private static long[] sequences(Event... events) {
        long[] out = new long[events.length];
        for (int i = 0; i < events.length; i++) {
            out[i] = events[i].sequence();
        }
        return out;
    }

    private static Long[] boxed(long[] values) {
        return Arrays.stream(values).boxed().toArray(Long[]::new);
    }

    @Test
    @DisplayName("R1 a turn is found by the words of the turns around it, Chinese, English and mixed; turns one away weigh more than two away, and a context match less than the turn's own words")
    void contextFindsTheTurnsAround() {
        Random random = SeededRandom.create("LuceneContextTest.contextFindsTheTurnsAround");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = open("lucene")) {
            Archive.fill(a, DIARY, "bg", 100, random); // other dialogue, so that term statistics are not all this one's
            List<Event> t = dialogue(a, DIARY, "trip", "trip-",
                    "这个周末我们去哪里玩？",
                    "可以去西湖划船，顺便尝尝龙井茶。",
                    "Sounds lovely, but will it rain on Saturday?",
                    "The forecast says sunshine, bring 防晒霜 and a hat",
                    "好的 thanks，我带上 camera");

            List<Candidate> chinese = contexts(a, lucene, "西湖 划船", DIARY);
            assertThat(rows(chinese)).as("one before and one after, then two after")
                    .containsExactly(boxed(sequences(t.get(0), t.get(2), t.get(3))));
            assertThat(chinese.get(1).score()).isGreaterThan(chinese.get(2).score());

            for (String query : List.of("forecast sunshine", "防晒霜 hat", "Forecast 防晒霜")) {
                List<Candidate> found = contexts(a, lucene, query, DIARY);
                assertThat(rows(found)).as(query)
                        .containsExactlyInAnyOrder(boxed(sequences(t.get(1), t.get(2), t.get(4))));
                assertThat(found.get(found.size() - 1).rowId()).as("%s: two before is last", query)
                        .isEqualTo(t.get(1).sequence());
            }
            assertThat(rows(contexts(a, lucene, "camera", DIARY))).as("the last turn lends its words backwards")
                    .containsExactly(boxed(sequences(t.get(3), t.get(2))));

            List<Candidate> direct = events(a, lucene, "西湖 划船", DIARY, ALL);
            assertThat(rows(direct)).containsExactly(t.get(1).sequence());
            assertThat(chinese).allSatisfy(c -> assertThat(c.score()).isLessThan(direct.get(0).score()));
            assertThat(contexts(a, lucene, "西湖 划船", WORK)).as("S1 another scope").isEmpty();
        }
    }

    @Test
    @DisplayName("R1 only the turns of one dialogue lend context: not turns more than 1 h away (exactly 1 h does), of another session, nor reference events")
    void contextStaysInItsDialogue() {
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = open("lucene")) {
            Event corgi = add(a, DIARY, "s", "corgi", Category.CONVERSATION, T0, "我养了一只柯基犬 named Biscuit");
            Event zeppelin = add(a, DIARY, "other", "zeppelin", Category.CONVERSATION, T0.plusSeconds(60),
                    "zeppelin 飞艇 museum");
            Event mango = add(a, DIARY, "s", "mango", Category.REFERENCE, T0.plusSeconds(120), "mango 芒果 reference doc");
            Instant later = T0.plus(Duration.ofHours(2));
            Event library = add(a, DIARY, "s", "library", Category.CONVERSATION, later, "下午去图书馆 library");
            Event coffee = add(a, DIARY, "s", "coffee", Category.CONVERSATION, later.plus(Duration.ofMinutes(5)),
                    "然后喝咖啡 coffee");
            Event piano = add(a, DIARY, "s", "piano", Category.CONVERSATION, later.plus(Duration.ofMinutes(65)),
                    "晚上钢琴课 piano lesson");

            for (String q : List.of("柯基犬 biscuit", "zeppelin 飞艇", "mango 芒果")) {
                assertThat(contexts(a, lucene, q, DIARY)).as(q).isEmpty();
                assertThat(events(a, lucene, q, DIARY, ALL)).as("%s: found directly", q).hasSize(1);
            }
            assertThat(rows(contexts(a, lucene, "图书馆 library", DIARY))).as("within the hour")
                    .containsExactly(coffee.sequence());
            assertThat(rows(contexts(a, lucene, "钢琴 piano", DIARY)))
                    .as("exactly an hour after coffee, 65 minutes after library").containsExactly(coffee.sequence());
            assertThat(rows(contexts(a, lucene, "咖啡 coffee", DIARY)))
                    .containsExactlyInAnyOrder(library.sequence(), piano.sequence());
            assertThat(rows(contexts(a, lucene, "柯基犬 图书馆 咖啡 钢琴 zeppelin mango biscuit", DIARY)))
                    .as("no context for the lone turn, the other session or the reference")
                    .doesNotContain(corgi.sequence(), zeppelin.sequence(), mango.sequence());
        }
    }

    @Test
    @DisplayName("L2 R1 the follower adds a new turn to the context of the turns before it, without a rebuild")
    void arrivalUpdatesTheTurnsBefore() {
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = open("lucene")) {
            Event t0 = add(a, DIARY, "s", "t0", Category.CONVERSATION, T0, "我们明天去爬黄山吧");
            assertThat(contexts(a, lucene, "日出 sunrise", DIARY)).isEmpty();
            assertThat(lucene.takeNotices()).as("the first use builds the index").hasSize(1);

            Event t1 = add(a, DIARY, "s", "t1", Category.CONVERSATION, T0.plusSeconds(60), "好呀，要看日出 sunrise");
            assertThat(rows(contexts(a, lucene, "日出 sunrise", DIARY))).containsExactly(t0.sequence());
            assertThat(rows(contexts(a, lucene, "黄山", DIARY))).containsExactly(t1.sequence());

            add(a, DIARY, "s", "t2", Category.CONVERSATION, T0.plusSeconds(120), "记得带三脚架 tripod");
            assertThat(rows(contexts(a, lucene, "三脚架 tripod", DIARY))).as("one before, then two before")
                    .containsExactly(t1.sequence(), t0.sequence());
            assertThat(lucene.status().behind()).isZero();
            assertThat(lucene.takeNotices()).as("followed, not rebuilt").isEmpty();
        }
    }

    /** Deleted by deleteEvent; the turns around it are ordinary. */
    private static final String SECRET = "我的秘密暗号是鳄梨酱配榴莲 the password is zanzibar marmalade";

    @Test
    @DisplayName("D1 L2 a deleted turn's terms leave its neighbours' context: contexts() no longer finds them by it, the turns close up as a rebuild has them, and no file holds a term unique to it")
    void deletionLeavesTheNeighbours() throws IOException {
        Random random = SeededRandom.create("LuceneContextTest.deletionLeavesTheNeighbours");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = open("lucene")) {
            List<String> survivors = new ArrayList<>();
            Archive.fill(a, DIARY, "bg", 100, random).forEach(m -> survivors.add(m.searchText()));
            List<String> texts = List.of("周末去公园散步 walk in the park", "天气很好 sunny day", SECRET,
                    "晚饭吃饺子 dumplings", "明天要早起 early start");
            List<Event> t = dialogue(a, DIARY, "s", "t", texts.toArray(String[]::new));
            assertThat(rows(contexts(a, lucene, "鳄梨 zanzibar", DIARY))).containsExactlyInAnyOrder(
                    boxed(sequences(t.get(0), t.get(1), t.get(3), t.get(4))));
            survivors.addAll(List.of(texts.get(0), texts.get(1), texts.get(3), texts.get(4)));
            Set<String> unique = LuceneDeletionTest.uniqueTerms(List.of(SECRET), survivors);
            assertThat(unique).as("precondition: Chinese and English unique terms")
                    .contains("鳄梨", "榴莲", "暗号", "zanzibar", "marmalad", "password");
            List<String> needles = LuceneDeletionTest.filesContaining(home.resolve("lucene"),
                    unique.stream().filter(LuceneDeletionTest::distinctive).toList());
            assertThat(needles).as("precondition: the byte scan finds them before deletion")
                    .contains("鳄梨", "榴莲", "zanzibar", "marmalad", "password");

            a.deleteEvent(DIARY, t.get(2).id());

            assertThat(contexts(a, lucene, "鳄梨酱 榴莲 zanzibar marmalade password", DIARY)).isEmpty();
            assertThat(events(a, lucene, "鳄梨酱 榴莲 zanzibar marmalade password", DIARY, ALL)).isEmpty();
            List<Candidate> closed = contexts(a, lucene, "饺子 dumplings", DIARY);
            assertThat(rows(closed)).as("the turns close up: one before and after, two after")
                    .containsExactlyInAnyOrder(boxed(sequences(t.get(1), t.get(4), t.get(0))));
            assertThat(closed.get(2).rowId()).isEqualTo(t.get(0).sequence());
            assertThat(LuceneDeletionTest.filesContaining(home.resolve("lucene"), needles))
                    .as("files of %s holding deleted terms", home.resolve("lucene")).isEmpty();
            assertThat(LuceneDeletionTest.seekable(lucene, unique)).isEmpty();
            assertThat(contextFields(lucene)).as("as a rebuild writes them").isEqualTo(rebuiltContextFields(a));
        }
    }

    @Test
    @DisplayName("D1 L2 a turn deleted before the index applied its arrival leaves no term in a neighbour that a catch-up cut short rewrote with it")
    void deletionBeforeArrivalApplied() throws IOException {
        Random random = SeededRandom.create("LuceneContextTest.deletionBeforeArrivalApplied");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"),
                     LuceneIndex.Options.defaults().withCatchUpBudget(Duration.ZERO))) {
            Event gone = add(a, DIARY, "s", "gone", Category.CONVERSATION, T0, "先说点别的 something else");
            Event before = add(a, DIARY, "s", "before", Category.CONVERSATION, T0.plusSeconds(60), "我们聊聊周末的安排吧");
            Event next = add(a, DIARY, "s", "next", Category.CONVERSATION, T0.plusSeconds(120), "好啊 okay");
            assertThat(lucene.catchUp(a).behind()).isZero();
            a.deleteEvent(DIARY, gone.id());
            Archive.fill(a, WORK, "f", 600, random);
            Event secret = add(a, DIARY, "s", "secret", Category.CONVERSATION, T0.plusSeconds(180), SECRET);
            // One page of the log, cut short by the budget: the deletion rewrites the two turns after it
            // as the snapshot has them, the secret turn (three after) in their context, before the index
            // gets to the secret turn's own entry: it has no document to keep its session.
            assertThat(lucene.catchUp(a).behind()).as("precondition: cut short").isPositive();
            Set<String> unique = LuceneDeletionTest.uniqueTerms(List.of(SECRET), List.of(before.text(), next.text()));
            Set<String> probe = Set.of("鳄梨", "zanzibar");
            assertThat(LuceneDeletionTest.seekable(lucene, probe, List.of(Documents.CONTEXT_NEAR)))
                    .as("precondition: in the next turn's context").containsExactlyInAnyOrderElementsOf(probe);
            assertThat(LuceneDeletionTest.seekable(lucene, probe, List.of(Documents.CONTEXT_FAR)))
                    .as("precondition: in the turn before's").containsExactlyInAnyOrderElementsOf(probe);
            assertThat(LuceneDeletionTest.seekable(lucene, probe, List.of(Documents.EVENT_TEXT)))
                    .as("precondition: no document of its own").isEmpty();

            a.deleteEvent(DIARY, secret.id());
            for (int i = 0; i < 20 && lucene.catchUp(a).behind() > 0; i++) {
                // a page per catch-up
            }
            assertThat(lucene.status().behind()).isZero();
            assertThat(contexts(a, lucene, "鳄梨 zanzibar", DIARY)).isEmpty();
            assertThat(LuceneDeletionTest.seekable(lucene, unique)).isEmpty();
            assertThat(LuceneDeletionTest.filesContaining(home.resolve("lucene"),
                    unique.stream().filter(LuceneDeletionTest::distinctive).toList())).isEmpty();
            assertThat(contextFields(lucene)).as("as a rebuild writes them").isEqualTo(rebuiltContextFields(a));
        }
    }

    @Test
    @DisplayName("L2 R1 a deletion brings the turns beyond it into reach: the session kept in the deleted turn's document finds a turn whose context changes though it never held the deleted text")
    void deletionBringsTurnsIntoReach() throws IOException {
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = open("lucene")) {
            Event first = add(a, DIARY, "s", "first", Category.CONVERSATION, T0, "我们去看电影吧");
            assertThat(contexts(a, lucene, "电影", DIARY)).isEmpty();
            Event late = add(a, DIARY, "s", "late", Category.CONVERSATION, T0.plus(Duration.ofHours(2)),
                    "迟到的消息 late note");
            assertThat(contexts(a, lucene, "电影", DIARY)).isEmpty();
            add(a, DIARY, "s", "later", Category.CONVERSATION, T0.plus(Duration.ofHours(3)), "又一条 another one");
            assertThat(contexts(a, lucene, "电影", DIARY)).isEmpty();
            // Sent from a clock behind the others: within the hour of the first turn, three positions on.
            Event skewed = add(a, DIARY, "s", "skewed", Category.CONVERSATION, T0.plus(Duration.ofMinutes(10)),
                    "看完吃爆米花 popcorn");
            assertThat(contexts(a, lucene, "爆米花 popcorn", DIARY)).as("out of reach, out of the hour").isEmpty();

            a.deleteEvent(DIARY, late.id());
            assertThat(rows(contexts(a, lucene, "爆米花 popcorn", DIARY))).as("two after the first turn now")
                    .containsExactly(first.sequence());
            assertThat(rows(contexts(a, lucene, "电影", DIARY))).containsExactly(skewed.sequence());
            assertThat(lucene.takeNotices()).as("followed, built once").hasSize(1);
            assertThat(contextFields(lucene)).as("as a rebuild writes them").isEqualTo(rebuiltContextFields(a));
        }
    }

    @Test
    @DisplayName("L1 L2 D1 seeded random dialogues with gaps, clock skew, references and deletions: the followed context equals a rebuild's, field by field, and contexts() answers as a rebuild and FTS5 do")
    void followedEqualsRebuiltAndFts5() throws IOException {
        Random random = SeededRandom.create("LuceneContextTest.followedEqualsRebuiltAndFts5");
        String[] words = {"西湖", "划船", "龙井", "爬山", "咖啡", "火锅", "地铁", "钢琴", "熊猫", "樱花", "长城", "饺子",
            "forecast", "umbrella", "tripod", "sunscreen", "marathon", "violin", "pancake", "glacier", "lantern",
            "kayak"};
        Fts5Index fts = new Fts5Index();
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of(fts));
             LuceneIndex lucene = open("lucene")) {
            Map<String, Instant> clocks = new LinkedHashMap<>();
            List<Event> live = new ArrayList<>();
            int deletions = 0;
            for (int i = 0; i < 90; i++) {
                String session = "s" + random.nextInt(3);
                Scope scope = random.nextInt(6) == 0 ? WORK : DIARY;
                Instant clock = clocks.getOrDefault(scope + session, T0);
                int step = random.nextInt(10);
                clock = clock.plus(Duration.ofMinutes(step == 0 ? 90 : step == 1 ? -30 : 1 + random.nextInt(20)));
                clocks.put(scope + session, clock);
                Category category = random.nextInt(7) == 0 ? Category.REFERENCE : Category.CONVERSATION;
                String text = words[random.nextInt(words.length)] + " " + words[random.nextInt(words.length)]
                        + " 第" + i + "句";
                live.add(add(a, scope, session, "e" + i, category, clock, text));
                if (random.nextInt(8) == 0) {
                    Event gone = live.remove(random.nextInt(live.size()));
                    a.deleteEvent(gone.scope(), gone.id());
                    deletions++;
                }
                if (random.nextInt(4) == 0) {
                    lucene.catchUp(a);
                }
            }
            lucene.catchUp(a);
            assertThat(deletions).as("precondition: deletions among the turns").isGreaterThan(5);
            assertThat(lucene.takeNotices()).as("precondition: followed, built once").hasSize(1);

            Map<Long, Map<String, Map<String, Integer>>> followed = contextFields(lucene);
            assertThat(followed).as("precondition: turns with context").hasSizeGreaterThan(40);
            assertThat(followed).isEqualTo(rebuiltContextFields(a));
            try (LuceneIndex fresh = open("fresh")) {
                for (String w : words) {
                    for (Scope scope : List.of(DIARY, WORK)) {
                        Set<Long> mine = new TreeSet<>(rows(contexts(a, lucene, w, scope)));
                        assertThat(mine).as("%s %s: a rebuild", w, scope)
                                .isEqualTo(new TreeSet<>(rows(contexts(a, fresh, w, scope))));
                        assertThat(mine).as("%s %s: FTS5", w, scope)
                                .isEqualTo(new TreeSet<>(rows(contexts(a, fts, w, scope))));
                    }
                }
            }
        }
    }

    @Test
    @DisplayName("L3 R2 R6 contexts(): equal scores newest first, limit respected, limit 0, stop words and weights outside [0, 1] or both 0")
    void orderLimitsAndWeights() {
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = open("lucene")) {
            Event a0 = add(a, DIARY, "a", "a0", Category.CONVERSATION, T0, "第一段 hello");
            add(a, DIARY, "a", "a1", Category.CONVERSATION, T0.plusSeconds(60), "quokka 袋鼠 wallaby");
            Event b0 = add(a, DIARY, "b", "b0", Category.CONVERSATION, T0, "另一段 world");
            add(a, DIARY, "b", "b1", Category.CONVERSATION, T0.plusSeconds(60), "quokka 袋鼠 wallaby");

            List<Candidate> found = contexts(a, lucene, "quokka", DIARY);
            assertThat(rows(found)).containsExactly(b0.sequence(), a0.sequence());
            assertThat(found.get(0).score()).isEqualTo(found.get(1).score());
            assertThat(rows(a.read(s -> s.contextCandidates(lucene, "quokka", DIARY, NEAR, FAR, 1))))
                    .containsExactly(b0.sequence());
            List<Candidate> none = a.read(s -> s.contextCandidates(lucene, "quokka", DIARY, NEAR, FAR, 0));
            assertThat(none).isEmpty();
            assertThat(contexts(a, lucene, "的 了 和 ， the and of", DIARY)).isEmpty();
            assertThat(contexts(a, lucene, "quokka\" OR *:* AND context_near:(", DIARY)).hasSize(2);
            for (double[] w : new double[][] {{0, 0}, {1.5, FAR}, {NEAR, Double.NaN}, {-1, -1}}) {
                assertThatThrownBy(() -> a.read(s -> s.contextCandidates(lucene, "quokka", DIARY, w[0], w[1], ALL)))
                        .hasMessageContaining("[0, 1]");
            }
            // One weight 0 searches only the other column.
            List<Candidate> nearOnly = a.read(s -> s.contextCandidates(lucene, "quokka", DIARY, NEAR, 0, ALL));
            assertThat(nearOnly).isNotEmpty();
        }
    }

    /** The context fields of a rebuild of the authority, in a directory of its own. */
    private Map<Long, Map<String, Map<String, Integer>>> rebuiltContextFields(Authority a) throws IOException {
        Path dir = home.resolve("rebuilt-" + System.nanoTime());
        try (LuceneIndex fresh = LuceneIndex.open(dir, LuceneIndex.Options.defaults())) {
            fresh.rebuild(a);
            return contextFields(fresh);
        }
    }

    /**
     * Per live document (by row) with any context, the terms of {@code context_near} and
     * {@code context_far} with their frequencies, read from the index files of the last commit.
     */
    private static Map<Long, Map<String, Map<String, Integer>>> contextFields(LuceneIndex lucene) throws IOException {
        Map<Long, Map<String, Map<String, Integer>>> out = new TreeMap<>();
        try (FSDirectory dir = FSDirectory.open(lucene.directory().orElseThrow());
             DirectoryReader reader = DirectoryReader.open(dir)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                Bits liveDocs = leaf.reader().getLiveDocs();
                for (String field : List.of(Documents.CONTEXT_NEAR, Documents.CONTEXT_FAR)) {
                    Terms terms = leaf.reader().terms(field);
                    if (terms == null) {
                        continue;
                    }
                    TermsEnum te = terms.iterator();
                    for (BytesRef term = te.next(); term != null; term = te.next()) {
                        String text = term.utf8ToString();
                        PostingsEnum postings = te.postings(null, PostingsEnum.FREQS);
                        for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS;
                             doc = postings.nextDoc()) {
                            if (liveDocs != null && !liveDocs.get(doc)) {
                                continue;
                            }
                            SortedNumericDocValues row = leaf.reader().getSortedNumericDocValues(Documents.ROW);
                            assertThat(row.advanceExact(doc)).isTrue();
                            out.computeIfAbsent(row.nextValue(), k -> new TreeMap<>())
                                    .computeIfAbsent(field, k -> new TreeMap<>()).put(text, postings.freq());
                        }
                    }
                }
            }
        }
        return out;
    }
}
