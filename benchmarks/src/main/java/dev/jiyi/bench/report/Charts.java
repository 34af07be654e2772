package dev.jiyi.bench.report;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler.LegendLayout;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.XYStyler;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * PNG line charts of the recall benchmark suite: a quality or latency figure against archive size,
 * one line per index and mode ({@code fts5 fast}, {@code lucene semantic}, ...).
 *
 * <p>The x axis is always logarithmic (archive sizes from a thousand to a million memories) and
 * labels its decades in full ({@code 1,000}, {@code 10,000}, ...). XChart 3.8.8 cannot label a
 * logarithmic axis with a custom function such as {@code 10k}: setting one replaces the logarithmic
 * tick calculator with a linear one, so the ticks would no longer line up with the points.
 */
public final class Charts {

    static final int WIDTH = 800;
    static final int HEIGHT = 500;
    /** Most series whose names the legend lays out in one row below the plot. */
    static final int LEGEND_ROW = 4;

    static {
        // Before any XChart or AWT class loads: the benchmarks run on machines without a display.
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private Charts() {
    }

    /** One line of a chart: its legend name and its points, x ascending. */
    public record Series(String name, double[] x, double[] y) {

        public Series {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(x, "x");
            Objects.requireNonNull(y, "y");
            if (name.isBlank()) {
                throw new IllegalArgumentException("name: must not be blank");
            }
            if (x.length != y.length) {
                throw new IllegalArgumentException("x, y: must have the same length");
            }
            if (x.length == 0) {
                throw new IllegalArgumentException("x, y: must have at least one point");
            }
            x = x.clone();
            y = y.clone();
            for (int i = 0; i < x.length; i++) {
                if (!Double.isFinite(x[i])) {
                    throw new IllegalArgumentException("x[" + i + "]: must be finite");
                }
                if (!Double.isFinite(y[i])) {
                    throw new IllegalArgumentException("y[" + i + "]: must be finite");
                }
                if (i > 0 && x[i] <= x[i - 1]) {
                    throw new IllegalArgumentException("x[" + i + "]: must be greater than x[" + (i - 1) + "]");
                }
            }
        }

        /** A copy of the x values, so the record stays as validated. */
        @Override
        public double[] x() {
            return x.clone();
        }

        /** A copy of the y values, so the record stays as validated. */
        @Override
        public double[] y() {
            return y.clone();
        }
    }

    /**
     * A line chart of the series to {@code png}: log-scale x (archive sizes in memories), labeled
     * axes, a legend below the plot, a marker on every point. The chart is written to a temporary
     * file next to {@code png} and moved into place, so a reader never sees half a file.
     *
     * @param xTitle the x axis title with its unit, e.g. {@code archive size (memories, log scale)}
     * @param yTitle the y axis title with its unit, e.g. {@code R@5} or {@code p95 latency (ms)}
     * @param logY a logarithmic y axis too (latencies spanning decades); every y must then be positive
     * @throws IllegalArgumentException naming the parameter and the rule it breaks
     */
    public static void line(Path png, String title, String xTitle, String yTitle, boolean logY, List<Series> series)
            throws IOException {
        Objects.requireNonNull(png, "png");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(xTitle, "xTitle");
        Objects.requireNonNull(yTitle, "yTitle");
        Objects.requireNonNull(series, "series");
        check(series, logY);

        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        style(chart.getStyler(), logY, series);
        for (Series s : series) {
            chart.addSeries(s.name(), s.x, s.y);
        }
        write(chart, png);
    }

    private static void check(List<Series> series, boolean logY) {
        if (series.isEmpty()) {
            throw new IllegalArgumentException("series: must not be empty");
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            if (s == null) {
                throw new IllegalArgumentException("series[" + i + "]: must not be null");
            }
            if (!names.add(s.name())) {
                throw new IllegalArgumentException("series[" + i + "].name: must be unique");
            }
            if (s.x[0] <= 0) {
                throw new IllegalArgumentException("series[" + i + "].x: must be positive on a logarithmic axis");
            }
            for (double y : s.y) {
                if (logY && y <= 0) {
                    throw new IllegalArgumentException("series[" + i + "].y: must be positive when logY");
                }
            }
        }
    }

    private static void style(XYStyler styler, boolean logY, List<Series> series) {
        styler.setLocale(Locale.ROOT);
        styler.setLegendVisible(true);
        // A row below the plot holds a few names; more go in a column to its right, where none is cut off.
        boolean many = series.size() > LEGEND_ROW;
        styler.setLegendPosition(many ? LegendPosition.OutsideE : LegendPosition.OutsideS);
        styler.setLegendLayout(many ? LegendLayout.Vertical : LegendLayout.Horizontal);
        styler.setMarkerSize(7);
        styler.setXAxisLogarithmic(true);
        styler.setXAxisDecimalPattern("#,##0");
        styler.setXAxisLogarithmicDecadeOnly(decades(series, true) >= 1);
        styler.setYAxisLogarithmic(logY);
        if (logY) {
            styler.setYAxisDecimalPattern("#,##0.###");
            styler.setYAxisLogarithmicDecadeOnly(decades(series, false) >= 1);
        }
    }

    /** How many decades the data spans on one axis; below one, every tick is labeled. */
    private static double decades(List<Series> series, boolean x) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (Series s : series) {
            for (double v : x ? s.x : s.y) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        return Math.log10(max / min);
    }

    private static void write(XYChart chart, Path png) throws IOException {
        Path target = png.toAbsolutePath();
        Path dir = target.getParent();
        Files.createDirectories(dir);
        // Not Files.createTempFile: its owner-only permissions would survive the move. One name per
        // process and thread keeps concurrent writers apart; a leftover from a crash is overwritten.
        Path temp = dir.resolve(target.getFileName() + "." + ProcessHandle.current().pid() + "-"
                + Thread.currentThread().threadId() + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(temp)) {
                BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (Throwable failure) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }
}
