package dev.jiyi.analysis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The analysis's own word lists: UTF-8 text resources of this package, one entry a line. */
final class WordLists {

    private WordLists() {
    }

    /**
     * The lines of resource {@code name} of this package, each stripped, without blank lines and
     * comments (a line whose first character that is not a space is {@code #}), numbered from 1 as in
     * the file.
     */
    static List<Line> read(String name) {
        try (InputStream in = WordLists.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            List<Line> lines = new ArrayList<>();
            String line;
            for (int number = 1; (line = r.readLine()) != null; number++) {
                String text = line.strip();
                if (!text.isEmpty() && !text.startsWith("#")) {
                    lines.add(new Line(number, text));
                }
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A line of a word list and its number in the file. */
    record Line(int number, String text) {
    }
}
