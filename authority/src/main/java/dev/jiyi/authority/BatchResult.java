package dev.jiyi.authority;

import java.util.List;

/**
 * The outcome of a batch write: the items committed, in order, and, when an item was rejected, its
 * index in the batch and why. Items before the rejected one stay committed; nothing of the rejected
 * item or those after it is.
 */
public record BatchResult<T>(List<T> committed, int failedAt, JiyiException error) {

    public BatchResult {
        committed = List.copyOf(committed);
    }

    public static <T> BatchResult<T> success(List<T> committed) {
        return new BatchResult<>(committed, -1, null);
    }

    public boolean failed() {
        return error != null;
    }
}
