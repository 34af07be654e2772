package dev.jiyi.bench.quality;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * jiyi's own scenario ({@code --datasets jiyi}): one user's year of conversation in Chinese, English
 * and mixed text, with hand-derived memories and questions whose answers are known, including the
 * cases the public datasets lack: a fact that changed (a timeline: the current fact is the answer,
 * the old one must not be shown), a time named in the question (R10), a memory corrected after the
 * fact (C1: the mistake must never come back) and an event deleted on request (D1: nothing of it
 * may come back). Those last checks are the <em>forbidden</em> texts of a question: the leak rate
 * counts questions whose top 10 shows any of them, and must stay 0 at every archive size.
 */
final class OwnScenario {

    static final String NAME = "jiyi";
    static final Scope SCOPE = new Scope("jiyi-own", "bench");
    /** The query time: the day after the last event. */
    static final Instant NOW = at("2025-06-01T09:00");

    private final List<Scenario.EventSpec> events = new ArrayList<>();
    private final List<Scenario.MemorySpec> memories = new ArrayList<>();
    private final List<Scenario.Question> questions = new ArrayList<>();
    private final List<Scenario.Change> changes = new ArrayList<>();

    private OwnScenario() {
    }

    static Scenario build() {
        OwnScenario s = new OwnScenario();
        s.conversation();
        s.questions();
        return new Scenario(NAME, List.copyOf(s.events), List.copyOf(s.memories), List.copyOf(s.questions), NOW, 0,
                List.copyOf(s.changes));
    }

    private void conversation() {
        // The topics below are ones the distractor corpus (ChatCorpus) never mentions, so that a grown
        // archive competes with the answer by its words, not by copies of it.
        // A fact that changed: home city (Chinese), employer (English).
        user("home-1", "2024-01-10T20:00", "我住在苏州，在一家做工业机器人的公司上班。");
        fact("home-1", "用户住在苏州", "我住在苏州", "home_city");
        memory("home-1", Kind.FACT, "用户在一家工业机器人公司工作", "在一家做工业机器人的公司上班");
        assistant("home-2", "2024-01-10T20:01", "真为你高兴！苏州的园林很美。");
        user("home-3", "2025-03-05T19:30", "告诉你个消息：我上周搬到深圳了，新公司在南山。");
        fact("home-3", "用户搬到了深圳", "我上周搬到深圳了", "home_city");
        user("job-1", "2024-02-03T10:00", "I work at Acme as a data engineer, mostly on Spark pipelines.");
        fact("job-1", "Works at Acme as a data engineer", "I work at Acme as a data engineer", "employer");
        user("job-2", "2025-04-14T18:00", "Big news: I joined Globex last week as a staff engineer.");
        fact("job-2", "Joined Globex as a staff engineer", "I joined Globex last week as a staff engineer", "employer");

        // Preferences and facts, one language each and mixed.
        user("veg-1", "2024-03-02T08:30", "I've been vegetarian since 2019, so please no meat in recipe ideas.");
        memory("veg-1", Kind.PREFERENCE, "Vegetarian since 2019: no meat in recipes", "I've been vegetarian since 2019");
        user("mango-1", "2024-03-20T12:10", "我对芒果过敏，吃了嘴唇会肿。");
        memory("mango-1", Kind.FACT, "用户对芒果过敏", "我对芒果过敏");
        user("dog-1", "2024-04-07T21:00", "我家的狗叫可乐，是一只五岁的柯基。");
        memory("dog-1", Kind.FACT, "用户的狗叫可乐，五岁的柯基", "我家的狗叫可乐，是一只五岁的柯基");
        user("lang-1", "2024-06-11T22:15", "最近在用 Rust 写一个 CLI 工具，borrow checker 真的让人头大。");
        memory("lang-1", Kind.EPISODE, "用户在用 Rust 写 CLI 工具", "在用 Rust 写一个 CLI 工具");
        user("es-1", "2024-07-01T23:00", "我在学西班牙语，每周上两次网课。");
        memory("es-1", Kind.GROWTH, "用户在学西班牙语，每周两次网课", "我在学西班牙语，每周上两次网课");
        user("gym-1", "2024-08-15T09:00", "My gym membership renews on March 3; I want to cancel it before then.");
        memory("gym-1", Kind.FACT, "Gym membership renews on March 3; wants to cancel before", "My gym membership renews on March 3");
        user("gift-1", "2024-09-02T19:00", "儿子下个月满十岁，想送他一台天文望远镜。");
        memory("gift-1", Kind.EPISODE, "用户想送儿子一台天文望远镜当十岁生日礼物", "想送他一台天文望远镜");
        user("swim-1", "2024-10-05T07:00", "Training for a triathlon: swimming laps at the community pool every Tuesday and Thursday.");
        memory("swim-1", Kind.GROWTH, "Trains for a triathlon, swimming laps every Tuesday and Thursday",
                "swimming laps at the community pool every Tuesday and Thursday");
        user("meds-1", "2024-11-01T17:00", "记得提醒我每个月一号给爷爷寄降压药。");
        memory("meds-1", Kind.AGREEMENT, "每月一号提醒用户给爷爷寄降压药", "每个月一号给爷爷寄降压药");
        user("review-1", "2025-05-20T16:00", "下周二和设计团队评审新的 onboarding 流程，记得准备 Figma 原型。");
        memory("review-1", Kind.EPISODE, "下周二和设计团队评审 onboarding 流程，需准备 Figma 原型",
                "下周二和设计团队评审新的 onboarding 流程");
        user("piano-1", "2024-12-12T20:30", "I finally played Clair de Lune on the piano without a mistake!");
        memory("piano-1", Kind.GROWTH, "Played Clair de Lune on the piano without a mistake",
                "I finally played Clair de Lune on the piano without a mistake");

        // A time named in the question (R10): May 2024 against a later hike; yesterday's dinner.
        user("hike-1", "2024-05-18T18:00", "Hiked the Dolomites with my cousin, the views were unreal.");
        memory("hike-1", Kind.EPISODE, "Hiked the Dolomites with their cousin", "Hiked the Dolomites with my cousin");
        user("hike-2", "2025-02-22T17:00", "周末和同事去梧桐山徒步了，人有点多。");
        memory("hike-2", Kind.EPISODE, "用户周末和同事去梧桐山徒步", "周末和同事去梧桐山徒步了");
        user("dinner-1", "2025-05-31T21:00", "昨天晚上去吃了一家新开的云南菜，汽锅鸡很好吃。");
        memory("dinner-1", Kind.EPISODE, "用户去吃了云南菜，汽锅鸡很好吃", "去吃了一家新开的云南菜");
        user("ramen-1", "2024-04-20T20:00", "Had ramen at a tiny place near the station, best broth ever.");
        memory("ramen-1", Kind.EPISODE, "Had ramen at a tiny place near the station", "Had ramen at a tiny place near the station");

        // A misread memory, corrected (C1); secrets the user asks to forget, deleted (D1).
        user("book-1", "2025-01-08T21:00", "I'm reading 《三体》 this month, the dark forest idea is chilling.");
        memory("book-1", Kind.EPISODE, "Is reading 《红楼梦》 this month", "I'm reading 《三体》 this month");
        changes.add(new Scenario.Correct(SCOPE, "own-book-1", "Is reading 《三体》 (The Three-Body Problem) this month",
                "《三体》"));
        user("door-1", "2025-01-10T20:01", "顺便一提，我的门禁密码是 4711，别记住这个。");
        memory("door-1", Kind.FACT, "用户的门禁密码是 4711", "我的门禁密码是 4711");
        changes.add(new Scenario.Delete(SCOPE, "own-door-1"));
        user("pin-1", "2025-01-11T08:00", "My bank card PIN is 9302, please forget I said that.");
        changes.add(new Scenario.Delete(SCOPE, "own-pin-1"));

        // Ordinary chat that answers nothing asked below (the archive's background).
        assistant("chat-1", "2024-03-02T08:31", "Noted. Want a few quick vegetarian lunch ideas too?");
        user("chat-2", "2024-06-30T10:00", "今天天气不错，打算下午去公园走走。");
        user("chat-3", "2024-08-01T13:00", "Lunch was a sad desk salad again, need better habits.");
        user("chat-4", "2024-10-20T15:00", "周末把书架整理了一下，扔掉了很多旧杂志。");
        user("chat-5", "2025-01-20T09:30", "The standup ran long again, we should timebox it to 15 minutes.");
        user("chat-6", "2025-05-01T11:00", "五一假期哪儿都没去，在家看了两部电影。");
    }

    private void questions() {
        // Timelines (R9, T4): the current fact answers, the earlier one is never shown as current.
        ask("timeline", "我住在哪里 where do I live", Set.of("home-3"), Set.of("用户住在苏州"));
        ask("timeline", "用户现在住在哪个城市？", Set.of("home-3"), Set.of("用户住在苏州"));
        ask("timeline", "Where do I work now?", Set.of("job-2"), Set.of("Works at Acme"));
        ask("timeline", "what company is my employer", Set.of("job-2"), Set.of("Works at Acme"));
        // Facts and preferences: Chinese, English, mixed.
        ask("fact", "am I vegetarian?", Set.of("veg-1"), Set.of());
        ask("fact", "recipe ideas without meat", Set.of("veg-1"), Set.of());
        ask("fact", "我对什么水果过敏", Set.of("mango-1"), Set.of());
        ask("fact", "mango 过敏", Set.of("mango-1"), Set.of());
        ask("fact", "我家的狗叫什么名字", Set.of("dog-1"), Set.of());
        ask("fact", "可乐 is what dog breed", Set.of("dog-1"), Set.of());
        ask("fact", "我在用什么语言写 CLI", Set.of("lang-1"), Set.of());
        ask("fact", "Rust borrow checker", Set.of("lang-1"), Set.of());
        ask("fact", "我在学什么外语", Set.of("es-1"), Set.of());
        ask("fact", "When does my gym membership renew?", Set.of("gym-1"), Set.of());
        ask("fact", "儿子的生日礼物", Set.of("gift-1"), Set.of());
        ask("fact", "how often do I swim for the triathlon", Set.of("swim-1"), Set.of());
        ask("fact", "什么时候给爷爷寄药", Set.of("meds-1"), Set.of());
        ask("fact", "onboarding 评审要准备什么", Set.of("review-1"), Set.of());
        ask("fact", "which piece did I play on the piano", Set.of("piano-1"), Set.of());
        // A time in the question (R10).
        ask("time", "where did I go hiking in May 2024?", Set.of("hike-1"), Set.of());
        ask("time", "去年去哪里徒步了", Set.of("hike-1"), Set.of());
        ask("time", "我昨天吃了什么菜", Set.of("dinner-1"), Set.of());
        ask("time", "ramen in April 2024", Set.of("ramen-1"), Set.of());
        // Corrections (C1): the corrected text answers, the mistake never comes back.
        ask("correction", "what book am I reading this month", Set.of("book-1"), Set.of("红楼梦"));
        ask("correction", "三体 Three-Body Problem", Set.of("book-1"), Set.of("红楼梦"));
        ask("correction", "红楼梦", Set.of(), Set.of("红楼梦"));
        // Deletions (D1): nothing of a deleted event comes back.
        ask("deletion", "门禁密码", Set.of(), Set.of("4711"));
        ask("deletion", "what is my door code", Set.of(), Set.of("4711"));
        ask("deletion", "bank card PIN", Set.of(), Set.of("9302"));
        ask("deletion", "我的银行卡密码是多少", Set.of(), Set.of("9302"));
    }

    private void user(String id, String localTime, String text) {
        event(id, Role.USER, localTime, text);
    }

    private void assistant(String id, String localTime, String text) {
        event(id, Role.ASSISTANT, localTime, text);
    }

    /** Turns less than an hour apart share a session, as a host would submit them. */
    private void event(String id, Role role, String localTime, String text) {
        Instant at = at(localTime);
        String session = "s-" + localTime.substring(0, 10);
        events.add(new Scenario.EventSpec("own-" + id, SCOPE, role, text, session, at));
    }

    private void memory(String eventId, Kind kind, String text, String quote) {
        memories.add(new Scenario.MemorySpec("own-" + eventId, SCOPE, kind, Basis.USER_STATEMENT, text, quote));
    }

    private void fact(String eventId, String text, String quote, String factKey) {
        memories.add(new Scenario.MemorySpec("own-" + eventId, SCOPE, Kind.FACT, Basis.USER_STATEMENT, text, quote, "user",
                factKey, null));
    }

    private void ask(String category, String query, Set<String> gold, Set<String> forbidden) {
        Set<String> ids = new LinkedHashSet<>();
        gold.forEach(g -> ids.add("own-" + g));
        questions.add(new Scenario.Question(NAME + "-" + (questions.size() + 1), SCOPE, query, ids, category, List.of(),
                forbidden));
    }

    /** A local time in China (UTC+8), where this user lives. */
    private static Instant at(String localTime) {
        return LocalDateTime.parse(localTime).toInstant(ZoneOffset.ofHours(8));
    }
}
