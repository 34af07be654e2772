package dev.jiyi.mcp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One argument of an MCP tool, declared once: it gives the JSON Schema a host shows the model
 * ({@link #schema}) and the rules {@link McpArguments} checks, so that the two never disagree.
 *
 * @param type the JSON type
 * @param mandatory whether a call must give it
 * @param values the allowed values of a string (an enum); empty for any string
 * @param min the smallest integer allowed, or null
 * @param max the largest integer allowed, or null
 * @param maxLength the most characters of a string (of each item of a string array), or null
 * @param maxItems the most items of a string array, or null
 * @param format a JSON Schema format hint ({@code date-time}), or null
 */
record McpParam(String name, Type type, boolean mandatory, String description, List<String> values, Long min,
                Long max, Integer maxLength, Integer maxItems, String format) {

    /** The JSON types tool arguments use. */
    enum Type {
        STRING("string"), INTEGER("integer"), BOOLEAN("boolean"), STRING_ARRAY("array");

        final String json;

        Type(String json) {
            this.json = json;
        }
    }

    McpParam {
        values = List.copyOf(values);
    }

    static McpParam string(String name, String description) {
        return new McpParam(name, Type.STRING, false, description, List.of(), null, null, null, null, null);
    }

    static McpParam integer(String name, String description) {
        return new McpParam(name, Type.INTEGER, false, description, List.of(), null, null, null, null, null);
    }

    static McpParam bool(String name, String description) {
        return new McpParam(name, Type.BOOLEAN, false, description, List.of(), null, null, null, null, null);
    }

    static McpParam strings(String name, String description) {
        return new McpParam(name, Type.STRING_ARRAY, false, description, List.of(), null, null, null, null, null);
    }

    /** The same argument, which every call must give. */
    McpParam required() {
        return new McpParam(name, type, true, description, values, min, max, maxLength, maxItems, format);
    }

    /** A string that must be one of these values. */
    McpParam oneOf(String... allowed) {
        return new McpParam(name, type, mandatory, description, List.of(allowed), min, max, maxLength, maxItems, format);
    }

    McpParam between(long low, long high) {
        return new McpParam(name, type, mandatory, description, values, low, high, maxLength, maxItems, format);
    }

    McpParam atLeast(long low) {
        return new McpParam(name, type, mandatory, description, values, low, null, maxLength, maxItems, format);
    }

    McpParam maxLength(int chars) {
        return new McpParam(name, type, mandatory, description, values, min, max, chars, maxItems, format);
    }

    McpParam maxItems(int items) {
        return new McpParam(name, type, mandatory, description, values, min, max, maxLength, items, format);
    }

    /** An ISO-8601 time that must carry an offset or zone (E4). */
    McpParam time() {
        return new McpParam(name, type, mandatory, description, values, min, max, maxLength, maxItems, "date-time");
    }

    /** This argument's JSON Schema. */
    Map<String, Object> schema() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type.json);
        m.put("description", description);
        if (!values.isEmpty()) {
            m.put("enum", values);
        }
        if (min != null) {
            m.put("minimum", min);
        }
        if (max != null) {
            m.put("maximum", max);
        }
        if (format != null) {
            m.put("format", format);
        }
        if (type == Type.STRING_ARRAY) {
            Map<String, Object> items = new LinkedHashMap<>();
            items.put("type", "string");
            if (maxLength != null) {
                items.put("maxLength", maxLength);
            }
            m.put("items", items);
            if (maxItems != null) {
                m.put("maxItems", maxItems);
            }
        } else if (maxLength != null) {
            m.put("maxLength", maxLength);
        }
        return m;
    }

    /** The input schema of a tool with these arguments: an object that allows no other field. */
    static Map<String, Object> objectSchema(List<McpParam> params) {
        Map<String, Object> properties = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        for (McpParam p : params) {
            properties.put(p.name(), p.schema());
            if (p.mandatory()) {
                required.add(p.name());
            }
        }
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        if (!required.isEmpty()) {
            schema.put("required", required);
        }
        schema.put("additionalProperties", false);
        return schema;
    }
}
