package dev.jiyi.bench.quality;

import dev.jiyi.providers.Embedder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The calibration's arithmetic and the query cache, without the model (the runs themselves are manual). */
class CalibrationTest {

    @Test
    @DisplayName("percentiles are nearest-rank")
    void percentiles() {
        double[] sorted = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
        assertThat(Calibration.percentile(sorted, 10)).isEqualTo(0.1);
        assertThat(Calibration.percentile(sorted, 50)).isEqualTo(0.5);
        assertThat(Calibration.percentile(sorted, 90)).isEqualTo(0.9);
        assertThat(Calibration.percentile(sorted, 99)).isEqualTo(1.0);
        assertThat(Calibration.percentile(new double[0], 50)).isNaN();
    }

    @Test
    @DisplayName("the cosine of unit vectors is their dot product; off-topic probes are told apart by script")
    void cosineAndScript() {
        assertThat(Embeddings.cosine(new float[] {0.6f, 0.8f}, new float[] {0.8f, 0.6f})).isCloseTo(0.96, within(1e-6));
        assertThat(Calibration.chinese("高铁票改签需要手续费吗？")).isTrue();
        assertThat(Calibration.chinese("How does a Kalman filter work?")).isFalse();
        assertThat(Calibration.OFF_TOPIC.stream().filter(Calibration::chinese).count()).isEqualTo(6);
    }

    @Test
    @DisplayName("the caching embedder runs the model once per distinct text and keeps the order")
    void caching() {
        List<String> seen = new ArrayList<>();
        Embedder model = new Embedder() {
            @Override
            public String fingerprint() {
                return "fake";
            }

            @Override
            public List<float[]> embed(List<String> texts) {
                seen.addAll(texts);
                return texts.stream().map(t -> new float[] {t.length()}).toList();
            }
        };
        Embeddings.Caching cache = new Embeddings.Caching(model);
        assertThat(cache.fingerprint()).isEqualTo("fake");
        List<float[]> first = cache.embed(List.of("a", "bb", "a"));
        assertThat(first).extracting(v -> v[0]).containsExactly(1f, 2f, 1f);
        assertThat(cache.embed("bb")[0]).isEqualTo(2f);
        cache.embed(List.of("ccc", "a"));
        assertThat(seen).containsExactly("a", "bb", "ccc");
    }
}
