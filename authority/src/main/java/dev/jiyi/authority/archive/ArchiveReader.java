package dev.jiyi.authority.archive;

import dev.jiyi.authority.Ids;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Limits;
import dev.jiyi.authority.RefusedException;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Times;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reading an archive's JSON for {@link ArchiveImport}: the header, and each row's fields as values
 * checked against their column ({@link ArchiveTable}): type, bounds, codes, limits, times with an
 * offset. Every error names the line or the field and the rule, never the value.
 */
final class ArchiveReader {

    static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxStringLength(ArchiveInput.MAX_STRING)
                    .maxNameLength(200)
                    .maxNumberLength(40)
                    .maxNestingDepth(4)
                    .build())
            .build();

    /** More fields than any table has columns: the row is refused before it grows. */
    private static final int MAX_FIELDS = 64;
    /** More items than a line can hold (each at least two characters): bounded by the line, not by a count. */
    private static final int MAX_LIST = ArchiveInput.MAX_LINE / 2;
    /** Keys and counters stay exact as JSON numbers in any reader (2^53). */
    static final long MAX_KEY = 1L << 53;
    static final Object NULL = new Object();

    /** The header: its format version, the scope of a scope export (or null), counters and counts. */
    record Header(ArchiveVersion version, Scope scope, Map<String, Long> sequences, Map<String, Long> counts, boolean json) {
    }

    private ArchiveReader() {
    }

    /** The line of a parser error (Jackson leaves some without a location: then where the parser is). */
    static int line(JacksonException e, JsonParser p) {
        return e.getLocation() != null && e.getLocation().getLineNr() > 0 ? e.getLocation().getLineNr()
                : p.currentLocation().getLineNr();
    }

    /** Reads the header object's fields (the parser is past its opening brace), checked, up to its end or to {@code rows}. */
    static Header header(JsonParser p, java.util.Set<String> tables) {
        String format = null;
        Long version = null;
        Scope scope = null;
        Map<String, Long> sequences = null;
        Map<String, Long> counts = null;
        boolean unknown = false;
        boolean json = false;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            switch (name) {
                case "format" -> {
                    format = value == JsonToken.VALUE_STRING ? p.getString() : "";
                    p.skipChildren(); // an array or object where the name belongs: skipped whole, then refused
                }
                case "version" -> {
                    version = value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER
                            ? p.getLongValue() : -1L;
                    p.skipChildren();
                }
                case "scope" -> scope = value == JsonToken.VALUE_NULL ? null : scope(p, value);
                case "sequences" -> sequences = numbers(p, value, "header.sequences");
                case "counts" -> counts = numbers(p, value, "header.counts");
                case "rows" -> {
                    if (value != JsonToken.START_ARRAY) {
                        throw new InvalidInputException("header.rows", "must be an array of rows");
                    }
                    json = true;
                }
                default -> {
                    unknown = true;
                    p.skipChildren();
                }
            }
            if (json) {
                break;
            }
        }
        if (!json && t != JsonToken.END_OBJECT) {
            throw new InvalidInputException("line 1", "must be the archive's header, a JSON object");
        }
        if (!ArchiveVersion.FORMAT.equals(format)) {
            throw new InvalidInputException("header.format", "must be " + ArchiveVersion.FORMAT + ": this is not a jiyi archive");
        }
        if (version == null || version < 1) {
            throw new InvalidInputException("header.version", "must be a format version, a whole number from 1");
        }
        if (version > ArchiveVersion.CURRENT.number()) {
            throw new RefusedException("the archive's format version is newer than this jiyi reads (up to "
                    + ArchiveVersion.CURRENT.number() + "); import it with a newer jiyi");
        }
        if (unknown) {
            throw new InvalidInputException("header", "holds a field that format version " + version + " does not have");
        }
        if (sequences == null || !sequences.keySet().equals(new java.util.HashSet<>(ArchiveWriter.SEQUENCES))) {
            throw new InvalidInputException("header.sequences", "must give the counter of each of " + ArchiveWriter.SEQUENCES);
        }
        if (counts == null || !counts.keySet().equals(tables)) {
            throw new InvalidInputException("header.counts", "must give the row count of each archived table");
        }
        return new Header(ArchiveVersion.numbered(version), scope, sequences, counts, json);
    }

    static Scope scope(JsonParser p, JsonToken value) {
        if (value != JsonToken.START_OBJECT) {
            throw new InvalidInputException("header.scope", "must be null or an object with persona and project");
        }
        String persona = null;
        String project = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            String text = p.nextToken() == JsonToken.VALUE_STRING ? p.getString() : null;
            switch (name) {
                case "persona" -> persona = Ids.check("header.scope.persona", text);
                case "project" -> project = Ids.check("header.scope.project", text);
                default -> throw new InvalidInputException("header.scope", "must hold only persona and project");
            }
        }
        if (persona == null || project == null) {
            throw new InvalidInputException("header.scope", "must hold persona and project");
        }
        return new Scope(persona, project);
    }

    static Map<String, Long> numbers(JsonParser p, JsonToken value, String field) {
        if (value != JsonToken.START_OBJECT) {
            throw new InvalidInputException(field, "must be an object of whole numbers");
        }
        Map<String, Long> out = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            if (p.nextToken() != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    || p.getLongValue() < 0 || out.put(name, p.getLongValue()) != null || out.size() > MAX_FIELDS) {
                throw new InvalidInputException(field, "must be an object of whole numbers from 0, each named once");
            }
        }
        return out;
    }

    /** A row object's fields and values (the parser is past its opening brace); nested objects refused. */
    static Map<String, Object> fields(JsonParser p, int line) {
        Map<String, Object> fields = new LinkedHashMap<>();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            Object value = switch (p.nextToken()) {
                case VALUE_STRING -> p.getString();
                case VALUE_NUMBER_INT -> {
                    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                        throw new InvalidInputException("line " + line, "holds a whole number too large for a row");
                    }
                    yield p.getLongValue();
                }
                case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                case VALUE_TRUE -> Boolean.TRUE;
                case VALUE_FALSE -> Boolean.FALSE;
                case VALUE_NULL -> NULL;
                case START_ARRAY -> list(p, line);
                default -> throw new InvalidInputException("line " + line, "must hold only strings, numbers, booleans, "
                        + "null and arrays of strings: a row has no nested objects");
            };
            if (fields.put(name, value) != null || fields.size() > MAX_FIELDS) {
                throw new InvalidInputException("line " + line, "must name each field once");
            }
        }
        if (t != JsonToken.END_OBJECT) {
            throw new InvalidInputException("line " + line, "must be a row: a JSON object");
        }
        return fields;
    }

    private static List<String> list(JsonParser p, int line) {
        List<String> items = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.VALUE_STRING) {
            if (items.size() == MAX_LIST) {
                throw new InvalidInputException("line " + line, "holds a list longer than any column's");
            }
            items.add(p.getString());
        }
        if (t != JsonToken.END_ARRAY) {
            throw new InvalidInputException("line " + line, "must hold lists of strings only");
        }
        return items;
    }

    /** The value as stored, checked against its column: type, bounds, codes, limits, times with an offset. */
    static Object value(ArchiveTable.Column c, Object v, String field) {
        if (v == NULL) {
            if (!c.nullable()) {
                throw new InvalidInputException(field, "must not be null");
            }
            return null;
        }
        return switch (c.type()) {
            case ID -> Ids.check(field, string(v, field));
            case TEXT -> Limits.requireText(field, string(v, field), (int) c.max());
            case ORIGINAL -> {
                String text = Limits.wellFormed(field, string(v, field));
                if (text.isEmpty() || text.length() > c.max()) {
                    throw new InvalidInputException(field, "must be 1 to " + (long) c.max() + " characters");
                }
                yield text;
            }
            case ENUM -> {
                String code = string(v, field);
                if (!c.codes().contains(code)) {
                    throw new InvalidInputException(field, "must be one of " + new TreeSet<>(c.codes()));
                }
                yield code;
            }
            case TIME -> Times.format(Times.parse(field, string(v, field)));
            case INT -> {
                if (!(v instanceof Long n) || n < c.min() || n > MAX_KEY) {
                    throw new InvalidInputException(field, "must be a whole number from " + (long) c.min() + " to " + MAX_KEY);
                }
                yield n;
            }
            case REAL -> {
                double d = v instanceof Long n ? n : v instanceof Double x ? x : Double.NaN;
                if (!(d >= c.min() && d <= c.max())) {
                    throw new InvalidInputException(field, "must be a number from " + c.min() + " to " + c.max());
                }
                yield d;
            }
            case BOOL -> {
                if (!(v instanceof Boolean b)) {
                    throw new InvalidInputException(field, "must be true or false");
                }
                yield b;
            }
            case LIST -> {
                if (!(v instanceof List<?> items) || items.size() > c.max()) {
                    throw new InvalidInputException(field, "must be an array of at most " + (long) c.max() + " strings");
                }
                for (Object item : items) {
                    String s = Limits.wellFormed(field, (String) item);
                    if (s.length() > c.itemMax()) {
                        throw new InvalidInputException(field, "must hold strings of at most " + c.itemMax() + " characters");
                    }
                }
                yield items;
            }
        };
    }

    private static String string(Object v, String field) {
        if (!(v instanceof String s)) {
            throw new InvalidInputException(field, "must be a string");
        }
        return s;
    }
}
