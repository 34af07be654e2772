package dev.jiyi.engine;

import tools.jackson.databind.json.JsonMapper;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a command writes: one JSON document per line on stdout with {@code --json}, readable text
 * otherwise. Errors go to stderr, as {@code error: ...} text or as a JSON object.
 */
public final class Output {

    /** The JSON mapper, built on first use: human-only commands never pay for Jackson's start-up. */
    public static JsonMapper mapper() {
        return Mapper.INSTANCE;
    }

    private static final class Mapper {
        static final JsonMapper INSTANCE = JsonMapper.builder().build();
    }

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;
    private final boolean quiet;

    public Output(PrintWriter out, PrintWriter err, boolean json) {
        this(out, err, json, false);
    }

    /** @param quiet no progress on stderr ({@code --quiet}); warnings and errors still show */
    public Output(PrintWriter out, PrintWriter err, boolean json, boolean quiet) {
        this.out = out;
        this.err = err;
        this.json = json;
        this.quiet = quiet;
    }

    /**
     * Progress of long work on stderr ({@link Progress}): redrawn on a terminal, a line every few
     * seconds otherwise (not with {@code --json}), nothing with {@code --quiet}. Stdout is untouched.
     *
     * @param total how many items, or zero or less when unknown
     */
    public Progress progress(String label, long total) {
        Progress.Mode mode = Progress.stderrMode(quiet);
        // With --json, stderr carries JSON documents (warnings, the error) that programs parse: progress
        // lines would break them, so they show only on a terminal, where a person reads them.
        return Progress.on(err, label, total, json && mode == Progress.Mode.LINES ? Progress.Mode.OFF : mode);
    }

    public boolean json() {
        return json;
    }

    /** Writes one JSON value as one line. */
    public void json(Object value) {
        out.println(mapper().writeValueAsString(value));
        out.flush();
    }

    /** Writes human text (ignored in JSON mode: callers write JSON separately). */
    public void text(String line) {
        out.println(line);
        out.flush();
    }

    /** A warning on stderr, in either mode. */
    public void warn(String message) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("warning", message);
            err.println(mapper().writeValueAsString(m));
        } else {
            err.println("warning: " + message);
        }
        err.flush();
    }

    /**
     * Something jiyi did on its own that the person running it should know (a derived index rebuilt),
     * on stderr: {@code jiyi: ...}, or {@code {"notice": ...}} in JSON mode. Never on stdout.
     */
    public void notice(String message) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("notice", message);
            err.println(mapper().writeValueAsString(m));
        } else {
            err.println("jiyi: " + message);
        }
        err.flush();
    }

    /** An error on stderr. The message must already be free of user text (O7). */
    public void error(int code, String message) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", ExitCode.name(code));
            m.put("exit_code", code);
            m.put("message", message);
            err.println(mapper().writeValueAsString(m));
        } else {
            err.println("error: " + message);
        }
        err.flush();
    }
}
