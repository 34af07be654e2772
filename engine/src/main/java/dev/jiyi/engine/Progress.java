package dev.jiyi.engine;

import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Progress of long work, reported on standard error: loading, embedding, querying, export, import,
 * backup, reindexing. Standard output stays for results.
 *
 * <p>Three {@linkplain Mode modes}:
 * <ul>
 *   <li>{@link Mode#TERMINAL}: one line redrawn in place with {@code \r}, about ten times a second:
 *       <pre>{@code label [#########...........]  45% 4,500/10,000  1,234/s  ETA 0:04}</pre>
 *       and on {@link #close()} the final state and a newline.</li>
 *   <li>{@link Mode#LINES} (a log, CI): a plain line at most every few seconds:
 *       <pre>{@code label: 4,500/10,000 (45%), 1,234/s, ETA 0:04}</pre>
 *       and on {@link #close()} {@code label: 10,000 done in 8.1 s, 1,234/s}, or
 *       {@code label: 4,500/10,000 (45%) stopped after 8.1 s, 1,234/s} when the work ended early.</li>
 *   <li>{@link Mode#OFF}: nothing at all.</li>
 * </ul>
 * A total of zero or less means unknown: no bar, no percentage, no ETA; the count and the rate only.
 * Counts are grouped as in {@link Locale#ROOT} ({@code 1,234}); the rate is the mean per second since
 * the start; the ETA is the remaining count at that rate, rounded up, as {@code m:ss} or
 * {@code h:mm:ss}.
 *
 * <p>{@link #advance(long)} may be called from several threads and once per item: it adds to an atomic
 * counter, reads the clock and compares it with the time of the next report. Only when a report is
 * due does one thread (the one that wins a {@code tryLock}; the others go on) format and print.
 *
 * <p>Whether standard error is a terminal ({@link #onStderr}, {@link #stderrMode}) is decided, in
 * order:
 * <ol>
 *   <li>{@code -Djiyi.progress=terminal|lines|off}, when set, wins (except over {@code quiet}, which
 *       always prints nothing).</li>
 *   <li>On Linux, {@code /proc/self/fd/2} is read: a link to {@code /dev/pts/*}, {@code /dev/tty*} or
 *       {@code /dev/console} is a terminal; anything else (a file, a pipe, a socket, {@code /dev/null})
 *       is not. This looks at standard error itself, without native code.</li>
 *   <li>Elsewhere (macOS, Windows, no {@code /proc}), the {@link Console}: {@code isTerminal()} when
 *       the running JDK has it (22 and later; called reflectively because we compile with
 *       {@code --release 21}), else {@code System.console() != null}. Since JDK 22,
 *       {@code System.console()} may return a console when nothing is a terminal, so non-null alone
 *       is only trusted on a JDK without {@code isTerminal()}. Either answer is about standard input
 *       and output, not standard error: {@code jiyi export > file} then reports as lines although
 *       standard error is a terminal (harmless), and {@code jiyi ... 2> log} with a terminal for the
 *       rest would write {@code \r} redraws into the log. {@code -Djiyi.progress=lines} fixes the
 *       latter.</li>
 * </ol>
 * {@link #onStderr} assumes {@link System#err} still writes to file descriptor 2, as it does unless
 * something called {@link System#setErr}.
 */
public final class Progress implements AutoCloseable {

    /** How progress is shown; also the values of {@code -Djiyi.progress}. */
    public enum Mode {
        /** One line redrawn in place. */
        TERMINAL,
        /** A plain line now and then. */
        LINES,
        /** Nothing. */
        OFF;

        /** Parses {@code terminal}, {@code lines} or {@code off}, in any case. */
        static Mode parse(String value) {
            for (Mode m : values()) {
                if (m.name().equalsIgnoreCase(value.strip())) {
                    return m;
                }
            }
            throw new IllegalArgumentException(PROPERTY + ": must be terminal, lines or off");
        }
    }

    /** The system property that overrides terminal detection. */
    public static final String PROPERTY = "jiyi.progress";

    /** The least time between two redraws on a terminal: ten a second. */
    public static final Duration TERMINAL_INTERVAL = Duration.ofMillis(100);

    /** The least time between two lines in a log. */
    public static final Duration LINES_INTERVAL = Duration.ofSeconds(5);

    private static final int BAR_WIDTH = 20;

    private final String label;
    private final long total;
    private final Mode mode;
    private final PrintWriter out;
    private final LongSupplier nanoTime;
    private final long intervalNanos;
    private final long start;

    private final AtomicLong done = new AtomicLong();
    /** Clock reading at or after which the next report is due. */
    private volatile long nextReport;

    /** Held while printing; guards {@link #closed} and {@link #drawnWidth}. */
    private final ReentrantLock printing = new ReentrantLock();
    private boolean closed;
    /** Set by {@link #stop}: the work ended before it was done. */
    private volatile boolean stopped;
    /** Length of the last line drawn in terminal mode, to blank what a shorter line leaves. */
    private int drawnWidth;

    /**
     * @param label    what is being done, first on every line
     * @param total    how many items there are, or zero or less when unknown
     * @param mode     how to show progress
     * @param out      where to print (standard error in real use)
     * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime} in real use)
     * @param interval the least time between two reports
     */
    public Progress(String label, long total, Mode mode, PrintWriter out, LongSupplier nanoTime,
            Duration interval) {
        this.label = Objects.requireNonNull(label, "label");
        this.mode = Objects.requireNonNull(mode, "mode");
        this.out = Objects.requireNonNull(out, "out");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval: must be positive");
        }
        this.total = total;
        this.intervalNanos = interval.toNanos();
        this.start = nanoTime.getAsLong();
        this.nextReport = start + intervalNanos;
        if (mode == Mode.TERMINAL) {
            draw(0, start); // the label at once, before the first item, which may be slow
        }
    }

    /**
     * Progress on {@link System#err}, shown as {@link #stderrMode} decides, redrawn every
     * {@link #TERMINAL_INTERVAL} on a terminal and written every {@link #LINES_INTERVAL} otherwise.
     *
     * @param quiet when true nothing is printed, whatever {@code -Djiyi.progress} says
     */
    public static Progress onStderr(String label, long total, boolean quiet) {
        Mode mode = stderrMode(quiet);
        return on(new PrintWriter(System.err, false, System.err.charset()), label, total, mode);
    }

    /**
     * Progress written to {@code err} (the command's standard error), shown in {@code mode} (from
     * {@link #stderrMode}), at the interval that mode uses.
     */
    public static Progress on(PrintWriter err, String label, long total, Mode mode) {
        return new Progress(label, total, mode, err, System::nanoTime,
                mode == Mode.TERMINAL ? TERMINAL_INTERVAL : LINES_INTERVAL);
    }

    /**
     * How progress on standard error should be shown: {@code OFF} when quiet, else the
     * {@code -Djiyi.progress} override, else whether standard error is a terminal (see the class
     * comment for how that is found out and where it can be wrong).
     *
     * @throws IllegalArgumentException when {@code -Djiyi.progress} is not terminal, lines or off
     */
    public static Mode stderrMode(boolean quiet) {
        if (quiet) {
            return Mode.OFF;
        }
        String forced = System.getProperty(PROPERTY);
        if (forced != null && !forced.isBlank()) {
            return Mode.parse(forced);
        }
        boolean terminal = linuxStderrIsTerminal().orElseGet(Progress::consoleIsTerminal);
        return terminal ? Mode.TERMINAL : Mode.LINES;
    }

    /** Where {@code /proc/self/fd/2} points, when there is a {@code /proc} to ask. */
    private static Optional<Boolean> linuxStderrIsTerminal() {
        Path fd = Path.of("/proc/self/fd/2");
        if (!Files.isSymbolicLink(fd)) {
            return Optional.empty();
        }
        try {
            String target = Files.readSymbolicLink(fd).toString();
            return Optional.of(target.startsWith("/dev/pts/") || target.startsWith("/dev/tty")
                    || target.equals("/dev/console"));
        } catch (IOException e) {
            // A /proc that lists the link but cannot read it: fall back to the console, which is
            // only less precise (see the class comment).
            return Optional.empty();
        }
    }

    /** {@code Console.isTerminal()} where the JDK has it (22+), else whether there is a console. */
    private static boolean consoleIsTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        Method isTerminal;
        try {
            isTerminal = Console.class.getMethod("isTerminal");
        } catch (NoSuchMethodException e) {
            return true; // JDK 21: a console exists only when standard input and output are terminals
        }
        try {
            return (Boolean) isTerminal.invoke(console);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("Console.isTerminal() failed on Java "
                    + Runtime.version(), e);
        }
    }

    /** Counts one more item done. */
    public void advance() {
        advance(1);
    }

    /** Marks the work as ended early (a failure): the last line says {@code stopped after}, even with no total. */
    public void stop() {
        stopped = true;
    }

    /** Whether this progress redraws a line in place (a terminal): other output on the terminal would break it. */
    public boolean redraws() {
        return mode == Mode.TERMINAL;
    }

    /** Advances to {@code count} items done, if that is more than are done now (one thread at a time). */
    public void advanceTo(long count) {
        long more = count - done.get();
        if (more > 0) {
            advance(more);
        }
    }

    /** Counts {@code n} more items done; prints when a report is due. Safe from any thread. */
    public void advance(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("n: must be zero or more, was " + n);
        }
        done.addAndGet(n);
        if (mode == Mode.OFF) {
            return;
        }
        long now = nanoTime.getAsLong();
        if (now - nextReport < 0 || !printing.tryLock()) {
            return;
        }
        try {
            if (!closed && now - nextReport >= 0) {
                nextReport = now + intervalNanos;
                if (mode == Mode.TERMINAL) {
                    draw(done.get(), now);
                } else {
                    out.println(line(done.get(), now - start));
                    out.flush();
                }
            }
        } finally {
            printing.unlock();
        }
    }

    /** Items counted so far. */
    public long count() {
        return done.get();
    }

    /** Prints the final state, once; later calls do nothing. Counting may go on, unreported. */
    @Override
    public void close() {
        printing.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (mode == Mode.OFF) {
                return;
            }
            long now = nanoTime.getAsLong();
            long count = done.get();
            if (mode == Mode.TERMINAL) {
                draw(count, now);
                out.println();
            } else {
                out.println(finalLine(count, now - start));
            }
            out.flush();
        } finally {
            printing.unlock();
        }
    }

    /** Redraws the terminal line; on close the ETA gives way to the elapsed time. */
    private void draw(long count, long now) {
        String text = bar(count, now - start, closed);
        int width = text.length();
        StringBuilder sb = new StringBuilder(Math.max(width, drawnWidth) + 1).append('\r').append(text);
        // Blank what is left of a longer earlier line: plain spaces work on every terminal, where
        // the ANSI erase-line sequence would print as garbage on a Windows console without it.
        sb.repeat(' ', Math.max(0, drawnWidth - width));
        drawnWidth = width;
        out.print(sb);
        out.flush();
    }

    /** {@code label [#########...........]  45% 4,500/10,000  1,234/s  ETA 0:04}. */
    String bar(long count, long elapsedNanos, boolean finished) {
        StringBuilder sb = new StringBuilder(label);
        if (total > 0) {
            int filled = (int) Math.min(BAR_WIDTH, count * (double) BAR_WIDTH / total);
            sb.append(" [").repeat('#', filled).repeat('.', BAR_WIDTH - filled).append(']')
                    .append(String.format(Locale.ROOT, " %3d%% ", percent(count, total)))
                    .append(group(count)).append('/').append(group(total));
        } else {
            sb.append(' ').append(group(count));
        }
        if (elapsedNanos > 0) {
            sb.append("  ").append(rate(count, elapsedNanos)).append("/s");
        }
        if (finished) {
            sb.append("  ").append(complete(count) ? "done in " : "stopped after ")
                    .append(elapsed(elapsedNanos));
        } else {
            long eta = etaSeconds(count, total, elapsedNanos);
            if (eta >= 0) {
                sb.append("  ETA ").append(clock(eta));
            }
        }
        return sb.toString();
    }

    /** {@code label: 4,500/10,000 (45%), 1,234/s, ETA 0:04}, or {@code label: 4,500, 1,234/s}. */
    String line(long count, long elapsedNanos) {
        StringBuilder sb = new StringBuilder(label).append(": ").append(group(count));
        if (total > 0) {
            sb.append('/').append(group(total)).append(" (").append(percent(count, total)).append("%)");
        }
        if (elapsedNanos > 0) {
            sb.append(", ").append(rate(count, elapsedNanos)).append("/s");
        }
        long eta = etaSeconds(count, total, elapsedNanos);
        if (eta >= 0) {
            sb.append(", ETA ").append(clock(eta));
        }
        return sb.toString();
    }

    /** {@code label: 10,000 done in 8.1 s, 1,234/s}, or {@code ... (45%) stopped after ...}. */
    String finalLine(long count, long elapsedNanos) {
        StringBuilder sb = new StringBuilder(label).append(": ");
        if (complete(count)) {
            sb.append(group(count)).append(" done in ");
        } else if (total <= 0) {
            sb.append(group(count)).append(" stopped after ");
        } else {
            sb.append(group(count)).append('/').append(group(total))
                    .append(" (").append(percent(count, total)).append("%) stopped after ");
        }
        sb.append(elapsed(elapsedNanos));
        if (elapsedNanos > 0) {
            sb.append(", ").append(rate(count, elapsedNanos)).append("/s");
        }
        return sb.toString();
    }

    private boolean complete(long count) {
        return !stopped && (total <= 0 || count >= total);
    }

    /**
     * Seconds left at the mean rate so far, rounded up; -1 when unknown (no total, nothing done yet,
     * no time elapsed). Zero once the total is reached.
     */
    static long etaSeconds(long done, long total, long elapsedNanos) {
        if (total <= 0 || done <= 0 || elapsedNanos <= 0) {
            return -1;
        }
        if (done >= total) {
            return 0;
        }
        double seconds = (double) (total - done) * elapsedNanos / done / TimeUnit.SECONDS.toNanos(1);
        return (long) Math.ceil(seconds);
    }

    /** {@code m:ss} under an hour, {@code h:mm:ss} from an hour on. */
    static String clock(long seconds) {
        long h = seconds / 3600;
        long m = seconds / 60 % 60;
        long s = seconds % 60;
        return h > 0 ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s)
                : String.format(Locale.ROOT, "%d:%02d", m, s);
    }

    /** {@code 8.1 s} under a minute, else {@link #clock}. */
    static String elapsed(long nanos) {
        double seconds = nanos / 1e9;
        return seconds < 59.95 ? String.format(Locale.ROOT, "%.1f s", seconds)
                : clock(Math.round(seconds));
    }

    /** Items per second: grouped whole numbers, one decimal below ten ({@code 2.5}). */
    static String rate(long count, long elapsedNanos) {
        double perSecond = count * 1e9 / elapsedNanos;
        return perSecond < 9.95 ? String.format(Locale.ROOT, "%.1f", perSecond)
                : group(Math.round(perSecond));
    }

    /** Whole percent, rounded down so that 100 means done; at most 100. */
    private static int percent(long count, long total) {
        return (int) Math.min(100, Math.max(0, count * 100.0 / total));
    }

    private static String group(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}
