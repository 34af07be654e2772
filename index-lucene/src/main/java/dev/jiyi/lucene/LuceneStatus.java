package dev.jiyi.lucene;

import java.util.Optional;

/**
 * Where the Lucene index stands against the authority after its last catch-up.
 *
 * @param applied the last change-log sequence the index reflects (its last commit, when read only)
 * @param head the authority's newest change-log sequence
 * @param readOnly another process holds the write lock: this one searches the holder's last commit
 */
public record LuceneStatus(long applied, long head, boolean readOnly) {

    /** How many change-log entries the index has not applied yet. */
    public long behind() {
        return Math.max(0, head - applied);
    }

    /** A warning for recall output when the index is behind; empty when it is current. */
    public Optional<String> warning() {
        if (behind() == 0) {
            return Optional.empty();
        }
        return Optional.of("lucene index is " + behind() + " change(s) behind the authority"
                + (readOnly ? " (another process holds its write lock; answering from its last commit)"
                           : " (catch-up ran out of time; it continues on the next query)")
                + "; results are rechecked against the authority");
    }
}
