package dev.jiyi.engine;

import dev.jiyi.authority.InvalidInputException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One JSON object from a batch input line, read with strict types: a string field must be a JSON
 * string, a number a JSON number, and unknown fields are rejected. Errors name the field and rule,
 * never the value.
 */
public final class JsonLine {

    private final JsonNode node;

    private JsonLine(JsonNode node) {
        this.node = node;
    }

    public static JsonLine parse(String line, Set<String> allowed) {
        if (line.startsWith("\uFEFF")) {
            line = line.substring(1); // a byte-order mark at the start of a file
        }
        JsonNode node;
        try {
            node = Output.mapper().readTree(line);
        } catch (JacksonException e) {
            throw new InvalidInputException("line", "must be one JSON object");
        }
        if (node == null || !node.isObject()) {
            throw new InvalidInputException("line", "must be one JSON object");
        }
        for (String name : node.propertyNames()) {
            if (!allowed.contains(name)) {
                throw new InvalidInputException(safeName(name), "unknown field (allowed: " + String.join(", ", allowed) + ")");
            }
        }
        return new JsonLine(node);
    }

    /** Field names are keys the host wrote, not user content, but stay bounded in messages. */
    private static String safeName(String name) {
        return name.length() > 40 ? name.substring(0, 40) + "…" : name;
    }

    private JsonNode present(String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v;
    }

    /** A nested object with only the allowed fields, or null when absent. */
    public JsonLine object(String field, Set<String> allowed) {
        JsonNode v = present(field);
        if (v == null) {
            return null;
        }
        if (!v.isObject()) {
            throw new InvalidInputException(field, "must be a JSON object");
        }
        for (String name : v.propertyNames()) {
            if (!allowed.contains(name)) {
                throw new InvalidInputException(field + "." + safeName(name), "unknown field (allowed: "
                        + String.join(", ", allowed) + ")");
            }
        }
        return new JsonLine(v);
    }

    /** Whether the field is present and not null. */
    public boolean has(String field) {
        return present(field) != null;
    }

    public String string(String field) {
        JsonNode v = present(field);
        if (v == null) {
            return null;
        }
        if (!v.isString()) {
            throw new InvalidInputException(field, "must be a string");
        }
        return v.stringValue();
    }

    public String requiredString(String field) {
        String v = string(field);
        if (v == null) {
            throw new InvalidInputException(field, "is required");
        }
        return v;
    }

    public Double number(String field) {
        JsonNode v = present(field);
        if (v == null) {
            return null;
        }
        if (!v.isNumber()) {
            throw new InvalidInputException(field, "must be a number");
        }
        return v.doubleValue();
    }

    public Long integer(String field) {
        JsonNode v = present(field);
        if (v == null) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new InvalidInputException(field, "must be an integer");
        }
        return v.longValue();
    }

    public Boolean bool(String field) {
        JsonNode v = present(field);
        if (v == null) {
            return null;
        }
        if (!v.isBoolean()) {
            throw new InvalidInputException(field, "must be true or false");
        }
        return v.booleanValue();
    }

    public List<String> strings(String field) {
        JsonNode v = present(field);
        if (v == null) {
            return List.of();
        }
        if (!v.isArray()) {
            throw new InvalidInputException(field, "must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode item = v.get(i);
            if (item == null || !item.isString()) {
                throw new InvalidInputException(field + "[" + i + "]", "must be a string");
            }
            out.add(item.stringValue());
        }
        return out;
    }
}
