package dev.jiyi.mcp;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Times;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arguments of one tool call, checked against the tool's declared {@link McpParam}s before the
 * engine sees any of them: no unknown field, every required one present, each of its JSON type,
 * enums, bounds and lengths respected. JSON null counts as absent. Errors are
 * {@link InvalidInputException}s that name the field and the rule, never the value (O7).
 */
final class McpArguments {

    private final Map<String, Object> values;

    private McpArguments(Map<String, Object> values) {
        this.values = values;
    }

    /** Checks {@code raw} (null for no arguments) against {@code params}. */
    static McpArguments check(List<McpParam> params, Map<String, Object> raw) {
        Map<String, McpParam> declared = new LinkedHashMap<>();
        params.forEach(p -> declared.put(p.name(), p));
        Map<String, Object> args = raw == null ? Map.of() : raw;
        for (String name : args.keySet()) {
            if (!declared.containsKey(name)) {
                throw new InvalidInputException(safeName(name),
                        "unknown field (allowed: " + String.join(", ", declared.keySet()) + ")");
            }
        }
        Map<String, Object> checked = new LinkedHashMap<>();
        for (McpParam p : params) {
            Object v = args.get(p.name());
            if (v == null) {
                if (p.mandatory()) {
                    throw new InvalidInputException(p.name(), "is required");
                }
                continue;
            }
            checked.put(p.name(), switch (p.type()) {
                case STRING -> string(p, v);
                case INTEGER -> integer(p, v);
                case BOOLEAN -> {
                    if (!(v instanceof Boolean b)) {
                        throw new InvalidInputException(p.name(), "must be true or false");
                    }
                    yield b;
                }
                case STRING_ARRAY -> strings(p, v);
            });
        }
        return new McpArguments(checked);
    }

    /** Field names are keys the host wrote, not user content, but stay bounded in messages. */
    private static String safeName(String name) {
        String printable = name.codePoints().allMatch(c -> c >= 0x20 && c != 0x7f) ? name : "(a field name)";
        return printable.length() > 40 ? printable.substring(0, 40) + "…" : printable;
    }

    private static String string(McpParam p, Object v) {
        if (!(v instanceof String s)) {
            throw new InvalidInputException(p.name(), "must be a string");
        }
        if (!p.values().isEmpty() && !p.values().contains(s)) {
            throw new InvalidInputException(p.name(), "must be one of " + String.join(", ", p.values()));
        }
        if (p.maxLength() != null && s.length() > p.maxLength()) {
            throw new InvalidInputException(p.name(), "must be at most " + p.maxLength() + " characters");
        }
        return s;
    }

    private static long integer(McpParam p, Object v) {
        long n = switch (v) {
            case Integer i -> i;
            case Long l -> l;
            case Short s -> s;
            case Byte b -> b;
            case BigInteger b when b.bitLength() < 64 -> b.longValue();
            case Double d when d == Math.rint(d) && Math.abs(d) < 9.0e15 -> d.longValue();
            case Float f when f == Math.rint(f) && Math.abs(f) < 9.0e15 -> f.longValue();
            case BigDecimal d when isWhole(d) -> d.longValueExact();
            default -> throw new InvalidInputException(p.name(), "must be an integer");
        };
        if (p.min() != null && p.max() != null && (n < p.min() || n > p.max())) {
            throw new InvalidInputException(p.name(), "must be between " + p.min() + " and " + p.max());
        }
        if (p.min() != null && n < p.min()) {
            throw new InvalidInputException(p.name(), "must be at least " + p.min());
        }
        return n;
    }

    private static boolean isWhole(BigDecimal d) {
        try {
            d.longValueExact();
            return true;
        } catch (ArithmeticException e) {
            return false;
        }
    }

    private static List<String> strings(McpParam p, Object v) {
        if (!(v instanceof List<?> list)) {
            throw new InvalidInputException(p.name(), "must be an array of strings");
        }
        if (p.maxItems() != null && list.size() > p.maxItems()) {
            throw new InvalidInputException(p.name(), "must have at most " + p.maxItems() + " items");
        }
        List<String> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof String s)) {
                throw new InvalidInputException(p.name() + "[" + i + "]", "must be a string");
            }
            if (p.maxLength() != null && s.length() > p.maxLength()) {
                throw new InvalidInputException(p.name() + "[" + i + "]",
                        "must be at most " + p.maxLength() + " characters");
            }
            out.add(s);
        }
        return out;
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    /** A string argument, or null when absent. */
    String string(String name) {
        return (String) values.get(name);
    }

    String string(String name, String fallback) {
        String v = string(name);
        return v == null ? fallback : v;
    }

    /** An integer argument, or {@code fallback} when absent. */
    long integer(String name, long fallback) {
        Object v = values.get(name);
        return v == null ? fallback : (Long) v;
    }

    /** An integer argument that is required (checked already). */
    long integer(String name) {
        return (Long) values.get(name);
    }

    boolean bool(String name, boolean fallback) {
        Object v = values.get(name);
        return v == null ? fallback : (Boolean) v;
    }

    /** A string array, empty when absent. */
    @SuppressWarnings("unchecked")
    List<String> strings(String name) {
        Object v = values.get(name);
        return v == null ? List.of() : (List<String>) v;
    }

    /** A time argument (with an offset or zone, E4), or null when absent. */
    Instant time(String name) {
        String v = string(name);
        return v == null ? null : Times.parse(name, v);
    }
}
