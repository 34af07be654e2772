package dev.jiyi.cli;

import tools.jackson.databind.json.JsonMapper;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a command writes: one JSON document per line on stdout with {@code --json}, readable text
 * otherwise. Errors go to stderr, as {@code error: ...} text or as a JSON object.
 */
final class Output {

    static final JsonMapper JSON = JsonMapper.builder().build();

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;

    Output(PrintWriter out, PrintWriter err, boolean json) {
        this.out = out;
        this.err = err;
        this.json = json;
    }

    boolean json() {
        return json;
    }

    /** Writes one JSON value as one line. */
    void json(Object value) {
        out.println(JSON.writeValueAsString(value));
        out.flush();
    }

    /** Writes human text (ignored in JSON mode: callers write JSON separately). */
    void text(String line) {
        out.println(line);
        out.flush();
    }

    /** A warning on stderr, in either mode. */
    void warn(String message) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("warning", message);
            err.println(JSON.writeValueAsString(m));
        } else {
            err.println("warning: " + message);
        }
        err.flush();
    }

    /** An error on stderr. The message must already be free of user text (O7). */
    void error(int code, String message) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", ExitCode.name(code));
            m.put("exit_code", code);
            m.put("message", message);
            err.println(JSON.writeValueAsString(m));
        } else {
            err.println("error: " + message);
        }
        err.flush();
    }
}
