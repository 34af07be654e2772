package dev.jiyi.authority;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The {@code embeddings} table: a rebuildable cache of one vector per memory. A vector is stored as
 * little-endian float32 with the fingerprint of the model that made it (V1) and a digest of the
 * text it was made from, so that a vector is never attached to a memory whose text is not the one
 * embedded (V3).
 */
public final class VectorCache {

    private VectorCache() {
    }

    /** A memory that needs a vector of the current fingerprint: what to embed and its digest. */
    public record Task(long rowId, String memoryId, String text, String contentHash) {
    }

    /** A vector computed for a memory, to store after rechecking the memory (V3). */
    public record NewVector(String memoryId, String contentHash, float[] vector) {

        public NewVector {
            if (vector == null || vector.length == 0) {
                throw new InvalidInputException("vector", "must have at least one dimension");
            }
            for (float f : vector) {
                if (!Float.isFinite(f)) {
                    throw new InvalidInputException("vector", "must hold finite numbers");
                }
            }
        }
    }

    /** What a store did: vectors saved, and vectors dropped because their memory changed or went. */
    public record Stored(int stored, int skipped) {
    }

    /**
     * Eligible memories (in scope, not revoked, valid at the query time unless history is asked for)
     * and how many of them have a vector of the fingerprint (V4).
     */
    public record Coverage(long eligible, long covered) {

        public boolean complete() {
            return covered >= eligible;
        }
    }

    /**
     * A vector as stored, for an index that follows the change log: the memory's row and ID, and the
     * fingerprint of the model that made it (V1).
     */
    public record StoredVector(long memoryRow, String memoryId, String fingerprint, float[] vector) {
    }

    /** Receives the vectors of a scan, newest memory first. */
    @FunctionalInterface
    public interface Visitor {
        void visit(long memoryRow, float[] vector);
    }

    /** The digest a vector's text is recorded under: SHA-256 of its UTF-8 bytes, hex. */
    public static String contentHash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    public static byte[] encode(float[] vector) {
        ByteBuffer b = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(vector);
        return b.array();
    }

    public static float[] decode(byte[] bytes) {
        float[] v = new float[bytes.length / Float.BYTES];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
        return v;
    }
}
