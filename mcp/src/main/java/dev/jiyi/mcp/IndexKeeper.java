package dev.jiyi.mcp;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * Keeps the home's recall index up with the authority between a server's calls
 * ({@link Backend#keepUp}). After each call that writes, the index applies the write at once, as its
 * next search would (searchable, committed when its own rule says so); once writes have paused for
 * {@link #QUIET}, it commits. At a conversation's pace (a turn, a model call of seconds, then the
 * next recall) the recall then finds nothing to apply and no commit to make; at 1,000,000 memories
 * those were more than half of its time. Writes of other processes (a host's capture hook running
 * {@code jiyi}) are found by looking at the change log's head every {@link #LOOK}, and kept up with
 * the same way. An index not opened yet is left alone: its first search catches up.
 *
 * <p>It runs on one daemon thread, holding the read side of the server's gate while it works, so
 * that closing waits for it. Once the server starts closing it starts nothing new, and
 * {@link #close} applies and commits what is left (a deletion made by the last call, say) on the
 * closing thread. A failure is a notice, told once until the keeper succeeds again, and is retried
 * when the log moves again; the next search applies whatever was left.
 */
final class IndexKeeper {

    /** How long writes pause before what they applied is committed. */
    static final Duration QUIET = Duration.ofSeconds(1);

    /** How often the change log is looked at for writes of other processes. */
    static final Duration LOOK = Duration.ofSeconds(2);

    private final Authority authority;
    private final Supplier<Backend> backend;
    private final Supplier<List<String>> notices;
    private final Lock gate;
    private final Output log;
    private final Duration quiet;
    private final Duration look;
    private final ScheduledExecutorService runner = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("jiyi-index-keeper").factory());
    /** Keep-ups asked for so far; a commit waits until none was asked for {@link #quiet}. */
    private final AtomicLong asked = new AtomicLong();
    /** Whether an apply is queued and has not started: later writes are applied by it. */
    private final AtomicBoolean queued = new AtomicBoolean();
    private volatile boolean closing;
    /** The change-log sequence the index had applied through after the last keep-up (the runner's thread only). */
    private long applied;
    /** Whether the last keep-up or look failed (the runner's thread only). */
    private boolean failing;
    /** The change log's head when a keep-up last failed, -1 after a success: looks retry only once it moves. */
    private long failedAt = -1;

    /** The keeper of {@code jiyi}'s recall index ({@code recall.index}), inside {@code gate} (a read lock). */
    IndexKeeper(Jiyi jiyi, Lock gate, Output log) {
        this(jiyi.authority(), () -> jiyi.backend(jiyi.defaultIndex()), jiyi::takeNotices, gate, log, QUIET, LOOK);
    }

    /**
     * @param notices what the engine has to tell after a keep-up (a rebuild, say), printed as notices
     * @param look    how often to look for other processes' writes; zero: never
     */
    IndexKeeper(Authority authority, Supplier<Backend> backend, Supplier<List<String>> notices, Lock gate, Output log,
                Duration quiet, Duration look) {
        this.authority = authority;
        this.backend = backend;
        this.notices = notices;
        this.gate = gate;
        this.log = log;
        this.quiet = quiet;
        this.look = look;
    }

    /** Starts looking at the change log every {@code look}, for writes this server did not make. */
    void start() {
        if (!look.isZero()) {
            runner.scheduleWithFixedDelay(this::look, look.toMillis(), look.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** A call of this server wrote to the authority: apply it now, and commit once writes pause. */
    void wrote() {
        keepUpSoon();
    }

    private void keepUpSoon() {
        long n = asked.incrementAndGet();
        if (queued.compareAndSet(false, true)) {
            runner.execute(() -> {
                queued.set(false);
                keepUp(false);
            });
        }
        runner.schedule(() -> {
            if (asked.get() == n) {
                keepUp(true);
            }
        }, quiet.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Keeps up when the log moved past what the index applied (another process wrote, or a budget ran out). */
    private void look() {
        if (!enter()) {
            return;
        }
        try {
            long head = authority.read(Snapshot::changeLogHead);
            if (head > applied && head != failedAt) {
                keepUpSoon();
            }
        } catch (RuntimeException e) {
            failed("looking at the change log", e);
        } finally {
            gate.unlock();
        }
    }

    private void keepUp(boolean durable) {
        if (!enter()) {
            return;
        }
        long head = -1;
        try {
            head = authority.read(Snapshot::changeLogHead);
            long reached = backend.get().keepUp(authority, durable);
            applied = reached == Backend.CURRENT ? head : reached; // nothing to follow here: the log up to now is done
            failing = false;
            failedAt = -1;
        } catch (RuntimeException e) {
            failedAt = head;
            failed("keeping the index up", e);
        } finally {
            notices.get().forEach(log::notice);
            gate.unlock();
        }
    }

    /** Takes the gate's read side unless the server is closing (a waiting writer does not stop {@code tryLock}). */
    private boolean enter() {
        if (closing || !gate.tryLock()) {
            return false;
        }
        if (closing) {
            gate.unlock();
            return false;
        }
        return true;
    }

    private void failed(String doing, RuntimeException e) {
        if (!failing) {
            log.notice(doing + " failed: " + e.getClass().getName());
        }
        failing = true;
    }

    /** The server starts closing: nothing new starts from now on (what runs, the closing waits for). */
    void closing() {
        closing = true;
    }

    /**
     * Stops the thread and, on the caller's, applies and commits what is left; called once the gate
     * is closed, so that nothing of the keeper's is running.
     */
    void close() {
        closing = true;
        runner.shutdownNow();
        try {
            backend.get().keepUp(authority, true);
        } catch (RuntimeException e) {
            log.notice("keeping the index up failed: " + e.getClass().getName());
        } finally {
            notices.get().forEach(log::notice);
        }
    }
}
