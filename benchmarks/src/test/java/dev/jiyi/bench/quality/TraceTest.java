package dev.jiyi.bench.quality;

import dev.jiyi.authority.Category;
import dev.jiyi.authority.Scope;
import dev.jiyi.ranking.Evidence;
import dev.jiyi.ranking.Presentation;
import dev.jiyi.ranking.RecallResult;
import dev.jiyi.ranking.RecalledItem;
import dev.jiyi.ranking.Signal;
import dev.jiyi.ranking.Status;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code bench recall --trace} on hand-made results: what a miss and an answered probe print, and when. */
class TraceTest {

    static final Scope SCOPE = new Scope("p", "q");
    static final Map<String, String> ALIASES = Map.of("loaded-1", "gold-1");

    final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    final Trace trace = Trace.parse("misses,off-topic", new PrintStream(buffer, true, StandardCharsets.UTF_8));

    @Test
    @DisplayName("B2 a miss prints each gold event's rank among distinct source events, found deeper, and the top "
            + "five source events with their signals; the query's last 80 characters on one line")
    void miss() {
        // 82 code points on one line (a surrogate pair among them), ending in a line break as a dialogue's text does.
        String query = "我想问一下\n" + "很久以前的事情".repeat(10) + "😀还记得吗？\n";
        Scenario.Question q = new Scenario.Question("q-1", SCOPE, query, new LinkedHashSet<>(List.of("gold-1", "gold-2")), "all");
        // The timed recall: x1 twice, then gold-1 (loaded under another ID), so gold-1 is third of the distinct sources.
        RecallResult timed = result("x1", "x1", "x2", "loaded-1", "x3", "x4", "x5");
        List<Integer> asked = new ArrayList<>();
        IntFunction<RecallResult> deeper = depth -> {
            asked.add(depth);
            return result("x1", "x2", "loaded-1", "x3", "x4", "x5", "gold-2");
        };
        trace.printMiss(q, Trace.sources(timed, ALIASES), timed, deeper, ALIASES);
        assertThat(asked).containsExactly(Trace.DEPTH);
        List<String> lines = lines();
        String line = "我想问一下 " + "很久以前的事情".repeat(10) + "😀还记得吗？"; // 82 code points
        String tail = line.substring(line.offsetByCodePoints(0, 2));
        assertThat(lines).containsExactly(
                "miss q-1 | …" + tail + " | gold-1 at 3, gold-2 at 7",
                "  1 x1 0.900 raw_event via raw_event [lexical=0.50 freshness=0.25] text of x1",
                "  2 x2 0.900 raw_event via raw_event [lexical=0.50 freshness=0.25] text of x2",
                "  3 gold-1 0.900 raw_event via raw_event [lexical=0.50 freshness=0.25] text of loaded-1",
                "  4 x3 0.900 raw_event via raw_event [lexical=0.50 freshness=0.25] text of x3",
                "  5 x4 0.900 raw_event via raw_event [lexical=0.50 freshness=0.25] text of x4");
    }

    @Test
    @DisplayName("B2 a question whose gold is all in the top five, or that has none, prints nothing and asks nothing more")
    void noMiss() {
        RecallResult timed = result("x1", "loaded-1", "x2");
        IntFunction<RecallResult> deeper = depth -> {
            throw new AssertionError("asked again");
        };
        trace.printMiss(new Scenario.Question("q-2", SCOPE, "q", Set.of("gold-1"), "all"),
                Trace.sources(timed, ALIASES), timed, deeper, ALIASES);
        trace.printMiss(new Scenario.Question("q-3", SCOPE, "q", Set.of(), "all"), Trace.sources(timed, ALIASES), timed,
                deeper, ALIASES);
        new Trace(false, false, trace.out()).printMiss(new Scenario.Question("q-4", SCOPE, "q", Set.of("nowhere"), "all"),
                Trace.sources(timed, ALIASES), timed, deeper, ALIASES);
        assertThat(lines()).isEmpty();
    }

    @Test
    @DisplayName("B2 a gold event the timed recall never loaded, ranked in the top five by the deeper recall, is "
            + "marked as found with more candidates; one found nowhere says so")
    void deeperWindow() {
        RecallResult timed = result("x1", "x2");
        trace.printMiss(new Scenario.Question("q-5", SCOPE, "where", new LinkedHashSet<>(List.of("gold-2", "gold-3")),
                "all"), Trace.sources(timed, ALIASES), timed, depth -> result("x1", "gold-2"), ALIASES);
        assertThat(lines()).containsExactly(
                "miss q-5 | where | gold-2 at 2 (with more candidates), gold-3 not in the first 100",
                "  1 x1 0.900 raw_event via raw_event [lexical=0.50 freshness=0.25] text of x1",
                "  2 x2 0.900 raw_event via raw_event [lexical=0.50 freshness=0.25] text of x2");
    }

    @Test
    @DisplayName("B2 R6 an off-topic probe answered prints its first answer; one answered by nothing, or a trace "
            + "without off-topic, prints nothing")
    void offTopic() {
        trace.printOffTopic(SCOPE, "请解释一下光合作用的过程。", result("loaded-1", "x1"), ALIASES);
        trace.printOffTopic(SCOPE, "How does a Kalman filter work?", result(), ALIASES);
        Trace.parse("misses", trace.out()).printOffTopic(SCOPE, "量子", result("x1"), ALIASES);
        assertThat(lines()).containsExactly(
                "off-topic p | 请解释一下光合作用的过程。 | gold-1 0.900 raw_event via raw_event [lexical=0.50 freshness=0.25] "
                        + "text of loaded-1");
    }

    @Test
    @DisplayName("B2 --trace takes misses, off-topic or both; anything else is an error naming the option")
    void parse() {
        assertThat(Trace.parse("misses", System.err)).extracting(Trace::misses, Trace::offTopic).containsExactly(true, false);
        assertThat(Trace.parse(" off-topic ", System.err)).extracting(Trace::misses, Trace::offTopic)
                .containsExactly(false, true);
        assertThatThrownBy(() -> Trace.parse("misses,all", System.err))
                .hasMessage("--trace: each must be misses or off-topic");
        assertThatThrownBy(() -> new Trace(true, true, null)).isInstanceOf(NullPointerException.class);
    }

    private List<String> lines() {
        return buffer.toString(StandardCharsets.UTF_8).lines().toList();
    }

    /** Raw events of these source IDs, best first, each with a lexical and a freshness signal (and a zero one). */
    private static RecallResult result(String... sources) {
        List<RecalledItem> items = new ArrayList<>();
        for (String source : sources) {
            items.add(new RecalledItem(RecalledItem.Type.RAW_EVENT, null, source, 0.9, "text of " + source,
                    Presentation.RAW_EVENT, null, null, Category.CONVERSATION, 0.0, "2024-05-01", Instant.EPOCH, null,
                    Status.CURRENT, false, Evidence.RAW_EVENT, List.of(new Signal.Value(Signal.LEXICAL, 0.5, 1.0),
                    new Signal.Value(Signal.CONTEXT, 0.0, 1.0), new Signal.Value(Signal.FRESHNESS, 0.25, 0.1))));
        }
        return new RecallResult(items, List.of());
    }
}
