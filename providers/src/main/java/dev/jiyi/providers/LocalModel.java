package dev.jiyi.providers;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallzhv15q.BgeSmallZhV15QuantizedEmbeddingModel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A sentence-embedding model that runs in this process on ONNX Runtime: one of the two that ship
 * with jiyi ({@link #BGE_SMALL_ZH}, {@link #BGE_SMALL_EN}), or a user's own export on disk
 * ({@link #onnx}). It names the model for fingerprints (V1), knows its similarity floors, and
 * loads it; {@link LocalEmbedder} runs it.
 *
 * <p>The thresholds of the bundled models were measured on the dev sets (docs/recall-quality.md,
 * "A model per language"). A model judges similarity only in the language it was trained on, so
 * its similarity answers a query alone ({@link #standaloneThreshold}) only for a query in that
 * language; in any other it ranks only beside lexical evidence.
 */
public final class LocalModel {

    /** Which queries a model can judge alone. */
    public enum Language {
        /** Chinese: a query with at least one Han character. */
        CHINESE,
        /** English: a query whose letters are all Latin (digits and punctuation aside). */
        ENGLISH,
        /** Any query (a user's own model, typically multilingual). */
        ANY;

        boolean judges(String query) {
            return switch (this) {
                case CHINESE -> hasHan(query);
                case ENGLISH -> query.codePoints().anyMatch(Character::isLetter) && query.codePoints()
                        .filter(Character::isLetter).allMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.LATIN);
                case ANY -> true;
            };
        }
    }

    /** How a user's model turns token vectors into one sentence vector. */
    public enum Pooling {
        CLS, MEAN;

        /** {@code cls} or {@code mean}, any case; null for anything else. */
        public static Pooling parse(String s) {
            return switch (s == null ? "" : s.strip().toLowerCase(Locale.ROOT)) {
                case "cls" -> CLS;
                case "mean" -> MEAN;
                default -> null;
            };
        }
    }

    /**
     * From which similarity a model's vectors answer a query alone: {@code small} in a home with at
     * most {@code smallVectors} vectors of the model, {@code large} from {@code largeVectors} on,
     * and in between along the logarithm of the count. The best of N unrelated similarities rises
     * with N, so a small home can trust a lower similarity than a large one; each pair of points is
     * the highest off-topic similarity measured at about that size (docs/recall-quality.md).
     */
    record Standalone(double small, long smallVectors, double large, long largeVectors) {

        static Standalone constant(double value) {
            return new Standalone(value, 1, value, 1);
        }

        double at(long vectors) {
            if (vectors <= smallVectors || small == large) {
                return small;
            }
            if (vectors >= largeVectors) {
                return large;
            }
            double share = Math.log((double) vectors / smallVectors) / Math.log((double) largeVectors / smallVectors);
            return small + (large - small) * share;
        }
    }

    /** The artifact that ships the bundled models: a new one may carry different model files. */
    public static final String BUNDLED_VERSION = "langchain4j-embeddings-1.11.0-beta19";

    /**
     * BGE small zh v1.5, quantized, 512 dimensions. It places unrelated sentences at 0.3 to 0.55
     * (我养了一只猫 · 宠物 0.60, 今天天气很好 · 宠物 0.36), so its floor is 0.5 rather than the
     * generic 0.3 of R3 (MADial-Bench zh: 0.5 and 0.55 give the same recall); no off-topic Chinese
     * question came above 0.533, in homes of 11 or 85 memories alike, so from 0.55 its similarity
     * answers a Chinese query alone at any size.
     */
    public static final LocalModel BGE_SMALL_ZH = new LocalModel("bge-small-zh-v1.5-q", BUNDLED_VERSION, 512,
            0.5, Standalone.constant(0.55), Language.CHINESE, "", bundled(BgeSmallZhV15QuantizedEmbeddingModel.class,
            BgeSmallZhV15QuantizedEmbeddingModel::new));

    /**
     * BGE small en v1.5, quantized, 384 dimensions: the model of memories without Chinese. The
     * query carries BGE's retrieval instruction, as its authors advise for short queries against
     * passages. Off-topic English questions came no higher than 0.48 in homes of 10 and 80 English
     * memories, but 0.614 in LoCoMo's homes of about 590: it answers an English query alone from
     * 0.55 up to 100 vectors, rising to 0.62 at 600 (pet · I have a cat 0.593). Its floor was
     * measured on LoCoMo and MADial-Bench en (docs/recall-quality.md).
     */
    public static final LocalModel BGE_SMALL_EN = new LocalModel("bge-small-en-v1.5-q", BUNDLED_VERSION, 384,
            0.5, new Standalone(0.55, 100, 0.62, 600), Language.ENGLISH,
            "Represent this sentence for searching relevant passages: ",
            bundled(BgeSmallEnV15QuantizedEmbeddingModel.class, BgeSmallEnV15QuantizedEmbeddingModel::new));

    private final String name;
    private final String version;
    private final int dimensions;
    private final double cosineThreshold;
    private final Standalone standalone;
    private final Language language;
    private final String queryPrefix;
    private final Supplier<EmbeddingModel> loader;

    private LocalModel(String name, String version, int dimensions, double cosineThreshold, Standalone standalone,
                       Language language, String queryPrefix, Supplier<EmbeddingModel> loader) {
        this.name = name;
        this.version = version;
        this.dimensions = dimensions;
        this.cosineThreshold = cosineThreshold;
        this.standalone = standalone;
        this.language = language;
        this.queryPrefix = queryPrefix;
        this.loader = loader;
    }

    /**
     * A user's own ONNX sentence-embedding export: the model file (weights inside it, not in a
     * separate {@code .onnx_data} file) and its Hugging Face {@code tokenizer.json}. Its version in
     * fingerprints is a digest of the file's size, first and last MiB and the tokenizer, and the
     * pooling (V1: another export shows up as other vectors, without hashing gigabytes on every
     * start; a moved or renamed file is the same model). Vectors are always made unit length,
     * because jiyi compares them by cosine.
     *
     * @param standalone  the similarity from which it answers a query alone; NaN for its floor
     * @param queryPrefix what a query is prefixed with (e5: {@code "query: "}), or empty
     * @throws ProviderException NOT_CONFIGURED naming the setting when a file cannot be read
     */
    public static LocalModel onnx(Path model, Path tokenizer, Pooling pooling, double standalone, String queryPrefix) {
        Objects.requireNonNull(pooling, "pooling");
        String digest = digest(model, "embed.onnx.model", tokenizer, "embed.onnx.tokenizer");
        PoolingMode mode = pooling == Pooling.CLS ? PoolingMode.CLS : PoolingMode.MEAN;
        return new LocalModel("onnx", digest + "-" + pooling.name().toLowerCase(Locale.ROOT),
                0, Embedder.DEFAULT_COSINE_THRESHOLD, Standalone.constant(standalone), Language.ANY, Objects.requireNonNullElse(queryPrefix, ""),
                () -> new OnnxEmbeddingModel(model, tokenizer, mode));
    }

    public String name() {
        return name;
    }

    /** The bundled artifact's version, or a user's model's digest and pooling. */
    public String version() {
        return version;
    }

    /** The vector length, or 0 when only the model itself knows (a user's model). */
    public int dimensions() {
        return dimensions;
    }

    public double cosineThreshold() {
        return cosineThreshold;
    }

    /**
     * This model's standalone threshold for {@code query}, given the floor in force and how many of
     * its vectors the recall compares with; +inf when it cannot judge the query's language.
     */
    double standaloneThreshold(String query, double threshold, long vectors) {
        if (!language.judges(query)) {
            return Double.POSITIVE_INFINITY;
        }
        double alone = standalone.at(vectors);
        return Double.isNaN(alone) ? threshold : Math.max(threshold, alone);
    }

    String queryPrefix() {
        return queryPrefix;
    }

    /** Loads the model; slow (a second or more), so {@link LocalEmbedder} does it once per JVM. */
    EmbeddingModel load() {
        return loader.get();
    }

    /** What identifies a loaded model within this JVM. */
    String key() {
        return name + "@" + version;
    }

    /** Whether {@code text} holds a Han character: the language test of the bundled pair. */
    public static boolean hasHan(String text) {
        return text.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN);
    }

    /**
     * A bundled model's class initializer reads the ONNX file and the tokenizer from its jar through
     * the context class loader, which on a pool thread may not see the jar, so it is set for the
     * duration.
     */
    private static Supplier<EmbeddingModel> bundled(Class<?> type, Supplier<EmbeddingModel> constructor) {
        return () -> {
            Thread thread = Thread.currentThread();
            ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(type.getClassLoader());
            try {
                return constructor.get();
            } finally {
                thread.setContextClassLoader(previous);
            }
        };
    }

    private static final int EDGE = 1 << 20;

    private static String digest(Path model, String modelKey, Path tokenizer, String tokenizerKey) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            try (FileChannel ch = open(model, modelKey)) {
                long size = ch.size();
                sha.update(ByteBuffer.allocate(Long.BYTES).putLong(size).flip());
                sha.update(read(ch, 0, (int) Math.min(EDGE, size)));
                sha.update(read(ch, Math.max(0, size - EDGE), (int) Math.min(EDGE, size)));
            }
            try (InputStream in = Files.newInputStream(readable(tokenizer, tokenizerKey))) {
                byte[] buffer = new byte[1 << 16];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    sha.update(buffer, 0, n);
                }
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (IOException e) {
            throw notReadable(modelKey + " or " + tokenizerKey);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static FileChannel open(Path file, String key) throws IOException {
        return FileChannel.open(readable(file, key), StandardOpenOption.READ);
    }

    private static Path readable(Path file, String key) {
        if (file == null || !Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw notReadable(key);
        }
        return file;
    }

    private static ByteBuffer read(FileChannel ch, long at, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining() && ch.read(b, at + b.position()) > 0) {
            // fills the buffer
        }
        return b.flip();
    }

    private static ProviderException notReadable(String key) {
        return new ProviderException(ProviderException.Kind.NOT_CONFIGURED, key + ": must be a readable file");
    }

    @Override
    public String toString() {
        return name;
    }
}
