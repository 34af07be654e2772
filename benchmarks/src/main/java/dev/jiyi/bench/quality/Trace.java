package dev.jiyi.bench.quality;

import dev.jiyi.authority.Scope;
import dev.jiyi.ranking.RecallResult;
import dev.jiyi.ranking.RecalledItem;
import dev.jiyi.ranking.Signal;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * What {@code bench recall --trace} prints beside the figures, so that a figure can be taken apart
 * question by question: each question whose top five lacks some of its gold events ({@code misses}),
 * with the rank of each gold event among the first {@link #DEPTH} source events and the top five
 * source events, each with its best result's score, evidence and signals; and each off-topic probe
 * that finds anything ({@code off-topic}), with its first answer. Ranks count distinct source events,
 * as the figures do. A gold event's rank is found by asking the question once more, for
 * {@link #DEPTH} results, after its timed recall; that recall also loads more candidates
 * ({@link dev.jiyi.ranking.RecallConfig#candidates}), so a gold event the timed recall never saw can
 * rank in its top five there, and is marked so. A traced run's latencies are not the figures to quote.
 *
 * @param misses   whether to print the questions that miss
 * @param offTopic whether to print the off-topic probes that are answered
 * @param out      where to print (standard error from the command line)
 */
public record Trace(boolean misses, boolean offTopic, PrintStream out) {

    /** Nothing printed. */
    public static final Trace NONE = new Trace(false, false, System.err);

    /** How deep a miss's gold events are looked for, in results. */
    static final int DEPTH = 100;

    /** The results of a question printed: the top five source events the figures score. */
    static final int SHOWN = 5;

    /** The most characters of a query (its end) or of a result (its start) printed. */
    static final int CHARACTERS = 80;

    public Trace {
        Objects.requireNonNull(out, "out");
    }

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
     * Prints a question whose top five ({@code ranked}: source event IDs as the scenario names them,
     * best first, each once) lacks some gold event: where each gold event ranks in {@code deeper}
     * (the same question asked for that many results), and the top five of {@code result}.
     */
    void printMiss(Scenario.Question q, List<String> ranked, RecallResult result, IntFunction<RecallResult> deeper,
                   Map<String, String> aliases) {
        if (!misses || q.gold().isEmpty() || Metrics.fraction(ranked, q.gold(), SHOWN) >= 1) {
            return;
        }
        List<String> deep = sources(deeper.apply(DEPTH), aliases);
        List<String> ranks = new ArrayList<>();
        for (String gold : q.gold()) {
            int at = deep.indexOf(gold);
            ranks.add(gold + (at < 0 ? " not in the first " + DEPTH
                    : " at " + (at + 1) + (at < SHOWN && !ranked.contains(gold) ? " (with more candidates)" : "")));
        }
        out.printf(Locale.ROOT, "miss %s | %s | %s%n", q.id(), tail(q.query()), String.join(", ", ranks));
        Set<String> shown = new HashSet<>();
        for (RecalledItem it : result.items()) {
            if (shown.size() == SHOWN) {
                break;
            }
            if (shown.add(source(it, aliases))) {
                out.printf(Locale.ROOT, "  %d %s%n", shown.size(), item(it, aliases));
            }
        }
    }

    /** Prints an off-topic probe of {@code scope} that {@code answered} found something for, with its first answer. */
    void printOffTopic(Scope scope, String probe, RecallResult answered, Map<String, String> aliases) {
        if (offTopic && !answered.items().isEmpty()) {
            out.printf(Locale.ROOT, "off-topic %s | %s | %s%n", scope.personaId(), oneLine(probe),
                    item(answered.items().getFirst(), aliases));
        }
    }

    /** Source event IDs as the scenario names them, best first, each once. */
    static List<String> sources(RecallResult result, Map<String, String> aliases) {
        return new ArrayList<>(new LinkedHashSet<>(result.items().stream().map(it -> source(it, aliases)).toList()));
    }

    private static String source(RecalledItem it, Map<String, String> aliases) {
        return aliases.getOrDefault(it.sourceEventId(), it.sourceEventId());
    }

    /** {@code source score type via evidence [signal=value ...] text}: each signal's value before its weight, those above 0. */
    private static String item(RecalledItem it, Map<String, String> aliases) {
        StringBuilder signals = new StringBuilder();
        for (Signal.Value v : it.signals()) {
            if (v.value() > 0) {
                signals.append(signals.isEmpty() ? "" : " ")
                        .append(String.format(Locale.ROOT, "%s=%.2f", v.name(), v.value()));
            }
        }
        return String.format(Locale.ROOT, "%s %.3f %s via %s [%s] %s", source(it, aliases), it.score(),
                it.type().code(), it.evidence().code(), signals, head(it.text()));
    }

    private static String tail(String text) {
        String line = oneLine(text);
        int cut = line.codePointCount(0, line.length()) - CHARACTERS;
        return cut > 0 ? "…" + line.substring(line.offsetByCodePoints(0, cut)) : line;
    }

    private static String head(String text) {
        String line = oneLine(text);
        int n = line.codePointCount(0, line.length());
        return n > CHARACTERS ? line.substring(0, line.offsetByCodePoints(0, CHARACTERS)) + "…" : line;
    }

    /** The text on one line: line breaks and tabs as spaces, without the spaces around it. */
    private static String oneLine(String text) {
        return text.replaceAll("[\\r\\n\\t]+", " ").strip();
    }
}
