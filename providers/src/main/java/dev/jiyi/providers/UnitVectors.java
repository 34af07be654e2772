package dev.jiyi.providers;

/** Scales vectors to unit length, so that cosine similarity is a dot product ({@link Embedder}). */
final class UnitVectors {

    private UnitVectors() {
    }

    /**
     * Scales {@code v} in place to unit length.
     *
     * @return false, leaving {@code v} unchanged, when it has no direction (zero, or a component that
     *         is not finite)
     */
    static boolean normalize(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        double norm = Math.sqrt(sum);
        if (norm == 0 || !Double.isFinite(norm)) {
            return false;
        }
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (v[i] / norm);
        }
        return true;
    }
}
