package dev.jiyi.fts5;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Content terms of the texts a write transaction is about to insert, computed ahead of it
 * ({@link Fts5Index#analyzeAhead}) and read, by text ({@link #termsOf}), as it inserts their rows.
 *
 * <p>Per thread, because the write that asked for them runs on the thread that asked (an authority is
 * used by one thread at a time), and another authority sharing the index must not empty it. A cache
 * only: a text not in it is analyzed in the transaction, and it is emptied before each write, so it
 * never outgrows one batch. A text's terms are a function of the text, so a stale entry is still
 * right.
 *
 * <p>A batch of at least {@link #PARALLEL_FROM} texts is cut into slices of {@link #SLICE}, in the
 * rows' order, handed to the common pool (one worker on two cores) while the writing thread writes.
 * A slice is segmented once, by whichever thread claims it first: the pool, ahead of the write, or
 * the writing thread when it reaches a row whose slice nobody has started. So the write waits only
 * for a slice already being segmented, which takes no lock, and never for a pool that is busy or
 * blocked (a caller may hold the authority's lock from a pool thread). Before, the write began once
 * the whole batch was segmented, on the writing thread too: about a tenth of that thread's time in
 * a batch import at 1,000,000 events.
 */
final class TermsAhead {

    /** Texts per write from which they are segmented on other threads. */
    static final int PARALLEL_FROM = 64;

    /** Texts segmented by one task. */
    static final int SLICE = 32;

    private final ThreadLocal<Map<String, Slot>> ahead = ThreadLocal.withInitial(HashMap::new);

    /** Starts computing the terms of {@code texts}, forgetting those of an earlier write on this thread. */
    void analyze(List<String> texts) {
        clear();
        Map<String, Slot> slots = ahead.get();
        if (texts.size() < PARALLEL_FROM) {
            for (String text : texts) {
                Slice slice = new Slice(List.of(text));
                slice.claimAndRun();
                slots.putIfAbsent(text, new Slot(slice, 0));
            }
            return;
        }
        for (int from = 0; from < texts.size(); from += SLICE) {
            Slice slice = new Slice(List.copyOf(texts.subList(from, Math.min(texts.size(), from + SLICE))));
            for (int i = 0; i < slice.texts.size(); i++) {
                slots.putIfAbsent(slice.texts.get(i), new Slot(slice, i)); // a repeated text: its first row's slice
            }
            ForkJoinPool.commonPool().execute(slice::claimAndRun);
        }
    }

    /**
     * The terms computed ahead for {@code text}, segmenting its slice here if no thread has started it;
     * null when there are none, or when their segmenting failed: the caller analyzes the text itself,
     * and meets the failure there. Kept until the next write on this thread, so that a batch retried
     * without a rejected row reads them again.
     */
    List<String> termsOf(String text) {
        Slot slot = ahead.get().get(text);
        if (slot == null) {
            return null;
        }
        slot.slice().claimAndRun();
        try {
            return slot.slice().terms.join().get(slot.index());
        } catch (CompletionException e) {
            return null;
        }
    }

    /** Forgets what was computed ahead on this thread; slices the pool has not started are skipped. */
    void clear() {
        Map<String, Slot> slots = ahead.get();
        for (Slot slot : slots.values()) {
            slot.slice().claimed.set(true);
        }
        slots.clear();
    }

    /** Texts segmented together, once, by the first thread to claim them. */
    private static final class Slice {
        final List<String> texts;
        final AtomicBoolean claimed = new AtomicBoolean();
        final CompletableFuture<List<List<String>>> terms = new CompletableFuture<>();

        Slice(List<String> texts) {
            this.texts = texts;
        }

        void claimAndRun() {
            if (!claimed.compareAndSet(false, true)) {
                return;
            }
            try {
                terms.complete(texts.stream().map(Fts5Terms::contentTerms).toList());
            } catch (Throwable e) {
                terms.completeExceptionally(e); // a writer waiting for it must not wait forever
                throw e;
            }
        }
    }

    /** A text's terms: the {@code index}th of a slice's. */
    private record Slot(Slice slice, int index) {
    }
}
