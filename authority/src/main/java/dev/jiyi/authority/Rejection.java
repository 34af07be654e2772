package dev.jiyi.authority;

/**
 * An item of an extraction batch that was not saved (X4): its position in the model's answer, the
 * field and the rule it broke. Never the item's text.
 */
public record Rejection(int index, String field, String rule) {

    /** The stored form, {@code #3 quote: must be ...}, readable with any JSON tool. */
    public String encode() {
        return "#" + index + " " + field + ": " + rule;
    }

    public static Rejection decode(String s) {
        int space = s.indexOf(' ');
        int colon = s.indexOf(": ", space);
        return new Rejection(Integer.parseInt(s.substring(1, space)), s.substring(space + 1, colon), s.substring(colon + 2));
    }

    /** An input error of item {@code index}. */
    public static Rejection of(int index, InvalidInputException e) {
        return new Rejection(index, e.field(), e.rule());
    }
}
