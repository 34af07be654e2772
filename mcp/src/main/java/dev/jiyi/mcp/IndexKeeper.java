package dev.jiyi.mcp;

import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * Keeps the home's recall index up with the authority between a server's calls. After each write
 * the index applies it at once, as its next search would (searchable, committed when its own rule
 * says so); once writes have paused for {@link #QUIET}, it commits. At a conversation's pace (a turn,
 * then a model call of seconds, then the next recall) the recall then finds nothing to apply and no
 * commit to make, which at 1,000,000 memories were most of its time. Writes of other processes (a
 * host's capture hook running {@code jiyi}) are noticed by looking at the change log's head every
 * {@link #LOOK}, and kept up with the same way. It runs on one daemon thread,
 * inside the server's gate (a call that closes the server waits for it, and after that it does
 * nothing); a failure is a notice, and the next search applies what was left.
 */
final class IndexKeeper {

    /** How long writes pause before what they applied is committed. */
    static final Duration QUIET = Duration.ofSeconds(1);

    /** How often the change log is looked at for writes of other processes (a host's capture hook). */
    static final Duration LOOK = Duration.ofSeconds(2);

    private final Jiyi jiyi;
    private final Lock gate;
    private final Output log;
    private final ScheduledExecutorService runner = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("jiyi-index-keeper").factory());
    /** Writes told of so far; a commit waits until none came for {@link #QUIET}. */
    private final AtomicLong writes = new AtomicLong();
    /** Whether an apply is queued and has not started: later writes are applied by it. */
    private final AtomicBoolean queued = new AtomicBoolean();
    /** The change log's head when last looked at, -1 before the first look (only the runner's thread uses it). */
    private long head = -1;
    /** Whether the last look failed (told once, not every {@link #LOOK}). */
    private boolean failing;

    /** @param gate the read side of the server's gate, held while the index is worked on */
    IndexKeeper(Jiyi jiyi, Lock gate, Output log) {
        this.jiyi = jiyi;
        this.gate = gate;
        this.log = log;
    }

    /**
     * Starts looking at the change log every {@link #LOOK}, for writes this server did not make (the
     * first look keeps up with whatever the log holds then).
     */
    void start() {
        runner.scheduleWithFixedDelay(this::look, LOOK.toMillis(), LOOK.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A call wrote to the authority: apply it now, and commit once writes pause. */
    void wrote() {
        long n = writes.incrementAndGet();
        try {
            if (queued.compareAndSet(false, true)) {
                runner.execute(() -> {
                    queued.set(false);
                    keepUp(false);
                });
            }
            runner.schedule(() -> {
                if (writes.get() == n) {
                    keepUp(true);
                }
            }, QUIET.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // the server is closing: closing the engine commits what was applied
        }
    }

    /** Another process's writes are kept up with as this server's own are. */
    private void look() {
        if (!gate.tryLock()) {
            return;
        }
        try {
            long now = jiyi.authority().read(s -> s.changeLogHead());
            if (now != head) {
                wrote();
            }
            head = now;
            failing = false;
        } catch (RuntimeException e) {
            if (!failing) {
                log.notice("looking for other processes' writes failed: " + e.getClass().getName());
            }
            failing = true;
        } finally {
            gate.unlock();
        }
    }

    private void keepUp(boolean durable) {
        if (!gate.tryLock()) {
            return; // closing
        }
        try {
            jiyi.backend(jiyi.defaultIndex()).keepUp(jiyi.authority(), durable);
        } catch (RuntimeException e) {
            log.notice("keeping the index up stopped: " + e.getClass().getName());
        } finally {
            jiyi.takeNotices().forEach(log::notice);
            gate.unlock();
        }
    }

    /** Drops what is scheduled (the server is closing; closing the engine commits what was applied). */
    void close() {
        runner.shutdownNow();
    }
}
