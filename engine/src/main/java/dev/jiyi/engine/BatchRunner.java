package dev.jiyi.engine;

import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.JiyiException;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Loads a JSON-lines file (or stdin) in one process, committing in chunks: a chunk commits when it
 * is full or when no more input is waiting, so a host streaming lines gets each acknowledgement as
 * soon as its line is durable. A bad line stops the load; lines before it stay committed, and the
 * report names the line number and how many lines were committed.
 *
 * @param <I> what a line parses into
 * @param <R> what committing an item returns
 */
public final class BatchRunner<I, R> {

    /** Longest accepted input line, in characters. */
    public static final int MAX_LINE = 1_000_000;

    public interface Committer<I, R> {
        BatchResult<R> commit(List<I> items);
    }

    private final Function<JsonLine, I> parser;
    private final java.util.Set<String> fields;
    private final Committer<I, R> committer;
    private final Function<R, Map<String, Object>> ack;
    private final int chunkSize;

    public BatchRunner(java.util.Set<String> fields, Function<JsonLine, I> parser, Committer<I, R> committer,
                Function<R, Map<String, Object>> ack, int chunkSize) {
        if (chunkSize < 1) {
            throw new InvalidInputException("chunk_size", "must be at least 1");
        }
        this.fields = fields;
        this.parser = parser;
        this.committer = committer;
        this.ack = ack;
        this.chunkSize = chunkSize;
    }

    /** Outcome: committed results, the failing line (0 when none), and the error. */
    public record Outcome<R>(List<R> committed, int failedLine, JiyiException error) {
    }

    /**
     * Runs the batch, showing {@code label} and the lines committed as progress on stderr (out of
     * the file's line count when reading a file; a count and a rate for standard input).
     */
    public Outcome<R> run(Path file, InputStream stdin, Output out, String label) {
        try (InputStream in = open(file, stdin, "batch");
             Progress progress = out.progress(label, file == null || file.toString().equals("-") ? 0 : lines(file))) {
            return run(new LineInput(in), out, progress);
        } catch (IOException e) {
            throw new InvalidInputException("batch", "input cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** The file, or standard input for {@code -}; a missing file is invalid input named {@code field}. */
    public static InputStream open(Path file, InputStream stdin, String field) throws IOException {
        if (file.toString().equals("-")) {
            return new BufferedInputStream(stdin, 1 << 16);
        }
        if (!Files.isRegularFile(file)) {
            throw new InvalidInputException(field, "file does not exist or is not a regular file");
        }
        return new BufferedInputStream(Files.newInputStream(file), 1 << 16);
    }

    /**
     * Lines as bytes, decoded one at a time, so that a line that is not UTF-8 is reported with its
     * own number and the lines before it are unaffected.
     */
    public static final class LineInput {
        private final InputStream in;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        public LineInput(InputStream in) {
            this.in = in;
        }

        /** The next line's bytes without its terminator, or null at the end of input. */
        public byte[] next() throws IOException {
            line.reset();
            int b;
            boolean any = false;
            while ((b = in.read()) != -1) {
                any = true;
                if (b == '\n') {
                    break;
                }
                if (line.size() > MAX_LINE * 4) {
                    continue; // keep consuming; the line is rejected as too long
                }
                line.write(b);
            }
            if (!any) {
                return null;
            }
            byte[] bytes = line.toByteArray();
            int n = bytes.length;
            if (n > 0 && bytes[n - 1] == '\r') {
                return java.util.Arrays.copyOf(bytes, n - 1);
            }
            return bytes;
        }

        /** True when more input is buffered or immediately readable. */
        public boolean waiting() throws IOException {
            return in.available() > 0;
        }
    }

    /** A line's bytes as text: UTF-8, at most {@link #MAX_LINE} characters. */
    public static String decode(byte[] bytes) {
        if (bytes.length > MAX_LINE * 4) {
            throw new InvalidInputException("line", "must be at most " + MAX_LINE + " characters");
        }
        String line;
        try {
            line = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidInputException("line", "must be UTF-8 text");
        }
        if (line.length() > MAX_LINE) {
            throw new InvalidInputException("line", "must be at most " + MAX_LINE + " characters");
        }
        return line;
    }

    /** Newlines in the file, plus one when it does not end with one: its line count, read once before the batch. */
    private static long lines(Path file) throws IOException {
        long n = 0;
        int last = '\n';
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            byte[] buffer = new byte[1 << 16];
            for (int read = in.read(buffer); read > 0; read = in.read(buffer)) {
                for (int i = 0; i < read; i++) {
                    if (buffer[i] == '\n') {
                        n++;
                    }
                }
                last = buffer[read - 1];
            }
        }
        return last == '\n' ? n : n + 1;
    }

    private Outcome<R> run(LineInput input, Output out, Progress progress) throws IOException {
        List<R> committed = new ArrayList<>();
        List<I> chunk = new ArrayList<>();
        List<Integer> chunkLines = new ArrayList<>();
        int lineNumber = 0;
        while (true) {
            byte[] bytes = input.next();
            if (bytes == null) {
                break;
            }
            lineNumber++;
            I item = null;
            try {
                String line = decode(bytes);
                if (!line.isBlank()) {
                    item = parser.apply(JsonLine.parse(line, fields));
                }
            } catch (InvalidInputException e) {
                progress.stop();
                Outcome<R> flushed = flush(chunk, chunkLines, committed, out, progress);
                return flushed != null ? flushed : new Outcome<>(committed, lineNumber, e);
            }
            if (item != null) {
                chunk.add(item);
                chunkLines.add(lineNumber);
            }
            if (chunk.size() >= chunkSize || (!chunk.isEmpty() && !input.waiting())) {
                Outcome<R> failed = flush(chunk, chunkLines, committed, out, progress);
                if (failed != null) {
                    return failed;
                }
            }
        }
        Outcome<R> failed = flush(chunk, chunkLines, committed, out, progress);
        if (failed == null) {
            progress.advanceTo(lineNumber); // trailing blank lines are read, so done too
        }
        return failed != null ? failed : new Outcome<>(committed, 0, null);
    }

    /** Commits the chunk; returns a failed outcome, or null when all of it committed. */
    private Outcome<R> flush(List<I> chunk, List<Integer> chunkLines, List<R> committed, Output out,
                             Progress progress) {
        if (chunk.isEmpty()) {
            return null;
        }
        BatchResult<R> result = committer.commit(List.copyOf(chunk));
        for (int i = 0; i < result.committed().size(); i++) {
            R r = result.committed().get(i);
            committed.add(r);
            if (out.json()) {
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("line", chunkLines.get(i));
                line.putAll(ack.apply(r));
                out.json(line);
            }
        }
        // On a terminal the progress line is redrawn in place: a line on stdout would break it.
        if (!out.json() && !result.committed().isEmpty() && !progress.redraws()) {
            out.text("committed " + committed.size() + " so far (through line "
                    + chunkLines.get(result.committed().size() - 1) + ")");
        }
        if (!result.committed().isEmpty()) {
            // Lines through the last committed one are done (blank lines among them included).
            progress.advanceTo(chunkLines.get(result.committed().size() - 1));
        }
        Outcome<R> outcome = result.failed()
                ? new Outcome<>(committed, chunkLines.get(result.failedAt()), result.error())
                : null;
        if (outcome != null) {
            progress.stop();
        }
        chunk.clear();
        chunkLines.clear();
        return outcome;
    }
}
