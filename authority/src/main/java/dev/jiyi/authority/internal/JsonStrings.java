package dev.jiyi.authority.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The JSON array-of-strings form that list columns (cue keys, checkpoint steps) are stored in, so
 * that operators' scripts can read them with any JSON tool. The authority has no JSON dependency;
 * this handles exactly that one shape.
 */
public final class JsonStrings {

    private JsonStrings() {
    }

    public static String encode(List<String> values) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            quote(sb, values.get(i));
        }
        return sb.append(']').toString();
    }

    /** Appends {@code v} as a JSON string: quoted, with quotes, backslashes and control characters escaped. */
    public static void quote(StringBuilder sb, String v) {
        sb.append('"');
        for (int j = 0; j < v.length(); j++) {
            char c = v.charAt(j);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    public static List<String> decode(String json) {
        List<String> out = new ArrayList<>();
        int i = skip(json, 0);
        expect(json, i++, '[');
        i = skip(json, i);
        if (json.charAt(i) == ']') {
            return out;
        }
        while (true) {
            i = skip(json, i);
            expect(json, i++, '"');
            StringBuilder sb = new StringBuilder();
            while (json.charAt(i) != '"') {
                char c = json.charAt(i++);
                if (c == '\\') {
                    char e = json.charAt(i++);
                    switch (e) {
                        case 'n' -> sb.append('\n');
                        case 'r' -> sb.append('\r');
                        case 't' -> sb.append('\t');
                        case 'b' -> sb.append('\b');
                        case 'f' -> sb.append('\f');
                        case 'u' -> {
                            sb.append((char) Integer.parseInt(json.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> sb.append(e);
                    }
                } else {
                    sb.append(c);
                }
            }
            out.add(sb.toString());
            i = skip(json, i + 1);
            if (json.charAt(i) == ']') {
                return out;
            }
            expect(json, i++, ',');
        }
    }

    private static int skip(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static void expect(String s, int i, char c) {
        if (i >= s.length() || s.charAt(i) != c) {
            throw new IllegalStateException("stored list column is not a JSON array of strings");
        }
    }
}
