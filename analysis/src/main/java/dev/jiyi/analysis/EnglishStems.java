package dev.jiyi.analysis;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The term an English word is indexed and searched as: its Porter stem ({@link PorterStemmer}),
 * after an irregular form is taken back to the word it is a form of ({@code bought} to {@code buy},
 * {@code went} to {@code go}, {@code children} to {@code child}). A question about a past event asks
 * with the base word ("what did I buy?") while the turn it asks about says the past form ("I bought a
 * Subaru"); suffix rules join {@code visited} and {@code visit}, not {@code bought} and {@code buy}.
 * The forms are listed in {@value #FORMS}.
 */
final class EnglishStems {

    private static final String FORMS = "english-irregular-forms.txt";
    private static final Pattern WORD = Pattern.compile("[a-z]+");

    private EnglishStems() {
    }

    /** The term of one lower-case ASCII word. */
    static String stem(String word) {
        return PorterStemmer.stem(Forms.BASE.getOrDefault(word, word));
    }

    /** The irregular forms by the word they are forms of, loaded on first use. */
    private static final class Forms {
        static final Map<String, String> BASE = load();

        /** Each line {@code word: form form ...}, lower-case ASCII letters; no form is listed twice or is a listed word. */
        private static Map<String, String> load() {
            Map<String, String> base = new HashMap<>();
            Set<String> words = new HashSet<>();
            for (WordLists.Line line : WordLists.read(FORMS)) {
                String[] parts = line.text().split("\\s*:\\s*", -1);
                if (parts.length != 2 || !WORD.matcher(parts[0]).matches() || parts[1].isEmpty()) {
                    throw new IllegalStateException(FORMS + " line " + line.number() + ": must be a word, a colon and its forms");
                }
                words.add(parts[0]);
                for (String form : parts[1].split("\\s+")) {
                    if (!WORD.matcher(form).matches() || base.put(form, parts[0]) != null) {
                        throw new IllegalStateException(FORMS + " line " + line.number() + ": a form must be a word listed once");
                    }
                }
            }
            for (String form : base.keySet()) {
                if (words.contains(form)) {
                    throw new IllegalStateException(FORMS + ": " + form + " is both a word and a form");
                }
            }
            return Map.copyOf(base);
        }
    }
}
