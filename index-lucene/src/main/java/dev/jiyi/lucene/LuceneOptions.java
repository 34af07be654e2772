package dev.jiyi.lucene;

import dev.jiyi.authority.InvalidInputException;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How the Lucene index is built and searched.
 *
 * @param analysis which analysis makes the terms ({@code lucene.analyzer})
 * @param vectors how vectors are stored ({@code lucene.vectors})
 * @param knnCandidates how many neighbours deep mode takes from the HNSW graph before rescoring
 *                      them by their exact vectors (at least the {@code k} asked for)
 * @param catchUpBudget how long a search may spend applying the change log before it answers
 */
public record LuceneOptions(Analysis analysis, VectorFormat vectors, int knnCandidates, Duration catchUpBudget) {

    /** How the vectors are kept: 32-bit floats, or Lucene's scalar-quantized 8-bit form. */
    public enum VectorFormat {
        FLOAT, INT8;

        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Parses {@code lucene.vectors}. */
        public static VectorFormat parse(String value) {
            for (VectorFormat f : values()) {
                if (f.code().equals(value)) {
                    return f;
                }
            }
            throw new InvalidInputException("lucene.vectors", "must be float or int8");
        }
    }

    public LuceneOptions {
        Objects.requireNonNull(analysis, "analysis");
        Objects.requireNonNull(vectors, "vectors");
        Objects.requireNonNull(catchUpBudget, "catchUpBudget");
        if (knnCandidates < 1) {
            throw new InvalidInputException("lucene.knn_candidates", "must be at least 1");
        }
    }

    public static LuceneOptions defaults() {
        return new LuceneOptions(Analysis.JIYI, VectorFormat.FLOAT, 100, Duration.ofSeconds(2));
    }

    public LuceneOptions withAnalysis(Analysis a) {
        return new LuceneOptions(a, vectors, knnCandidates, catchUpBudget);
    }

    public LuceneOptions withVectors(VectorFormat v) {
        return new LuceneOptions(analysis, v, knnCandidates, catchUpBudget);
    }

    public LuceneOptions withKnnCandidates(int n) {
        return new LuceneOptions(analysis, vectors, n, catchUpBudget);
    }

    public LuceneOptions withCatchUpBudget(Duration d) {
        return new LuceneOptions(analysis, vectors, knnCandidates, d);
    }

    /** The index format these options make: a change of analysis, vector format or Lucene version rebuilds. */
    String version() {
        return "jiyi-lucene-5/" + analysis.version() + "/" + vectors.code() + "/lucene-"
                + org.apache.lucene.util.Version.LATEST;
    }
}
