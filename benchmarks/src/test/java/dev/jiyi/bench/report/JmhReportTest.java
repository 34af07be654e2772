package dev.jiyi.bench.report;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class JmhReportTest {

    /** Two sizes of one method and kind, as JMH writes them with {@code -rf json} (fields trimmed). */
    private static String run(String method, String kind, int size, double mean, double p50, double p99) {
        return """
                {"benchmark": "dev.jiyi.bench.FastRecallBenchmark.%s", "mode": "sample",
                 "params": {"kind": "%s", "size": "%d"},
                 "primaryMetric": {"score": %s, "scoreError": 1.5, "scoreUnit": "ms/op",
                                   "scorePercentiles": {"0.0": 0.1, "50.0": %s, "99.0": %s, "100.0": 90.0}}}
                """.formatted(method, kind, size, mean, p50, p99);
    }

    @Test
    @DisplayName("B1 JMH results become a table per class with sizes as columns and the growth of the mean, and log-scale charts of the mean, the p50 and the p99")
    void tableAndChart(@TempDir Path dir) throws IOException {
        Path json = dir.resolve("fast.json");
        Files.writeString(json, "[" + String.join(",",
                run("lucene", "WINDOW", 10_000, 2.5, 2.0, 9.0),
                run("lucene", "WINDOW", 1_000_000, 25.0, 20.0, 130.0),
                run("fts5", "WINDOW", 10_000, 12.0, 11.0, 40.0),
                run("fts5", "WINDOW", 1_000_000, 480.0, 400.0, 4500.0)) + "]");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        JmhReport.write(json, dir.resolve("out"), new PrintStream(bytes, true, StandardCharsets.UTF_8));

        String table = bytes.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("FastRecallBenchmark, mean / p50 / p99 ms/op",
                "| benchmark | 10,000 | 1,000,000 | growth of the mean |",
                "| fts5 kind=window | 12.0 / 11.0 / 40.0 | 480 / 400 / 4,500 | 40.0× |",
                "| lucene kind=window | 2.50 / 2.00 / 9.00 | 25.0 / 20.0 / 130 | 10.0× |");
        assertThat(Files.readString(dir.resolve("out/jmh-FastRecallBenchmark.md"))).isEqualTo(table);
        String throughput = """
                [{"benchmark": "dev.jiyi.bench.IngestBenchmark.submitOne", "mode": "thrpt",
                  "params": {"seed": "20240501", "size": "0"},
                  "primaryMetric": {"score": 950.0, "scoreError": 120.5, "scoreUnit": "ops/s",
                                    "scorePercentiles": {"50.0": 900.0, "99.0": 1000.0}}}]""";
        Files.writeString(dir.resolve("ingest.json"), throughput);
        ByteArrayOutputStream ingest = new ByteArrayOutputStream();
        JmhReport.write(dir.resolve("ingest.json"), dir.resolve("out"), new PrintStream(ingest, true, StandardCharsets.UTF_8));
        // Throughput's percentiles are of iteration scores, not of calls: only the mean and its error.
        assertThat(ingest.toString(StandardCharsets.UTF_8)).contains("IngestBenchmark, mean ± 99.9% error ops/s",
                "| submitOne | 950 ± 121 |");

        BufferedImage png = ImageIO.read(dir.resolve("out/jmh-FastRecallBenchmark.png").toFile());
        assertThat(png.getWidth()).isGreaterThan(400);
        // Sample time has the p99 of single calls, so it gets a chart of its own; throughput does not.
        for (String figure : java.util.List.of("p50", "p99")) {
            assertThat(ImageIO.read(dir.resolve("out/jmh-FastRecallBenchmark-" + figure + ".png").toFile()).getWidth())
                    .isGreaterThan(400);
            assertThat(dir.resolve("out/jmh-IngestBenchmark-" + figure + ".png")).doesNotExist();
        }
    }
}
