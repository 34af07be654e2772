package dev.jiyi.ranking;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecallTest extends RecallFixture {

    @Test
    @DisplayName("R1 书 finds 本书, 北京 finds 我在北京大学读书, English words match their stems")
    void chineseAndEnglishMatching() {
        Memory book = said("我昨天买了一本书", NOW.minus(Duration.ofDays(1)));
        Memory pku = said("我在北京大学读书", NOW.minus(Duration.ofDays(2)));
        Memory moved = said("I moved to Shanghai last spring", NOW.minus(Duration.ofDays(3)));
        said("今天下雨了 it rained today", NOW.minus(Duration.ofDays(4)));
        assertThat(ids(query("书"))).containsExactlyInAnyOrder(book.id(), pku.id());
        assertThat(ids(query("北京"))).containsExactly(pku.id());
        assertThat(ids(query("moving to shanghai"))).containsExactly(moved.id());
        assertThat(ids(query("上海 Shanghai 搬家"))).first().isEqualTo(moved.id());
    }

    @Test
    @DisplayName("R2 every FTS5 operator and quote character in a query is searched literally without error")
    void literalQueries() {
        Memory near = said("He waited near the door: 价格 (约) 五元", NOW);
        for (String q : List.of("\"", "\"\"", "*", "AND", "OR", "NOT", "NEAR(", "NEAR(a b, 3)", "col:xyz", "tokens:价格",
                "-5", "^", "(", ")", "a AND (b OR", "\"unterminated", "书*", "{tokens}: x", "'", "\\", "价格 OR 1=1",
                "“中文引号”", "「括号」", "near*", "door\"", "+door", "-door")) {
            RecallResult r = query(q);
            assertThat(r.items()).allMatch(i -> i.memoryId() == null || i.memoryId().equals(near.id()));
        }
        assertThat(ids(query("NEAR("))).containsExactly(near.id());
        assertThat(ids(query("tokens:价格"))).containsExactly(near.id());
        assertThat(ids(query("door\""))).containsExactly(near.id());
        Random random = SeededRandom.create("RecallTest.literalQueries");
        for (int i = 0; i < 200; i++) {
            query(SeededRandom.mixedText(random, 40));
        }
    }

    @Test
    @DisplayName("R6 a query with no evidence returns an empty list; unrelated recent items are never substituted")
    void noEvidence() {
        said("我喜欢喝绿茶 I like green tea", NOW.minus(Duration.ofMinutes(1)));
        assertThat(query("火星探测器 Mars rover").items()).isEmpty();
        assertThat(query("").items()).isEmpty();
        assertThat(query("，。！?").items()).isEmpty();
    }

    @Test
    @DisplayName("R6 sharing only common words (的, 我, 了, the, a) is not evidence, in Chinese and English")
    void commonWordsAreNotEvidence() {
        said("我的猫了", NOW);
        said("the cat sat on a mat", NOW);
        assertThat(query("我的了").items()).isEmpty();
        assertThat(query("的 我 了").items()).isEmpty();
        assertThat(query("the a").items()).isEmpty();
        assertThat(query("The A the a THE").items()).isEmpty();
        assertThat(query("我 the 的 a").items()).isEmpty();
        assertThat(query("猫").items()).hasSize(1);
        assertThat(query("the cat").items()).hasSize(1);
    }

    @Test
    @DisplayName("R7 events without memories come back as labeled raw results, capped at 2,000 characters and flagged")
    void rawFallback() {
        String longText = "长篇日记 diary entry ".repeat(300);
        String raw = event(Role.USER, longText, NOW.minus(Duration.ofDays(1)));
        String derivedEvent = event(Role.USER, "日记里写了猫 the diary mentions a cat", NOW.minus(Duration.ofDays(1)));
        Memory m = memory(derivedEvent, Kind.EPISODE, Basis.USER_STATEMENT, "日记提到猫", "日记里写了猫");
        RecallResult r = query("日记 diary");
        RecalledItem rawItem = r.items().stream().filter(i -> i.type() == RecalledItem.Type.RAW_EVENT).findFirst().orElseThrow();
        assertThat(rawItem.sourceEventId()).isEqualTo(raw);
        assertThat(rawItem.presentation()).isEqualTo(Presentation.RAW_EVENT);
        assertThat(rawItem.truncated()).isTrue();
        assertThat(rawItem.text().codePointCount(0, rawItem.text().length())).isEqualTo(2000);
        assertThat(longText).startsWith(rawItem.text());
        // The derived event's raw text never stands in for its memory (C3).
        assertThat(r.items()).filteredOn(i -> i.type() == RecalledItem.Type.RAW_EVENT)
                .extracting(RecalledItem::sourceEventId).doesNotContain(derivedEvent);
        assertThat(ids(r)).contains(m.id());
        String shortRaw = event(Role.ASSISTANT, "short diary note", NOW);
        assertThat(query("note").items()).singleElement().satisfies(i -> {
            assertThat(i.sourceEventId()).isEqualTo(shortRaw);
            assertThat(i.truncated()).isFalse();
        });
    }

    @Test
    @DisplayName("R8 revoked memories never appear, not even with --include-history")
    void revokedNeverAppear() throws Exception {
        Memory keep = said("我的车是红色的 my car is red", NOW.minus(Duration.ofDays(2)));
        Memory revoked = said("我的车是蓝色的 my car is blue", NOW.minus(Duration.ofDays(1)));
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("jiyi.db"));
             PreparedStatement ps = c.prepareStatement("UPDATE memories SET revoked_at = ? WHERE id = ?")) {
            ps.setString(1, "2026-05-01T00:00:00.000000Z");
            ps.setString(2, revoked.id());
            ps.executeUpdate();
        }
        assertThat(ids(query("车 car"))).containsExactly(keep.id());
        RecallResult history = recall(RecallConfig.DEFAULT).recall(new RecallRequest(scope, "车 car blue", RecallMode.FAST,
                10, null, true));
        assertThat(ids(history)).doesNotContain(revoked.id());
    }

    Memory fact(String text, String quote, Instant validAt) {
        String e = event(Role.USER, text, validAt);
        return authority.addMemory(scope, MemoryDraft.builder(e).kind(Kind.FACT).basis(Basis.USER_STATEMENT).text(text)
                .quote(quote).subject("user").factKey("home_city").build());
    }

    @Test
    @DisplayName("T6 R8 an expired fact appears only with --as-of or --include-history; a future fact only with history")
    void expiredAndFutureFacts() {
        Memory shanghai = fact("我住在上海 I live in Shanghai", "我住在上海", Instant.parse("2020-01-01T00:00:00Z"));
        Memory beijing = fact("我搬到北京了 I live in Beijing now", "我搬到北京了", Instant.parse("2024-01-01T00:00:00Z"));
        Memory future = fact("明年我会住在深圳 I will live in Shenzhen", "明年我会住在深圳", Instant.parse("2027-01-01T00:00:00Z"));
        Recall recall = recall(RecallConfig.DEFAULT);
        String q = "我住在哪里 where do I live 上海 北京 深圳";
        assertThat(ids(recall.recall(new RecallRequest(scope, q, RecallMode.FAST, 10, null, false))))
                .containsExactly(beijing.id());
        assertThat(ids(recall.recall(new RecallRequest(scope, q, RecallMode.FAST, 10,
                Instant.parse("2021-06-01T00:00:00Z"), false)))).containsExactly(shanghai.id());
        RecallResult history = recall.recall(new RecallRequest(scope, q, RecallMode.FAST, 10, null, true));
        assertThat(ids(history)).containsExactlyInAnyOrder(shanghai.id(), beijing.id(), future.id());
        assertThat(history.items()).filteredOn(i -> i.memoryId().equals(shanghai.id()))
                .singleElement().extracting(RecalledItem::status).isEqualTo(Status.EXPIRED);
        assertThat(history.items()).filteredOn(i -> i.memoryId().equals(future.id()))
                .singleElement().extracting(RecalledItem::status).isEqualTo(Status.FUTURE);
    }

    @Test
    @DisplayName("T6 R4 the current version of a long fact timeline is recalled even when older versions tie on text")
    void currentVersionOfLongTimeline() {
        String e = event(Role.USER, "我搬家了很多次，现在住在城市里 I moved many times", NOW.minus(Duration.ofDays(400)));
        List<Derivation> versions = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            versions.add(new Derivation(scope, MemoryDraft.builder(e).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                    .text("用户住在城市 lives in the city").quote("现在住在城市里").subject("user").factKey("city")
                    .validAt(NOW.minus(Duration.ofDays(300 - i))).build()));
        }
        assertThat(authority.addMemories(versions).failed()).isFalse();
        RecallResult r = query("城市 city");
        assertThat(r.items()).filteredOn(i -> i.type() == RecalledItem.Type.MEMORY).singleElement()
                .satisfies(i -> assertThat(i.status()).isEqualTo(Status.CURRENT));
    }

    @Test
    @DisplayName("F2 F3 a 200-day-old episode shows its gist, a 3-year-old one a decade label, a 3-year-old preference stays detailed")
    void forgettingPresentation() {
        Instant d200 = NOW.minus(Duration.ofDays(200));
        Instant y3 = NOW.minus(Duration.ofDays(3 * 365));
        String e1 = event(Role.USER, "我们去杭州西湖划船，还吃了东坡肉 we went boating", d200);
        Memory gist = authority.addMemory(scope, MemoryDraft.builder(e1).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                .text("和家人去杭州西湖划船并吃了东坡肉").quote("我们去杭州西湖划船").gist("西湖划船").build());
        String e2 = event(Role.USER, "那年夏天在青岛海边露营，看到了日出。Camping by the sea", y3);
        Memory old = memory(e2, Kind.EPISODE, Basis.USER_STATEMENT, "在青岛海边露营看日出。后来又去了崂山", "在青岛海边露营");
        String e3 = event(Role.USER, "我喜欢海边的日出 I love sunrise by the sea", y3);
        Memory pref = memory(e3, Kind.PREFERENCE, Basis.USER_STATEMENT, "喜欢海边的日出", "我喜欢海边的日出");
        String e4 = event(Role.USER, "上周在西湖边跑步 running by the lake", NOW.minus(Duration.ofDays(7)));
        Memory recent = memory(e4, Kind.EPISODE, Basis.USER_STATEMENT, "在西湖边跑步", "上周在西湖边跑步");

        RecalledItem g = only(query("西湖 划船"), gist.id());
        assertThat(g.presentation()).isEqualTo(Presentation.GIST);
        assertThat(g.text()).isEqualTo("西湖划船");
        assertThat(g.timeLabel()).isEqualTo("2025-11-13T00:00:00.000000Z");

        RecalledItem o = only(query("青岛 露营"), old.id());
        assertThat(o.presentation()).isEqualTo(Presentation.TOPIC_CUE);
        assertThat(o.text()).isEqualTo("在青岛海边露营看日出");
        int year = y3.atZone(ZoneOffset.UTC).getYear();
        assertThat(o.timeLabel()).isEqualTo((year / 10 * 10) + "s");

        RecalledItem p = only(query("日出 sunrise"), pref.id());
        assertThat(p.presentation()).isEqualTo(Presentation.FULL);
        assertThat(p.text()).isEqualTo("喜欢海边的日出");
        assertThat(p.timeLabel()).endsWith("Z");

        RecalledItem r = only(query("西湖 跑步"), recent.id());
        assertThat(r.presentation()).isEqualTo(Presentation.FULL);
        assertThat(r.text()).isEqualTo("在西湖边跑步");
    }

    static RecalledItem only(RecallResult r, String memoryId) {
        return r.items().stream().filter(i -> memoryId.equals(i.memoryId())).findFirst().orElseThrow(
                () -> new AssertionError("memory " + memoryId + " not recalled: " + ids(r)));
    }

    @Test
    @DisplayName("F1 freshness halves every 180 days and ranks the newer of two equal memories first; nothing is deleted")
    void freshnessDecay() {
        Memory old = said("我养了一只猫 I have a cat", NOW.minus(Duration.ofDays(180)));
        Memory fresh = said("我养了一只猫 I have a cat", NOW);
        RecallResult r = recall(NO_CONTEXT)
                .recall(new RecallRequest(scope, "猫 cat", RecallMode.FAST, 10, null, false));
        assertThat(ids(r)).containsExactly(fresh.id(), old.id());
        assertThat(signal(only(r, old.id()), "freshness")).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(signal(only(r, fresh.id()), "freshness")).isEqualTo(1.0);
        assertThat(authority.memory(scope, old.id())).isPresent();
    }

    static double signal(RecalledItem item, String name) {
        return item.signals().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().value();
    }

    @Test
    @DisplayName("R3 the score fuses lexical, cosine, related hop, basis, confidence and freshness, each visible")
    void fusedSignals() {
        Memory tea = said("我喜欢喝龙井茶 I like Longjing tea", NOW);
        String e = event(Role.ASSISTANT, "推荐你去杭州茶园看看", NOW);
        Memory garden = memory(e, Kind.OBSERVATION, Basis.ASSISTANT_EXPRESSION, "助手推荐了杭州茶园", "推荐你去杭州茶园看看");
        authority.relate(scope, tea.id(), garden.id());
        RecallResult r = recall(NO_CONTEXT)
                .recall(new RecallRequest(scope, "龙井 Longjing", RecallMode.FAST, 10, null, false));
        assertThat(ids(r)).containsExactly(tea.id(), garden.id());
        RecalledItem first = r.items().get(0);
        assertThat(first.signals()).extracting(Signal.Value::name)
                .containsExactly("lexical", "context", "cosine", "related", "basis", "confidence", "freshness", "time");
        assertThat(signal(first, "lexical")).isGreaterThan(0.5);
        assertThat(signal(first, "cosine")).isZero();
        RecalledItem hop = r.items().get(1);
        assertThat(hop.evidence()).isEqualTo(Evidence.RELATED_LINK);
        assertThat(signal(hop, "lexical")).isZero();
        assertThat(signal(hop, "related")).isEqualTo(signal(first, "lexical"));
        assertThat(signal(hop, "basis")).isEqualTo(0.7);
        double sum = hop.signals().stream().mapToDouble(Signal.Value::contribution).sum();
        assertThat(hop.score()).isCloseTo(sum, org.assertj.core.data.Offset.offset(1e-12));
    }

    @Test
    @DisplayName("R3 basis and confidence break lexical ties; equal scores are ordered by ID")
    void basisAndConfidence() {
        String u = event(Role.USER, "周末去爬山 hiking this weekend", NOW);
        String a = event(Role.ASSISTANT, "周末去爬山 hiking this weekend", NOW);
        Memory stated = memory(u, Kind.EPISODE, Basis.USER_STATEMENT, "周末去爬山 hiking", "周末去爬山");
        Memory inferred = authority.addMemory(scope, MemoryDraft.builder(a).kind(Kind.EPISODE).basis(Basis.INFERENCE)
                .text("周末去爬山 hiking").quote("周末去爬山").confidence(0.4).build());
        assertThat(ids(query("爬山 hiking"))).containsExactly(stated.id(), inferred.id());
    }

    @Test
    @DisplayName("R4 with 50,000 memories, fast recall reads at most the candidate limit of memory rows, and by default ten per result asked for (at least 100)")
    void boundedCandidates() {
        int total = 50_000;
        List<EventSubmission> events = new ArrayList<>(1000);
        List<Derivation> derivations = new ArrayList<>(1000);
        for (int i = 0; i < total; i++) {
            String text = "第" + i + "杯咖啡 coffee number " + i;
            events.add(new EventSubmission("c" + i, scope, Role.USER, text, null, null, "s" + (i % 50),
                    NOW.minusSeconds(i)));
            derivations.add(new Derivation(scope, MemoryDraft.builder("c" + i).kind(Kind.OBSERVATION)
                    .basis(Basis.USER_STATEMENT).text("喝了咖啡 coffee " + i).quote("杯咖啡 coffee").build()));
            if (events.size() == 5000) {
                assertThat(authority.submitEvents(events).failed()).isFalse();
                assertThat(authority.addMemories(derivations).failed()).isFalse();
                events.clear();
                derivations.clear();
            }
        }
        RecallConfig config = RecallConfig.builder().candidateLimit(60).build();
        long before = authority.memoryRowsRead();
        RecallResult r = recall(config).recall(new RecallRequest(scope, "咖啡 coffee", RecallMode.FAST, 20, null, false));
        long read = authority.memoryRowsRead() - before;
        assertThat(r.items()).hasSize(20);
        assertThat(read).isPositive().isLessThanOrEqualTo(60);
        assertThat(authority.doctor().tableCounts().byName()).containsEntry("memories", (long) total);

        // The default loads ten candidates per result asked for, at least 100, at most candidate_limit
        // (a tenth of them kept for related links, which this archive has none of).
        Recall byDefault = recall(RecallConfig.DEFAULT);
        for (int[] asked : new int[][] {{10, 100}, {5, 100}, {15, 150}, {40, 200}}) {
            before = authority.memoryRowsRead();
            RecallResult some = byDefault.recall(new RecallRequest(scope, "咖啡 coffee", RecallMode.FAST, asked[0], null, false));
            assertThat(some.items()).hasSize(asked[0]);
            assertThat(authority.memoryRowsRead() - before).as("rows loaded for %d results", asked[0])
                    .isGreaterThanOrEqualTo(asked[1] - asked[1] / 10).isLessThanOrEqualTo(asked[1]);
        }
    }

    @Test
    @DisplayName("F4 current emotion: the latest assistant expression, decayed with a 6-hour half-life, omitted below 0.01")
    void currentEmotion() {
        String e1 = event(Role.ASSISTANT, "太好了，我也很开心！", NOW.minus(Duration.ofHours(30)));
        authority.addMemory(scope, MemoryDraft.builder(e1).kind(Kind.EMOTION).basis(Basis.ASSISTANT_EXPRESSION)
                .text("助手很开心").quote("我也很开心").emotion(new Emotion("joy", 0.8, 0.6)).build());
        String e2 = event(Role.ASSISTANT, "听到这个我有点难过。", NOW.minus(Duration.ofHours(6)));
        Memory sad = authority.addMemory(scope, MemoryDraft.builder(e2).kind(Kind.EMOTION).basis(Basis.ASSISTANT_EXPRESSION)
                .text("助手有点难过").quote("我有点难过").emotion(new Emotion("sadness", -0.6, 0.4)).build());
        int personaVersion = authority.persona(scope.personaId(), null).version();
        CurrentEmotion emotion = new CurrentEmotion(authority, RecallConfig.DEFAULT);
        CurrentEmotion.State state = emotion.at(scope, NOW).orElseThrow();
        assertThat(state.memoryId()).isEqualTo(sad.id());
        assertThat(state.decay()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(state.emotion().valence()).isCloseTo(-0.3, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(state.emotion().arousal()).isCloseTo(0.2, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(emotion.at(scope, NOW.plus(Duration.ofHours(34)))).isEmpty(); // 40 h: 0.5^(40/6) < 0.01
        assertThat(emotion.at(scope, NOW.plus(Duration.ofHours(33)))).isPresent(); // 39 h: 0.5^6.5 > 0.01
        assertThat(authority.persona(scope.personaId(), null).version()).isEqualTo(personaVersion);
    }

    @Test
    @DisplayName("R4 conversation context: the turn next to a matching turn (same session) is a candidate through its context, ranked below it")
    void adjacentTurns() {
        String q = event(Role.USER, "你最近在画什么？ What are you painting lately?", NOW.minusSeconds(3), Category.CONVERSATION, "chat");
        String a = event(Role.ASSISTANT, "一幅湖边日出。A sunrise over a lake.", NOW.minusSeconds(2),
                Category.CONVERSATION, "chat");
        String other = event(Role.USER, "今天吃了饺子", NOW.minusSeconds(1), Category.CONVERSATION, "elsewhere");
        Memory question = memory(q, Kind.OBSERVATION, Basis.USER_STATEMENT, "用户问在画什么", "你最近在画什么？");
        Memory answer = memory(a, Kind.OBSERVATION, Basis.ASSISTANT_EXPRESSION, "湖边日出", "一幅湖边日出。");
        memory(other, Kind.EPISODE, Basis.USER_STATEMENT, "吃了饺子", "今天吃了饺子");
        RecallResult r = query("画 painting");
        assertThat(ids(r)).containsExactly(question.id(), answer.id());
        assertThat(signal(r.items().get(1), "lexical")).isZero();
        assertThat(signal(r.items().get(1), "context")).isPositive().isLessThan(signal(r.items().get(0), "lexical"));
        // The question's own event says more than its memory (画 and painting), so it is evidence through it.
        assertThat(r.items()).extracting(RecalledItem::evidence).containsExactly(Evidence.SOURCE_EVENT, Evidence.ADJACENT_TURN);
        RecallResult without = recall(NO_CONTEXT)
                .recall(new RecallRequest(scope, "画 painting", RecallMode.FAST, 10, null, false));
        assertThat(ids(without)).containsExactly(question.id());
    }

    @Test
    @DisplayName("R6 bad recall input is rejected naming the field, not the value")
    void badInput() {
        assertThatThrownBy(() -> new RecallRequest(scope, "x", RecallMode.FAST, 0, null, false))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("limit");
        String huge = "长".repeat(RecallRequest.MAX_QUERY + 1);
        assertThatThrownBy(() -> new RecallRequest(scope, huge, RecallMode.FAST, 5, null, false))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("query").hasMessageNotContaining("长长");
        assertThatThrownBy(() -> new RecallRequest(scope, "half \uD83D emoji", RecallMode.FAST, 5, null, false))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("query");
    }

    @Test
    @DisplayName("R1 scopes: recall never returns another persona's or project's memories")
    void scoped() {
        said("我的密码提示是小狗 the hint is puppy", NOW);
        RecallResult other = recall(RecallConfig.DEFAULT).recall(new RecallRequest(new Scope("someone-else", "default"),
                "小狗 puppy", RecallMode.FAST, 10, null, false));
        assertThat(other.items()).isEmpty();
        assertThat(query("小狗 puppy").items()).hasSize(1);
    }

    @Test
    @DisplayName("R5 semantic mode without an embedding model warns and ranks lexically")
    void modesWithoutVectors() {
        said("我喜欢爬山", NOW);
        RecallResult r = recall(RecallConfig.DEFAULT).recall(new RecallRequest(scope, "爬山", RecallMode.SEMANTIC, 5,
                null, false));
        assertThat(r.items()).hasSize(1);
        assertThat(r.warnings()).singleElement().asString().contains("semantic", "lexical only");
    }
}
