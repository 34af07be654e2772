package dev.jiyi.authority;

/** Input broke a rule. The message is {@code field: rule}; the offending value is never included. */
public final class InvalidInputException extends JiyiException {

    private final String field;
    private final String rule;

    public InvalidInputException(String field, String rule) {
        super(field + ": " + rule);
        this.field = field;
        this.rule = rule;
    }

    public String field() {
        return field;
    }

    public String rule() {
        return rule;
    }

    /** The same error with its field prefixed, e.g. {@code cues[2]} inside a larger record. */
    public InvalidInputException within(String outerField) {
        return new InvalidInputException(outerField + "." + field, rule);
    }
}
