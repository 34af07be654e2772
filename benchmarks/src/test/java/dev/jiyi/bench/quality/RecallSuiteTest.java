package dev.jiyi.bench.quality;

import dev.jiyi.authority.Event;
import dev.jiyi.bench.ChatCorpus;
import dev.jiyi.engine.Home;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Progress;
import dev.jiyi.ranking.RecallConfig;
import dev.jiyi.ranking.RecallMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The recall benchmark suite ({@code ./jiyi bench recall}) on jiyi's own scenario, which needs no
 * dataset: grown archives, both indexes, the leak rate of deleted, corrected and expired text,
 * the report files, and {@code --check} against expected figures, including a doctored file.
 */
class RecallSuiteTest {

    static final PrintStream QUIET = new PrintStream(java.io.OutputStream.nullOutputStream());

    /** The own scenario alone and grown to 1,000 memories, on FTS5 and Lucene: shared by the tests. */
    static List<RecallQuality.Row> rows;

    @BeforeAll
    static void run() throws Exception {
        rows = RecallQuality.run(new RecallQuality.Plan(null, List.of("jiyi"), List.of(0, 1_000), List.of("fts5", "lucene"),
                List.of(RecallMode.FAST), List.of(Double.NaN), RecallConfig.DEFAULT, ChatCorpus.DEFAULT_SEED, null, false,
                true, Growth.Corpus.ZIPF), QUIET);
    }

    @Test
    @DisplayName("B2 one row per size and index, the same questions on both; R9 T4 C1 D1 nothing deleted, corrected or expired leaks at any size")
    void rowsAndLeaks() {
        assertThat(rows).extracting(r -> r.size() + " " + r.index())
                .containsExactly("base fts5", "base lucene", "1000 fts5", "1000 lucene");
        assertThat(rows).extracting(RecallQuality.Row::memories).containsExactly(22, 22, 1_000, 1_000);
        for (RecallQuality.Row r : rows) {
            assertThat(r.questions()).as(r.key() + " questions with gold").isEqualTo(25);
            assertThat(r.leakQuestions()).as(r.key() + " questions with forbidden texts").isEqualTo(11);
            assertThat(r.leaks()).as(r.key() + " leaks").isZero();
            // C1: the corrected memory quotes an event of its own; it still counts as the original's evidence.
            assertThat(r.byCategory().get("correction")[1]).as(r.key() + " correction R@5").isEqualTo(1.0);
            assertThat(r.p50Millis()).isPositive().isLessThanOrEqualTo(r.p95Millis());
            assertThat(r.p95Millis()).isLessThanOrEqualTo(r.p99Millis());
            assertThat(r.ndcg10()).isBetween(0.0, 1.0);
        }
        assertThat(rows.getFirst().baseRecall5()).as("the trigram baseline on the scenario alone").isBetween(0.0, 1.0);
        assertThat(rows.get(2).baseRecall5()).as("no baseline on a grown archive").isNaN();
        // The same scenario and analysis: FTS5 and Lucene find the same evidence on the scenario alone.
        assertThat(rows.get(1).recall5()).isCloseTo(rows.get(0).recall5(), within(1e-9));
    }

    @Test
    @DisplayName("D1 the leak rate can fail: without the deletions and the correction, their texts come back")
    void leaksAreMeasured() throws Exception {
        Scenario own = OwnScenario.build();
        Scenario unchanged = new Scenario(own.name(), own.events(), own.memories(), own.questions(), own.now(), 0, List.of());
        RecallQuality.Plan plan = new RecallQuality.Plan(null, List.of("jiyi"), List.of(0), List.of("fts5"),
                List.of(RecallMode.FAST), List.of(Double.NaN), RecallConfig.DEFAULT, 1, null, false, true, Growth.Corpus.ZIPF);
        List<RecallQuality.Row> r = RecallQuality.evaluate(unchanged, 0, plan, null, QUIET);
        assertThat(r.getFirst().leaks()).isGreaterThan(0.3);
    }

    @Test
    @DisplayName("B2 distractors are seeded: the same seed and corpus grow the same archive, another seed or "
            + "corpus another; the realistic corpus's words are not a fixed set")
    void growthIsSeeded(@TempDir Path dir) {
        Scenario own = OwnScenario.build();
        for (Growth.Corpus corpus : Growth.Corpus.values()) {
            List<String> a = grown(dir.resolve(corpus + "a"), own, 7, corpus);
            List<String> b = grown(dir.resolve(corpus + "b"), own, 7, corpus);
            List<String> c = grown(dir.resolve(corpus + "c"), own, 8, corpus);
            assertThat(a).hasSize(120 + own.events().size() - 2).isEqualTo(b).isNotEqualTo(c);
            // Distractors happen within the scenario's time and go to the scope its questions search.
            assertThat(a).allMatch(line -> line.startsWith("jiyi-own "));
        }
        List<String> zipf = grown(dir.resolve("z"), own, 7, Growth.Corpus.ZIPF);
        List<String> chat = grown(dir.resolve("x"), own, 7, Growth.Corpus.CHAT);
        assertThat(distinctWords(zipf)).isGreaterThan(2 * distinctWords(chat));
    }

    private static long distinctWords(List<String> lines) {
        return lines.stream().flatMap(l -> java.util.Arrays.stream(l.split("[\\s，。,.!?！？]+"))).distinct().count();
    }

    private static List<String> grown(Path home, Scenario s, long seed, Growth.Corpus corpus) {
        try (Jiyi jiyi = Jiyi.open(new Home(home)); Progress p = Progress.onStderr("grow", 0, true)) {
            Archives.load(jiyi.authority(), s, p, new java.util.HashMap<>());
            Growth.grow(jiyi.authority(), s, 120, seed, corpus, p);
            List<Event> events = jiyi.authority().events(OwnScenario.SCOPE, 0, 1_000);
            java.time.Instant first = s.events().stream().map(Scenario.EventSpec::occurredAt).min(java.time.Instant::compareTo)
                    .orElseThrow();
            assertThat(events).filteredOn(e -> e.id().startsWith("grow-")).hasSize(120)
                    .allMatch(e -> !e.occurredAt().isBefore(first) && e.occurredAt().isBefore(s.now()));
            // (The correction's own event is made at the wall-clock time of the correction: left out.)
            return events.stream().filter(e -> !e.id().startsWith("corr_"))
                    .map(e -> e.scope().personaId() + " " + e.occurredAt() + " " + e.text()).toList();
        }
    }

    @Test
    @DisplayName("B2 --check passes on the run's own figures and fails, exit 1, on a doctored file that expects more")
    void checkAgainstExpectedFigures(@TempDir Path dir) throws Exception {
        Path expected = dir.resolve("expected.properties");
        Expected.write(rows, expected);
        Expected.Outcome same = Expected.read(expected).check(rows);
        assertThat(same.regressed()).isFalse();
        assertThat(same.verdicts()).hasSize(rows.size() * 6).allMatch(v -> v.status() == Expected.Status.OK);

        String text = Files.readString(expected, StandardCharsets.UTF_8);
        String key = "jiyi.fts5.fast.1000.recall5=";
        int at = text.indexOf(key) + key.length();
        double real = Double.parseDouble(text.substring(at, text.indexOf('\n', at)));
        Path doctored = dir.resolve("doctored.properties");
        Files.writeString(doctored, text.replace(key + String.format(java.util.Locale.ROOT, "%.3f", real),
                key + String.format(java.util.Locale.ROOT, "%.3f", real + 0.01)), StandardCharsets.UTF_8);
        Expected.Outcome worse = Expected.read(doctored).check(rows);
        assertThat(worse.regressed()).isTrue();
        assertThat(worse.verdicts()).filteredOn(v -> v.status() == Expected.Status.WORSE)
                .extracting(Expected.Verdict::key).containsExactly("jiyi.fts5.fast.1000.recall5");
        assertThat(worse.table()).contains("| FAIL | jiyi.fts5.fast.1000.recall5 |");

        // A figure worse than expected on the other side: an off-topic rate the file expects lower. The
        // highest rate of the run (the grown archive answers some probes from distractors that hold
        // their words); were every rate 0, no file could expect one lower.
        String offLine = text.lines().filter(l -> l.contains(".offtopic="))
                .max(java.util.Comparator.comparingDouble(l -> Double.parseDouble(l.substring(l.indexOf('=') + 1))))
                .orElseThrow();
        double offReal = Double.parseDouble(offLine.substring(offLine.indexOf('=') + 1));
        assertThat(offReal).as(offLine).isGreaterThanOrEqualTo(0.01);
        Path lower = dir.resolve("lower.properties");
        Files.writeString(lower, text.replace(offLine, offLine.substring(0, offLine.indexOf('=') + 1)
                + String.format(java.util.Locale.ROOT, "%.3f", offReal - 0.01)), StandardCharsets.UTF_8);
        assertThat(Expected.read(lower).check(rows).regressed()).isTrue();

        // Through the command line, as `./jiyi bench recall --check FILE` runs it.
        Path out = dir.resolve("report");
        String[] args = {"--datasets", "jiyi", "--index", "fts5", "--sizes", "base", "--archives", "none", "--out",
                out.toString(), "--quiet", "--check"};
        Path baseOnly = dir.resolve("base.properties");
        Files.writeString(baseOnly, text.lines().filter(l -> l.startsWith("jiyi.fts5.fast.base.") || l.startsWith("tolerance"))
                .reduce("", (x, y) -> x + y + "\n"), StandardCharsets.UTF_8);
        assertThat(cli(concat(args, baseOnly.toString()))).isZero();
        Path base5 = dir.resolve("base5.properties");
        String r5 = "jiyi.fts5.fast.base.recall5=";
        String line = Files.readString(baseOnly).lines().filter(l -> l.startsWith(r5)).findFirst().orElseThrow();
        Files.writeString(base5, Files.readString(baseOnly).replace(line, r5 + "0.999"), StandardCharsets.UTF_8);
        assertThat(cli(concat(args, base5.toString()))).isEqualTo(1);
        assertThat(out.resolve("recall.md")).content(StandardCharsets.UTF_8)
                .contains("| jiyi | base | 22 | fts5 | fast | 25 |");
        assertThat(out.resolve("recall.json")).content(StandardCharsets.UTF_8).contains("\"recall5\"");
    }

    @Test
    @DisplayName("B2 a run over several sizes writes readable charts: recall and latency against size")
    void charts(@TempDir Path dir) throws Exception {
        new Report(new RecallQuality.Plan(null, List.of("jiyi"), List.of(0, 1_000), List.of("fts5", "lucene"),
                List.of(RecallMode.FAST), List.of(Double.NaN), RecallConfig.DEFAULT, 1, null, false, true,
                Growth.Corpus.ZIPF), rows, "1 1 1",
                "1 1 1").write(dir, QUIET);
        for (String png : List.of("recall-jiyi.png", "latency-jiyi.png")) {
            java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(dir.resolve(png).toFile());
            assertThat(image.getWidth()).as(png).isGreaterThan(400);
        }
    }

    @Test
    @DisplayName("B2 --trace prints each question that misses, with its gold events' ranks and the top five's "
            + "signals, and each off-topic probe answered, with its first answer")
    void trace() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
        Trace trace = Trace.parse("misses, off-topic", out);
        List<RecallQuality.Row> traced = RecallQuality.run(new RecallQuality.Plan(null, List.of("jiyi"), List.of(0, 1_000),
                List.of("fts5"), List.of(RecallMode.FAST), List.of(Double.NaN), RecallConfig.DEFAULT,
                ChatCorpus.DEFAULT_SEED, null, false, true, Growth.Corpus.ZIPF, trace), QUIET);
        // Tracing asks a missed question once more, deeper; the figures are those of the untraced run.
        assertThat(traced).extracting(RecallQuality.Row::recall5)
                .containsExactly(rows.get(0).recall5(), rows.get(2).recall5());
        List<String> lines = buffer.toString(StandardCharsets.UTF_8).lines().toList();
        // The scenario alone misses three of its 25 questions (R@5 0.880, one gold event each), first
        // in the output; fast mode is deterministic, so what it prints is too.
        assertThat(traced.getFirst().recall5()).isCloseTo(0.88, within(1e-9));
        assertThat(lines.subList(0, 5)).containsExactly(
                "miss jiyi-2 | 用户现在住在哪个城市？ | own-home-3 not in the first 100",
                "miss jiyi-4 | what company is my employer | own-job-2 not in the first 100",
                "miss jiyi-21 | 去年去哪里徒步了 | own-hike-1 not in the first 100",
                "  1 own-hike-2 1.096 memory via memory [lexical=0.93 basis=1.00 confidence=1.00 freshness=0.68] 用户周末和同事去梧桐山徒步",
                "  2 own-chat-4 0.398 raw_event via raw_event [context=0.06 freshness=0.42 time=1.00] 周末把书架整理了一下，扔掉了很多旧杂志。");
        // Grown to 1,000: each miss has a gold event beyond the top five, or none found.
        for (String miss : lines.subList(5, lines.size())) {
            if (miss.startsWith("miss ")) {
                assertThat(miss).as(miss).containsPattern(" at ([6-9]|\\d\\d+)(,|$)| not in the first 100");
            }
        }
        // Every probe answered is printed once, and only those.
        long probes = (long) Calibration.OFF_TOPIC.size() * Growth.scopes(OwnScenario.build()).size();
        long answered = lines.stream().filter(l -> l.startsWith("off-topic ")).count();
        assertThat(answered).isEqualTo(Math.round(traced.stream().mapToDouble(r -> r.offTopicAny() * probes).sum()));
        assertThat(lines.stream().filter(l -> l.startsWith("off-topic ")).findFirst())
                .hasValueSatisfying(l -> assertThat(l).matches("off-topic \\S+ \\| .+ \\| \\S+ \\d+\\.\\d{3} .*"));
    }

    @Test
    @DisplayName("B2 bad arguments: a clear error naming the option, exit 2, nothing run")
    void badArguments(@TempDir Path dir) throws Exception {
        assertThat(RecallQuality.sizes("base,1k,10k,100k,1m")).containsExactly(0, 1_000, 10_000, 100_000, 1_000_000);
        assertThatThrownBy(() -> RecallQuality.sizes("10q")).hasMessageStartingWith("--sizes:");
        assertThatThrownBy(() -> RecallQuality.sizes("-5")).hasMessageStartingWith("--sizes:");
        for (String[] args : List.of(new String[] {"--datasets", "nope"}, new String[] {"--index", "elastic"},
                new String[] {"--sizes", "1x"}, new String[] {"--frobnicate"}, new String[] {"--sizes"},
                new String[] {"--growth", "wiki"}, new String[] {"--trace", "everything"})) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = RecallQuality.run(concat(args, "--out", dir.resolve("x").toString()), QUIET,
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(code).as(String.join(" ", args)).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("bench recall: ");
            assertThat(dir.resolve("x")).doesNotExist();
        }
    }

    private static int cli(String[] args) throws Exception {
        return RecallQuality.run(args, QUIET, QUIET);
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
