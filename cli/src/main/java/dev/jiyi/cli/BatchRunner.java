package dev.jiyi.cli;

import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.JiyiException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
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
final class BatchRunner<I, R> {

    /** Longest accepted input line, in characters. */
    static final int MAX_LINE = 1_000_000;

    interface Committer<I, R> {
        BatchResult<R> commit(List<I> items);
    }

    private final Function<JsonLine, I> parser;
    private final java.util.Set<String> fields;
    private final Committer<I, R> committer;
    private final Function<R, Map<String, Object>> ack;
    private final int chunkSize;

    BatchRunner(java.util.Set<String> fields, Function<JsonLine, I> parser, Committer<I, R> committer,
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
    record Outcome<R>(List<R> committed, int failedLine, JiyiException error) {
    }

    Outcome<R> run(Path file, InputStream stdin, Output out) {
        try (BufferedReader reader = open(file, stdin)) {
            return run(reader, out);
        } catch (IOException e) {
            throw new InvalidInputException("batch", "input cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static BufferedReader open(Path file, InputStream stdin) throws IOException {
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        if (file.toString().equals("-")) {
            return new BufferedReader(new InputStreamReader(stdin, decoder));
        }
        if (!Files.isRegularFile(file)) {
            throw new InvalidInputException("batch", "file does not exist or is not a regular file");
        }
        return new BufferedReader(new InputStreamReader(Files.newInputStream(file), decoder));
    }

    private Outcome<R> run(BufferedReader reader, Output out) throws IOException {
        List<R> committed = new ArrayList<>();
        List<I> chunk = new ArrayList<>();
        List<Integer> chunkLines = new ArrayList<>();
        int lineNumber = 0;
        while (true) {
            String line;
            try {
                line = reader.readLine();
            } catch (java.nio.charset.CharacterCodingException e) {
                Outcome<R> flushed = flush(chunk, chunkLines, committed, out);
                return flushed != null ? flushed
                        : new Outcome<>(committed, lineNumber + 1, new InvalidInputException("line", "must be UTF-8 text"));
            }
            if (line == null) {
                break;
            }
            lineNumber++;
            if (!line.isBlank()) {
                I item;
                try {
                    if (line.length() > MAX_LINE) {
                        throw new InvalidInputException("line", "must be at most " + MAX_LINE + " characters");
                    }
                    item = parser.apply(JsonLine.parse(line, fields));
                } catch (InvalidInputException e) {
                    Outcome<R> flushed = flush(chunk, chunkLines, committed, out);
                    return flushed != null ? flushed : new Outcome<>(committed, lineNumber, e);
                }
                chunk.add(item);
                chunkLines.add(lineNumber);
            }
            if (chunk.size() >= chunkSize || (!chunk.isEmpty() && !reader.ready())) {
                Outcome<R> failed = flush(chunk, chunkLines, committed, out);
                if (failed != null) {
                    return failed;
                }
            }
        }
        Outcome<R> failed = flush(chunk, chunkLines, committed, out);
        return failed != null ? failed : new Outcome<>(committed, 0, null);
    }

    /** Commits the chunk; returns a failed outcome, or null when all of it committed. */
    private Outcome<R> flush(List<I> chunk, List<Integer> chunkLines, List<R> committed, Output out) {
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
        if (!out.json() && !result.committed().isEmpty()) {
            out.text("committed " + committed.size() + " so far (through line "
                    + chunkLines.get(result.committed().size() - 1) + ")");
        }
        Outcome<R> outcome = result.failed()
                ? new Outcome<>(committed, chunkLines.get(result.failedAt()), result.error())
                : null;
        chunk.clear();
        chunkLines.clear();
        return outcome;
    }
}
