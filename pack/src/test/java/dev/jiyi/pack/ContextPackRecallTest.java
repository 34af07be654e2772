package dev.jiyi.pack;

import dev.jiyi.authority.Basis;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.ranking.RecallMode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.jiyi.pack.PackFixture.components;
import static dev.jiyi.pack.PackFixture.keys;
import static dev.jiyi.pack.PackFixture.parse;
import static dev.jiyi.pack.PackFixture.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the recalled memories are recalled by (the query; without one the checkpoint and the latest
 * user turn; with neither nothing, R6), and what never reaches a pack: deleted (D1), revoked (R8) or
 * expired records, amended turns (C3), and other scopes' data (S1).
 */
class ContextPackRecallTest extends PackFixtureTest {

    static final Scope SCOPE = new Scope("alice", "work");

    /**
     * Unrelated memories, each from a turn in an old session of its own (so that no turn is another's
     * conversational neighbour, which recall counts as evidence): coffee, a cat, a database, Hangzhou.
     */
    private void memories() {
        f.said(SCOPE, "old-1", Kind.PREFERENCE, "我喜欢喝咖啡 I like coffee [coffee]", 9000);
        f.said(SCOPE, "old-2", Kind.FACT, "我养了一只橘猫 I have an orange cat [cat]", 8000);
        f.said(SCOPE, "old-3", Kind.FACT, "生产数据库是 PostgreSQL the production database is PostgreSQL [db]", 7000);
        f.said(SCOPE, "old-4", Kind.FACT, "我住在杭州 I live in Hangzhou [city]", 6000);
    }

    private String recalled(Pack p) {
        var c = components(p.context()).get("recalled_memories");
        return c == null ? "" : text(c);
    }

    @Test
    @DisplayName("R6 with a query the pack recalls by it (recalledBy query); a query with no evidence recalls nothing and nothing unrelated stands in")
    void byQuery() {
        memories();
        Pack p = f.pack(SCOPE, BIG, null, "咖啡", S1);
        assertThat(p.recalledBy()).isEqualTo("query");
        assertThat(recalled(p)).contains("[coffee]").doesNotContain("[cat]", "[db]", "[city]");

        Pack none = f.pack(SCOPE, BIG, null, "火星探测器 Mars rover", S1);
        assertThat(none.recalledBy()).isEqualTo("query");
        assertThat(keys(parse(none.context()))).doesNotContain("recalled_memories");
        assertThat(none.empty()).contains("recalled_memories");
        assertThat(none.omitted()).doesNotContain("recalled_memories");
        assertThat(none.context()).doesNotContain("[coffee]", "[cat]", "[db]", "[city]");
    }

    @Test
    @DisplayName("R6 without a query and without a checkpoint or user turn, recalledBy is nothing and the recalled component is empty (no recent memories substituted)")
    void nothingToRecallBy() {
        memories();
        Pack empty = f.pack(SCOPE, BIG, null, null, S1);
        assertThat(empty.recalledBy()).isEqualTo("nothing");
        assertThat(empty.empty()).contains("recalled_memories");
        assertThat(empty.context()).doesNotContain("[coffee]", "[cat]", "[db]", "[city]");

        f.event(SCOPE, S1, Role.ASSISTANT, "有什么可以帮你？ How can I help? [e1]", f.minutesAgo(2));
        Pack onlyAssistant = f.pack(SCOPE, BIG, null, null, S1);
        assertThat(onlyAssistant.recalledBy()).isEqualTo("nothing");
        assertThat(keys(parse(onlyAssistant.context()))).doesNotContain("recalled_memories");
        assertThat(onlyAssistant.context()).contains("[e1]").doesNotContain("[coffee]", "[cat]", "[db]", "[city]");

        Pack blankQuery = f.pack(SCOPE, BIG, null, "   ", S1);
        assertThat(blankQuery.recalledBy()).as("a blank query is no query").isEqualTo("nothing");
    }

    @Test
    @DisplayName("R6 without a query the pack recalls by the latest user turn among the recent ones (recalledBy latest_user_turn), not by earlier turns")
    void byLatestUserTurn() {
        memories();
        f.event(SCOPE, S1, Role.USER, "推荐一种咖啡豆 recommend coffee beans [e1]", f.minutesAgo(30));
        f.event(SCOPE, S1, Role.ASSISTANT, "好的 sure [e2]", f.minutesAgo(29));
        f.event(SCOPE, S1, Role.USER, "我的猫不吃饭 my cat won't eat [e3]", f.minutesAgo(5));
        f.event(SCOPE, S1, Role.ASSISTANT, "别担心 don't worry [e4]", f.minutesAgo(4));
        Pack p = f.pack(SCOPE, BIG, null, null, S1);
        assertThat(p.recalledBy()).isEqualTo("latest_user_turn");
        assertThat(recalled(p)).contains("[cat]").doesNotContain("[coffee]", "[db]", "[city]");
    }

    @Test
    @DisplayName("K1 R6 without a query the pack recalls by the session's checkpoint (goal, pending steps, next action): recalledBy checkpoint, or checkpoint+latest_user_turn")
    void byCheckpoint() {
        memories();
        Event a = f.event(SCOPE, S1, Role.ASSISTANT, "开始吧 let's begin [e1]", f.minutesAgo(10));
        f.checkpoint(SCOPE, S1, "迁移生产数据库 migrate the production database", List.of("校验 verify"), "备份 backup",
                a.sequence());
        Pack p = f.pack(SCOPE, BIG, null, null, S1);
        assertThat(p.recalledBy()).isEqualTo("checkpoint");
        assertThat(recalled(p)).contains("[db]").doesNotContain("[coffee]", "[cat]", "[city]");

        f.event(SCOPE, S1, Role.USER, "顺便问一下杭州天气 also the weather in Hangzhou [e2]", f.minutesAgo(3));
        Pack both = f.pack(SCOPE, BIG, null, null, S1);
        assertThat(both.recalledBy()).isEqualTo("checkpoint+latest_user_turn");
        assertThat(recalled(both)).contains("[db]", "[city]").doesNotContain("[coffee]", "[cat]");

        // The checkpoint's pending step alone is enough to recall by.
        Event b = f.event(SCOPE, "s2", Role.ASSISTANT, "下一步 next [e3]", f.minutesAgo(2));
        f.checkpoint(SCOPE, "s2", "收尾 wrap up", List.of("喂猫 feed the cat"), null, b.sequence());
        Pack pending = f.pack(SCOPE, BIG, null, null, "s2");
        assertThat(pending.recalledBy()).isEqualTo("checkpoint");
        assertThat(recalled(pending)).contains("[cat]");
    }

    @Test
    @DisplayName("D1 a deleted event or memory never appears in a pack: not recalled, not in recent turns, not recalled by as the latest user turn")
    void deletedNeverPacked() {
        memories();
        Event secret = f.event(SCOPE, S1, Role.USER, "我的密码提示是蓝色海豚 my hint is blue dolphin [gone1]", f.minutesAgo(5));
        f.memory(SCOPE, secret, Kind.FACT, "密码提示 蓝色海豚 password hint blue dolphin [gone2]");
        Memory m = f.said(SCOPE, "old", Kind.AGREEMENT, "约定蓝色海豚暗号 agreed code word blue dolphin [gone3]", 100);
        f.event(SCOPE, S1, Role.ASSISTANT, "记住了 noted [e9]", f.minutesAgo(4));
        assertThat(f.pack(SCOPE, BIG, null, "海豚 dolphin", S1).context()).contains("[gone1]", "[gone2]", "[gone3]");

        f.authority.deleteEvent(SCOPE, secret.id());
        f.authority.deleteMemory(SCOPE, m.id());
        for (String query : new String[] {"海豚 dolphin", "蓝色", "password", null}) {
            for (String session : new String[] {S1, null}) {
                Pack p = f.pack(SCOPE, BIG, null, query, session);
                assertThat(p.context()).as("query %s session %s", query, session)
                        .doesNotContain("gone1", "gone2", "gone3", "海豚", "dolphin");
            }
        }
        Pack p = f.pack(SCOPE, BIG, null, null, S1);
        assertThat(p.recalledBy()).as("the deleted turn is no longer the latest user turn").isEqualTo("nothing");
    }

    @Test
    @DisplayName("C3 R8 after a correction the old text is nowhere in the pack: not in recent turns (the amended event), not recalled; the corrected memory is")
    void correctedTextNotPacked() {
        Event e = f.event(SCOPE, S1, Role.USER, "我住在北京朝阳区 I live in Chaoyang Beijing [old1]", f.minutesAgo(20));
        Memory wrong = f.memory(SCOPE, e, Kind.FACT, "住在北京朝阳区 lives in Chaoyang Beijing [old2]");
        f.event(SCOPE, S1, Role.ASSISTANT, "知道了 got it [e2]", f.minutesAgo(19));
        f.authority.correctMemory(SCOPE, wrong.id(), new CorrectionDraft("住在上海浦东 lives in Pudong Shanghai [new1]", null, null));
        for (String query : new String[] {"北京 Beijing", "朝阳 Chaoyang", "住在", null}) {
            for (String session : new String[] {S1, null}) {
                Pack p = f.pack(SCOPE, BIG, null, query, session);
                assertThat(p.context()).as("query %s session %s", query, session)
                        .doesNotContain("old1", "old2", "北京", "Beijing", "朝阳");
            }
        }
        Pack p = f.pack(SCOPE, BIG, null, "上海 Shanghai", S1);
        assertThat(recalled(p)).contains("[new1]");
        assertThat(text(components(p.context()).get("recent_events"))).contains("[e2]");
    }

    @Test
    @DisplayName("R8 an expired fact matching the query is not recalled into the pack")
    void expiredNotRecalled() {
        Event e = f.event(SCOPE, "old", Role.USER, "我在学钢琴 I am learning piano [exp]", f.ago(Duration.ofDays(60)));
        f.authority.addMemory(SCOPE, MemoryDraft.builder(e.id()).kind(Kind.FACT).basis(Basis.USER_STATEMENT)
                .text("在学钢琴 learning piano [exp]").quote(e.text()).invalidAt(f.ago(Duration.ofDays(10))).build());
        f.said(SCOPE, "old", Kind.FACT, "现在在学小提琴 now learning violin [cur]", 100);
        Pack p = f.pack(SCOPE, BIG, null, "钢琴 piano 学", S1);
        assertThat(p.context()).doesNotContain("[exp]");
    }

    @Test
    @DisplayName("P1 R5 the recall's warnings reach the pack's metadata: semantic mode without an embedding model recalls lexically and says so")
    void recallWarningsInMetadata() {
        memories();
        Pack p = f.contextPack.pack(new PackRequest(SCOPE, BIG, null, "咖啡", S1, RecallMode.SEMANTIC));
        assertThat(p.warnings()).isNotEmpty();
        assertThat(String.join(" ", p.warnings())).containsIgnoringCase("embedding");
        assertThat(recalled(p)).contains("[coffee]");
        assertThat(p.context()).as("warnings are metadata, not context").doesNotContain(p.warnings().get(0));
        assertThat(f.pack(SCOPE, BIG, null, "咖啡", S1).warnings()).as("fast mode: no warning").isEmpty();
    }

    @Test
    @DisplayName("F2 F3 an episode over two years old is recalled into the pack as its gist with a decade label, while an old agreement stays detailed")
    void oldEpisodesAsGist() {
        Event e = f.event(SCOPE, "old-9", Role.USER, "那年夏天我们在青岛看海，吃了很多海鲜 that summer in Qingdao by the sea",
                f.ago(Duration.ofDays(3 * 365)));
        f.authority.addMemory(SCOPE, MemoryDraft.builder(e.id()).kind(Kind.EPISODE).basis(Basis.USER_STATEMENT)
                .text("那年夏天在青岛看海吃海鲜的完整经历 the whole Qingdao seaside story [ep]").quote(e.text())
                .gist("青岛看海 Qingdao seaside [gist]").build());
        Event a = f.event(SCOPE, "old-8", Role.USER, "以后都叫我老王 call me Lao Wang from now on",
                f.ago(Duration.ofDays(3 * 365 + 10)));
        f.authority.addMemory(SCOPE, MemoryDraft.builder(a.id()).kind(Kind.AGREEMENT).basis(Basis.USER_STATEMENT)
                .text("约定称呼老王 agreed to call the user Lao Wang [agr]").quote(a.text()).build());
        Pack p = f.pack(SCOPE, BIG, null, "青岛 Qingdao", S1);
        String recalled = recalled(p);
        assertThat(recalled).contains("[gist]").doesNotContain("[ep]", "完整经历");
        String exactDay = e.occurredAt().toString().substring(0, 10);
        assertThat(recalled).as("coarsened to a decade").doesNotContain(exactDay).containsPattern("\\d{3}0s");
        assertThat(text(components(p.context()).get("agreements_and_growth"))).contains("[agr]", "约定称呼老王");
    }

    /**
     * A corrected memory's source is the correction event, stamped when the mistake was fixed; it
     * happened when the mistaken one did (its start, kept by C2). Found by this test: correcting a
     * 3-year-old episode made recall present it as brand new (full text instead of its gist or topic
     * cue, F2; today's time instead of its decade; fresh for ranking, F1).
     */
    @Test
    @DisplayName("F2 C2 a corrected 3-year-old episode is still presented as old in the pack (decade label, not the correction's date)")
    void correctedOldEpisodeStaysOld() {
        Event e = f.event(SCOPE, "old-9", Role.USER, "那年在青岛看海 by the sea in Qingdao that year", f.ago(Duration.ofDays(3 * 365)));
        Memory ep = f.memory(SCOPE, e, Kind.EPISODE, "在青岛看海 seaside in Qingdao [ep1]");
        String decade = (e.occurredAt().atZone(java.time.ZoneOffset.UTC).getYear() / 10 * 10) + "s";
        assertThat(recalled(f.pack(SCOPE, BIG, null, "青岛 Qingdao", S1))).contains("\"" + decade + "\"");

        f.authority.correctMemory(SCOPE, ep.id(), new CorrectionDraft("在青岛看日出 sunrise in Qingdao [ep2]", null, null));
        String after = recalled(f.pack(SCOPE, BIG, null, "青岛 Qingdao", S1));
        String today = java.time.Instant.now().toString().substring(0, 10);
        assertThat(after).as("the corrected episode happened 3 years ago (C2 keeps its start)")
                .doesNotContain(today).contains("\"" + decade + "\"");
    }

    @Test
    @DisplayName("S1 a pack holds only its own persona and project: another persona's or project's persona, memories, turns, checkpoint and emotion never appear")
    void scopeIsolation() {
        Scope bobWork = new Scope("bob", "work");
        Scope aliceHome = new Scope("alice", "home");
        f.authority.editPersona("alice", "Alice's assistant persona [pa]");
        f.authority.editPersona("bob", "Bob's assistant persona [pb]");
        for (Scope s : List.of(SCOPE, bobWork, aliceHome)) {
            String tag = s.personaId() + "-" + s.projectId();
            f.said(s, "old", Kind.AGREEMENT, "共同的约定 shared agreement coffee [" + tag + "-a]", 300);
            f.said(s, "old", Kind.FACT, "共同的咖啡 shared coffee fact [" + tag + "-m]", 200);
            f.expressed(s, "old", "共同的心情 shared mood [" + tag + "-em]", new Emotion("心情-" + tag, 0.5, 0.5), f.minutesAgo(50));
            Event u = f.event(s, S1, Role.USER, "共同的咖啡问题 shared coffee question [" + tag + "-e]", f.minutesAgo(10));
            f.checkpoint(s, S1, "共同的目标 shared goal coffee [" + tag + "-cp]", List.of(), null, u.sequence());
        }
        for (String query : new String[] {"咖啡 coffee shared", null}) {
            for (String session : new String[] {S1, null}) {
                Pack p = f.pack(SCOPE, BIG, null, query, session);
                assertThat(p.context()).contains("[pa]", "[alice-work-a]", "[alice-work-e]", "[alice-work-cp]", "心情-alice-work");
                if (query != null) {
                    assertThat(p.context()).contains("[alice-work-m]");
                }
                assertThat(p.context()).doesNotContain("[pb]", "bob-work", "alice-home");
            }
        }
        Pack bob = f.pack(bobWork, BIG, null, "咖啡 coffee shared", S1);
        assertThat(bob.context()).contains("[pb]", "[bob-work-m]").doesNotContain("[pa]", "alice-work", "alice-home");
    }
}
