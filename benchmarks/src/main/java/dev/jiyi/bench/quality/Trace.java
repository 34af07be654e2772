package dev.jiyi.bench.quality;

import dev.jiyi.authority.Scope;
import dev.jiyi.ranking.RecallResult;
import dev.jiyi.ranking.RecalledItem;
import dev.jiyi.ranking.Signal;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * What {@code bench recall --trace} prints beside the figures, so that a figure can be taken apart
 * question by question: each question whose top five lacks some of its gold events ({@code misses}),
 * with the rank of each gold event among the first {@link #DEPTH} and the top five with the signals
 * of their scores; and each off-topic probe that finds anything ({@code off-topic}), with its first
 * answer. Finding a gold event's rank asks the question once more, for {@link #DEPTH} results, after
 * its timed recall: a traced run's latencies are not the figures to quote.
 *
 * @param misses   whether to print the questions that miss
 * @param offTopic whether to print the off-topic probes that are answered
 * @param out      where to print (standard error from the command line)
 */
public record Trace(boolean misses, boolean offTopic, PrintStream out) {

    /** Nothing printed. */
    public static final Trace NONE = new Trace(false, false, System.err);

    /** How deep a miss's gold events are looked for. */
    static final int DEPTH = 100;

    /** The most characters of a query (its end) or of a result (its start) printed. */
    static final int CHARACTERS = 80;

    /** {@code --trace}'s value: {@code misses}, {@code off-topic} or both, comma-separated. */
    static Trace parse(String value, PrintStream out) {
        boolean misses = false;
        boolean offTopic = false;
        for (String part : value.split(",")) {
            switch (part.strip()) {
                case "misses" -> misses = true;
                case "off-topic" -> offTopic = true;
                default -> throw new IllegalArgumentException("--trace: each must be misses or off-topic");
            }
        }
        return new Trace(misses, offTopic, out);
    }

    /**
     * A question whose top five ({@code ranked}: source event IDs as the scenario names them, best
     * first) lacks some gold event: the gold events' ranks in {@code deeper} (the same question asked
     * for that many results) and the top five of {@code result}.
     */
    void miss(Scenario.Question q, List<String> ranked, RecallResult result, IntFunction<RecallResult> deeper,
              Map<String, String> aliases) {
        if (!misses || q.gold().isEmpty() || Metrics.fraction(ranked, q.gold(), 5) >= 1) {
            return;
        }
        List<String> deep = sources(deeper.apply(DEPTH), aliases);
        List<String> ranks = new ArrayList<>();
        for (String gold : q.gold()) {
            int at = deep.indexOf(gold);
            ranks.add(gold + (at < 0 ? " not in the first " + DEPTH : " at " + (at + 1)));
        }
        out.printf(Locale.ROOT, "miss %s | %s | %s%n", q.id(), tail(q.query()), String.join(", ", ranks));
        List<RecalledItem> items = result.items();
        for (int i = 0; i < Math.min(5, items.size()); i++) {
            out.printf(Locale.ROOT, "  %d %s%n", i + 1, item(items.get(i), aliases));
        }
    }

    /** An off-topic probe of {@code scope} that {@code answered} found something for: its first answer. */
    void offTopic(Scope scope, String probe, RecallResult answered, Map<String, String> aliases) {
        if (offTopic && !answered.items().isEmpty()) {
            out.printf(Locale.ROOT, "off-topic %s | %s | %s%n", scope.personaId(), probe,
                    item(answered.items().getFirst(), aliases));
        }
    }

    /** Source event IDs as the scenario names them, best first, each once. */
    static List<String> sources(RecallResult result, Map<String, String> aliases) {
        return new ArrayList<>(new LinkedHashSet<>(result.items().stream()
                .map(it -> aliases.getOrDefault(it.sourceEventId(), it.sourceEventId())).toList()));
    }

    private static String item(RecalledItem it, Map<String, String> aliases) {
        StringBuilder signals = new StringBuilder();
        for (Signal.Value v : it.signals()) {
            if (v.value() > 0) {
                signals.append(signals.isEmpty() ? "" : " ")
                        .append(String.format(Locale.ROOT, "%s=%.2f", v.name(), v.value()));
            }
        }
        return String.format(Locale.ROOT, "%s %.3f %s via %s [%s] %s",
                aliases.getOrDefault(it.sourceEventId(), it.sourceEventId()), it.score(), it.type().code(),
                it.evidence().code(), signals, head(it.text()).replace('\n', ' '));
    }

    private static String tail(String text) {
        int cut = text.codePointCount(0, text.length()) - CHARACTERS;
        return (cut > 0 ? "…" + text.substring(text.offsetByCodePoints(0, cut)) : text).replace('\n', ' ');
    }

    private static String head(String text) {
        int n = text.codePointCount(0, text.length());
        return n > CHARACTERS ? text.substring(0, text.offsetByCodePoints(0, CHARACTERS)) + "…" : text;
    }
}
