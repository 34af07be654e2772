package dev.jiyi.bench;

import java.util.Arrays;
import java.util.Locale;

/** Nearest-rank p50, p95 and maximum of some durations, in nanoseconds. */
public record Latency(long p50Nanos, long p95Nanos, long maxNanos) {

    static Latency of(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return new Latency(IngestHarness.percentile(sorted, 50), IngestHarness.percentile(sorted, 95),
                sorted[sorted.length - 1]);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "p50 %.1f ms, p95 %.1f ms, max %.1f ms", p50Nanos / 1e6, p95Nanos / 1e6,
                maxNanos / 1e6);
    }
}
