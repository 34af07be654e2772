package dev.jiyi.bench.report;

import dev.jiyi.bench.report.Charts.Series;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Charts rendered headless to PNG, read back, and the input rules with their messages. */
class ChartsTest {

    private static final double[] SIZES = {1_000, 10_000, 100_000, 1_000_000};

    private static final List<Series> RECALL = List.of(
            new Series("fts5 fast", SIZES, new double[] {0.92, 0.88, 0.81, 0.74}),
            new Series("lucene fast", SIZES, new double[] {0.94, 0.91, 0.86, 0.80}));

    @Test
    @DisplayName("a two-line chart is an 800x500 PNG with coloured lines, in a directory made for it")
    void rendersTwoSeries(@TempDir Path dir) throws IOException {
        Path png = dir.resolve("charts").resolve("recall.png");
        Charts.line(png, "Recall@5 by archive size", "archive size (memories, log scale)", "R@5", false, RECALL);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).isNotNull();
        assertThat(image.getWidth()).isEqualTo(800);
        assertThat(image.getHeight()).isEqualTo(500);
        assertNotBlank(image);
    }

    @Test
    @DisplayName("latency on a logarithmic y axis renders too")
    void rendersLogY(@TempDir Path dir) throws IOException {
        Path png = dir.resolve("latency.png");
        Charts.line(png, "p95 recall latency", "archive size (memories, log scale)", "p95 latency (ms)", true,
                List.of(new Series("fts5 fast", SIZES, new double[] {0.4, 1.5, 12, 140}),
                        new Series("fts5 semantic", SIZES, new double[] {3, 9, 60, 700})));

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(800);
        assertThat(image.getHeight()).isEqualTo(500);
        assertNotBlank(image);
    }

    @Test
    @DisplayName("a chart replaces the file in place and leaves no temporary file behind")
    void overwrites(@TempDir Path dir) throws IOException {
        Path png = dir.resolve("recall.png");
        Files.writeString(png, "not a png");

        Charts.line(png, "Recall@5", "archive size (memories, log scale)", "R@5", false, RECALL);
        Charts.line(png, "Recall@5", "archive size (memories, log scale)", "R@5", false, RECALL.subList(0, 1));

        assertThat(ImageIO.read(png.toFile())).isNotNull();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("recall.png");
        }
    }

    @Test
    @DisplayName("when the move fails the temporary file is removed and the cause kept")
    void cleansUpOnFailure(@TempDir Path dir) throws IOException {
        Path png = dir.resolve("recall.png");
        Files.createDirectories(png.resolve("occupied"));

        assertThatThrownBy(() -> Charts.line(png, "Recall@5", "archive size (memories, log scale)", "R@5", false,
                RECALL)).isInstanceOf(IOException.class);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("recall.png");
        }
    }

    @Test
    @DisplayName("a series needs as many y as x, at least one point, finite values and ascending x")
    void seriesRules() {
        assertThatThrownBy(() -> new Series("a", new double[] {1, 2}, new double[] {1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("x, y: must have the same length");
        assertThatThrownBy(() -> new Series("a", new double[0], new double[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("x, y: must have at least one point");
        assertThatThrownBy(() -> new Series("a", new double[] {1, Double.NaN}, new double[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("x[1]: must be finite");
        assertThatThrownBy(() -> new Series("a", new double[] {1, 2}, new double[] {Double.POSITIVE_INFINITY, 2}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("y[0]: must be finite");
        assertThatThrownBy(() -> new Series("a", new double[] {2, 1}, new double[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("x[1]: must be greater than x[0]");
        assertThatThrownBy(() -> new Series(" ", new double[] {1}, new double[] {1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name: must not be blank");
    }

    @Test
    @DisplayName("a series keeps its own copy of the points")
    void seriesCopies() {
        double[] x = {1, 2};
        Series s = new Series("a", x, new double[] {1, 2});
        x[0] = -5;
        s.x()[1] = -7;
        assertThat(s.x()).containsExactly(1, 2);
    }

    @Test
    @DisplayName("a chart needs series, unique names, positive x, and positive y when logY; nothing is written")
    void chartRules(@TempDir Path dir) {
        Path png = dir.resolve("bad.png");
        assertThatThrownBy(() -> Charts.line(png, "t", "x", "y", false, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("series: must not be empty");
        assertThatThrownBy(() -> Charts.line(png, "t", "x", "y", false,
                List.of(RECALL.get(0), RECALL.get(1), RECALL.get(0))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("series[2].name: must be unique");
        assertThatThrownBy(() -> Charts.line(png, "t", "x", "y", false,
                List.of(RECALL.get(0), new Series("zero", new double[] {0, 10}, new double[] {1, 2}))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("series[1].x: must be positive on a logarithmic axis");
        assertThatThrownBy(() -> Charts.line(png, "t", "x", "y", true,
                List.of(new Series("ms", new double[] {1, 10}, new double[] {5, 0}))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("series[0].y: must be positive when logY");
        assertThat(dir).isEmptyDirectory();
    }

    /** Many colours (antialiased text and lines) and a good number of saturated pixels (the series). */
    private static void assertNotBlank(BufferedImage image) {
        Set<Integer> colours = new HashSet<>();
        int saturated = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xFFFFFF;
                colours.add(rgb);
                int r = rgb >> 16 & 0xFF;
                int g = rgb >> 8 & 0xFF;
                int b = rgb & 0xFF;
                if (Math.max(r, Math.max(g, b)) - Math.min(r, Math.min(g, b)) > 100) {
                    saturated++;
                }
            }
        }
        assertThat(colours).as("distinct colours").hasSizeGreaterThan(10);
        assertThat(saturated).as("saturated pixels").isGreaterThan(500);
    }
}
