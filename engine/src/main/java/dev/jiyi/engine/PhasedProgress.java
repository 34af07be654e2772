package dev.jiyi.engine;

import dev.jiyi.authority.PhaseProgress;

/**
 * An archive operation's phases (export; import, then indexing; restore) as progress on stderr,
 * one {@link Progress} per phase, through {@link Output#progress}: a bar on a terminal, a line every
 * few seconds in a log, nothing with {@code --quiet}.
 */
public final class PhasedProgress implements PhaseProgress, AutoCloseable {

    private final Output out;
    private Progress current;
    private boolean finished;

    public PhasedProgress(Output out) {
        this.out = out;
    }

    @Override
    public void begin(String phase, long total) {
        if (current != null) {
            current.close();
        }
        current = out.progress(phase, total);
    }

    @Override
    public void advance(long n) {
        if (current != null && n > 0) {
            current.advance(n);
        }
    }

    /** The work completed: the last phase ends as done rather than as stopped. */
    public void finished() {
        finished = true;
    }

    @Override
    public void close() {
        if (current != null) {
            if (!finished) {
                current.stop();
            }
            current.close();
        }
    }
}
