package dev.jiyi.ranking;

import dev.jiyi.providers.Embedder;

/**
 * The query's vector for semantic and deep recall, the model that made it, and the text it was
 * made from.
 */
record QueryVector(float[] vector, Embedder model, String text) {

    /** R3: similarity counts only above this: the configured threshold, else the model's own. */
    double threshold(RecallConfig config) {
        return Double.isNaN(config.cosineThreshold()) ? model.cosineThreshold() : config.cosineThreshold();
    }

    /** The cosine signal: similarity above the threshold, rescaled so the threshold is 0 and 1 is 1. */
    static double signal(Double cosine, QueryVector vector, RecallConfig config) {
        if (cosine == null || vector == null) {
            return 0;
        }
        double t = vector.threshold(config);
        return Math.max(0, Math.min(1, (cosine - t) / (1 - t)));
    }
}
