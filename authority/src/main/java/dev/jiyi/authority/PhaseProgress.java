package dev.jiyi.authority;

/**
 * What long work reports as it goes (export, import, restore, an index build at open): each phase
 * with how many items it will take (zero or less when unknown), then the items as they are done.
 */
public interface PhaseProgress {

    /** Does not report. */
    PhaseProgress NONE = new PhaseProgress() {
        @Override
        public void begin(String phase, long total) {
        }

        @Override
        public void advance(long n) {
        }
    };

    /** A phase begins: {@code phase} names it (for example {@code export} or {@code import: fts5}). */
    void begin(String phase, long total);

    /** {@code n} more items of the current phase are done. */
    void advance(long n);
}
