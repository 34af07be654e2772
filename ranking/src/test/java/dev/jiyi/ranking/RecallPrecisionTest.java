package dev.jiyi.ranking;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Recall precision: evidence that means the same in every query (R11), the minimum-evidence rule
 * (R6), conversation context, dialogue queries, timelines (R9) and time expressions (R10).
 */
class RecallPrecisionTest extends RecallFixture {

    RecallResult query(String q, Instant asOf, boolean history) {
        return recall(RecallConfig.DEFAULT).recall(new RecallRequest(scope, q, RecallMode.FAST, 10, asOf, history));
    }

    static RecalledItem item(RecallResult r, String id) {
        return r.items().stream().filter(i -> id.equals(i.memoryId() != null ? i.memoryId() : i.sourceEventId()))
                .findFirst().orElseThrow();
    }

    static double signal(RecalledItem item, String name) {
        return item.signals().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().value();
    }

    /**
     * Everyday memories, Chinese, English and mixed: the archive every precision test searches, large
     * enough that a common word or character is common in it (IDF means something).
     */
    void everyday() {
        String[] texts = {"我在北京大学读书", "周末和朋友去爬山了", "今天早上喝了一杯拿铁", "我妹妹下个月结婚",
            "I work at a small bakery downtown", "We watched a movie about space last night", "我最近在学弹吉他",
            "My brother lives in Toronto", "晚饭做了番茄炒蛋", "The printer at the office is broken again",
            "今天工作很忙，开了三个会", "Work was busy, I stayed late", "学校明天放假", "我想学做蛋糕",
            "大学同学下周来玩", "I walk to work when the weather is nice", "周五下班后去超市买了水果",
            "My manager wants the report by Friday", "女儿在学游泳", "昨晚睡得不好，工作时很困",
            "We had a team lunch at work", "我家楼下新开了一家面馆", "The kids started school this week",
            "周末在家看了一部电影", "I need to renew my passport", "我们公司搬到了新的大楼",
            "Went running in the park this morning", "妈妈做的饺子最好吃", "I am learning to cook Thai food",
            "这个月的电费比上个月高", "My phone screen cracked", "朋友推荐了一本小说", "We adopted a dog last year",
            "下雨天不想出门", "I started a new job in March", "孩子的学习成绩进步了", "老板说下个月要出差",
            "Coffee with an old friend from college", "我们计划明年去日本旅行", "The car needs new tires"};
        for (int i = 0; i < texts.length; i++) {
            said(texts[i], NOW.minus(Duration.ofDays(30 + i)));
        }
    }

    static List<String> texts(RecallResult r) {
        return r.items().stream().map(RecalledItem::text).toList();
    }

    @Test
    @DisplayName("R11 a result's score does not depend on how strong the other hits are: the same memory, the same query, with and without a stronger hit")
    void scoreIndependentOfOtherHits() {
        everyday();
        Memory weak = said("我们聊到了龙井", NOW.minus(Duration.ofDays(10)));
        String e = event(Role.USER, "我最爱喝龙井茶，龙井茶是西湖的", NOW.minus(Duration.ofDays(1)));
        Memory strong = authority.addMemory(scope, MemoryDraft.builder(e).kind(Kind.PREFERENCE).basis(Basis.USER_STATEMENT)
                .text("用户最爱喝龙井茶").quote("我最爱喝龙井茶").validAt(NOW.minus(Duration.ofDays(1)))
                .build());
        // Two days ago the strong memory was not yet valid, so it is no candidate; today it ranks first.
        RecallResult before = query("龙井茶", NOW.minus(Duration.ofDays(2)), false);
        RecallResult now = query("龙井茶", null, false);
        assertThat(ids(before)).containsExactly(weak.id());
        assertThat(ids(now)).containsExactly(strong.id(), weak.id());
        assertThat(signal(item(now, weak.id()), "lexical")).isEqualTo(signal(item(before, weak.id()), "lexical"));
        // Not relative to the best hit: the weak memory was the best and still scores below 1.
        assertThat(signal(item(before, weak.id()), "lexical")).isLessThan(signal(item(now, strong.id()), "lexical"));
    }

    @Test
    @DisplayName("R11 R6 a single shared character or common word is not evidence, in Chinese, English and mixed queries")
    void sharedCharacterIsNoEvidence() {
        everyday();
        assertThat(query("量子色动力学的渐近自由").items()).isEmpty(); // shares 学 with 北京大学 and 学弹吉他
        assertThat(query("请解释一下 Kalman filter 的数学原理").items()).isEmpty();
        // ... while a question about something the archive holds is answered, in each language.
        assertThat(query("北京大学").items()).isNotEmpty();
        assertThat(query("where does my brother live?").items()).isNotEmpty();
        assertThat(query("我妹妹什么时候结婚 wedding").items()).isNotEmpty();
        // A single-character question is still answered (R1): it is all of its own evidence.
        assertThat(query("书").items()).isNotEmpty();
    }

    @Test
    @DisplayName("R6 the minimum evidence is a setting: 0 answers a chance match, 1 answers only a match of every informative term")
    void minimumEvidenceSetting() {
        everyday();
        RecallConfig lenient = RecallConfig.builder().precision(new RecallConfig.Precision(0, 0.5, 0.25, 0.3, 0.8)).build();
        assertThat(recall(lenient).recall(new RecallRequest(scope, "量子色动力学的渐近自由", RecallMode.FAST, 10, null, false))
                .items()).isNotEmpty();
        RecallConfig strict = RecallConfig.builder().precision(new RecallConfig.Precision(1, 0.5, 0.25, 0.3, 0.8)).build();
        String half = "北京大学 quantum chromodynamics lecture notes";
        assertThat(query(half).items()).isNotEmpty();
        assertThat(recall(strict).recall(new RecallRequest(scope, half, RecallMode.FAST, 10, null, false)).items()).isEmpty();
        assertThatThrownBy(() -> new RecallConfig.Precision(1.5, 0.5, 0.25, 0.3, 0.8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recall.min_evidence");
        assertThat(RecallConfig.Precision.of(0.25, 0.7, 0.35, 0.3, 0.8)).isEqualTo(RecallConfig.Precision.DEFAULT);
        assertThatThrownBy(() -> RecallConfig.Precision.of(0.25, 0.7, 0.35, 0.8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("five numbers");
    }

    /** The demo's first session: three turns within a minute of each other. */
    record Demo(Memory shanghai, Memory joy, Memory tea) {
    }

    Demo demo() {
        Instant t = NOW.minus(Duration.ofDays(400));
        String e1 = event(Role.USER, "我住在上海，在一家做机器学习的公司上班。", t, Category.CONVERSATION, "s1");
        String e2 = event(Role.ASSISTANT, "真为你高兴！上海的春天很美。", t.plusSeconds(20), Category.CONVERSATION, "s1");
        String e3 = event(Role.USER, "I prefer green tea over coffee, and I'm reading 《三体》 this month.", t.plusSeconds(60),
                Category.CONVERSATION, "s1");
        Memory shanghai = authority.addMemory(scope, MemoryDraft.builder(e1).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text("用户住在上海").quote("我住在上海").subject("user").factKey("home_city").build());
        Memory joy = memory(e2, Kind.EMOTION, Basis.ASSISTANT_EXPRESSION, "助手为用户感到高兴", "真为你高兴");
        Memory tea = memory(e3, Kind.PREFERENCE, Basis.USER_STATEMENT, "Prefers green tea over coffee",
                "I prefer green tea over coffee");
        return new Demo(shanghai, joy, tea);
    }

    @Test
    @DisplayName("R11 demo: 'what tea do I like?' ranks the tea preference first; the neighbouring turn comes only through its context, far below it")
    void teaQuestion() {
        everyday();
        Demo d = demo();
        RecallResult r = query("what tea do I like?");
        assertThat(ids(r)).first().isEqualTo(d.tea().id());
        RecalledItem tea = r.items().getFirst();
        assertThat(tea.evidence()).isEqualTo(Evidence.MEMORY);
        for (RecalledItem other : r.items().subList(1, r.items().size())) {
            assertThat(other.score()).isLessThan(tea.score() * 0.6);
            assertThat(signal(other, "lexical")).isZero();
            assertThat(other.evidence()).isEqualTo(Evidence.ADJACENT_TURN);
        }
        // 喜欢什么茶: the same question in Chinese finds the English preference only through a shared word, so
        // it asks in mixed words as users do.
        assertThat(ids(query("我喜欢什么 tea"))).first().isEqualTo(d.tea().id());
    }

    @Test
    @DisplayName("R9 demo: 'where do I live' returns the current home (reached through the timeline); the expired one only with history")
    void currentFactThroughTimeline() {
        Demo d = demo();
        String e4 = event(Role.USER, "告诉你个消息：我上周搬到北京了，新公司在海淀。", NOW.minus(Duration.ofDays(30)),
                Category.CONVERSATION, "s2");
        Memory beijing = authority.addMemory(scope, MemoryDraft.builder(e4).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text("用户搬到了北京").quote("我上周搬到北京了").subject("user").factKey("home_city").build());
        RecallResult r = query("我住在哪里 where do I live");
        assertThat(texts(r)).first().isEqualTo("用户搬到了北京");
        assertThat(r.items().getFirst().evidence()).isEqualTo(Evidence.TIMELINE);
        assertThat(ids(recall(NO_CONTEXT).recall(new RecallRequest(scope, "我住在上海吗", RecallMode.FAST, 10, null, false))))
                .first().isEqualTo(beijing.id());
        assertThat(ids(r)).doesNotContain(d.shanghai().id());
        RecallResult history = query("我住在哪里 where do I live", null, true);
        assertThat(ids(history)).contains(beijing.id(), d.shanghai().id());
        assertThat(item(history, d.shanghai().id()).status()).isEqualTo(Status.EXPIRED);
        // As of a time when Shanghai was home, the timeline's fact then is Shanghai, and Beijing is not yet valid.
        RecallResult then = query("我住在哪里 where do I live", NOW.minus(Duration.ofDays(100)), false);
        assertThat(ids(then)).contains(d.shanghai().id()).doesNotContain(beijing.id());
    }

    @Test
    @DisplayName("R9 a timeline's current fact is reached when 30 memories valid now match the question better than its earlier fact, in Chinese and in English")
    void timelineUnderManyBetterMatches() {
        everyday();
        Demo d = demo();
        String moved = event(Role.USER, "告诉你个消息：我上周搬到北京了。", NOW.minus(Duration.ofDays(30)));
        Memory beijing = authority.addMemory(scope, MemoryDraft.builder(moved).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text("用户搬到了北京").quote("我上周搬到北京了").subject("user").factKey("home_city").build());
        String acmeEvent = event(Role.USER, "I work at Acme as a data engineer.", NOW.minus(Duration.ofDays(300)));
        Memory acme = authority.addMemory(scope, MemoryDraft.builder(acmeEvent).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text("Works at Acme as a data engineer").quote("I work at Acme as a data engineer").subject("user")
                .factKey("employer").build());
        String globexEvent = event(Role.USER, "Big news: I joined Globex last week.", NOW.minus(Duration.ofDays(20)));
        Memory globex = authority.addMemory(scope, MemoryDraft.builder(globexEvent).kind(Kind.FACT)
                .basis(Basis.USER_STATEMENT).text("Joined Globex as a staff engineer").quote("I joined Globex last week")
                .subject("user").factKey("employer").build());
        // Thirty memories valid now that hold more of each question than the earlier fact does.
        for (int i = 0; i < 30; i++) {
            said("朋友" + i + "住在学校附近，他说住那儿很方便 my friend lives near the school " + i,
                    NOW.minus(Duration.ofDays(40 + i)));
            said("Work from home again, work never stops, so much work " + i, NOW.minus(Duration.ofDays(40 + i)));
        }
        RecallResult home = recall(RecallConfig.DEFAULT).recall(
                new RecallRequest(scope, "我住在哪里 where do I live", RecallMode.FAST, 50, null, false));
        assertThat(ids(home)).as("the current home, through the timeline").contains(beijing.id())
                .doesNotContain(d.shanghai().id());
        assertThat(item(home, beijing.id()).evidence()).isEqualTo(Evidence.TIMELINE);
        RecallResult work = recall(RecallConfig.DEFAULT).recall(
                new RecallRequest(scope, "Where do I work now?", RecallMode.FAST, 50, null, false));
        assertThat(ids(work)).as("the current employer, through the timeline").contains(globex.id())
                .doesNotContain(acme.id());
        assertThat(item(work, globex.id()).evidence()).isEqualTo(Evidence.TIMELINE);
        assertThat(ids(recall(RecallConfig.DEFAULT).recall(
                new RecallRequest(scope, "Where do I work now?", RecallMode.FAST, 50, null, true))))
                .as("with history the earlier fact itself").contains(acme.id(), globex.id());
    }

    @Test
    @DisplayName("R11 demo: a neighbour's words never reach a turn an hour or more away: '门禁密码' does not find the cat")
    void contextStaysInTheConversation() {
        everyday();
        Instant night = NOW.minus(Duration.ofDays(20));
        String cat = event(Role.USER, "我养了一只橘猫，叫咪咪，每天早上叫我起床。", night.plus(Duration.ofHours(12)),
                Category.CONVERSATION, "s2");
        memory(cat, Kind.FACT, Basis.USER_STATEMENT, "用户养了一只叫咪咪的橘猫", "我养了一只橘猫，叫咪咪");
        // The assistant's turn next to the user's, so that only the hours keep the cat apart (TurnContext).
        event(Role.ASSISTANT, "好的，门禁密码 4711 我不会记住。", night, Category.CONVERSATION, "s2");
        RecallResult r = query("门禁密码");
        assertThat(texts(r)).first().isEqualTo("好的，门禁密码 4711 我不会记住。");
        assertThat(texts(r)).doesNotContain("用户养了一只叫咪咪的橘猫");
        for (RecalledItem other : r.items().subList(1, r.items().size())) {
            // 下雨天不想出门 shares the character 门: below the direct match, never a confident hit.
            assertThat(signal(other, "lexical")).isLessThan(signal(r.items().getFirst(), "lexical"));
        }
    }

    @Test
    @DisplayName("R4 conversation context: a turn is found through the turns around it (near and far, before and after, Chinese and English), never through a reference or a turn an hour away")
    void contextField() {
        everyday();
        Instant t = NOW.minus(Duration.ofDays(5));
        List<Memory> turns = new ArrayList<>();
        String[] texts = {"你周末去哪儿了？", "去了杭州，看了西湖。", "Did you try the food there?", "Yes, 西湖醋鱼 was great.",
            "听起来不错"};
        for (int i = 0; i < texts.length; i++) {
            String e = event(i % 2 == 0 ? Role.ASSISTANT : Role.USER, texts[i], t.plusSeconds(10L * i), Category.CONVERSATION,
                    "trip");
            turns.add(memory(e, Kind.OBSERVATION, i % 2 == 0 ? Basis.ASSISTANT_EXPRESSION : Basis.USER_STATEMENT, texts[i],
                    texts[i]));
        }
        event(Role.SYSTEM, "Reference: 杭州 is the capital of Zhejiang.", t.plusSeconds(25), Category.REFERENCE, "trip");
        String late = event(Role.USER, "明天要早起", t.plus(Duration.ofHours(3)), Category.CONVERSATION, "trip");
        Memory early = memory(late, Kind.OBSERVATION, Basis.USER_STATEMENT, "明天要早起", "明天要早起");
        RecallResult r = query("杭州");
        assertThat(ids(r)).first().isEqualTo(turns.get(1).id());
        RecalledItem near = item(r, turns.get(2).id());
        RecalledItem far = item(r, turns.get(3).id());
        assertThat(near.evidence()).isEqualTo(Evidence.ADJACENT_TURN);
        assertThat(signal(near, "context")).isGreaterThan(signal(far, "context"));
        assertThat(signal(far, "context")).isPositive();
        assertThat(ids(r)).doesNotContain(early.id(), turns.get(4).id()); // 3 turns away; 3 hours away
        // English words lend context to Chinese turns too.
        RecallResult food = query("food");
        assertThat(ids(food)).contains(turns.get(1).id(), turns.get(3).id());
        // The turns before the matching one are found through its match too, the one just before
        // above the one before that.
        RecalledItem justBefore = item(food, turns.get(1).id());
        RecalledItem twoBefore = item(food, turns.get(0).id());
        assertThat(justBefore.evidence()).isEqualTo(Evidence.ADJACENT_TURN);
        assertThat(signal(justBefore, "context")).isGreaterThan(signal(twoBefore, "context"));
        assertThat(signal(twoBefore, "context")).isPositive();
        assertThat(signal(justBefore, "context")).isLessThan(signal(item(food, turns.get(2).id()), "lexical"));
        // Turned off, only direct matches remain.
        RecallResult direct = recall(NO_CONTEXT).recall(new RecallRequest(scope, "杭州", RecallMode.FAST, 10, null, false));
        assertThat(direct.items()).filteredOn(i -> i.type() == RecalledItem.Type.MEMORY).extracting(RecalledItem::memoryId)
                .containsExactly(turns.get(1).id());
        assertThat(direct.items()).filteredOn(i -> i.type() == RecalledItem.Type.RAW_EVENT)
                .extracting(RecalledItem::text).containsExactly("Reference: 杭州 is the capital of Zhejiang.");
    }

    @Test
    @DisplayName("R4 conversation context adds up: a turn between two matching turns is lent more than a turn beside one, and never as much as the best match it is lent from (Chinese and English)")
    void contextAddsUp() {
        everyday();
        Instant t = NOW.minus(Duration.ofDays(3));
        // The answer (turn 1) sits between the question and the follow-up, which hold the words.
        String[] texts = {"你报名陶艺课了吗？ Did you sign up for the pottery class?", "报了，周六去的。 Yes, I went on Saturday.",
            "陶艺好玩吗？ Was pottery fun?", "还行，手有点酸。 It was okay, my hands got tired."};
        List<Memory> turns = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            String e = event(i % 2 == 0 ? Role.ASSISTANT : Role.USER, texts[i], t.plusSeconds(10L * i),
                    Category.CONVERSATION, "pottery");
            turns.add(memory(e, Kind.OBSERVATION, i % 2 == 0 ? Basis.ASSISTANT_EXPRESSION : Basis.USER_STATEMENT,
                    texts[i], texts[i]));
        }
        for (String q : List.of("陶艺", "pottery", "陶艺 pottery")) {
            RecallResult r = query(q);
            double question = signal(item(r, turns.get(0).id()), "lexical");
            double followUp = signal(item(r, turns.get(2).id()), "lexical");
            assertThat(followUp).as(q).isGreaterThan(question); // the shorter row matches more
            RecalledItem answer = item(r, turns.get(1).id());
            RecalledItem after = item(r, turns.get(3).id());
            assertThat(answer.evidence()).as(q).isEqualTo(Evidence.ADJACENT_TURN);
            // Turn 3 is next to the follow-up only; turn 1 is next to both (keeping only the best
            // would lend them the same).
            assertThat(signal(answer, "context")).as(q).isGreaterThan(signal(after, "context"));
            assertThat(signal(answer, "context")).as(q).isLessThanOrEqualTo(RecallCandidates.CONTEXT_CAP * followUp + 1e-9)
                    .isLessThan(followUp);
            assertThat(ids(r).indexOf(answer.memoryId())).as(q).isGreaterThan(ids(r).indexOf(turns.get(2).id()));
        }
    }

    @Test
    @DisplayName("R4 context is an exchange: a user's statements about several events told one after another lend each other nothing; with the assistant's replies between them, the same turns do (Chinese, English, mixed)")
    void contextIsAnExchange() {
        everyday();
        String[] told = {"书法论坛的地点是北京海淀。", "航天分享会在陕西西安举行。", "The pottery class is at the community center.",
            "我会带表哥去 the food festival。"};
        List<Memory> monologue = tell(told, NOW.minus(Duration.ofDays(4)), "monologue", false);
        List<Memory> dialogue = tell(told, NOW.minus(Duration.ofDays(2)), "dialogue", true);
        // Each question's statement (index 0 and 2), and the one told next.
        for (Map.Entry<String, Integer> asked : Map.of("书法论坛在哪里？", 0, "where is the pottery class", 2).entrySet()) {
            String q = asked.getKey();
            int at = asked.getValue();
            RecallResult r = query(q);
            assertThat(ids(r).subList(0, 2)).as(q).containsExactlyInAnyOrder(dialogue.get(at).id(), monologue.get(at).id());
            // The statement told next to it in the monologue is no context of it, so it is not found at all.
            assertThat(ids(r)).as(q).doesNotContain(monologue.get(at + 1).id());
            // In the dialogue the same statement is two turns away, across the assistant's reply.
            assertThat(signal(item(r, dialogue.get(at + 1).id()), "context")).as(q).isPositive();
        }
    }

    @Test
    @DisplayName("R4 R7 a conversation kept without memories: the reply that answers the turn holding the question's words is found through its context, as its memory would be (Chinese, English)")
    void contextFindsRawEvents() {
        everyday();
        Instant t = NOW.minus(Duration.ofDays(3));
        String ask = event(Role.ASSISTANT, "你报的陶艺课在哪里上？ Where is your pottery class?", t, Category.CONVERSATION,
                "pottery");
        String answer = event(Role.USER, "朝阳区的社区中心，每周六上午。 The community center, Saturday mornings.",
                t.plusSeconds(10), Category.CONVERSATION, "pottery");
        for (String q : List.of("陶艺课", "pottery class")) {
            RecallResult r = query(q);
            RecalledItem reply = item(r, answer);
            assertThat(reply.type()).as(q).isEqualTo(RecalledItem.Type.RAW_EVENT);
            assertThat(signal(reply, "lexical")).as(q).isZero(); // it holds none of the question's words
            assertThat(signal(reply, "context")).as(q).isPositive();
            assertThat(ids(r)).as(q).startsWith(ask, answer); // right after the turn it answers
            // Without context it is not found at all.
            RecallResult direct = recall(NO_CONTEXT).recall(new RecallRequest(scope, q, RecallMode.FAST, 10, null, false));
            assertThat(ids(direct)).as(q).doesNotContain(answer);
        }
    }

    /** The user's statements, one a turn in one session, each with the assistant's reply after it if {@code replies}. */
    private List<Memory> tell(String[] statements, Instant from, String session, boolean replies) {
        List<Memory> out = new ArrayList<>();
        for (int i = 0; i < statements.length; i++) {
            Instant at = from.plusSeconds(20L * i);
            String e = event(Role.USER, statements[i], at, Category.CONVERSATION, session);
            out.add(memory(e, Kind.EPISODE, Basis.USER_STATEMENT, statements[i], statements[i]));
            if (replies) {
                event(Role.ASSISTANT, "好的，记下了 noted", at.plusSeconds(10), Category.CONVERSATION, session);
            }
        }
        return out;
    }

    /** Twenty more everyday rows, so that the archive is past the minimum-evidence rule's 50 rows (R6). */
    void moreEveryday() {
        everyday();
        for (int i = 0; i < 20; i++) {
            said("散步 walk in the park, day " + i, NOW.minus(Duration.ofDays(80 + i)));
        }
    }

    @Test
    @DisplayName("R6 a question after a long preamble is answered as the question alone: the preamble's words the archive never held do not drown it (Chinese, English)")
    void preambleDoesNotDrownTheQuestion() {
        moreEveryday();
        Memory forum = said("创业论坛的地点是陕西西安。", NOW.minus(Duration.ofDays(5)));
        Memory potluck = said("The potluck is at Dana's place on Sunday", NOW.minus(Duration.ofDays(6)));
        String zh = "上周和佐尔坦去了趟雷克雅未克看极光，冰岛冷得要命，羊毛袜都穿了三双。对了，创业论坛在哪里举行？";
        String en = "Zoltan and I flew to Reykjavik for the aurora, Iceland was freezing and the geysers unreal. "
                + "Anyway, where is the potluck?";
        assertThat(ids(query(zh))).first().isEqualTo(forum.id());
        assertThat(ids(query(en))).first().isEqualTo(potluck.id());
        // The preamble alone is about nothing the archive holds.
        assertThat(query(zh.substring(0, zh.indexOf("对了"))).items()).isEmpty();
        assertThat(query(en.substring(0, en.indexOf("Anyway"))).items()).isEmpty();
        // Only the last sentence counts apart, and only as a question: a greeting or a sign-off the
        // archive holds is no evidence for an off-topic question around it.
        said("谢谢你帮我搬家 thanks for helping with the move", NOW.minus(Duration.ofDays(7)));
        assertThat(query("Explain quantum chromodynamics to me. Thanks!").items()).isEmpty();
        assertThat(query("谢谢！量子色动力学的渐近自由是什么？").items()).isEmpty();
    }

    @Test
    @DisplayName("R4 shared words: a question that picks a thing out by one attribute and asks another finds the other statement through the best match's most specific own words, not its everyday ones (Chinese, English, mixed); never above the best match, never without evidence, never to a turn that holds too little of its words, never from words too many turns hold, never from an amended turn (C3) or one after the query time, off at 0; a dialogue lends as its newest turn asks")
    void sharedWordsLeadToTheThingAskedAbout() {
        moreEveryday();
        // Each statement in a session of its own: no turn is another's conversation context. The other
        // event's statements are newer, so that without the shared words its date would come first.
        Memory forumPlace = said("书法论坛的地点是广东深圳。", NOW.minus(Duration.ofDays(12)));
        Memory forumDate = said("书法论坛的时间是五月三日。", NOW.minus(Duration.ofDays(12)));
        Memory forumWho = said("我和导师一起去了书法论坛。", NOW.minus(Duration.ofDays(12)));
        Memory summitPlace = said("围棋峰会的地点是江苏南京。", NOW.minus(Duration.ofDays(2)));
        Memory summitDate = said("围棋峰会的时间是六月十日。", NOW.minus(Duration.ofDays(2)));
        // Its own words beyond the questions are many and mostly everyday: the most specific lead.
        Memory potteryPlace = said("Everyone was really happy and very busy at the pottery workshop in Hangzhou.",
                NOW.minus(Duration.ofDays(12)));
        Memory potteryStart = said("The pottery workshop starts on May 3.", NOW.minus(Duration.ofDays(12)));
        Memory chessStart = said("The chess summit starts on June 10.", NOW.minus(Duration.ofDays(2)));
        said("The chess summit is in Nanjing.", NOW.minus(Duration.ofDays(2)));

        record Case(String question, Memory best, Memory asked, Memory other) {
        }
        for (Case c : List.of(
                new Case("那个地点是广东深圳的活动，其时间是什么？", forumPlace, forumDate, summitDate),
                new Case("The event in Hangzhou: when does it start?", potteryPlace, potteryStart, chessStart),
                new Case("Hangzhou 的那个活动什么时候 start？", potteryPlace, potteryStart, chessStart))) {
            RecallResult r = query(c.question());
            List<String> ids = ids(r);
            assertThat(ids).as(c.question()).first().isEqualTo(c.best().id());
            assertThat(ids.indexOf(c.asked().id())).as(c.question()).isPositive()
                    .isLessThan(ids.indexOf(c.other().id()) < 0 ? Integer.MAX_VALUE : ids.indexOf(c.other().id()));
            RecalledItem asked = item(r, c.asked().id());
            double best = signal(item(r, c.best().id()), "lexical");
            assertThat(signal(asked, "context")).as(c.question()).isPositive()
                    .isLessThanOrEqualTo(RecallConfig.Precision.DEFAULT.contextShared() * best + 1e-9);
            assertThat(signal(item(r, c.best().id()), "context")).as(c.question()).isZero(); // it does not lend to itself
            assertThat(asked.score()).as(c.question()).isLessThan(item(r, c.best().id()).score());

            // Off, the other event's statement, as good a match and newer, comes first.
            RecallConfig off = RecallConfig.builder().precision(new RecallConfig.Precision(0.25, 0.7, 0.35, 0, 0.8)).build();
            List<String> without = ids(recall(off).recall(new RecallRequest(scope, c.question(), RecallMode.FAST, 10, null, false)));
            assertThat(without.indexOf(c.other().id())).as(c.question()).isNotNegative()
                    .isLessThan(without.indexOf(c.asked().id()) < 0 ? Integer.MAX_VALUE : without.indexOf(c.asked().id()));
        }
        // A statement that holds none of the question's words is found through the best match's alone.
        RecalledItem who = item(query("那个地点是广东深圳的活动，其时间是什么？"), forumWho.id());
        assertThat(who.evidence()).isEqualTo(Evidence.SHARED_WORDS);
        assertThat(signal(who, "lexical")).isZero();
        assertThat(signal(who, "context")).isPositive();
        // A dialogue lends as its newest turn asks: the best match's words beyond that turn's, also
        // those an older turn of the dialogue said.
        RecallResult talk = dialogue(List.of("上次你说的书法论坛不错。", "那个地点是广东深圳的活动，其时间是什么？"));
        List<String> talked = ids(talk);
        assertThat(talked).first().isEqualTo(forumPlace.id());
        assertThat(talked.indexOf(forumDate.id())).isPositive()
                .isLessThan(talked.indexOf(summitDate.id()) < 0 ? Integer.MAX_VALUE : talked.indexOf(summitDate.id()));
        assertThat(signal(item(talk, forumDate.id()), "context")).isPositive();
        // A turn that holds one character of those words holds less of them than the minimum evidence:
        // it is lent nothing, so it is not found.
        Memory french = said("我最近在学法语。", NOW.minus(Duration.ofDays(12)));
        assertThat(ids(query("那个地点是广东深圳的活动，其时间是什么？"))).doesNotContain(french.id());
        // A question without evidence still finds nothing (R6); the setting is checked.
        assertThat(query("量子色动力学的渐近自由").items()).isEmpty();
        assertThat(query("How does a Kalman filter work?").items()).isEmpty();
        assertThatThrownBy(() -> new RecallConfig.Precision(0.25, 0.7, 0.35, 1.5, 0.8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recall.context.shared");
        // As of a time before the summit's statements, the best match that had happened by then lends:
        // the later place statement's words do not reach back to the sign-up.
        Memory summitJoin = said("我报名了围棋峰会。", NOW.minus(Duration.ofDays(20)));
        String nanjing = "那个地点是江苏南京的活动，其时间是什么？";
        assertThat(ids(query(nanjing))).contains(summitJoin.id());
        assertThat(ids(query(nanjing, NOW.minus(Duration.ofDays(5)), false))).doesNotContain(summitJoin.id());
        // Words that as many turns hold as the search looks at tell none of them apart: nothing is lent.
        for (int i = 0; i < RecallCandidates.SHARED_CANDIDATES; i++) {
            said("书法论坛第" + i + "期的报名表", NOW.minus(Duration.ofDays(40 + i)));
        }
        RecallResult crowded = query("那个地点是广东深圳的活动，其时间是什么？");
        assertThat(ids(crowded)).first().isEqualTo(forumPlace.id());
        assertThat(signal(item(crowded, forumDate.id()), "context")).isZero();
        assertThat(ids(crowded)).doesNotContain(forumWho.id());
        // C3: a corrected statement's event still matches, but its words lead nowhere.
        authority.correctMemory(scope, potteryPlace.id(), new CorrectionDraft("The pottery workshop moved online.",
                "moved online", NOW.minus(Duration.ofDays(1))));
        RecallResult amended = query("The event in Hangzhou: when does it start?");
        assertThat(amended.items()).isNotEmpty();
        assertThat(amended.items()).allSatisfy(i -> assertThat(signal(i, "context")).isZero());
    }

    @Test
    @DisplayName("R4 context is lent only where it tells turns apart: a session in which every turn holds the query's common word lends nothing, and does not bury a turn that holds its other word (English, Chinese)")
    void contextOnlyWhereItTellsTurnsApart() {
        moreEveryday();
        Instant t = NOW.minus(Duration.ofDays(3));
        String[] dogs = {"My dog 小狗 pulls on the leash", "Dogs 小狗 need a walk every day", "The dog 小狗 park was busy",
            "Our dog 小狗 loves the beach"};
        List<Memory> session = new ArrayList<>();
        for (int i = 0; i < dogs.length; i++) {
            // A dialogue (the speakers take turns), so every turn is the others' context (TurnContext):
            // what keeps their context at nothing is that none matches better than another.
            boolean user = i % 2 == 0;
            String e = event(user ? Role.USER : Role.ASSISTANT, dogs[i], t.plusSeconds(10L * i), Category.CONVERSATION, "dogs");
            session.add(memory(e, Kind.OBSERVATION, user ? Basis.USER_STATEMENT : Basis.ASSISTANT_EXPRESSION, dogs[i],
                    dogs[i]));
        }
        Memory named = said("We named the puppy Biscuit, 名字叫饼干", NOW.minus(Duration.ofDays(20)));
        for (String q : List.of("What is the name of our dog?", "我家小狗的名字")) {
            RecallResult r = query(q);
            assertThat(ids(r)).as(q).first().isEqualTo(named.id());
            for (Memory m : session) {
                assertThat(signal(item(r, m.id()), "context")).as(q).isZero();
            }
        }
    }

    @Test
    @DisplayName("R6 in a new user's home of twenty rows, at most one of sixteen off-topic questions finds anything (through a word the home holds), also those sharing a character or an everyday word with it, and questions about what was said are answered (Chinese, English, mixed)")
    void smallHomeAnswersOnlyWhatItHolds() {
        String[] home = {"我在北京大学的图书馆工作，主要负责古籍修复。", "家里养了一只橘猫，叫年糕，三岁了。",
            "I go running along the river every Saturday morning.", "我对花生过敏，点外卖要提醒我。",
            "My sister Lena just moved to Vancouver for a nursing job.", "比起咖啡我更喜欢喝普洱茶 especially after dinner.",
            "We finally sold the old Honda and take the subway now.", "这学期在上一门陶艺课，每周四晚上。",
            "Reading a history of the Silk Road, it's slow but fascinating.", "五月想带爸妈去云南大理玩一周。"};
        List<Memory> rows = new ArrayList<>();
        for (int i = 0; i < home.length; i++) {
            rows.add(said(home[i], NOW.minus(Duration.ofDays(20 - i))));
        }
        String[] offTopic = {"What is the tallest mountain in Africa?", "How do I change a flat tire?",
            "Who wrote the novel War and Peace?", "What does HTTP status code 418 mean?",
            "Recommend a good laptop for programming", "如何煮出好吃的米饭？", "明天北京会下雨吗？", "唐朝的首都是哪里？",
            "怎么给手机换电池", "股票和基金有什么区别？",
            // Off-topic questions that share a character or an everyday word with the home: with the
            // rule off below 50 rows, as it was, each of these found something.
            "量子色动力学的渐近自由", "数学考试怎么复习", "大学生如何写毕业论文", "上海的地铁几点停运",
            "Tell me about the history of the Roman Empire", "How do I reset my river rafting app password?"};
        List<String> answered = new ArrayList<>();
        for (String probe : offTopic) {
            if (!query(probe).items().isEmpty()) {
                answered.add(probe);
            }
        }
        // The one allowed: 北京 is a word the home holds (北京大学), a third of a three-word question.
        assertThat(answered).as("off-topic questions answered").isSubsetOf("明天北京会下雨吗？");
        assertThat(ids(query("我在哪里工作？"))).first().isEqualTo(rows.get(0).id());
        assertThat(ids(query("我对什么过敏"))).first().isEqualTo(rows.get(3).id());
        assertThat(ids(query("Where did my sister move?"))).first().isEqualTo(rows.get(4).id());
        assertThat(ids(query("普洱茶"))).first().isEqualTo(rows.get(5).id());
        assertThat(ids(query("陶艺课是星期几"))).first().isEqualTo(rows.get(7).id());
    }

    @Test
    @DisplayName("R4 a deleted turn's words leave its neighbours' context at once")
    void deletedTurnLeavesContext() {
        Instant t = NOW.minus(Duration.ofDays(5));
        String a = event(Role.USER, "我今天去看了牙医", t, Category.CONVERSATION, "c");
        String b = event(Role.ASSISTANT, "疼不疼？", t.plusSeconds(5), Category.CONVERSATION, "c");
        Memory answer = memory(b, Kind.OBSERVATION, Basis.ASSISTANT_EXPRESSION, "疼不疼？", "疼不疼？");
        memory(a, Kind.EPISODE, Basis.USER_STATEMENT, "用户去看了牙医", "我今天去看了牙医");
        assertThat(ids(query("牙医"))).contains(answer.id());
        authority.deleteEvent(scope, a);
        assertThat(query("牙医").items()).isEmpty();
    }

    @Test
    @DisplayName("R11 a dialogue query weighs its newest turn over older ones, in Chinese and English")
    void dialogueQuery() {
        everyday();
        Memory guitar = said("我最近在学弹吉他，手指很疼", NOW.minus(Duration.ofDays(3)));
        Memory toronto = said("My brother moved to Toronto for work", NOW.minus(Duration.ofDays(3)));
        List<String> guitarLast = List.of("How is your brother doing in Toronto?", "他挺好的。", "你最近吉他练得怎么样？");
        List<String> torontoLast = List.of("你最近吉他练得怎么样？", "还行。", "How is your brother doing in Toronto?");
        RecallResult a = dialogue(guitarLast);
        RecallResult b = dialogue(torontoLast);
        // The same words, in another order: the newest turn's memory gains, the older turn's still counts.
        assertThat(item(a, guitar.id()).score()).isGreaterThan(item(b, guitar.id()).score());
        assertThat(item(b, toronto.id()).score()).isGreaterThan(item(a, toronto.id()).score());
        // Only the last turn weighs fully: a dialogue of one turn is that turn as a query.
        assertThat(ids(dialogue(List.of("你最近吉他练得怎么样？")))).isEqualTo(ids(query("你最近吉他练得怎么样？")));
    }

    RecallResult dialogue(List<String> turns) {
        return recall(RecallConfig.DEFAULT).recall(RecallRequest.dialogue(scope, turns, RecallMode.FAST, 10, null, false));
    }

    @Test
    @DisplayName("R11 a dialogue query rejects no turns, null turns and too many turns, naming the field")
    void badDialogue() {
        assertThatThrownBy(() -> RecallRequest.dialogue(scope, List.of(), RecallMode.FAST, 10, null, false))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("dialogue");
        assertThatThrownBy(() -> RecallRequest.dialogue(scope, List.of(" ", ""), RecallMode.FAST, 10, null, false))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("dialogue");
        List<String> withNull = new ArrayList<>(List.of("a"));
        withNull.add(null);
        assertThatThrownBy(() -> RecallRequest.dialogue(scope, withNull, RecallMode.FAST, 10, null, false))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("dialogue");
        List<String> many = java.util.Collections.nCopies(RecallRequest.MAX_TURNS + 1, "你好");
        assertThatThrownBy(() -> RecallRequest.dialogue(scope, many, RecallMode.FAST, 10, null, false))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("dialogue");
        String longTurn = "长".repeat(RecallRequest.MAX_QUERY);
        assertThatThrownBy(() -> RecallRequest.dialogue(scope, List.of(longTurn, "x"), RecallMode.FAST, 10, null, false))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("dialogue").hasMessageNotContaining("长长");
    }

    @Test
    @DisplayName("R10 R6 a time the query names boosts what happened then and filters nothing: 昨天, last month, 去年五月; its words are no evidence the archive must hold")
    void timeWindowsBoost() {
        everyday();
        Memory yesterday = said("和同事吃了火锅 hotpot with colleagues", NOW.minus(Duration.ofDays(1)));
        Memory april = said("和同事吃了火锅 hotpot with colleagues", NOW.minus(Duration.ofDays(40)));
        Memory lastMay = said("和同事吃了火锅 hotpot with colleagues", Instant.parse("2025-05-12T12:00:00Z"));
        RecallResult plain = query("火锅 hotpot");
        assertThat(ids(plain)).first().isEqualTo(yesterday.id()); // fresher
        RecallResult y = query("昨天吃了什么火锅");
        assertThat(ids(y)).first().isEqualTo(yesterday.id());
        assertThat(signal(item(y, yesterday.id()), "time")).isEqualTo(1.0);
        assertThat(signal(item(y, april.id()), "time")).isZero();
        RecallResult m = query("hotpot in April");
        assertThat(ids(m)).first().isEqualTo(april.id());
        assertThat(ids(m)).contains(yesterday.id(), lastMay.id()); // a boost, never a filter
        // Answered at all because the minimum evidence counts 火锅 without the time words (R6, R10).
        assertThat(ids(query("两个月前的火锅"))).first().isEqualTo(april.id());
        assertThat(ids(query("what hotpot did I have two months ago"))).first().isEqualTo(april.id());
        // ...and the time words alone are no evidence: nothing holds 麻辣烫 or "sushi".
        assertThat(query("两个月前的麻辣烫").items()).isEmpty();
        assertThat(query("the sushi two months ago").items()).isEmpty();
        RecallResult may = query("去年五月 hotpot");
        assertThat(ids(may)).first().isEqualTo(lastMay.id());
        // "may" the verb is no month.
        RecallResult verb = query("may I have hotpot");
        assertThat(verb.items()).allMatch(i -> signal(i, "time") == 0);
    }
}
