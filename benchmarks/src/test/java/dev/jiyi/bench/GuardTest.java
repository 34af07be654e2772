package dev.jiyi.bench;

import dev.jiyi.bench.GuardBounds.Bound;
import dev.jiyi.bench.GuardBounds.Key;
import dev.jiyi.bench.GuardBounds.Verdict;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GuardTest {

    @Test
    @DisplayName("B1 the built-in bounds parse: p99 at 1M for every query kind on the realistic archive, growth from 10k to 1M, FTS5's times, Lucene against FTS5, HNSW against exact, resume p50 on both indexes, deletion with Lucene, batch ingest")
    void builtInBoundsParse() throws IOException {
        List<Bound> bounds;
        try (InputStream in = Guard.class.getResourceAsStream(Guard.DEFAULT_BOUNDS)) {
            assertThat(in).isNotNull();
            bounds = GuardBounds.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList());
        }
        assertThat(bounds).filteredOn(b -> b instanceof Bound.Growth g && g.benchmark().equals("fastRecall.lucene")
                && g.variant().equals("KNOWN_ITEM") && g.from() == 10_000 && g.to() == 1_000_000).hasSize(1);
        assertThat(bounds).filteredOn(b -> b instanceof Bound.Ratio r && r.benchmark().equals("fastRecall.lucene")
                && r.against().equals("fastRecall.fts5")).isNotEmpty();
        assertThat(bounds).filteredOn(b -> b instanceof Bound.Time t && t.benchmark().equals("fastRecall.fts5"))
                .as("FTS5, the contract path, is bounded too").hasSizeGreaterThanOrEqualTo(2);
        assertThat(bounds).filteredOn(b -> b instanceof Bound.Hnsw).isNotEmpty();
        for (String basis : List.of("QUERY", "LATEST")) {
            for (String index : List.of("resume.fts5", "resume.lucene")) {
                assertThat(bounds).as("a p50 bound at 1M for " + index + " " + basis).anySatisfy(b -> assertThat(b)
                        .isEqualTo(new Bound.Time(b.line(), GuardBounds.Statistic.P50, index, basis, 1_000_000, b.bound())));
            }
        }
        assertThat(bounds).as("deletion with Lucene at 1M").anySatisfy(b -> assertThat(b).isEqualTo(
                new Bound.Time(b.line(), GuardBounds.Statistic.P50, "delete.withLucene", "", 1_000_000, b.bound())));
        assertThat(bounds).as("batch ingest at 1M, in events a second").anySatisfy(b -> assertThat(b).isEqualTo(
                new Bound.Rate(b.line(), "ingest.submitBatch", "", 1_000_000, b.bound())));
        for (String kind : List.of("KNOWN_ITEM", "TOPICAL", "LONG", "DIALOGUE")) {
            assertThat(bounds).as("a p99 bound at 1M for " + kind).anySatisfy(b -> assertThat(b).isInstanceOfSatisfying(
                    Bound.Time.class, t -> assertThat(List.of(t.statistic(), t.benchmark(), t.variant(), t.size()))
                            .isEqualTo(List.of(GuardBounds.Statistic.P99, "fastRecall.lucene", kind, 1_000_000))));
        }
    }

    @Test
    @DisplayName("B1 each bound is checked as a ratio: OK inside it, FAIL past it, with the figure and the difference")
    void verdicts() {
        List<Bound> bounds = GuardBounds.parse(List.of(
                "# a comment", "",
                "growth uniformRecall.lucene window 10000 1000000 <= 10   # trailing comment",
                "ratio uniformRecall.lucene / uniformRecall.fts5 window 1000000 <= 0.5",
                "hnsw 100000 >= 0.95",
                "p99 fastRecall.lucene known_item 1000000 <= 10",
                "mean fastRecall.fts5 long 1000000 <= 1000"));
        Map<Key, Double> p99 = Map.of(new Key("fastRecall.lucene", "KNOWN_ITEM", 1_000_000), 12.5);
        Map<Key, Double> scores = Map.of(
                new Key("fastRecall.lucene", "KNOWN_ITEM", 1_000_000), 4.0,
                new Key("fastRecall.fts5", "LONG", 1_000_000), 900.0,
                new Key("uniformRecall.lucene", "WINDOW", 10_000), 2.0,
                new Key("uniformRecall.lucene", "WINDOW", 1_000_000), 30.0,
                new Key("uniformRecall.fts5", "WINDOW", 1_000_000), 100.0);

        List<Verdict> v = GuardBounds.check(bounds, new GuardBounds.Figures(scores, Map.of(), p99, Map.of(100_000, 0.97)));
        assertThat(v).extracting(Verdict::ok).containsExactly(false, true, true, false, true);
        assertThat(v.get(3).line()).startsWith("FAIL").contains("p99 ms fastRecall.lucene known_item at 1,000,000",
                "12.500", "worse by 2.500");
        assertThat(v.get(4).line()).startsWith("OK").contains("mean ms fastRecall.fts5 long at 1,000,000", "margin 100.000");
        assertThat(v.get(0).figure()).isEqualTo(15.0);
        assertThat(v.get(0).line()).startsWith("FAIL").contains("growth uniformRecall.lucene window 10,000 -> 1,000,000",
                "15.000", "<= 10.000", "worse by 5.000");
        assertThat(v.get(1).line()).startsWith("OK").contains("0.300", "margin 0.200");
        assertThat(v.get(2).line()).startsWith("OK").contains(">= 0.950", "margin 0.020");

        assertThat(GuardBounds.check(bounds, new GuardBounds.Figures(scores, Map.of(), p99, Map.of(100_000, 0.90))).get(2).ok()).isFalse();
        assertThatThrownBy(() -> GuardBounds.check(bounds, new GuardBounds.Figures(scores, Map.of(), Map.of(), Map.of(100_000, 0.97))))
                .hasMessageContaining("no score was measured for fastRecall.lucene known_item 1000000");
        assertThatThrownBy(() -> GuardBounds.check(bounds, new GuardBounds.Figures(Map.of(), Map.of(), Map.of(), Map.of(100_000, 0.97))))
                .hasMessageContaining("no score was measured for uniformRecall.lucene window 10000");
    }

    @Test
    @DisplayName("B1 resume and deletion are bounded too: p50 and p99 of a resume by its basis, of a deletion with no variant, growth and ratio of both")
    void resumeAndDeletionBounds() {
        List<Bound> bounds = GuardBounds.parse(List.of(
                "p50 resume.lucene latest 1000000 <= 20",
                "p99 resume.fts5 query 1000000 <= 100",
                "p50 delete.withLucene 1000000 <= 300",
                "growth delete.withLucene 10000 1000000 <= 3",
                "ratio delete.authority / delete.withLucene 1000000 <= 1"));
        assertThat(bounds.get(0)).isEqualTo(new Bound.Time(1, GuardBounds.Statistic.P50, "resume.lucene", "LATEST", 1_000_000, 20));
        assertThat(bounds.get(2)).isEqualTo(new Bound.Time(3, GuardBounds.Statistic.P50, "delete.withLucene", "", 1_000_000, 300));
        Key withLucene = new Key("delete.withLucene", "", 1_000_000);
        Map<Key, Double> mean = Map.of(withLucene, 700.0, new Key("delete.withLucene", "", 10_000), 100.0,
                new Key("delete.authority", "", 1_000_000), 35.0);
        Map<Key, Double> p50 = Map.of(new Key("resume.lucene", "LATEST", 1_000_000), 19.9, withLucene, 640.0);
        Map<Key, Double> p99 = Map.of(new Key("resume.fts5", "QUERY", 1_000_000), 850.0);

        List<Verdict> v = GuardBounds.check(bounds, new GuardBounds.Figures(mean, p50, p99, Map.of()));
        assertThat(v).extracting(Verdict::ok).containsExactly(true, false, false, false, true);
        assertThat(v.get(0).line()).startsWith("OK").contains("p50 ms resume.lucene latest at 1,000,000", "19.900");
        assertThat(v.get(2).line()).startsWith("FAIL").contains("p50 ms delete.withLucene at 1,000,000", "640.000",
                "worse by 340.000");
        assertThat(v.get(3).line()).contains("growth delete.withLucene 10,000 -> 1,000,000", "7.000");
        assertThat(v.get(4).line()).contains("ratio delete.authority / delete.withLucene at 1,000,000", "0.050");
    }

    @Test
    @DisplayName("B1 batch ingest is bounded in events a second: the events a call imports over its mean time, at least the bound")
    void ingestRate() {
        List<Bound> bounds = GuardBounds.parse(List.of("rate ingest.submitBatch 1000000 >= 4000",
                "rate ingest.submitBatch 10000 >= 4000"));
        assertThat(bounds.get(0)).isEqualTo(new Bound.Rate(1, "ingest.submitBatch", "", 1_000_000, 4000));
        Key large = new Key("ingest.submitBatch", "", 1_000_000);
        Key small = new Key("ingest.submitBatch", "", 10_000);
        Map<Key, Double> mean = Map.of(large, 2_500.0, small, 1_250.0); // ms for a call of 10,000 events
        Map<Key, Double> events = Map.of(large, 10_000.0, small, 10_000.0);

        List<Verdict> v = GuardBounds.check(bounds, new GuardBounds.Figures(mean, Map.of(), Map.of(), Map.of(), events));
        assertThat(v).extracting(Verdict::ok).containsExactly(true, true);
        assertThat(v.get(0).figure()).isEqualTo(4_000.0);
        assertThat(v.get(0).line()).startsWith("OK").contains("per s ingest.submitBatch at 1,000,000", ">= 4000.000",
                "margin 0.000");
        assertThat(v.get(1).figure()).isEqualTo(8_000.0);
        Map<Key, Double> slower = Map.of(large, 2_600.0, small, 1_250.0);
        assertThat(GuardBounds.check(bounds, new GuardBounds.Figures(slower, Map.of(), Map.of(), Map.of(), events)).get(0).line())
                .startsWith("FAIL").contains("3846.154", "worse by 153.846");
        assertThatThrownBy(() -> GuardBounds.check(bounds, new GuardBounds.Figures(mean, Map.of(), Map.of(), Map.of())))
                .hasMessageContaining("no items per call were measured for ingest.submitBatch 1000000");
    }

    @Test
    @DisplayName("B1 a malformed bounds line is refused by line number and rule, never echoed")
    void malformedBounds() {
        assertBad("growth uniformRecall.lucene window 10000 <= 3", "bounds line 1: must read 'growth BENCHMARK");
        assertBad("ratio uniformRecall.lucene uniformRecall.fts5 window 10000 x <= 1", "'/' between");
        assertBad("ratio uniformRecall.lucene / semantic.exact window 10000 <= 1", "one benchmark family");
        assertBad("growth uniformRecall.sqlite window 10000 100000 <= 3", "unknown benchmark");
        assertBad("growth uniformRecall.lucene window ten 100000 <= 3", "whole number");
        assertBad("growth uniformRecall.lucene window 10000 100000 >= 3", "operator must be <=");
        assertBad("hnsw 100000 >= -1", "positive number");
        assertBad("hnsw 100000 >= NaN", "positive number");
        assertBad("drop table bounds", "must start with growth, ratio, mean, p50, p99, rate or hnsw");
        assertBad("p50 resume.lucene 1000000 <= 20", "must read 'p50 BENCHMARK VARIANT SIZE <= MS'");
        assertBad("p50 resume.lucene known_item 1000000 <= 20", "unknown variant");
        assertBad("p50 delete.withLucene event 1000000 <= 300", "must read 'p50 BENCHMARK SIZE <= MS'");
        assertBad("growth delete.withLucene 100000 <= 2", "must read 'growth BENCHMARK FROM TO <= X'");
        assertBad("ratio delete.withLucene / resume.lucene 1000000 <= 20", "one benchmark family");
        assertBad("p50 delete.sqlite 1000000 <= 300", "unknown benchmark");
        assertBad("rate ingest.submitBatch 1000000 <= 4000", "this bound's operator must be >=");
        assertBad("rate ingest.submitBatch events 1000000 >= 4000", "must read 'rate BENCHMARK SIZE >= PER_S'");
        assertBad("rate fastRecall.lucene known_item 1000000 >= 5", "a rate bound reads ingest.submitBatch");
        assertBad("rate fastRecall.fts5 1000000 >= 5", "a rate bound reads ingest.submitBatch");
        assertBad("rate delete.withLucene 1000000 >= 5", "a rate bound reads ingest.submitBatch");
        assertBad("p99 fastRecall.lucene known_item 1000000 10", "must read 'p99 BENCHMARK VARIANT SIZE <= MS'");
        assertBad("p99 fastRecall.lucene window 1000000 <= 10", "unknown variant");
        assertBad("mean fastRecall.lucene topical 1000000 <= -3", "positive number");
        assertBad("growth uniformRecall.lucene windw 10000 100000 <= 3", "unknown variant");
        assertBad("ratio semantic.hnsw / semantic.exact window 10000 <= 1", "unknown variant");
        assertBad("# only a comment", "holds no bound");
        assertThatThrownBy(() -> GuardBounds.parse(List.of("hnsw 1000 >= 0.9", "", "secret-value")))
                .hasMessageStartingWith("bounds line 3:").hasMessageNotContaining("secret-value");
    }

    private static void assertBad(String line, String message) {
        assertThatThrownBy(() -> GuardBounds.parse(List.of(line))).isInstanceOf(GuardBounds.BoundsException.class)
                .hasMessageContaining(message);
    }

    @Test
    @DisplayName("B1 bench guard runs a short JMH pass on small archives: generous bounds hold (exit 0), a doctored bound fails (exit 1), a bad file exits 2, a run that cannot measure 3")
    void guardRunsJmhAndChecks(@TempDir Path dir) throws IOException {
        Path archives = dir.resolve("archives");
        Path generous = dir.resolve("generous.txt");
        Files.writeString(generous, String.join("\n",
                "growth uniformRecall.lucene window 300 600 <= 1000",
                "ratio uniformRecall.lucene / uniformRecall.fts5 common 300 <= 1000",
                "ratio semantic.hnsw / semantic.exact deep 300 <= 1000",
                "hnsw 300 >= 0.5",
                "p99 fastRecall.lucene known_item 300 <= 5000",
                "p50 resume.lucene latest 300 <= 5000",
                "p50 delete.withLucene 300 <= 5000",
                "rate ingest.submitBatch 300 >= 10", ""));
        Run ok = guard("--bounds", generous.toString(), "--archives", archives.toString(), "--forks", "0",
                "--warmup", "1", "--iterations", "1", "--time", "100", "--quiet");
        assertThat(ok.code()).as(ok.out()).isZero();
        assertThat(ok.out()).contains("8 of 8 bounds hold", "fastRecall.lucene known_item 300", "resume.lucene latest 300",
                        "per s ingest.submitBatch at 300",
                        "delete.withLucene 300", "uniformRecall.lucene window 600", "uniformRecall.fts5 common 300",
                        "semantic.hnsw deep 300", "hnsw recall@10 at 300")
                .containsPattern("(?m)^OK +growth uniformRecall.lucene window 300 -> 600 ");
        assertThat(archives.resolve("chat-600-s" + ChatCorpus.DEFAULT_SEED)).isDirectory();

        Path doctored = dir.resolve("doctored.txt");
        Files.writeString(doctored, "growth uniformRecall.lucene window 300 600 <= 0.001\n");
        Run fail = guard("--bounds", doctored.toString(), "--archives", archives.toString(), "--forks", "0",
                "--warmup", "0", "--iterations", "1", "--time", "50", "--quiet");
        assertThat(fail.code()).as(fail.out()).isEqualTo(1);
        assertThat(fail.out()).containsPattern("(?m)^FAIL +growth uniformRecall.lucene window 300 -> 600 .* worse by ")
                .contains("0 of 1 bounds hold").contains("reusing the archive");

        Path broken = dir.resolve("broken.txt");
        Files.writeString(broken, "growth uniformRecall.lucene window\n");
        Run bad = guard("--bounds", broken.toString(), "--archives", archives.toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.out()).contains("bounds line 1: must read");

        // Archives that cannot be kept where asked (a file, not a directory): nothing measured, exit 3.
        Path notADirectory = Files.writeString(dir.resolve("not-a-directory"), "x");
        Run broken2 = guard("--bounds", generous.toString(), "--archives", notADirectory.toString(), "--forks", "0",
                "--warmup", "0", "--iterations", "1", "--time", "50", "--quiet");
        assertThat(broken2.code()).as(broken2.out()).isEqualTo(Guard.BROKEN);
        assertThat(broken2.out()).contains("could not measure").doesNotContain("bounds hold");

        Run missing = guard("--bounds", dir.resolve("absent.txt").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.out()).contains("--bounds: cannot read the file").doesNotContain("absent.txt");
    }

    record Run(int code, String out) {
    }

    private static Run guard(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            // JmhArchives logs archive builds on System.out: capture it with the guard's own lines.
            System.setOut(out);
            int code = Guard.command(out).execute(args);
            return new Run(code, bytes.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(saved);
            System.clearProperty(JmhArchives.ROOT_PROPERTY);
        }
    }
}
