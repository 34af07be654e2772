package dev.jiyi.bench;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.EventSubmission;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A user still talking while recall is measured: one event and its memory a second, continuing a
 * {@link ZipfCorpus} archive where it stopped, submitted through the authority's batch API on a
 * thread of its own (as a host's capture does beside an MCP server's recalls). Each recall then
 * sees a change log that moved, as it does in use, and an index that must follow it.
 */
final class BackgroundIngest implements AutoCloseable {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "jiyi-bench-background-ingest");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong submitted = new AtomicLong();
    /** Each turn's two writes, in nanoseconds: the event's, then its memory's (waiting for the authority included). */
    private final List<long[]> writes = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Starts submitting turns {@code corpus.size()}, {@code +1}, ... every {@code periodMillis}. */
    BackgroundIngest(Authority authority, ZipfCorpus corpus, long periodMillis) {
        timer.scheduleAtFixedRate(() -> {
            writes.add(write(authority, corpus, corpus.size() + submitted.get(), "-live"));
            submitted.incrementAndGet();
        }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Writes turn {@code n} of {@code corpus} now, its event and then its memory, each in a
     * transaction of its own, under the turn's ID with {@code suffix} (so that turns written by
     * different callers never share an ID); the two writes' times in nanoseconds.
     */
    static long[] write(Authority authority, ZipfCorpus corpus, long n, String suffix) {
        EventSubmission planned = corpus.event(n);
        EventSubmission now = new EventSubmission(planned.id() + suffix, planned.scope(), planned.role(),
                planned.text(), planned.source(), null, planned.sessionId(), Instant.now());
        long start = System.nanoTime();
        DeletionHarness.require(authority.submitEvents(List.of(now)));
        long event = System.nanoTime();
        DeletionHarness.require(authority.addMemories(List.of(corpus.memory(now, n))));
        return new long[] {event - start, System.nanoTime() - event};
    }

    /** How many turns it has submitted. */
    long submitted() {
        return submitted.get();
    }

    /**
     * The times of the writes so far, in nanoseconds, sorted: the events' ({@code [0]}) and their
     * memories' ({@code [1]}), of the same turns (one snapshot of both).
     */
    long[][] writeTimes() {
        List<long[]> now = List.copyOf(writes);
        return new long[][] {
            now.stream().mapToLong(w -> w[0]).sorted().toArray(),
            now.stream().mapToLong(w -> w[1]).sorted().toArray()};
    }

    @Override
    public void close() {
        timer.shutdown();
        try {
            timer.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
