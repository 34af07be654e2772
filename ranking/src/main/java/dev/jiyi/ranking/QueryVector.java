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
}
