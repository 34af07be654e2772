package dev.jiyi.analysis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

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

    private EnglishStems() {
    }

    /** The term of one lower-case ASCII word. */
    static String stem(String word) {
        return PorterStemmer.stem(Forms.BASE.getOrDefault(word, word));
    }

    /** The irregular forms by the word they are forms of, loaded on first use. */
    private static final class Forms {
        static final Map<String, String> BASE = load();

        private static Map<String, String> load() {
            Map<String, String> base = new HashMap<>();
            try (InputStream in = EnglishStems.class.getResourceAsStream(FORMS)) {
                if (in == null) {
                    throw new IllegalStateException("missing resource " + FORMS);
                }
                BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.isBlank() || line.startsWith("#")) {
                        continue;
                    }
                    int colon = line.indexOf(':');
                    String word = line.substring(0, colon).strip();
                    for (String form : line.substring(colon + 1).strip().split(" +")) {
                        if (base.put(form, word) != null) {
                            throw new IllegalStateException(FORMS + ": " + form + " is listed twice");
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Map.copyOf(base);
        }
    }
}
