package dev.jiyi.pack;

import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.jiyi.pack.PackFixture.ABOUT;
import static dev.jiyi.pack.PackFixture.components;
import static dev.jiyi.pack.PackFixture.independentCount;
import static dev.jiyi.pack.PackFixture.keys;
import static dev.jiyi.pack.PackFixture.parse;
import static dev.jiyi.pack.PackFixture.write;
import static org.assertj.core.api.Assertions.assertThat;

/** P3 (whole components, omitted ones named) and P4 (insufficient_budget) at chosen budgets. */
class ContextPackBudgetTest extends PackFixtureTest {

    static final Scope SCOPE = Scope.DEFAULT;

    /** The count of the reference context with only {@code keep} (and the framing), in the reference's order. */
    static int countWith(String model, Map<String, JsonNode> reference, List<String> keep) {
        Map<String, JsonNode> parts = new LinkedHashMap<>();
        reference.forEach((k, v) -> {
            if (k.equals(ABOUT) || keep.contains(k)) {
                parts.put(k, v);
            }
        });
        return independentCount(model, write(parts));
    }

    static void assertCounted(Pack p, String model) {
        assertThat(p.tokens()).as("tokens == independent count of the context").isEqualTo(independentCount(model, p.context()));
        assertThat(p.tokens()).as("never over budget").isLessThanOrEqualTo(p.budget());
    }

    /**
     * 20 long memories about 旅行 (travel), source turns days ago; a small agreement; a fresh
     * emotion; five short recent turns.
     */
    private void archiveWithBigRecall() {
        f.said(SCOPE, "old", Kind.AGREEMENT, "约定简短回答 keep answers short [a1]", 5000);
        for (int i = 1; i <= 20; i++) {
            String body = ("我去旅行的回忆第" + i + "段，山很高，水很清，路很长。").repeat(40);
            f.said(SCOPE, "old", Kind.EPISODE, body + " travel memory [m" + i + "]", 4000 - i);
        }
        f.expressed(SCOPE, "old", "我很好奇 curious [em1]", new Emotion("好奇 curious", 0.4, 0.5), f.minutesAgo(30));
        for (int i = 1; i <= 5; i++) {
            f.event(SCOPE, S1, i % 2 == 1 ? Role.USER : Role.ASSISTANT, "短句 short turn " + i + " [e" + i + "]",
                    f.minutesAgo(20 - i));
        }
    }

    @ParameterizedTest(name = "model {0}")
    @NullSource
    @ValueSource(strings = {"gpt-4", "gpt-4o"})
    @DisplayName("P3 a big recalled_memories that does not fit is omitted whole and named, while the later current_emotion and recent_events still go in")
    void bigComponentOmittedLaterSmallerOnesFit(String model) {
        archiveWithBigRecall();
        Pack full = f.pack(SCOPE, BIG, model, "旅行 travel", S1);
        assertThat(full.included()).containsEntry("recalled_memories", 20);
        Map<String, JsonNode> ref = components(full.context());
        int withoutRecall = countWith(model, ref, List.of("persona", "agreements_and_growth", "current_emotion", "recent_events"));
        int oneRecalledItem = independentCount(model, ref.get("recalled_memories").get(0).toString());
        assertThat(full.tokens() - withoutRecall).as("the recalled component is big").isGreaterThan(10 * oneRecalledItem / 2);

        // Room for everything but the recalled memories, and for several of them, but not for all 20.
        int budget = withoutRecall + 3 * oneRecalledItem;
        assertThat(budget).isLessThan(full.tokens());
        Pack p = f.pack(SCOPE, budget, model, "旅行 travel", S1);
        assertThat(p.status()).isEqualTo(Pack.OK);
        assertCounted(p, model);
        assertThat(p.omitted()).containsExactly("recalled_memories");
        assertThat(p.included().keySet()).containsExactly("persona", "agreements_and_growth", "current_emotion", "recent_events");
        assertThat(keys(parse(p.context()))).containsExactly(ABOUT, "persona", "agreements_and_growth", "current_emotion",
                "recent_events");
        assertThat(p.context()).as("not one recalled memory: never a partial list").doesNotContain("travel memory", "旅行的回忆");
        Map<String, JsonNode> got = components(p.context());
        for (String k : List.of("persona", "agreements_and_growth", "current_emotion", "recent_events")) {
            assertThat(got.get(k)).as("component %s whole", k).isEqualTo(ref.get(k));
        }
    }

    @Test
    @DisplayName("P3 a huge checkpoint is omitted and named while the later agreements, recalled memories and recent events fit")
    void hugeCheckpointOmitted() {
        Event e = f.event(SCOPE, S1, Role.USER, "开始大任务 start the big task [e1]", f.minutesAgo(10));
        List<String> pending = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            pending.add("待办事项第" + i + "项：" + "检查每一个表格和索引。".repeat(30));
        }
        f.checkpoint(SCOPE, S1, "大任务 big task [cp1] " + "目标说明。".repeat(500), pending, "下一步", e.sequence());
        f.said(SCOPE, "old", Kind.AGREEMENT, "约定 agreement [a1]", 500);
        f.said(SCOPE, "old", Kind.FACT, "我养了一只猫 I have a cat [m1]", 400);
        Pack full = f.pack(SCOPE, BIG, null, "猫 cat", S1);
        assertThat(full.included()).containsKey("checkpoint");
        int budget = countWith(null, components(full.context()), List.of("persona", "agreements_and_growth",
                "recalled_memories", "recent_events")) + 10;
        Pack p = f.pack(SCOPE, budget, null, "猫 cat", S1);
        assertCounted(p, null);
        assertThat(p.omitted()).containsExactly("checkpoint");
        assertThat(p.included().keySet()).containsExactly("persona", "agreements_and_growth", "recalled_memories", "recent_events");
        assertThat(p.context()).doesNotContain("[cp1]", "待办事项").contains("[a1]", "[m1]", "[e1]");
    }

    @Test
    @DisplayName("P3 P4 at exactly the size of persona + framing the status is ok, only the persona is in, and every other component with content is named omitted, in order")
    void exactlyPersonaAndFraming() {
        archiveWithBigRecall();
        Event u = f.event(SCOPE, S1, Role.USER, "继续 go on [e9]", f.minutesAgo(1));
        f.checkpoint(SCOPE, S1, "目标 goal [cp1]", List.of(), null, u.sequence());
        for (String model : new String[] {null, "gpt-4"}) {
            Pack full = f.pack(SCOPE, BIG, model, "旅行 travel", S1);
            int minimal = countWith(model, components(full.context()), List.of("persona"));
            Pack p = f.pack(SCOPE, minimal, model, "旅行 travel", S1);
            assertThat(p.status()).isEqualTo(Pack.OK);
            assertCounted(p, model);
            assertThat(p.tokens()).isEqualTo(minimal);
            assertThat(keys(parse(p.context()))).containsExactly(ABOUT, "persona");
            assertThat(p.included().keySet()).containsExactly("persona");
            assertThat(p.omitted()).containsExactly("checkpoint", "agreements_and_growth", "recalled_memories",
                    "current_emotion", "recent_events");

            Pack under = f.pack(SCOPE, minimal - 1, model, "旅行 travel", S1);
            assertThat(under.status()).isEqualTo(Pack.INSUFFICIENT_BUDGET);
            assertThat(under.context()).isEmpty();
            assertThat(under.tokens()).isZero();
        }
    }

    @ParameterizedTest(name = "budget {0}")
    @ValueSource(ints = {1, 2, 10, 100})
    @DisplayName("P4 a budget too small for persona + framing gives insufficient_budget, an empty context and 0 tokens")
    void tinyBudget(int budget) {
        archiveWithBigRecall();
        for (String model : new String[] {null, "gpt-4", "gpt-4o", "claude-x"}) {
            Pack p = f.pack(SCOPE, budget, model, "旅行", S1);
            assertThat(p.status()).isEqualTo(Pack.INSUFFICIENT_BUDGET);
            assertThat(p.context()).isEmpty();
            assertThat(p.tokens()).isZero();
            assertThat(p.included()).isEmpty();
            assertThat(p.omitted()).contains("persona");
            assertThat(p.budget()).isEqualTo(budget);
        }
    }

    @Test
    @DisplayName("P4 a long persona (edited through the authority) that does not fit gives insufficient_budget, even with nothing else to pack")
    void longPersona() {
        String persona = "你是一位耐心、细致、温和的助手，说话简洁。You are patient and careful. ".repeat(600);
        f.authority.editPersona(SCOPE.personaId(), persona);
        for (String model : new String[] {null, "gpt-4", "deepseek-chat"}) {
            Pack p = f.pack(SCOPE, 4000, model, null, null);
            assertThat(p.status()).isEqualTo(Pack.INSUFFICIENT_BUDGET);
            assertThat(p.context()).isEmpty();
            assertThat(p.tokens()).isZero();
        }
        Pack big = f.pack(SCOPE, BIG, null, null, null);
        assertThat(big.status()).isEqualTo(Pack.OK);
        assertThat(parse(big.context()).get("persona").toString()).contains("You are patient and careful.");
        // Another persona's long text does not affect this one.
        Scope other = new Scope("other", "default");
        Pack otherPack = f.pack(other, 4000, null, null, null);
        assertThat(otherPack.status()).isEqualTo(Pack.OK);
        assertThat(otherPack.context()).doesNotContain("You are patient and careful.");
    }

    @Test
    @DisplayName("P3 a component that fits after a bigger one was omitted is still added, and the total stays within the budget (bytes, Chinese)")
    void laterComponentsStillTried() {
        // Agreements are big, recalled memories small: agreements omitted, recalled and later ones in.
        for (int i = 1; i <= 20; i++) {
            f.said(SCOPE, "old", Kind.AGREEMENT, "长约定第" + i + "条：" + "每次回答都要先确认需求再动手。".repeat(40) + " [a" + i + "]",
                    9000 - i);
        }
        f.said(SCOPE, "old", Kind.FACT, "我住在杭州 I live in Hangzhou [m1]", 100);
        f.expressed(SCOPE, "old", "放松 relaxed [em1]", new Emotion("放松 relaxed", 0.3, 0.2), f.ago(Duration.ofMinutes(5)));
        f.event(SCOPE, S1, Role.USER, "杭州天气 weather in Hangzhou [e1]", f.minutesAgo(2));
        Pack full = f.pack(SCOPE, BIG, null, "杭州", S1);
        Map<String, JsonNode> ref = components(full.context());
        int budget = countWith(null, ref, List.of("persona", "recalled_memories", "current_emotion", "recent_events"));
        Pack p = f.pack(SCOPE, budget, null, "杭州", S1);
        assertCounted(p, null);
        assertThat(p.tokens()).isEqualTo(budget);
        assertThat(p.omitted()).containsExactly("agreements_and_growth");
        assertThat(p.included().keySet()).containsExactly("persona", "recalled_memories", "current_emotion", "recent_events");
        assertThat(p.context()).doesNotContain("长约定");
    }
}
