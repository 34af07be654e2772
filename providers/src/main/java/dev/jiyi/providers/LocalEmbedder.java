package dev.jiyi.providers;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallzhv15q.BgeSmallZhV15QuantizedEmbeddingModel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * BGE small zh v1.5 (quantized, 512 dimensions) on ONNX Runtime, in this process: the embedder
 * when no embedding URL is configured. The model ships inside langchain4j's jar; nothing is
 * downloaded and nothing phones home (DJL's offline mode and telemetry opt-out are set before
 * loading unless already set).
 *
 * <p>Constructing one costs nothing. The model (about 1.3 s to load) is loaded on the first
 * {@link #embed(List)} and then shared by the whole JVM, so a command that never embeds, such as
 * fast recall, never loads it ({@link #modelLoaded()}).
 */
public final class LocalEmbedder implements Embedder {

    public static final String MODEL_NAME = "bge-small-zh-v1.5-q";
    /** The artifact that ships the model: a new one may carry a different model file. */
    public static final String MODEL_VERSION = "langchain4j-embeddings-1.11.0-beta19";
    public static final int DIMENSIONS = 512;

    /**
     * This model's similarity floor. It places unrelated sentences at 0.3 to 0.55 (我养了一只猫 · 宠物
     * 0.60, 今天天气很好 · 宠物 0.36), so the generic 0.3 of R3 would make every memory "evidence" of
     * every query. On MADial-Bench zh, 0.5 and 0.55 give the same recall (R@5 0.729 / 0.730 against
     * 0.710 fast); 0.55 also keeps the last off-topic probes out, but drops paraphrases of a fact
     * (用户养了一只橘猫 · 宠物 0.546). See docs/recall-quality.md. English is beyond this Chinese
     * model at any threshold.
     */
    public static final double COSINE_THRESHOLD = 0.5;

    private static final int BATCH_SIZE = 32;

    private static final ReentrantLock LOADING = new ReentrantLock();
    private static volatile EmbeddingModel model;

    private final String configuredVersion;

    /** @param configuredVersion changing it makes every stored vector stale (V1) */
    public LocalEmbedder(String configuredVersion) {
        if (configuredVersion == null || configuredVersion.isBlank()) {
            throw new ProviderException(ProviderException.Kind.NOT_CONFIGURED, "embedding version: is required");
        }
        this.configuredVersion = configuredVersion;
    }

    /** Whether this JVM has loaded the model (by any {@code LocalEmbedder}). */
    public static boolean modelLoaded() {
        return model != null;
    }

    @Override
    public String fingerprint() {
        return Fingerprints.local(MODEL_NAME, MODEL_VERSION, configuredVersion);
    }

    @Override
    public double cosineThreshold() {
        return COSINE_THRESHOLD;
    }

    /**
     * The local model is a Chinese one (docs/recall-quality.md): on Chinese text no off-topic
     * question came above 0.533, so from {@link #STANDALONE_THRESHOLD} its similarity is evidence
     * alone; on text without Chinese it places unrelated sentences as high as related ones (0.79),
     * so there it never answers alone.
     */
    @Override
    public double standaloneThreshold(String query, double threshold) {
        return query.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN)
                ? Math.max(threshold, STANDALONE_THRESHOLD) : Double.POSITIVE_INFINITY;
    }

    /** The similarity from which the local model's vectors answer a Chinese query alone. */
    public static final double STANDALONE_THRESHOLD = 0.55;

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
        EmbeddingModel m = model();
        List<float[]> vectors = new ArrayList<>(texts.size());
        for (int from = 0; from < segments.size(); from += BATCH_SIZE) {
            List<TextSegment> batch = segments.subList(from, Math.min(segments.size(), from + BATCH_SIZE));
            List<Embedding> embeddings = run(m, batch);
            if (embeddings.size() != batch.size()) {
                throw failed("answered " + embeddings.size() + " vectors for " + batch.size() + " texts", null);
            }
            for (Embedding e : embeddings) {
                float[] v = e.vector();
                if (v.length != DIMENSIONS || !UnitVectors.normalize(v)) {
                    throw failed("answered a vector that is not 512 non-zero numbers", null);
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

    private static EmbeddingModel model() {
        EmbeddingModel m = model;
        if (m != null) {
            return m;
        }
        LOADING.lock();
        try {
            if (model == null) {
                model = load();
            }
            return model;
        } finally {
            LOADING.unlock();
        }
    }

    /**
     * Loads the model: its class initializer reads the ONNX file and the tokenizer from the jar
     * through the context class loader, which on a pool thread may not see the jar, so it is set for
     * the duration. A failure is not remembered here, so the next call tries again (though a class
     * initializer that failed stays failed for the life of the JVM).
     */
    private static EmbeddingModel load() {
        if (System.getProperty("ai.djl.offline") == null) {
            System.setProperty("ai.djl.offline", "true");
        }
        if (System.getProperty("OPT_OUT_TRACKING") == null) {
            System.setProperty("OPT_OUT_TRACKING", "true");
        }
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(BgeSmallZhV15QuantizedEmbeddingModel.class.getClassLoader());
        try {
            return new BgeSmallZhV15QuantizedEmbeddingModel();
        } catch (RuntimeException | LinkageError e) {
            throw failed(e);
        } finally {
            thread.setContextClassLoader(previous);
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
