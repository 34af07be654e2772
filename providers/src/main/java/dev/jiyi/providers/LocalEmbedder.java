package dev.jiyi.providers;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link LocalModel} on ONNX Runtime, in this process: the embedders when no embedding URL is
 * configured. The bundled models ship inside langchain4j's jars; nothing is downloaded and nothing
 * phones home (DJL's offline mode and telemetry opt-out are set before loading unless already set).
 *
 * <p>Constructing one costs nothing. A model (about 1.3 s to load) is loaded on the first
 * {@link #embed(List)} and then shared by the whole JVM, so a command that never embeds, such as
 * fast recall, never loads it ({@link #loaded()}).
 */
public final class LocalEmbedder implements Embedder {

    private static final int BATCH_SIZE = 32;

    private static final ReentrantLock LOADING = new ReentrantLock();
    private static final Map<String, EmbeddingModel> MODELS = new ConcurrentHashMap<>();

    private final LocalModel model;
    private final String configuredVersion;

    /** The bundled Chinese model. */
    public LocalEmbedder(String configuredVersion) {
        this(LocalModel.BGE_SMALL_ZH, configuredVersion);
    }

    /** @param configuredVersion changing it makes every stored vector stale (V1) */
    public LocalEmbedder(LocalModel model, String configuredVersion) {
        if (configuredVersion == null || configuredVersion.isBlank()) {
            throw new ProviderException(ProviderException.Kind.NOT_CONFIGURED, "embedding version: is required");
        }
        this.model = Objects.requireNonNull(model, "model");
        this.configuredVersion = configuredVersion;
    }

    public LocalModel model() {
        return model;
    }

    /** Whether this JVM has loaded this embedder's model (by any {@code LocalEmbedder}). */
    public boolean loaded() {
        return MODELS.containsKey(model.key());
    }

    @Override
    public String fingerprint() {
        return Fingerprints.local(model.name(), model.version(), configuredVersion);
    }

    @Override
    public double cosineThreshold() {
        return model.cosineThreshold();
    }

    /**
     * A model answers alone only for a query in its own language (a Chinese model places unrelated
     * English sentences as high as related ones, 0.79), from its measured threshold.
     */
    @Override
    public double standaloneThreshold(String query, double threshold, long vectors) {
        return model.standaloneThreshold(query, threshold, vectors);
    }

    @Override
    public float[] embedQuery(String query) {
        return embed(model.queryPrefix() + query);
    }

    /**
     * @throws ProviderException LOCAL_MODEL when the model fails to load or run, or when a text is
     *                           blank (the model's library refuses blank text)
     */
    @Override
    public List<float[]> embed(List<String> texts) {
        if (texts.isEmpty()) {
            return List.of();
        }
        List<TextSegment> segments = new ArrayList<>(texts.size());
        for (int i = 0; i < texts.size(); i++) {
            if (texts.get(i).isBlank()) {
                throw new ProviderException(ProviderException.Kind.LOCAL_MODEL,
                        "local embedding model: text " + i + ": must not be blank");
            }
            segments.add(TextSegment.from(texts.get(i)));
        }
        EmbeddingModel m = load(model);
        List<float[]> vectors = new ArrayList<>(texts.size());
        for (int from = 0; from < segments.size(); from += BATCH_SIZE) {
            List<TextSegment> batch = segments.subList(from, Math.min(segments.size(), from + BATCH_SIZE));
            List<Embedding> embeddings = run(m, batch);
            if (embeddings.size() != batch.size()) {
                throw failed("answered " + embeddings.size() + " vectors for " + batch.size() + " texts", null);
            }
            for (Embedding e : embeddings) {
                float[] v = e.vector();
                int expected = model.dimensions() > 0 ? model.dimensions() : vectors.isEmpty() ? v.length
                        : vectors.getFirst().length;
                if (v.length != expected || !UnitVectors.normalize(v)) {
                    throw failed("answered a vector that is not " + expected + " non-zero numbers", null);
                }
                vectors.add(v);
            }
        }
        return vectors;
    }

    private static List<Embedding> run(EmbeddingModel m, List<TextSegment> batch) {
        try {
            return m.embedAll(batch).content();
        } catch (RuntimeException | LinkageError e) {
            throw failed(e);
        }
    }

    /** The model, loaded once per JVM; a failure is not remembered, so the next call tries again. */
    private static EmbeddingModel load(LocalModel model) {
        EmbeddingModel m = MODELS.get(model.key());
        if (m != null) {
            return m;
        }
        LOADING.lock();
        try {
            m = MODELS.get(model.key());
            if (m == null) {
                if (System.getProperty("ai.djl.offline") == null) {
                    System.setProperty("ai.djl.offline", "true");
                }
                if (System.getProperty("OPT_OUT_TRACKING") == null) {
                    System.setProperty("OPT_OUT_TRACKING", "true");
                }
                m = model.load();
                MODELS.put(model.key(), m);
            }
            return m;
        } catch (RuntimeException | LinkageError e) {
            throw failed(e);
        } finally {
            LOADING.unlock();
        }
    }

    /** The cause is kept: a local library's message holds no remote body and no credential. */
    private static ProviderException failed(Throwable e) {
        return failed(e.getClass().getSimpleName(), e);
    }

    private static ProviderException failed(String detail, Throwable cause) {
        return new ProviderException(ProviderException.Kind.LOCAL_MODEL, 0, "local embedding model failed: " + detail,
                cause);
    }
}
