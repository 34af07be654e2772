package dev.jiyi.bench;

import dev.jiyi.bench.SemanticHarness.Language;
import dev.jiyi.bench.SemanticHarness.Vectors;

import dev.jiyi.authority.Authority;
import dev.jiyi.providers.LocalModel;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallMode;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** What {@link SemanticHarness} measures, as its {@code --json} writes it. */
final class SemanticResults {

    private SemanticResults() {
    }

    /** Texts of one language (null: all of them) embedded in calls of {@code batch}. */
    public record Throughput(int batch, Language language, int texts, double meanChars, long nanos,
                             double textsPerSecond) {
    }

    /** The local model: first embedding in this JVM, throughput, one query's latency. */
    public record Embedding(String fingerprint, boolean loadedBefore, long firstEmbedNanos, List<Throughput> throughput,
                            int queries, double meanQueryChars, Latency query) {

        /** This measurement as the harness prints it. */
        public void print(PrintStream out) {
            out.printf(Locale.ROOT, "local embedding model %s%n", fingerprint());
            out.printf(Locale.ROOT, "  first embedding in this JVM%s: %.0f ms%n",
                    loadedBefore() ? " (model already loaded)" : " (model load included)", firstEmbedNanos() / 1e6);
            for (Throughput t : throughput()) {
                out.printf(Locale.ROOT, "  calls of %d texts, %-7s: %4d texts of %5.1f chars on average in %6.2f s = %6.1f texts/s%n",
                        t.batch(), t.language() == null ? "all" : t.language().name().toLowerCase(Locale.ROOT), t.texts(),
                        t.meanChars(), t.nanos() / 1e9, t.textsPerSecond());
            }
            out.printf(Locale.ROOT, "  one query alone (%d queries of %.1f chars on average): %s%n", queries(),
                    meanQueryChars(), query());
        }
    }

    /** Time spent building an archive, by step. */
    public record Build(long eventsNanos, long memoriesNanos, long vectorsNanos, long storeNanos) {

        public long totalNanos() {
            return eventsNanos + memoriesNanos + vectorsNanos + storeNanos;
        }
    }

    /**
     * Latency of one recall mode: the whole {@link Recall#recall} call, and the same without the
     * query's embedding (zero in fast mode); {@code meanItems} is the results returned on average.
     */
    public record ModeLatency(RecallMode mode, Latency total, Latency withoutQueryEmbedding, double meanItems) {
    }

    /**
     * {@link Authority#scanVectors} with a dot product per vector, as recall does, timed alone:
     * {@code limit} 0 is all vectors. {@code meanAboveThreshold} counts the vectors whose cosine
     * passes recall's threshold, which recall then loads as candidates (at most its candidate limit).
     */
    public record Scan(int limit, Latency latency, double meanAboveThreshold) {
    }

    /**
     * The figures at one archive size. {@code coverageCount} is {@link Authority#vectorCoverage} timed
     * alone: the count of eligible memories with a vector (V4) that every semantic and deep recall
     * asks for besides its scan. The count is kept between reads while nothing it counts can change,
     * so after the first query this times the kept path; a recall after a write pays the count.
     */
    public record SizeResult(int memories, Vectors vectors, Build build, long databaseBytes, Latency queryEmbedding,
                             List<ModeLatency> modes, List<Scan> scans, Latency coverageCount) {

        /** This measurement as the harness prints it. */
        public void print(PrintStream out) {
            Build b = build();
            out.printf(Locale.ROOT, "%,d memories (%s vectors), database %.1f MiB; built in %.1f s: events %.1f s, "
                            + "memories %.1f s, vectors %.1f s (%s) + %.1f s storing%n",
                    memories(), name(vectors()), databaseBytes() / 1048576.0, b.totalNanos() / 1e9,
                    b.eventsNanos() / 1e9, b.memoriesNanos() / 1e9, b.vectorsNanos() / 1e9,
                    vectors() == Vectors.REAL ? "embedding" : "generating", b.storeNanos() / 1e9);
            out.printf(Locale.ROOT, "  query embedding inside semantic and deep recalls: %s%n", queryEmbedding());
            for (ModeLatency m : modes()) {
                String mode = m.mode().name().toLowerCase(Locale.ROOT);
                if (m.mode() == RecallMode.FAST) {
                    out.printf(Locale.ROOT, "  %-8s recall: %s (%.1f results)%n", mode, m.total(), m.meanItems());
                } else {
                    out.printf(Locale.ROOT, "  %-8s recall: %s; without the query embedding %s (%.1f results)%n", mode,
                            m.total(), m.withoutQueryEmbedding(), m.meanItems());
                }
            }
            for (Scan s : scans()) {
                out.printf(Locale.ROOT, "  vector scan alone, %s: %s (%.0f above the %.2f cosine threshold on average)%n",
                        s.limit() == 0 ? "all vectors (deep)" : String.format(Locale.ROOT, "%,d most recent (semantic)", s.limit()),
                        s.latency(), s.meanAboveThreshold(), LocalModel.BGE_SMALL_ZH.cosineThreshold());
            }
            out.printf(Locale.ROOT, "  vector coverage count alone (made by every semantic and deep recall): %s%n",
                    coverageCount());
        }
    }

    /** Everything one run measured, as {@code --json} writes it. */
    public record Report(long seed, String java, int processors, long maxHeapBytes, String loadAtStart,
                         String loadAtEnd, Embedding embedding, List<SizeResult> sizes) {
    }

    static String name(Vectors v) {
        return v == Vectors.REAL ? "real (the local model's)" : "random (seeded unit vectors under the local model's fingerprint)";
    }
}
