package dev.jiyi.authority.archive;

import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Limits;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * An archive's bytes as characters, for the JSON parser, refusing what no archive holds before the
 * parser sees it: bytes that are not UTF-8, and a line longer than any row can be. Both are refused
 * with the line they are on ({@link InvalidInputException}, which passes through the parser
 * unwrapped), and neither ever holds more than a buffer in memory. A byte-order mark at the very
 * start (some editors and scripts write one) is skipped.
 */
final class ArchiveInput extends Reader {

    /**
     * The longest line an archive may hold, in characters: a row is one line, and the longest row
     * is a checkpoint at its limits (a goal, a next action and three lists of 100 steps, each
     * {@link Limits#MAX_CHECKPOINT_TEXT} characters), every character escaped as six.
     */
    static final int MAX_LINE = 6 * (3 * Limits.MAX_CHECKPOINT_ITEMS + 2) * Limits.MAX_CHECKPOINT_TEXT + 100_000;

    /** The longest string value, decoded: an event's text, the longest text a row holds. */
    static final int MAX_STRING = Limits.MAX_EVENT_TEXT;

    private final InputStream in;
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final ByteBuffer bytes = ByteBuffer.allocate(1 << 16).flip();
    private final CharBuffer chars = CharBuffer.allocate(1 << 16).flip();
    private long line = 1;
    private long lineLength;
    private long bytesRead;
    private boolean eof;
    private boolean started;

    ArchiveInput(InputStream in) {
        this.in = in;
    }

    /** Bytes read from the stream so far. */
    long bytesRead() {
        return bytesRead;
    }

    @Override
    public int read(char[] buffer, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        if (!chars.hasRemaining() && !fill()) {
            return -1;
        }
        int n = Math.min(length, chars.remaining());
        chars.get(buffer, offset, n);
        return n;
    }

    /** Decodes the next characters, counting lines as it goes; false at the end of the input. */
    private boolean fill() throws IOException {
        chars.clear();
        while (chars.position() == 0) {
            if (!eof) {
                bytes.compact();
                int read = in.read(bytes.array(), bytes.position(), bytes.remaining());
                if (read < 0) {
                    eof = true;
                } else {
                    bytes.position(bytes.position() + read);
                    bytesRead += read;
                }
                bytes.flip();
            }
            CoderResult result = decoder.decode(bytes, chars, eof);
            if (result.isError()) {
                count(0, chars.position());
                throw new InvalidInputException("line " + line, "must be UTF-8 text: the archive holds bytes that are not");
            }
            if (eof) {
                decoder.flush(chars);
                if (chars.position() == 0) {
                    chars.flip();
                    return false;
                }
            }
        }
        count(0, chars.position());
        chars.flip();
        if (!started) {
            started = true;
            if (chars.get(0) == '\uFEFF') {
                chars.get(); // a byte-order mark, not part of the archive
                if (!chars.hasRemaining()) {
                    return fill();
                }
            }
        }
        return true;
    }

    private void count(int from, int to) {
        for (int i = from; i < to; i++) {
            if (chars.get(i) == '\n') {
                line++;
                lineLength = 0;
            } else if (++lineLength > MAX_LINE) {
                throw new InvalidInputException("line " + line,
                        "must be at most " + MAX_LINE + " characters: an archive line holds one row");
            }
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
