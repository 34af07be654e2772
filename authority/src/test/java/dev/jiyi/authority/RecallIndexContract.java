package dev.jiyi.authority;

import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.Neighbours;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.authority.index.SearchCounts;
import dev.jiyi.authority.index.TransactionalIndex;
import dev.jiyi.authority.index.VectorIndex;
import dev.jiyi.authority.index.VectorQuery;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The contract of a {@link RecallIndex}: what its {@link LexicalIndex} and {@link VectorIndex}
 * propose, for every implementation alike (in the manner of Lucene's {@code BaseKnnVectorQueryTestCase}).
 * A subclass names the indexes the authority must keep in step ({@link #attachedIndexes()}) and the
 * recall index that searches them ({@link #recallIndex()}); both are asked for once per test, after
 * the temporary home exists, so they may share one instance.
 *
 * <p>Every query goes through {@link Authority#read} and the {@link Snapshot}, as recall does. Every
 * memory candidate is checked against the memory loaded from the authority with
 * {@link Eligibility#admits}, and every ranked list for its order (best first, equal scores newest
 * row first), whatever the test.
 */
public abstract class RecallIndexContract {

    /** Events happen here, so memories without an explicit validity are valid from then (T2). */
    protected static final Instant SAID = Instant.parse("2024-05-01T02:00:00Z");
    protected static final Instant NOW = Instant.parse("2024-06-01T00:00:00Z");

    private static final Instant Y2020 = Instant.parse("2020-01-01T00:00:00Z");
    private static final Instant Y2021 = Instant.parse("2021-01-01T00:00:00Z");
    private static final Instant Y2022 = Instant.parse("2022-01-01T00:00:00Z");
    private static final Instant Y2023 = Instant.parse("2023-01-01T00:00:00Z");
    private static final Instant Y2030 = Instant.parse("2030-01-01T00:00:00Z");

    protected static final Scope ALICE_WORK = new Scope("alice", "work");
    protected static final Scope ALICE_HOME = new Scope("alice", "home");
    protected static final Scope BOB_WORK = new Scope("bob", "work");
    protected static final Scope CJK_SCOPE = new Scope("小明", "项目-甲");
    protected static final Scope CJK_SIBLING = new Scope("小明", "项目-乙");
    /** Persona and project IDs that concatenate to the same string as {@link #SPLIT_RIGHT}'s. */
    protected static final Scope SPLIT_LEFT = new Scope("ab", "c");
    protected static final Scope SPLIT_RIGHT = new Scope("a", "bc");

    private static final String FP_A = "http://127.0.0.1:8081/v1/embeddings|bge-small-zh-v1.5|1";
    private static final String FP_B = "http://127.0.0.1:8081/v1/embeddings|bge-small-zh-v1.5|2";
    private static final String FP_C = "local|text2vec-base-chinese|1";

    /** A limit larger than any result in these tests, so that a list is the whole answer. */
    private static final int ALL = 1_000;

    @TempDir
    private Path home;

    private Authority authority;
    private RecallIndex index;
    private int counter;
    /** Every memory this test created, by row, to load it back whatever its scope. */
    private final Map<Long, String> memoryIds = new HashMap<>();

    // ------------------------------------------------------------------ hooks

    /** The derived indexes the authority must write inside its transactions (FTS5), or none. */
    protected abstract List<TransactionalIndex> attachedIndexes();

    /** The recall index under test; may share instances with {@link #attachedIndexes()}. */
    protected abstract RecallIndex recallIndex();

    /**
     * True when the vector index returns the true nearest neighbours (an exact scan). An approximate
     * index (HNSW) may return fewer or other neighbours: then the checks that compare with a
     * brute-force answer, or rely on exact similarity at a boundary, are skipped; all others run.
     */
    protected boolean exactNeighbours() {
        return true;
    }

    /**
     * True when the lexical index analyzes text with jiyi's token stream (jieba index mode, CJK
     * unigrams, its stemmer), as FTS5 does. An index with another analyzer (Lucene's smartcn, for
     * comparison) skips the checks that rely on those tokens themselves; all others run.
     */
    protected boolean sameTokensAsFts5() {
        return true;
    }

    /**
     * Called before every query with the authority as it is now: an index that follows the
     * authority outside its transactions catches up here. FTS5 and the exact scan need nothing.
     */
    protected void caughtUp(Authority authority) {
    }

    /** The temporary directory of this test: the authority's database lives in it. */
    protected final Path home() {
        return home;
    }

    @BeforeEach
    final void openAuthority() {
        List<TransactionalIndex> attached = attachedIndexes();
        index = recallIndex();
        authority = Authority.open(home.resolve("jiyi.db"), attached);
    }

    @AfterEach
    final void closeAuthority() {
        if (authority != null) {
            authority.close();
        }
    }

    // ------------------------------------------------------------------ fixtures

    private Event say(Scope scope, String text) {
        return say(scope, text, SAID);
    }

    private Event say(Scope scope, String text, Instant at) {
        return authority.submitEvent(new EventSubmission("ev-" + counter++, scope, Role.USER, text, "contract",
                Category.CONVERSATION, "s1", at)).event();
    }

    /** A user-stated fact quoting its own event, valid from the event's time. */
    private Memory remember(Scope scope, String text) {
        Event e = say(scope, "原话 said: " + text);
        return keep(authority.addMemory(scope, MemoryDraft.builder(e.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text(text).quote(text).build()));
    }

    /** An episode valid over {@code [validAt, invalidAt)}; {@code invalidAt} null means still valid. */
    private Memory episode(Scope scope, String text, Instant validAt, Instant invalidAt) {
        Event e = say(scope, text);
        return keep(authority.addMemory(scope, MemoryDraft.builder(e.id()).kind(Kind.EPISODE)
                .basis(Basis.USER_STATEMENT).text(text).quote(text).validAt(validAt).invalidAt(invalidAt).build()));
    }

    private Memory keep(Memory m) {
        memoryIds.put(m.rowId(), m.id());
        return m;
    }

    /** Revokes {@code m} by a correction whose text shares nothing with the queries of these tests. */
    private Memory revoke(Scope scope, Memory m, String correctedText) {
        Correction c = authority.correctMemory(scope, m.id(), new CorrectionDraft(correctedText, null, null));
        keep(c.corrected());
        assertThat(authority.memory(scope, m.id()).orElseThrow().revoked()).as("precondition: revoked").isTrue();
        return c.corrected();
    }

    private void vector(String fingerprint, Memory m, float... v) {
        VectorCache.Stored stored = authority.storeVectors(fingerprint,
                List.of(new VectorCache.NewVector(m.id(), VectorCache.contentHash(m.text()), v)));
        assertThat(stored.stored()).as("precondition: vector stored").isEqualTo(1);
    }

    private List<Candidate> memories(String query, Eligibility filter, int limit) {
        caughtUp(authority);
        List<Candidate> found = authority.read(s -> s.memoryCandidates(index.lexical(), query, filter, limit));
        assertThat(found.size()).as("limit %d respected for %s", limit, query).isLessThanOrEqualTo(limit);
        assertRanked(found);
        assertAdmitted(found, filter);
        return found;
    }

    private List<Long> memoryRows(String query, Eligibility filter) {
        return rows(memories(query, filter, ALL));
    }

    private List<Long> currentRows(Scope scope, String query) {
        return memoryRows(query, Eligibility.current(scope, NOW));
    }

    private List<Candidate> events(String query, Scope scope, int limit) {
        caughtUp(authority);
        List<Candidate> found = authority.read(s -> s.eventCandidates(index.lexical(), query, scope, limit));
        assertThat(found.size()).as("limit %d respected for %s", limit, query).isLessThanOrEqualTo(limit);
        assertRanked(found);
        List<Long> sequences = rows(found);
        List<RawEventRow> loaded = authority.read(s -> s.rawEvents(scope, sequences));
        assertThat(loaded).as("every event candidate is an event of scope %s", scope).hasSameSizeAs(found);
        return found;
    }

    private List<Long> eventRows(Scope scope, String query) {
        return rows(events(query, scope, ALL));
    }

    private Neighbours nearest(float[] vector, String fingerprint, Eligibility filter, int k, double minSimilarity,
                               int newest) {
        caughtUp(authority);
        VectorQuery q = new VectorQuery(vector, fingerprint, filter, k, minSimilarity, newest);
        Neighbours n = authority.read(s -> s.nearest(index.vectors(), q));
        assertThat(n.nearest().size()).as("k %d respected", k).isLessThanOrEqualTo(k);
        assertThat(n.compared()).as("compared is a count").isNotNegative();
        assertRanked(n.nearest());
        assertAdmitted(n.nearest(), filter);
        for (Candidate c : n.nearest()) {
            assertThat(c.score()).as("row %d is strictly above the minimum similarity", c.rowId())
                    .isGreaterThan(minSimilarity);
        }
        return n;
    }

    private List<Long> nearestRows(float[] vector, String fingerprint, Eligibility filter) {
        return rows(nearest(vector, fingerprint, filter, ALL, -2, 0).nearest());
    }

    private static List<Long> rows(List<Candidate> candidates) {
        return candidates.stream().map(Candidate::rowId).toList();
    }

    private static List<Long> rows(Memory... memories) {
        List<Long> out = new ArrayList<>();
        for (Memory m : memories) {
            out.add(m.rowId());
        }
        return out;
    }

    /** Best first; equal scores newest (larger) row first; no row twice. */
    private static void assertRanked(List<Candidate> found) {
        assertThat(rows(found)).as("no row twice").doesNotHaveDuplicates();
        for (int i = 1; i < found.size(); i++) {
            Candidate before = found.get(i - 1);
            Candidate after = found.get(i);
            assertThat(before.score()).as("best first at %d: %s", i, found).isGreaterThanOrEqualTo(after.score());
            if (before.score() == after.score()) {
                assertThat(before.rowId()).as("equal scores newest row first at %d: %s", i, found)
                        .isGreaterThan(after.rowId());
            }
        }
    }

    /** Every candidate is a memory of this test that the filter admits, loaded from the authority. */
    private void assertAdmitted(List<Candidate> found, Eligibility filter) {
        List<String> ids = new ArrayList<>();
        for (Candidate c : found) {
            String id = memoryIds.get(c.rowId());
            assertThat(id).as("row %d is a memory that exists (not deleted)", c.rowId()).isNotNull();
            ids.add(id);
        }
        List<Memory> loaded = authority.read(s -> s.memoriesById(ids));
        assertThat(loaded).as("every candidate is still in the authority").hasSameSizeAs(found);
        for (Memory m : loaded) {
            assertThat(filter.admits(m)).as("%s admits row %d (%s, %s, revoked %s)", filter, m.rowId(), m.scope(),
                    m.validity(), m.revokedAt()).isTrue();
        }
    }

    private static float[] unit(float... v) {
        double norm = 0;
        for (float f : v) {
            norm += f * f;
        }
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (v[i] / Math.sqrt(norm));
        }
        return out;
    }

    private static float[] randomUnit(Random random, int dims) {
        float[] v = new float[dims];
        for (int i = 0; i < dims; i++) {
            v[i] = (float) random.nextGaussian();
        }
        return unit(v);
    }

    /** Cosine similarity of unit vectors, computed independently of the index. */
    private static double cosine(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += (double) a[i] * b[i];
        }
        return s;
    }

    // ------------------------------------------------------------------ R1 tokens

    @Test
    @DisplayName("R1 memories: 书 finds 本书, 北京 finds 北京大学, English is stemmed and case-insensitive, mixed text by either part")
    void memoriesMatchSubwordsUnigramsAndStems() {
        Assumptions.assumeTrue(sameTokensAsFts5(), "the analysis is another analyzer's");
        Memory book = remember(ALICE_WORK, "我昨天买了一本书");
        Memory pku = remember(ALICE_WORK, "我在北京大学读书");
        Memory english = remember(ALICE_WORK, "I moved to Shanghai last spring");
        Memory mixed = remember(ALICE_WORK, "周末 weekend 去 Lingyin 寺 hiking 🙏");
        remember(ALICE_WORK, "咖啡因让人清醒 caffeine keeps people awake");

        assertThat(currentRows(ALICE_WORK, "书")).containsExactlyInAnyOrder(book.rowId(), pku.rowId());
        assertThat(currentRows(ALICE_WORK, "北京")).containsExactly(pku.rowId());
        assertThat(currentRows(ALICE_WORK, "大学")).containsExactly(pku.rowId());
        assertThat(currentRows(ALICE_WORK, "北京大学")).as("the whole word as a query").containsExactly(pku.rowId());
        assertThat(currentRows(ALICE_WORK, "shanghai")).containsExactly(english.rowId());
        assertThat(currentRows(ALICE_WORK, "SHANGHAI")).containsExactly(english.rowId());
        assertThat(currentRows(ALICE_WORK, "Ｓｈａｎｇｈａｉ")).as("full-width letters").containsExactly(english.rowId());
        assertThat(currentRows(ALICE_WORK, "moving")).as("moved and moving share a stem").containsExactly(english.rowId());
        assertThat(currentRows(ALICE_WORK, "hikes")).containsExactly(mixed.rowId());
        assertThat(currentRows(ALICE_WORK, "Weekend")).containsExactly(mixed.rowId());
        assertThat(currentRows(ALICE_WORK, "灵隐寺")).as("one shared character, 寺").containsExactly(mixed.rowId());
        assertThat(currentRows(ALICE_WORK, "lingyin 周末")).containsExactly(mixed.rowId());
        assertThat(currentRows(ALICE_WORK, "Shanghai 书"))
                .containsExactlyInAnyOrder(english.rowId(), book.rowId(), pku.rowId());
    }

    @Test
    @DisplayName("R1 events: 书 finds 本书, 北京 finds 北京大学, English is stemmed and case-insensitive, mixed text by either part")
    void eventsMatchSubwordsUnigramsAndStems() {
        Assumptions.assumeTrue(sameTokensAsFts5(), "the analysis is another analyzer's");
        Event book = say(BOB_WORK, "我昨天买了一本书");
        Event pku = say(BOB_WORK, "我在北京大学读书");
        Event english = say(BOB_WORK, "I moved to Shanghai last spring");
        Event mixed = say(BOB_WORK, "周末 weekend 去 Lingyin 寺 hiking 🙏");
        say(BOB_WORK, "咖啡因让人清醒 caffeine keeps people awake");

        assertThat(eventRows(BOB_WORK, "书")).containsExactlyInAnyOrder(book.sequence(), pku.sequence());
        assertThat(eventRows(BOB_WORK, "北京")).containsExactly(pku.sequence());
        assertThat(eventRows(BOB_WORK, "大学")).containsExactly(pku.sequence());
        assertThat(eventRows(BOB_WORK, "shanghai")).containsExactly(english.sequence());
        assertThat(eventRows(BOB_WORK, "SHANGHAI")).containsExactly(english.sequence());
        assertThat(eventRows(BOB_WORK, "moving")).containsExactly(english.sequence());
        assertThat(eventRows(BOB_WORK, "hikes")).containsExactly(mixed.sequence());
        assertThat(eventRows(BOB_WORK, "灵隐寺")).containsExactly(mixed.sequence());
        assertThat(eventRows(BOB_WORK, "Shanghai 书"))
                .containsExactlyInAnyOrder(english.sequence(), book.sequence(), pku.sequence());
    }

    @Test
    @DisplayName("R1 an English irregular form is found by the word it is a form of and back (bought/buy, went/go, met/meeting, children/child), in English and mixed text; a form left out (rose) is only itself")
    void irregularFormsMatchTheirWord() {
        Assumptions.assumeTrue(sameTokensAsFts5(), "the analysis is another analyzer's");
        Event car = say(BOB_WORK, "I bought a used Subaru Outback last month");
        Event lisbon = say(BOB_WORK, "上个月我们 went to Lisbon 看 Hannah 的婚礼");
        Event met = say(BOB_WORK, "We met Marco at the hardware store");
        Event kids = say(BOB_WORK, "The children start kindergarten in September");
        Event rose = say(BOB_WORK, "A red rose for the table");
        say(BOB_WORK, "Prices rise every spring");

        assertThat(eventRows(BOB_WORK, "What car did I buy?")).containsExactly(car.sequence());
        assertThat(eventRows(BOB_WORK, "buying")).containsExactly(car.sequence());
        assertThat(eventRows(BOB_WORK, "我们去哪里 go 了")).containsExactly(lisbon.sequence());
        assertThat(eventRows(BOB_WORK, "Where did we go?")).containsExactly(lisbon.sequence());
        assertThat(eventRows(BOB_WORK, "meeting")).containsExactly(met.sequence());
        assertThat(eventRows(BOB_WORK, "child")).containsExactly(kids.sequence());
        assertThat(eventRows(BOB_WORK, "rose")).containsExactly(rose.sequence());
        Memory bought = remember(BOB_WORK, "I bought a used Subaru Outback last month");
        assertThat(currentRows(BOB_WORK, "buy")).containsExactly(bought.rowId());
        assertThat(currentRows(BOB_WORK, "bought")).containsExactly(bought.rowId());
    }

    // ------------------------------------------------------------------ R2 literal queries

    private static final String SYNTAX_TEXT = "He said \"AND\" NEAR the door: 价格是 -5 ^ 2 (约) * 3 tokens:价格";

    /** Queries that are syntax in FTS5 or Lucene, each with whether it must find {@link #SYNTAX_TEXT}. */
    private static final Map<String, Boolean> HOSTILE = hostile();

    private static Map<String, Boolean> hostile() {
        Map<String, Boolean> q = new java.util.LinkedHashMap<>();
        q.put("NEAR(", true);
        q.put("NEAR(door 价格, 3)", true);
        q.put("tokens:价格", true);
        q.put("text:价格", true);
        q.put("\"door\"", true);
        q.put("\"unterminated door", true);
        q.put("door\"", true);
        q.put("(约)", true);
        q.put("((约", true);
        q.put("约))", true);
        q.put("NOT 价格", true);
        q.put("-价格", true);
        q.put("价格^5", true);
        q.put("door*", true);
        q.put("价格 AND 咖啡", true);
        q.put("咖啡 OR 价格", true);
        q.put("+door -door", true);
        q.put("door~2", true);
        q.put("[door TO zzz]", true);
        q.put("{door}: x", true);
        q.put("价格 OR 1=1", true);
        q.put("“价格”", true);
        q.put("「价格」", true);
        q.put("\\价格", true);
        q.put("/价.*/", true);
        q.put("\"", false);
        q.put("\"\"", false);
        q.put("*", false);
        q.put("?", false);
        q.put("AND", false);
        q.put("OR", false);
        q.put("NOT", false);
        q.put("(", false);
        q.put(")", false);
        q.put("-", false);
        q.put("^", false);
        q.put(":", false);
        q.put("'", false);
        q.put("\\", false);
        q.put("&&||!", false);
        q.put("(AND OR NOT)", false);
        return q;
    }

    @Test
    @DisplayName("R2 FTS and Lucene syntax in a query is literal text: never throws, finds the text, wildcards match nothing")
    void syntaxIsLiteral() {
        Memory syntax = remember(CJK_SCOPE, SYNTAX_TEXT);
        remember(CJK_SCOPE, "我喜欢喝咖啡 coffee lover");
        Event syntaxEvent = say(CJK_SCOPE, SYNTAX_TEXT);
        say(CJK_SCOPE, "我喜欢喝咖啡 coffee lover");
        Eligibility filter = Eligibility.current(CJK_SCOPE, NOW);

        for (Map.Entry<String, Boolean> q : HOSTILE.entrySet()) {
            List<Long> memories = memoryRows(q.getKey(), filter);
            List<Long> events = eventRows(CJK_SCOPE, q.getKey());
            if (q.getValue()) {
                if (sameTokensAsFts5()) { // which pieces match is the analysis's business
                    assertThat(memories).as("memories for %s", q.getKey()).contains(syntax.rowId());
                    assertThat(events).as("events for %s", q.getKey()).contains(syntaxEvent.sequence());
                }
            } else {
                assertThat(memories).as("memories for %s: syntax only, nothing to search", q.getKey()).isEmpty();
                assertThat(events).as("events for %s: syntax only, nothing to search", q.getKey()).isEmpty();
            }
        }
        // Operators are not operators: NOT and - exclude nothing, AND requires nothing.
        assertThat(memoryRows("NOT 咖啡", filter)).as("NOT excludes nothing").hasSize(1);
        assertThat(memoryRows("-咖啡", filter)).as("- excludes nothing").hasSize(1);
        assertThat(memoryRows("door AND 咖啡", filter)).as("AND requires nothing").hasSize(2);
        // Each memory's source event holds its text too: two events of each text.
        assertThat(eventRows(CJK_SCOPE, "NOT 咖啡")).hasSize(2);
        assertThat(eventRows(CJK_SCOPE, "door AND 咖啡")).hasSize(4);
    }

    @Test
    @DisplayName("R2 seeded random hostile queries never throw, and every answer is ranked, within the limit and admitted")
    void randomHostileQueries() {
        Random random = SeededRandom.create("RecallIndexContract.randomHostileQueries");
        remember(ALICE_WORK, "我在北京大学读书 and I like books");
        remember(ALICE_WORK, SYNTAX_TEXT);
        remember(ALICE_HOME, "你好，世界！「书」 hello (world) * NEAR");
        say(ALICE_WORK, "我在北京大学读书 and I like books");
        say(ALICE_WORK, SYNTAX_TEXT);
        List<String> fragments = new ArrayList<>(HOSTILE.keySet());
        Eligibility current = Eligibility.current(ALICE_WORK, NOW);
        Eligibility history = Eligibility.anyTime(ALICE_WORK);
        int found = 0;
        for (int i = 0; i < 200; i++) {
            StringBuilder q = new StringBuilder(SeededRandom.mixedText(random, 24));
            if (random.nextBoolean()) {
                q.insert(random.nextInt(q.length() + 1), fragments.get(random.nextInt(fragments.size())));
            }
            String query = q.toString();
            int limit = random.nextInt(4);
            found += memories(query, random.nextBoolean() ? current : history, limit).size();
            found += events(query, ALICE_WORK, limit).size();
        }
        assertThat(found).as("random mixed text shares characters with the texts now and then").isPositive();
    }

    // ------------------------------------------------------------------ R6 no evidence

    @Test
    @DisplayName("R6 a query of only stop words, punctuation or spaces returns nothing, though every text contains them")
    void stopWordsAreNoEvidence() {
        remember(ALICE_WORK, "我们的书在那里，是吗？ the book is in the car, and it is what we need!");
        remember(ALICE_WORK, "这个是我的 okay, hello? 那些呢……");
        say(ALICE_WORK, "我们的书在那里，是吗？ the book is in the car, and it is what we need!");
        Eligibility filter = Eligibility.current(ALICE_WORK, NOW);
        assertThat(currentRows(ALICE_WORK, "书 book")).as("precondition: the texts are searchable").hasSize(1);

        for (String q : List.of("的了吗", "我们的", "是 在 那", "the and of", "what is it", "THE AND", "，。！？",
                "?!.,;", "   ", "", "\t\n", "hello okay", "这个是我的", "是吗？")) {
            assertThat(memoryRows(q, filter)).as("memories for [%s]", q).isEmpty();
            assertThat(memoryRows(q, Eligibility.anyTime(ALICE_WORK))).as("memories in history for [%s]", q).isEmpty();
            assertThat(eventRows(ALICE_WORK, q)).as("events for [%s]", q).isEmpty();
        }
    }

    @Test
    @DisplayName("R6 an unrelated query returns nothing: no recent or unrelated item is substituted")
    void unrelatedQueryFindsNothing() {
        Memory tea = remember(ALICE_WORK, "我喜欢喝西湖龙井 I like Longjing tea");
        remember(ALICE_WORK, "周末去爬山 weekend hiking");
        say(ALICE_WORK, "我喜欢喝西湖龙井 I like Longjing tea");
        assertThat(currentRows(ALICE_WORK, "龙井")).as("precondition").containsExactly(tea.rowId());

        for (String q : List.of("量子力学", "quantum physics", "斑马 zebra", "Kubernetes 集群", "ÉCOLE ÜBER")) {
            assertThat(currentRows(ALICE_WORK, q)).as("memories for %s", q).isEmpty();
            assertThat(memoryRows(q, Eligibility.anyTime(ALICE_WORK))).as("history for %s", q).isEmpty();
            assertThat(eventRows(ALICE_WORK, q)).as("events for %s", q).isEmpty();
        }
    }

    // ------------------------------------------------------------------ B1 the work of a search

    @Test
    @DisplayName("B1 each search counts the hits it collected (the candidates it returned) and visited (at least those, at most the scope's rows holding the term)")
    void searchCounts() {
        for (int i = 0; i < 30; i++) {
            remember(ALICE_WORK, "第" + i + "次喝龙井 Longjing tea, cup " + i);
        }
        for (int i = 0; i < 5; i++) {
            remember(BOB_WORK, "鲍勃也喝 Longjing " + i);
        }
        for (int i = 0; i < 10; i++) {
            remember(ALICE_WORK, "周末去爬山 weekend hiking " + i);
        }
        caughtUp(authority);
        SearchCounts counts = index.lexical().searchCounts();

        SearchCounts.Totals before = counts.totals();
        List<Candidate> top = memories("Longjing", Eligibility.current(ALICE_WORK, NOW), 5);
        SearchCounts.Totals one = counts.totals().minus(before);
        assertThat(top).hasSize(5);
        assertThat(one.searches()).isEqualTo(1);
        assertThat(one.collected()).isEqualTo(5);
        // Bob's rows hold the term too; a scope's search never reads them.
        assertThat(one.visited()).isBetween(5L, 30L);
        assertThat(counts.totals(SearchCounts.Search.MEMORIES)).as("counted as a memory search").isEqualTo(one);

        before = counts.totals();
        List<Candidate> events = events("龙井", ALICE_WORK, ALL);
        SearchCounts.Totals all = counts.totals().minus(before);
        assertThat(counts.totals(SearchCounts.Search.EVENTS)).as("all of it event searches").isEqualTo(all);
        assertThat(events).hasSize(30);
        assertThat(all.searches()).isEqualTo(1);
        assertThat(all.collected()).isEqualTo(30);
        // Each matching event is offered once (Lucene) or once for each term it holds (FTS5: 龙井, 龙, 井).
        assertThat(all.visited()).isBetween(30L, 90L);

        before = counts.totals();
        SearchCounts.Totals evidenceBefore = counts.totals(SearchCounts.Search.EVIDENCE);
        double held = authority.read(s -> s.coverage(index.lexical(), "Longjing 龙井", Eligibility.current(ALICE_WORK, NOW))
                .held());
        SearchCounts.Totals evidence = counts.totals().minus(before);
        assertThat(evidence).as("all of it an evidence search")
                .isEqualTo(counts.totals(SearchCounts.Search.EVIDENCE).minus(evidenceBefore));
        assertThat(held).isPositive();
        assertThat(evidence.searches()).as("memories and events, in one search or two").isBetween(1L, 2L);
        assertThat(evidence.collected()).as("the best row of each").isBetween(1L, evidence.searches());
        assertThat(evidence.visited()).isBetween(evidence.collected(), 4L * 60);

        before = counts.totals();
        assertThat(currentRows(ALICE_WORK, "quantum 量子力学")).isEmpty();
        SearchCounts.Totals none = counts.totals().minus(before);
        assertThat(none.visited()).isZero();
        assertThat(none.collected()).isZero();
    }

    // ------------------------------------------------------------------ S1 scopes

    @Test
    @DisplayName("S1 lexical memory and event queries never cross a persona or project, CJK and look-alike scope IDs included")
    void lexicalScopeIsolation() {
        List<Scope> scopes = List.of(Scope.DEFAULT, ALICE_WORK, ALICE_HOME, BOB_WORK, CJK_SCOPE, CJK_SIBLING,
                SPLIT_LEFT, SPLIT_RIGHT);
        Map<Scope, Long> memoryRow = new HashMap<>();
        Map<Scope, Long> eventRow = new HashMap<>();
        for (Scope scope : scopes) {
            memoryRow.put(scope, remember(scope, "我在北京大学读书 reading at Peking University").rowId());
            eventRow.put(scope, say(scope, "我在北京大学读书 reading at Peking University").sequence());
        }
        Scope empty = new Scope("小明", "项目-丙");
        // Another analyzer may keep 北京大学 whole: then whole words stand in for its pieces.
        List<String> queries = sameTokensAsFts5() ? List.of("北京", "书", "Peking", "university 大学")
                : List.of("Peking", "university", "读书");
        String place = sameTokensAsFts5() ? "北京" : "Peking";
        for (Scope scope : scopes) {
            for (String q : queries) {
                assertThat(currentRows(scope, q)).as("memories of %s for %s", scope, q).containsExactly(memoryRow.get(scope));
                assertThat(memoryRows(q, Eligibility.anyTime(scope))).as("history of %s", scope)
                        .containsExactly(memoryRow.get(scope));
                List<Long> events = eventRows(scope, q);
                assertThat(events).as("events of %s for %s", scope, q).contains(eventRow.get(scope));
                assertThat(events).as("events of %s for %s", scope, q).doesNotContainAnyElementsOf(
                        eventRow.entrySet().stream().filter(e -> !e.getKey().equals(scope)).map(Map.Entry::getValue).toList());
            }
        }
        assertThat(currentRows(empty, place)).isEmpty();
        assertThat(eventRows(empty, place)).isEmpty();
        // A scope ID named in the query is text, not a filter.
        assertThat(currentRows(ALICE_WORK, "bob work 小明 项目-甲 " + place)).containsExactly(memoryRow.get(ALICE_WORK));
    }

    @Test
    @DisplayName("S1 vector neighbours never cross a persona or project, CJK and look-alike scope IDs included")
    void vectorScopeIsolation() {
        List<Scope> scopes = List.of(Scope.DEFAULT, ALICE_WORK, ALICE_HOME, BOB_WORK, CJK_SCOPE, CJK_SIBLING,
                SPLIT_LEFT, SPLIT_RIGHT);
        float[] v = unit(1, 2, 3, 4);
        Map<Scope, Long> row = new HashMap<>();
        for (Scope scope : scopes) {
            Memory m = remember(scope, "我喜欢西湖 I like the West Lake");
            vector(FP_A, m, v);
            row.put(scope, m.rowId());
        }
        for (Scope scope : scopes) {
            assertThat(nearestRows(v, FP_A, Eligibility.current(scope, NOW))).as("neighbours in %s", scope)
                    .containsExactly(row.get(scope));
            assertThat(nearestRows(v, FP_A, Eligibility.anyTime(scope))).containsExactly(row.get(scope));
        }
        Neighbours none = nearest(v, FP_A, Eligibility.anyTime(new Scope("小明", "项目-丙")), 10, -2, 0);
        assertThat(none.nearest()).isEmpty();
        assertThat(none.compared()).isZero();
    }

    // ------------------------------------------------------------------ T3 T6 R8 eligibility

    @Test
    @DisplayName("T3 T6 lexical: valid at valid_at, not at invalid_at; expired and future memories only with history")
    void lexicalEligibilityAtATime() {
        Memory past = episode(ALICE_WORK, "在杭州喝咖啡 coffee in Hangzhou", Y2020, Y2021);
        Memory next = episode(ALICE_WORK, "在苏州喝咖啡 coffee in Suzhou", Y2021, Y2022);
        Memory current = episode(ALICE_WORK, "在上海喝咖啡 coffee in Shanghai", Y2023, null);
        Memory future = episode(ALICE_WORK, "在东京喝咖啡 coffee in Tokyo", Y2030, null);

        assertThat(memoryRows("咖啡", Eligibility.current(ALICE_WORK, NOW))).containsExactly(current.rowId());
        assertThat(memoryRows("coffee", Eligibility.current(ALICE_WORK, Y2020))).as("valid at valid_at")
                .containsExactly(past.rowId());
        assertThat(memoryRows("coffee", Eligibility.current(ALICE_WORK, Y2021.minusSeconds(1))))
                .containsExactly(past.rowId());
        assertThat(memoryRows("咖啡", Eligibility.current(ALICE_WORK, Y2021))).as("not valid at invalid_at")
                .containsExactly(next.rowId());
        assertThat(memoryRows("咖啡", Eligibility.current(ALICE_WORK, Y2022))).isEmpty();
        assertThat(memoryRows("咖啡", Eligibility.current(ALICE_WORK, Y2020.minusMillis(1)))).isEmpty();
        assertThat(memoryRows("Tokyo 咖啡", Eligibility.current(ALICE_WORK, Y2030))).containsExactly(future.rowId(),
                current.rowId());
        assertThat(memoryRows("Tokyo", Eligibility.current(ALICE_WORK, NOW))).as("future: not yet").isEmpty();
        assertThat(memoryRows("Hangzhou", Eligibility.current(ALICE_WORK, NOW))).as("expired").isEmpty();
        assertThat(memoryRows("咖啡", Eligibility.anyTime(ALICE_WORK))).containsExactlyInAnyOrder(past.rowId(),
                next.rowId(), current.rowId(), future.rowId());
        assertThat(memoryRows("Hangzhou", Eligibility.anyTime(ALICE_WORK))).containsExactly(past.rowId());
        assertThat(memoryRows("Tokyo", Eligibility.anyTime(ALICE_WORK))).containsExactly(future.rowId());
    }

    @Test
    @DisplayName("T3 T6 vectors: valid at valid_at, not at invalid_at; expired and future memories only with history")
    void vectorEligibilityAtATime() {
        Memory past = episode(ALICE_HOME, "在杭州喝咖啡 coffee in Hangzhou", Y2020, Y2021);
        Memory next = episode(ALICE_HOME, "在苏州喝咖啡 coffee in Suzhou", Y2021, Y2022);
        Memory current = episode(ALICE_HOME, "在上海喝咖啡 coffee in Shanghai", Y2023, null);
        Memory future = episode(ALICE_HOME, "在东京喝咖啡 coffee in Tokyo", Y2030, null);
        float[] q = unit(1, 0, 0, 0);
        vector(FP_A, past, unit(1, 0.1f, 0, 0));
        vector(FP_A, next, unit(1, 0, 0.2f, 0));
        vector(FP_A, current, unit(1, 0, 0, 0.3f));
        vector(FP_A, future, unit(1, 0.4f, 0, 0));

        assertThat(nearestRows(q, FP_A, Eligibility.current(ALICE_HOME, NOW))).containsExactly(current.rowId());
        assertThat(nearestRows(q, FP_A, Eligibility.current(ALICE_HOME, Y2020))).containsExactly(past.rowId());
        assertThat(nearestRows(q, FP_A, Eligibility.current(ALICE_HOME, Y2021.minusSeconds(1))))
                .containsExactly(past.rowId());
        assertThat(nearestRows(q, FP_A, Eligibility.current(ALICE_HOME, Y2021))).containsExactly(next.rowId());
        assertThat(nearestRows(q, FP_A, Eligibility.current(ALICE_HOME, Y2022))).isEmpty();
        assertThat(nearestRows(q, FP_A, Eligibility.current(ALICE_HOME, Y2030)))
                .containsExactlyInAnyOrder(current.rowId(), future.rowId());
        assertThat(nearestRows(q, FP_A, Eligibility.anyTime(ALICE_HOME))).containsExactlyInAnyOrder(past.rowId(),
                next.rowId(), current.rowId(), future.rowId());
        if (exactNeighbours()) {
            assertThat(nearestRows(q, FP_A, Eligibility.anyTime(ALICE_HOME))).containsExactly(past.rowId(),
                    next.rowId(), current.rowId(), future.rowId());
        }
    }

    @Test
    @DisplayName("R8 C1 a revoked memory never comes back, lexically or by vector, not even with history")
    void revokedNever() {
        Memory beijing = remember(BOB_WORK, "我住在北京朝阳区 I live in Beijing");
        Memory other = remember(BOB_WORK, "北京烤鸭很好吃 Beijing duck is good");
        float[] q = unit(0, 1, 0, 0);
        vector(FP_A, beijing, q);
        vector(FP_A, other, unit(0.2f, 1, 0, 0));
        assertThat(currentRows(BOB_WORK, "朝阳区")).as("precondition").containsExactly(beijing.rowId());
        assertThat(nearestRows(q, FP_A, Eligibility.current(BOB_WORK, NOW))).as("precondition")
                .containsExactly(beijing.rowId(), other.rowId());

        Memory corrected = revoke(BOB_WORK, beijing, "我住在上海浦东 I live in Shanghai");
        vector(FP_A, corrected, unit(0, 0, 1, 0));

        for (Eligibility filter : List.of(Eligibility.current(BOB_WORK, NOW), Eligibility.anyTime(BOB_WORK),
                Eligibility.current(BOB_WORK, SAID))) {
            assertThat(memoryRows("朝阳区", filter)).as("%s", filter).isEmpty();
            assertThat(memoryRows("北京 Beijing live", filter)).as("%s", filter).doesNotContain(beijing.rowId())
                    .contains(other.rowId());
            assertThat(nearestRows(q, FP_A, filter)).as("%s", filter).doesNotContain(beijing.rowId())
                    .contains(other.rowId());
        }
        assertThat(currentRows(BOB_WORK, "浦东")).containsExactly(corrected.rowId());
    }

    // ------------------------------------------------------------------ L4 filters inside the search

    /**
     * {@code eligible} memories that match weakly (a long text, one mention), then {@code 50} that
     * match better, are newer and are not admitted at {@link #NOW}: expired, future, revoked, or of
     * another scope.
     */
    private void crowd(List<Memory> eligible, List<Memory> better, float[] eligibleVector, float[] betterVector) {
        for (int i = 0; i < 3; i++) {
            eligible.add(remember(ALICE_WORK, "第" + i + "次：今天下午在公司开了很长的会，讨论了预算和招聘，会后顺便喝了一杯咖啡，"
                    + "然后继续写代码直到晚上 meeting notes number " + i));
        }
        List<Memory> revoked = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String text = "咖啡咖啡 coffee " + i;
            Memory m = switch (i % 5) {
                case 0, 1 -> episode(ALICE_WORK, text, Y2020, Y2021);
                case 2 -> episode(ALICE_WORK, text, Y2030, null);
                case 3 -> remember(ALICE_WORK, text);
                default -> remember(i % 2 == 0 ? ALICE_HOME : CJK_SCOPE, text);
            };
            better.add(m);
            if (i % 5 == 3) {
                revoked.add(m);
            }
        }
        if (eligibleVector != null) {
            for (Memory m : eligible) {
                vector(FP_A, m, eligibleVector);
            }
            for (Memory m : better) {
                vector(FP_A, m, betterVector);
            }
        }
        // Revoked after their vectors were stored: the vectors stay in the cache, never eligible.
        for (Memory m : revoked) {
            revoke(ALICE_WORK, m, "更正：其实是绿茶 green tea " + m.rowId());
        }
    }

    @Test
    @DisplayName("L4 R8 lexical: 50 better, newer, ineligible matches never crowd 3 eligible ones out of a limit of 5")
    void lexicalFiltersInsideTheSearch() {
        List<Memory> eligible = new ArrayList<>();
        List<Memory> better = new ArrayList<>();
        crowd(eligible, better, null, null);
        Eligibility now = Eligibility.current(ALICE_WORK, NOW);

        List<Candidate> found = memories("咖啡", now, 5);
        assertThat(rows(found)).containsExactlyInAnyOrderElementsOf(rows(eligible.toArray(Memory[]::new)));
        assertThat(rows(memories("coffee 咖啡", now, 2))).hasSize(2).isSubsetOf(rows(eligible.toArray(Memory[]::new)));

        // With history the 20 expired and 10 future ones are admitted: they are the better matches.
        List<Candidate> history = memories("咖啡", Eligibility.anyTime(ALICE_WORK), 5);
        assertThat(history).as("the limit is filled with admitted rows").hasSize(5);
        assertThat(rows(history)).as("precondition: the ineligible ones match better")
                .doesNotContainAnyElementsOf(rows(eligible.toArray(Memory[]::new)));
        assertThat(rows(memories("咖啡", Eligibility.current(ALICE_WORK, Y2020), 4))).as("expired at NOW, valid in 2020")
                .hasSize(4);
        // Events are filtered by scope inside the search too.
        List<Candidate> events = events("咖啡", BOB_WORK, 5);
        assertThat(events).isEmpty();
        say(BOB_WORK, "只有这一条：很长很长的一段话，最后提到咖啡");
        assertThat(events("咖啡", BOB_WORK, 5)).hasSize(1);
    }

    @Test
    @DisplayName("R9 L4 memories among given rows: exactly the search at any time's answer for those rows, never a revoked or another scope's row, whatever the limit")
    void memoriesAmongGivenRows() {
        List<Memory> eligible = new ArrayList<>();
        List<Memory> better = new ArrayList<>();
        crowd(eligible, better, null, null);
        List<Memory> ties = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ties.add(remember(ALICE_WORK, "同分 tie 咖啡")); // equal scores: newest row first
        }
        for (int i = 0; i < 40; i++) {
            remember(ALICE_WORK, "第" + i + "条备忘：周报写完以后整理了下个季度的计划，中午顺路买了咖啡 weekly notes " + i);
        }
        Memory tea = remember(ALICE_WORK, "绿茶 green tea 会议 meeting");
        // The rows asked about: expired, future, revoked and other scopes' (the crowd), the weak current
        // ones, the ties, one that holds other words, and one no memory has.
        List<Long> asked = new ArrayList<>(rows(better.toArray(Memory[]::new)));
        asked.addAll(rows(eligible.toArray(Memory[]::new)));
        asked.addAll(rows(ties.toArray(Memory[]::new)));
        asked.add(tea.rowId());
        asked.add(9_999_999L);
        Set<Long> wanted = Set.copyOf(asked);
        int[] limits = {0, 1, 3, 5, 20, ALL};
        for (Scope scope : List.of(ALICE_WORK, ALICE_HOME, BOB_WORK)) {
            for (String q : List.of("咖啡", "coffee 咖啡", "会议 meeting", "同分 tie 咖啡", "绿茶 green", "量子力学", "，。", "")) {
                List<Candidate> any = memories(q, Eligibility.anyTime(scope), ALL);
                for (int limit : limits) {
                    List<Candidate> expected = any.stream().filter(c -> wanted.contains(c.rowId())).limit(limit).toList();
                    List<Candidate> among = authority.read(
                            s -> s.memoryCandidatesAmong(index.lexical(), q, scope, asked, limit));
                    assertThat(among).as("%s in %s, limit %d", q, scope, limit).containsExactlyElementsOf(expected);
                }
            }
        }
        List<Candidate> among = authority.read(s -> s.memoryCandidatesAmong(index.lexical(), "咖啡", ALICE_WORK, asked, ALL));
        List<Long> found = rows(among);
        assertThat(found).as("the expired and future ones, the weak current ones and the ties")
                .hasSize(30 + eligible.size() + ties.size())
                .doesNotContain(tea.rowId(), 9_999_999L);
        for (int i = 0; i < better.size(); i++) {
            Memory m = better.get(i);
            if (i % 5 >= 3) {
                assertThat(found).as("revoked, or of another scope").doesNotContain(m.rowId());
            }
        }
        List<Long> many = new ArrayList<>(asked);
        for (long row = 10_000_000; row < 10_070_000; row++) {
            many.add(row); // more rows than a search engine's terms filter takes at once
        }
        List<Candidate> fromMany = authority.read(s -> s.memoryCandidatesAmong(index.lexical(), "咖啡", ALICE_WORK, many, 20));
        assertThat(fromMany).as("70,000 more rows that are no memory").containsExactlyElementsOf(
                authority.read(s -> s.memoryCandidatesAmong(index.lexical(), "咖啡", ALICE_WORK, asked, 20)));
        List<Candidate> none = authority.read(s -> s.memoryCandidatesAmong(index.lexical(), "咖啡", ALICE_WORK, List.of(), 5));
        assertThat(none).as("no rows, no search").isEmpty();
        caughtUp(authority);
        SearchCounts counts = index.lexical().searchCounts();
        SearchCounts.Totals before = counts.totals(SearchCounts.Search.MEMORIES);
        authority.read(s -> s.memoryCandidatesAmong(index.lexical(), "咖啡", ALICE_WORK, asked, 20));
        assertThat(counts.totals(SearchCounts.Search.MEMORIES).minus(before).searches()).as("one memory search")
                .isEqualTo(1);
        assertThatThrownBy(() -> authority.read(s -> s.memoryCandidatesAmong(index.lexical(), "咖啡", ALICE_WORK, asked,
                -1))).as("limits are checked").isInstanceOf(InvalidInputException.class);
    }

    @Test
    @DisplayName("R9 L4 memories among given rows in a scope that holds every memory: the search at any time's answer for them, words of several pieces too")
    void memoriesAmongInTheOnlyScope() {
        List<Long> asked = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String text = "第" + i + "次 follow-up 会议 meeting about the 咖啡 budget " + "咖啡".repeat(i % 3);
            Memory m = switch (i % 3) {
                case 0 -> episode(ALICE_WORK, text, Y2020, Y2021);
                case 1 -> episode(ALICE_WORK, text, Y2030, null);
                default -> remember(ALICE_WORK, text);
            };
            asked.add(m.rowId());
        }
        Memory revoked = remember(ALICE_WORK, "follow-up 咖啡 revoked later");
        asked.add(revoked.rowId());
        revoke(ALICE_WORK, revoked, "更正：follow-up 绿茶 green tea");
        for (int i = 0; i < 4; i++) {
            asked.add(remember(ALICE_WORK, "同分 tie follow-up").rowId());
        }
        remember(ALICE_WORK, "follow-up 咖啡 not asked about");
        Set<Long> wanted = Set.copyOf(asked);
        for (String q : List.of("follow-up", "follow-up meeting", "咖啡 会议", "同分 tie", "coffee", "")) {
            List<Candidate> any = memories(q, Eligibility.anyTime(ALICE_WORK), ALL);
            for (int limit : new int[] {1, 3, ALL}) {
                List<Candidate> expected = any.stream().filter(c -> wanted.contains(c.rowId())).limit(limit).toList();
                List<Candidate> among = authority.read(s -> s.memoryCandidatesAmong(index.lexical(), q, ALICE_WORK, asked, limit));
                assertThat(among).as("%s, limit %d", q, limit).containsExactlyElementsOf(expected);
            }
        }
        List<Candidate> followUp = authority.read(s -> s.memoryCandidatesAmong(index.lexical(), "follow-up", ALICE_WORK, asked, ALL));
        assertThat(rows(followUp)).as("every asked row but the revoked one holds follow-up").hasSize(asked.size() - 1)
                .doesNotContain(revoked.rowId());
    }

    @Test
    @DisplayName("L4 R5 vectors: 50 closer, newer, ineligible vectors never crowd 3 eligible ones out of k, nor out of the newest N")
    void vectorFiltersInsideTheSearch() {
        List<Memory> eligible = new ArrayList<>();
        List<Memory> better = new ArrayList<>();
        float[] q = unit(1, 0, 0, 0);
        crowd(eligible, better, unit(1, 1, 0, 0), q);
        Eligibility now = Eligibility.current(ALICE_WORK, NOW);
        List<Long> expected = rows(eligible.toArray(Memory[]::new));

        assertThat(rows(nearest(q, FP_A, now, 5, 0.3, 0).nearest())).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(rows(nearest(q, FP_A, now, 2, 0.3, 0).nearest())).hasSize(2).isSubsetOf(expected);
        Neighbours newest = nearest(q, FP_A, now, 5, 0.3, 3);
        assertThat(rows(newest.nearest())).as("the newest 3 eligible, not the newest 3 rows")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(newest.compared()).isEqualTo(3);
        Neighbours all = nearest(q, FP_A, now, 5, 0.3, 0);
        assertThat(all.compared()).as("only eligible vectors are compared").isEqualTo(3);

        Neighbours history = nearest(q, FP_A, Eligibility.anyTime(ALICE_WORK), 5, 0.3, 0);
        assertThat(history.nearest()).hasSize(5);
        assertThat(rows(history.nearest())).as("precondition: the ineligible ones are closer")
                .doesNotContainAnyElementsOf(expected);
    }

    // ------------------------------------------------------------------ D1 deletion

    @Test
    @DisplayName("D1 after deleteMemory and deleteEvent the rows, their co-derived memories and vectors never come back")
    void deletedNeverComesBack() {
        Event shared = say(CJK_SCOPE, "我的猫叫咪咪，它喜欢吃鱼 my cat Mimi likes fish");
        Memory cat = keep(authority.addMemory(CJK_SCOPE, MemoryDraft.builder(shared.id()).kind(Kind.FACT)
                .basis(Basis.USER_STATEMENT).text("猫叫咪咪 cat named Mimi").quote("我的猫叫咪咪").build()));
        Memory fish = keep(authority.addMemory(CJK_SCOPE, MemoryDraft.builder(shared.id()).kind(Kind.PREFERENCE)
                .basis(Basis.USER_STATEMENT).text("咪咪喜欢吃鱼 Mimi likes fish").quote("它喜欢吃鱼").build()));
        Memory dog = remember(CJK_SCOPE, "邻居的狗叫旺财 the neighbour's dog Wangcai");
        Memory food = remember(CJK_SCOPE, "猫粮快吃完了 cat food is running out");
        float[] q = unit(1, 1, 1, 1);
        vector(FP_A, cat, q);
        vector(FP_A, fish, unit(1, 1, 1, 0.9f));
        vector(FP_A, dog, unit(1, 1, 0.9f, 1));
        vector(FP_A, food, unit(1, 0.5f, 1, 1));
        Event dogEvent = authority.event(CJK_SCOPE, dog.eventId()).orElseThrow();
        Eligibility any = Eligibility.anyTime(CJK_SCOPE);
        assertThat(memoryRows("咪咪", any)).as("precondition").containsExactlyInAnyOrder(cat.rowId(), fish.rowId());
        assertThat(eventRows(CJK_SCOPE, "旺财")).as("precondition").containsExactly(dogEvent.sequence());

        authority.deleteMemory(CJK_SCOPE, cat.id());
        memoryIds.remove(cat.rowId());
        memoryIds.remove(fish.rowId());
        authority.deleteEvent(CJK_SCOPE, dogEvent.id());
        memoryIds.remove(dog.rowId());

        for (String query : List.of("咪咪", "Mimi", "鱼 fish", "旺财", "Wangcai", "狗 dog", "猫 cat", "吃")) {
            assertThat(memoryRows(query, any)).as("memories for %s", query)
                    .doesNotContain(cat.rowId(), fish.rowId(), dog.rowId());
            assertThat(eventRows(CJK_SCOPE, query)).as("events for %s", query)
                    .doesNotContain(shared.sequence(), dogEvent.sequence());
        }
        assertThat(memoryRows("咪咪 旺财 fish dog", any)).isEmpty();
        assertThat(eventRows(CJK_SCOPE, "咪咪 旺财 fish dog")).isEmpty();
        assertThat(memoryRows("猫 cat", any)).containsExactly(food.rowId());
        Neighbours n = nearest(q, FP_A, any, 10, -2, 0);
        assertThat(rows(n.nearest())).containsExactly(food.rowId());
        assertThat(n.compared()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ ordering and limits

    @Test
    @DisplayName("L3 lexical memories: best first, equal scores newest row first, limit respected, limit 0 returns nothing")
    void lexicalMemoryOrder() {
        Memory weak = remember(ALICE_WORK, "今天下午在公司开了很长的会，讨论了预算和招聘，会后顺便喝了一杯咖啡，然后继续写代码");
        Memory strong = remember(ALICE_WORK, "咖啡 咖啡 咖啡 coffee");
        Memory tie1 = remember(ALICE_WORK, "喝咖啡提神 drink coffee");
        Memory tie2 = remember(ALICE_WORK, "喝咖啡提神 drink coffee");
        Memory tie3 = remember(ALICE_WORK, "喝咖啡提神 drink coffee");
        Eligibility now = Eligibility.current(ALICE_WORK, NOW);

        List<Candidate> all = memories("咖啡 coffee", now, ALL);
        assertThat(rows(all)).containsExactly(strong.rowId(), tie3.rowId(), tie2.rowId(), tie1.rowId(), weak.rowId());
        assertThat(all.get(1).score()).isEqualTo(all.get(2).score()).isEqualTo(all.get(3).score());
        assertThat(all.get(0).score()).isGreaterThan(all.get(1).score());
        assertThat(all.get(3).score()).isGreaterThan(all.get(4).score());
        for (int limit = 0; limit <= 6; limit++) {
            assertThat(memories("咖啡 coffee", now, limit)).as("limit %d is a prefix of the whole answer", limit)
                    .isEqualTo(all.subList(0, Math.min(limit, all.size())));
        }
        assertThat(memories("咖啡", now, 0)).isEmpty();
    }

    @Test
    @DisplayName("L3 lexical events: best first, equal scores newest first, limit respected, limit 0 returns nothing")
    void lexicalEventOrder() {
        Event weak = say(ALICE_HOME, "今天下午在公司开了很长的会，讨论了预算和招聘，会后顺便喝了一杯咖啡，然后继续写代码");
        Event strong = say(ALICE_HOME, "咖啡 咖啡 咖啡 coffee");
        Event tie1 = say(ALICE_HOME, "喝咖啡提神 drink coffee");
        Event tie2 = say(ALICE_HOME, "喝咖啡提神 drink coffee", Y2020);
        Event tie3 = say(ALICE_HOME, "喝咖啡提神 drink coffee", Y2030);

        List<Candidate> all = events("咖啡 coffee", ALICE_HOME, ALL);
        assertThat(rows(all)).as("newest row, not latest occurrence")
                .containsExactly(strong.sequence(), tie3.sequence(), tie2.sequence(), tie1.sequence(), weak.sequence());
        assertThat(all.get(1).score()).isEqualTo(all.get(2).score()).isEqualTo(all.get(3).score());
        for (int limit = 0; limit <= 6; limit++) {
            assertThat(events("咖啡 coffee", ALICE_HOME, limit)).as("limit %d", limit)
                    .isEqualTo(all.subList(0, Math.min(limit, all.size())));
        }
    }

    @Test
    @DisplayName("R11 a scope's scores are its own: the same rows score the same alone in the file and beside a larger scope that uses the query's words (Chinese, English, mixed)")
    void scopeScoresAreItsOwn() {
        // Every row has three words (plus the same prefix on events), in both scopes, so the average
        // row length, the one statistic both indexes keep only for the whole file, is the same before
        // and after BOB_WORK arrives. Counting IDF over the file would change ALICE_WORK's scores (BOB
        // uses "coffee" and 咖啡 everywhere); so would a scope filter that scored as a matched term.
        List<String> alice = List.of("coffee garden morning", "coffee bicycle evening", "tea garden river",
                "piano lesson tuesday", "咖啡 garden 花园", "tea 咖啡 river");
        for (String text : alice) {
            remember(ALICE_WORK, text);
        }
        // A deleted row leaves the tables' row numbers above their row counts: IDF counts rows.
        authority.deleteEvent(ALICE_WORK, remember(ALICE_WORK, "coffee garden lantern").eventId());
        List<String> queries = List.of("coffee garden", "咖啡 花园", "piano tea river", "garden 咖啡 tuesday");
        Map<String, Map<Long, Double>> aloneMemories = new HashMap<>();
        Map<String, Map<Long, Double>> aloneEvents = new HashMap<>();
        for (String query : queries) {
            aloneMemories.put(query, scores(memories(query, Eligibility.current(ALICE_WORK, NOW), ALL)));
            aloneEvents.put(query, scores(events(query, ALICE_WORK, ALL)));
            assertThat(aloneMemories.get(query)).as("memories for %s", query).isNotEmpty();
        }
        String[] other = {"mountain", "window", "bridge", "harbour", "lantern", "meadow"};
        for (int i = 0; i < 60; i++) {
            remember(BOB_WORK, (i % 2 == 0 ? "coffee " : "咖啡 ") + other[i % other.length] + " "
                    + other[(i / other.length) % other.length]);
        }
        for (String query : queries) {
            Map<Long, Double> memories = scores(memories(query, Eligibility.current(ALICE_WORK, NOW), ALL));
            Map<Long, Double> events = scores(events(query, ALICE_WORK, ALL));
            assertThat(memories.keySet()).as("memories for %s", query).isEqualTo(aloneMemories.get(query).keySet());
            assertThat(events.keySet()).as("events for %s", query).isEqualTo(aloneEvents.get(query).keySet());
            for (Map.Entry<Long, Double> e : aloneMemories.get(query).entrySet()) {
                assertThat(memories.get(e.getKey())).as("memory %d for %s", e.getKey(), query)
                        .isCloseTo(e.getValue(), within(1e-6 * e.getValue()));
            }
            for (Map.Entry<Long, Double> e : aloneEvents.get(query).entrySet()) {
                assertThat(events.get(e.getKey())).as("event %d for %s", e.getKey(), query)
                        .isCloseTo(e.getValue(), within(1e-6 * e.getValue()));
            }
        }
    }

    @Test
    @DisplayName("R11 a word that a scope uses everywhere weighs little there, however rare in the file: Caroline 卡罗琳's guitar 吉他 is found by guitar")
    void commonInTheScopeWeighsLittle() {
        Memory guitar = remember(ALICE_WORK, "吉他 guitar lesson");
        Event guitarSaid = say(ALICE_WORK, "吉他 guitar lesson");
        for (int i = 0; i < 12; i++) {
            remember(ALICE_WORK, "Caroline 卡罗琳 note " + i);
        }
        for (int i = 0; i < 60; i++) {
            remember(BOB_WORK, "吉他 guitar practice " + i);
        }
        String query = "Caroline 卡罗琳 吉他 guitar";
        // Over the file, guitar is in 61 of 73 memories and Caroline in 12: Caroline's notes would win.
        assertThat(memories(query, Eligibility.current(ALICE_WORK, NOW), ALL).get(0).rowId()).isEqualTo(guitar.rowId());
        assertThat(events(query, ALICE_WORK, ALL).get(0).rowId()).isEqualTo(guitarSaid.sequence());
        // And in BOB_WORK, where guitar is everywhere, the score of a guitar row is far below ALICE's.
        double inAlice = memories(query, Eligibility.current(ALICE_WORK, NOW), ALL).get(0).score();
        double inBob = memories(query, Eligibility.current(BOB_WORK, NOW), ALL).get(0).score();
        assertThat(inBob).isLessThan(inAlice / 2);
    }

    @Test
    @DisplayName("R6 R11 evidence counts the query's words a row holds, not how short the row is: a one-word row and a long row holding the same word give the same evidence (English, Chinese)")
    void evidenceCountsWordsHeld() {
        for (Scope scope : List.of(ALICE_WORK, BOB_WORK)) {
            for (int i = 0; i < 30; i++) {
                remember(scope, "天气晴朗 sunny weather walk number " + i);
            }
        }
        remember(ALICE_WORK, "kalman 卡尔曼");
        remember(BOB_WORK, "kalman 卡尔曼 and then the long afternoon went on with tea, biscuits and 很多别的话题");
        for (String query : List.of("How does a Kalman filter work?", "卡尔曼滤波器的原理是什么", "kalman 滤波 theory")) {
            double shortRow = evidence(query, Eligibility.current(ALICE_WORK, NOW));
            double longRow = evidence(query, Eligibility.current(BOB_WORK, NOW));
            assertThat(shortRow).as("evidence of %s", query).isGreaterThan(0).isLessThanOrEqualTo(1.0 + 1e-9);
            assertThat(shortRow).as("evidence of %s, short row against long row", query)
                    .isCloseTo(longRow, within(1e-6));
        }
        assertThat(evidence("sunny weather walk", Eligibility.current(ALICE_WORK, NOW)))
                .as("a row holding every word of the query").isCloseTo(1.0, within(1e-6));
    }

    @Test
    @DisplayName("R6 one everyday word of a long question is little evidence, its one telling word enough; a row holding two of its words is evidence (English, Chinese)")
    void oneWordOfALongQuestion() {
        for (int i = 0; i < 60; i++) {
            remember(ALICE_WORK, "天气晴朗 sunny weather walk number " + i);
        }
        remember(ALICE_WORK, "They were scared but we explained it to them");
        remember(ALICE_WORK, "今天工作很忙，开了三个会");
        remember(ALICE_WORK, "My sister Hannah is getting married in Lisbon this October");
        Eligibility alice = Eligibility.current(ALICE_WORK, NOW);
        String tcp = "Explain the difference between TCP and UDP.";
        String quantum = "量子计算机的工作原理和应用是什么";
        // Four words or more, the archive holds one everyday word: chance.
        assertThat(evidence(tcp, alice)).isLessThan(0.25);
        assertThat(evidence(quantum, alice)).isLessThan(0.25);
        // The same word in a short question is a share of it.
        assertThat(evidence("Explain TCP", alice)).isGreaterThan(0.25);
        assertThat(evidence("工作原理", alice)).isGreaterThan(0.25);
        // The one telling word of a long question is evidence: the rest are everyday words.
        assertThat(evidence("Where is my sister's wedding taking place?", alice)).isGreaterThanOrEqualTo(0.25);
        // One word carrying half of a long question: its other words are everywhere in the scope.
        String guitar = "sunny weather walk 吉他";
        assertThat(evidence(guitar, alice)).isLessThan(0.1); // only the words every row holds
        remember(ALICE_WORK, "我最近在学吉他");
        assertThat(evidence(guitar, alice)).isGreaterThanOrEqualTo(0.5);
        // A row holding two words of the long question is evidence.
        remember(ALICE_WORK, "TCP keeps the order, UDP does not");
        remember(ALICE_WORK, "量子计算机还很难做");
        assertThat(evidence(tcp, alice)).isGreaterThan(0.4);
        assertThat(evidence(quantum, alice)).isGreaterThan(0.25);
    }

    @Test
    @DisplayName("R6 a word the scope does not hold weighs by how common it is in the language: 我想问一下 does not drown 创业论坛, please remind me does not drown potluck; unknown words still do (Chinese, English)")
    void absentWordsWeighByTheLanguage() {
        for (int i = 0; i < 60; i++) {
            remember(ALICE_WORK, "天气晴朗 sunny weather walk number " + i);
        }
        remember(ALICE_WORK, "创业论坛的地点是陕西西安。");
        for (int i = 0; i < 5; i++) {
            remember(ALICE_WORK, "The potluck dish number " + i);
        }
        remember(ALICE_WORK, "我在北京大学读书");
        Eligibility alice = Eligibility.current(ALICE_WORK, NOW);
        // The question's other words are common Chinese and English words the scope never used.
        assertThat(evidence("我想问一下，创业论坛在哪里举行", alice)).isGreaterThanOrEqualTo(0.25);
        assertThat(evidence("please remind me about the potluck", alice)).isGreaterThanOrEqualTo(0.25);
        // Words the language rarely uses still count in full: a shared character is no evidence.
        assertThat(evidence("量子色动力学的渐近自由", alice)).isLessThan(0.25);
        assertThat(evidence("kalman filter potluck covariance", alice)).isLessThan(0.25);
    }

    @Test
    @DisplayName("R6 T3 R8 L4 whether some row holds the minimum evidence is answered as the best row answers it, from the rows a recall may return only: a revoked, an expired or another scope's memory holding every word does not count, an event of the scope does (Chinese, English, mixed)")
    void minimumEvidenceFromAdmittedRowsOnly() {
        for (int i = 0; i < 40; i++) {
            remember(ALICE_WORK, "天气晴朗 sunny weather walk number " + i);
        }
        String query = "里斯本的婚礼 wedding in Lisbon";
        String words = "里斯本 婚礼 wedding Lisbon";
        Eligibility alice = Eligibility.current(ALICE_WORK, NOW);
        // Memories whose own text holds every word, from events that hold none of them.
        Memory wrong = keep(authority.addMemory(ALICE_WORK, MemoryDraft.builder(say(ALICE_WORK, "我们聊了很久 we talked").id())
                .kind(Kind.FACT).basis(Basis.USER_STATEMENT).text(words).quote("聊了很久").build()));
        revoke(ALICE_WORK, wrong, "更正 corrected: 其实没有 nothing");
        keep(authority.addMemory(ALICE_WORK, MemoryDraft.builder(say(ALICE_WORK, "那年夏天 that summer").id())
                .kind(Kind.EPISODE).basis(Basis.USER_STATEMENT).text(words).quote("那年夏天").validAt(Y2020)
                .invalidAt(Y2021).build()));
        remember(BOB_WORK, words);
        assertThat(memoryRows(query, Eligibility.anyTime(ALICE_WORK))).as("precondition: the expired one matches")
                .hasSize(1);
        assertThat(evidence(query, alice)).as("only rows the recall may not return hold the words").isLessThan(0.25);
        assertThat(evidence(query, Eligibility.current(BOB_WORK, NOW))).as("in the other scope").isGreaterThan(0.9);
        // An event of the scope holding them is evidence, as a current memory is.
        say(ALICE_WORK, "下个月去里斯本参加婚礼 the wedding is in Lisbon");
        assertThat(evidence(query, alice)).as("an event holds them").isGreaterThanOrEqualTo(0.25);
        remember(ALICE_HOME, words);
        assertThat(evidence(query, Eligibility.current(ALICE_HOME, NOW))).as("a current memory holds them")
                .isGreaterThan(0.9);
        // A rare word beside words most rows hold: the common words' rows are looked up for the rare word's row only.
        remember(ALICE_WORK, "天气晴朗 sunny weather walk 吉他");
        assertThat(evidence("sunny weather walk 吉他", alice)).as("the row holding every word").isGreaterThan(0.9);
    }

    @Test
    @DisplayName("R6 the minimum-evidence rule holds from a home's first rows: in a scope of ten rows, however large the file, a common word shared is no evidence and the row a question is about is (Chinese, English)")
    void evidenceRuleHoldsInASmallScope() {
        for (int i = 0; i < 80; i++) {
            remember(BOB_WORK, "天气晴朗 sunny weather walk number " + i);
        }
        String[] home = {"我在北京大学的图书馆工作", "家里养了一只橘猫，叫年糕", "I go running along the river on Saturdays",
            "We explained the plan to the kids", "我对花生过敏"};
        for (String text : home) {
            remember(CJK_SCOPE, text);
            say(CJK_SCOPE, text);
        }
        Eligibility small = Eligibility.current(CJK_SCOPE, NOW);
        // Off-topic questions that share a common word or a character with the home: no evidence.
        assertThat(evidence("量子计算机的工作原理是什么？", small)).isLessThan(0.25);
        assertThat(evidence("量子色动力学的渐近自由", small)).isLessThan(0.25);
        assertThat(evidence("Explain the difference between TCP and UDP.", small)).isLessThan(0.25);
        assertThat(evidence("How does a Kalman filter work on the river data?", small)).isLessThan(0.25);
        // Questions about what the home holds: evidence, in each language.
        assertThat(evidence("橘猫的名字", small)).isGreaterThanOrEqualTo(0.25);
        assertThat(evidence("我对什么过敏", small)).isGreaterThanOrEqualTo(0.25);
        assertThat(evidence("when do I go running?", small)).isGreaterThanOrEqualTo(0.25);
        assertThat(evidence("北京大学", small)).isGreaterThanOrEqualTo(0.25);
        // The large scope of the same file is measured by its own statistics, as before.
        assertThat(evidence("sunny lessons", Eligibility.current(BOB_WORK, NOW))).isGreaterThan(0);
    }

    /**
     * The query's evidence, the best row's share; and for every share around it, R6's question
     * (does some row hold that much?) must be answered as the best row answers it, also exactly at
     * the best row's share and just above it.
     */
    private double evidence(String query, Eligibility filter) {
        caughtUp(authority);
        return authority.read(s -> {
            LexicalIndex.Coverage c = s.coverage(index.lexical(), query, filter);
            double held = c.words() == 0 ? 0 : c.held();
            List<Double> shares = new ArrayList<>(List.of(0.05, 0.1, 0.25, 0.4, 0.5, 0.75, 1.0, 2.0));
            if (held > 0) {
                shares.addAll(List.of(held, Math.nextUp(held), Math.nextDown(held)));
            }
            for (double share : shares) {
                assertThat(s.coverage(index.lexical(), query, filter).reaches(share))
                        .as("some row holds %s of %s (the best holds %s)", share, query, held)
                        .isEqualTo(held >= share);
            }
            return held;
        });
    }

    private static Map<Long, Double> scores(List<Candidate> candidates) {
        Map<Long, Double> out = new HashMap<>();
        for (Candidate c : candidates) {
            out.put(c.rowId(), c.score());
        }
        return out;
    }

    @Test
    @DisplayName("L3 vectors: most similar first, equal similarities newest row first, k respected, k 0 returns nothing")
    void vectorOrder() {
        float[] q = unit(1, 0, 0, 0);
        Memory far = remember(BOB_WORK, "远 far 向量");
        Memory best = remember(BOB_WORK, "最近 nearest 向量");
        Memory tie1 = remember(BOB_WORK, "平局一 tie one");
        Memory tie2 = remember(BOB_WORK, "平局二 tie two");
        Memory tie3 = remember(BOB_WORK, "平局三 tie three");
        vector(FP_A, far, unit(1, 2, 0, 0));
        vector(FP_A, best, q);
        float[] tie = unit(2, 1, 0, 0);
        vector(FP_A, tie2, tie);
        vector(FP_A, tie1, tie);
        vector(FP_A, tie3, tie);
        Eligibility now = Eligibility.current(BOB_WORK, NOW);

        Neighbours all = nearest(q, FP_A, now, 10, -2, 0);
        assertThat(rows(all.nearest())).containsExactly(best.rowId(), tie3.rowId(), tie2.rowId(), tie1.rowId(),
                far.rowId());
        assertThat(all.nearest().get(0).score()).isCloseTo(1.0, within(1e-5));
        assertThat(all.nearest().get(1).score()).isCloseTo(cosine(q, tie), within(1e-5));
        for (int k = 0; k <= 6; k++) {
            Neighbours top = nearest(q, FP_A, now, k, -2, 0);
            assertThat(top.nearest()).as("k %d is a prefix of the whole answer", k)
                    .isEqualTo(all.nearest().subList(0, Math.min(k, 5)));
        }
        assertThat(nearest(q, FP_A, now, 0, -2, 0).nearest()).isEmpty();
    }

    // ------------------------------------------------------------------ V1 R3 R5 vectors

    @Test
    @DisplayName("V1 only vectors of the query's fingerprint are compared or returned")
    void onlyTheQueryFingerprint() {
        float[] q = unit(1, 2, 3);
        Memory a = remember(ALICE_WORK, "指纹甲 fingerprint A");
        Memory b = remember(ALICE_WORK, "指纹乙 fingerprint B");
        Memory c = remember(ALICE_WORK, "指纹甲二 fingerprint A again");
        remember(ALICE_WORK, "没有向量 no vector at all");
        vector(FP_A, a, q);
        vector(FP_B, b, q);
        vector(FP_A, c, unit(3, 2, 1));
        Eligibility now = Eligibility.current(ALICE_WORK, NOW);

        Neighbours fpA = nearest(q, FP_A, now, 10, -2, 0);
        assertThat(rows(fpA.nearest())).containsExactly(a.rowId(), c.rowId());
        assertThat(fpA.compared()).isEqualTo(2);
        Neighbours fpB = nearest(q, FP_B, now, 10, -2, 0);
        assertThat(rows(fpB.nearest())).containsExactly(b.rowId());
        assertThat(fpB.compared()).isEqualTo(1);
        Neighbours fpC = nearest(q, FP_C, now, 10, -2, 0);
        assertThat(fpC.nearest()).isEmpty();
        assertThat(fpC.compared()).isZero();

        // Re-embedding with another model moves the memory to that fingerprint (one vector per memory).
        vector(FP_B, a, q);
        assertThat(nearestRows(q, FP_A, now)).containsExactly(c.rowId());
        assertThat(nearestRows(q, FP_B, now)).as("equal similarity: newest row first").containsExactly(b.rowId(),
                a.rowId());
    }

    @Test
    @DisplayName("R3 V1 only similarity strictly above the minimum is returned")
    void minimumSimilarityIsStrict() {
        float[] q = {1, 0, 0, 0};
        Memory same = remember(CJK_SCOPE, "完全相同 identical");
        Memory half = remember(CJK_SCOPE, "一半 half");
        Memory close = remember(CJK_SCOPE, "很接近 close");
        Memory orthogonal = remember(CJK_SCOPE, "正交 orthogonal");
        Memory opposite = remember(CJK_SCOPE, "相反 opposite");
        vector(FP_A, same, 1, 0, 0, 0);
        vector(FP_A, half, 0.5f, 0, 0, (float) Math.sqrt(0.75));
        vector(FP_A, close, unit(9, 1, 0, 0));
        vector(FP_A, orthogonal, 0, 1, 0, 0);
        vector(FP_A, opposite, -1, 0, 0, 0);
        Eligibility now = Eligibility.current(CJK_SCOPE, NOW);

        assertThat(rows(nearest(q, FP_A, now, 10, 0.3, 0).nearest())).containsExactly(same.rowId(), close.rowId(),
                half.rowId());
        assertThat(rows(nearest(q, FP_A, now, 10, 0.8, 0).nearest())).containsExactly(same.rowId(), close.rowId());
        assertThat(rows(nearest(q, FP_A, now, 10, -0.5, 0).nearest())).containsExactly(same.rowId(), close.rowId(),
                half.rowId(), orthogonal.rowId());
        assertThat(rows(nearest(q, FP_A, now, 10, -2, 0).nearest())).hasSize(5).endsWith(opposite.rowId());
        if (exactNeighbours()) {
            assertThat(rows(nearest(q, FP_A, now, 10, 0.5, 0).nearest())).as("0.5 is not above 0.5")
                    .containsExactly(same.rowId(), close.rowId());
            assertThat(rows(nearest(q, FP_A, now, 10, 0.4999, 0).nearest()))
                    .containsExactly(same.rowId(), close.rowId(), half.rowId());
            assertThat(rows(nearest(q, FP_A, now, 10, 1.0, 0).nearest())).as("1 is not above 1").isEmpty();
            assertThat(rows(nearest(q, FP_A, now, 10, 0.0, 0).nearest())).as("0 is not above 0")
                    .containsExactly(same.rowId(), close.rowId(), half.rowId());
        }
    }

    @Test
    @DisplayName("R5 newest N compares only the vectors of the N newest eligible memories, and compared reports it")
    void newestLimitsComparisons() {
        float[] q = unit(1, 0, 0, 0, 0, 0);
        List<Memory> made = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Memory m = remember(ALICE_HOME, "第" + i + "条记忆 memory number " + i);
            made.add(m);
            // The oldest is the best match; similarity falls with age otherwise.
            vector(FP_A, m, i == 0 ? q : unit(1, 1 + (20 - i) * 0.1f, 0, 0, 0, 0));
        }
        Memory expired = episode(ALICE_HOME, "过期的记忆 expired memory", Y2020, Y2021);
        vector(FP_A, expired, q);
        Eligibility now = Eligibility.current(ALICE_HOME, NOW);

        Neighbours five = nearest(q, FP_A, now, 3, -2, 5);
        assertThat(five.compared()).isEqualTo(5);
        List<Long> newestFive = rows(made.subList(15, 20).toArray(Memory[]::new));
        assertThat(rows(five.nearest())).hasSize(3).isSubsetOf(newestFive).doesNotContain(made.get(0).rowId());
        if (exactNeighbours()) {
            assertThat(rows(five.nearest())).containsExactly(made.get(19).rowId(), made.get(18).rowId(),
                    made.get(17).rowId());
        }
        Neighbours all = nearest(q, FP_A, now, 3, -2, 0);
        assertThat(all.compared()).isEqualTo(20);
        assertThat(rows(all.nearest())).startsWith(made.get(0).rowId());
        Neighbours more = nearest(q, FP_A, now, 3, -2, 500);
        assertThat(more.compared()).as("newest beyond the eligible count compares them all").isEqualTo(20);
        assertThat(more.nearest()).isEqualTo(all.nearest());
        Neighbours one = nearest(q, FP_A, now, 3, -2, 1);
        assertThat(one.compared()).isEqualTo(1);
        assertThat(rows(one.nearest())).containsExactly(made.get(19).rowId());
        Neighbours history = nearest(q, FP_A, Eligibility.anyTime(ALICE_HOME), 3, -2, 21);
        assertThat(history.compared()).isEqualTo(21);
        assertThat(rows(history.nearest())).contains(made.get(0).rowId(), expired.rowId());
    }

    @Test
    @DisplayName("V1 R5 seeded random vectors: answers agree with a brute-force top-k (exactly for an exact index)")
    void bruteForceAgreement() {
        Random random = SeededRandom.create("RecallIndexContract.bruteForceAgreement");
        int dims = 16;
        Map<Long, float[]> vectors = new HashMap<>();
        Map<Long, Memory> byRow = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            int kind = random.nextInt(10);
            Scope scope = kind == 0 ? BOB_WORK : ALICE_WORK;
            String text = "随机记忆 random memory " + i;
            Memory m = kind == 1 ? episode(scope, text, Y2020, Y2021)
                    : kind == 2 ? episode(scope, text, Y2030, null) : remember(scope, text);
            float[] v = randomUnit(random, dims);
            vector(kind == 3 ? FP_B : FP_A, m, v);
            if (kind != 3) {
                vectors.put(m.rowId(), v);
            }
            byRow.put(m.rowId(), m);
        }
        List<Long> created = new ArrayList<>(byRow.keySet());
        created.sort(Comparator.naturalOrder());
        for (long row : created) {
            Memory m = byRow.get(row);
            if (m.scope().equals(ALICE_WORK) && m.validity().open() && random.nextInt(15) == 0) {
                revoke(ALICE_WORK, m, "更正 corrected " + m.rowId());
                vectors.remove(m.rowId());
            }
        }
        List<Long> alive = new ArrayList<>(vectors.keySet());
        alive.sort(Comparator.reverseOrder());
        for (int round = 0; round < 40; round++) {
            Eligibility filter = random.nextBoolean() ? Eligibility.current(ALICE_WORK, NOW)
                    : random.nextBoolean() ? Eligibility.anyTime(ALICE_WORK) : Eligibility.current(ALICE_WORK, Y2030);
            float[] q = random.nextInt(5) == 0 ? vectors.get(alive.get(random.nextInt(alive.size())))
                    : randomUnit(random, dims);
            int k = 1 + random.nextInt(20);
            double min = random.nextInt(4) == 0 ? -2 : -0.2 + random.nextDouble() * 0.6;
            int newest = random.nextInt(3) == 0 ? 1 + random.nextInt(250) : 0;

            List<Long> eligible = new ArrayList<>();
            for (long row : alive) {
                if (filter.admits(byRow.get(row))) {
                    eligible.add(row);
                }
            }
            List<Long> compared = newest == 0 ? eligible : eligible.subList(0, Math.min(newest, eligible.size()));
            List<Candidate> expected = new ArrayList<>();
            for (long row : compared) {
                double c = cosine(q, vectors.get(row));
                if (c > min) {
                    expected.add(new Candidate(row, c));
                }
            }
            expected.sort(Comparator.comparingDouble(Candidate::score).reversed()
                    .thenComparing(Comparator.comparingLong(Candidate::rowId).reversed()));
            expected = expected.subList(0, Math.min(k, expected.size()));

            Neighbours n = nearest(q, FP_A, filter, k, min, newest);
            Set<Long> comparedRows = new LinkedHashSet<>(compared);
            for (Candidate c : n.nearest()) {
                assertThat(comparedRows).as("round %d: row %d is among the vectors to compare", round, c.rowId())
                        .contains(c.rowId());
                assertThat(c.score()).as("round %d: row %d scored by its cosine", round, c.rowId())
                        .isCloseTo(cosine(q, vectors.get(c.rowId())), within(1e-4));
            }
            if (exactNeighbours()) {
                assertThat(n.compared()).as("round %d compared", round).isEqualTo(compared.size());
                assertThat(rows(n.nearest())).as("round %d: %s k=%d min=%.3f newest=%d", round, filter, k, min, newest)
                        .isEqualTo(rows(expected));
                for (int i = 0; i < expected.size(); i++) {
                    assertThat(n.nearest().get(i).score()).isCloseTo(expected.get(i).score(), within(1e-6));
                }
            } else {
                assertThat(n.compared()).as("round %d compared", round).isLessThanOrEqualTo(compared.size());
            }
        }
    }

    @Test
    @DisplayName("V1 vectors of another dimension than the query's are skipped, never an error")
    void dimensionMismatchSkipped() {
        Memory four = remember(BOB_WORK, "四维 four dimensions");
        Memory three = remember(BOB_WORK, "三维 three dimensions");
        Memory five = remember(BOB_WORK, "五维 five dimensions");
        vector(FP_A, four, unit(1, 1, 0, 0));
        vector(FP_A, three, unit(1, 1, 0));
        vector(FP_A, five, unit(1, 1, 0, 0, 0));
        Eligibility now = Eligibility.current(BOB_WORK, NOW);

        assertThat(rows(nearest(unit(1, 0, 0, 0), FP_A, now, 10, -2, 0).nearest())).containsExactly(four.rowId());
        assertThat(rows(nearest(unit(1, 0, 0), FP_A, now, 10, -2, 0).nearest())).containsExactly(three.rowId());
        assertThat(rows(nearest(unit(0, 0, 0, 0, 0, 0, 0, 1), FP_A, now, 10, -2, 0).nearest())).isEmpty();
    }
}
