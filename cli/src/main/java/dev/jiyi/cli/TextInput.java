package dev.jiyi.cli;

import dev.jiyi.authority.InvalidInputException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Text given inline ({@code --text}) or from a UTF-8 file ({@code --file}, {@code -} for stdin). */
final class TextInput {

    private TextInput() {
    }

    static String read(String inline, Path file, InputStream stdin, String field, int maxChars) {
        if (inline != null) {
            return inline;
        }
        byte[] bytes;
        try {
            if (file.toString().equals("-")) {
                bytes = stdin.readNBytes(maxChars * 4 + 1);
                if (bytes.length > maxChars * 4) {
                    throw new InvalidInputException(field, "must be at most " + maxChars + " characters");
                }
            } else {
                if (!Files.isRegularFile(file)) {
                    throw new InvalidInputException(field, "file does not exist or is not a regular file");
                }
                if (Files.size(file) > (long) maxChars * 4) {
                    throw new InvalidInputException(field, "must be at most " + maxChars + " characters");
                }
                bytes = Files.readAllBytes(file);
            }
        } catch (IOException e) {
            throw new InvalidInputException(field, "file cannot be read (" + e.getClass().getSimpleName() + ")");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidInputException(field, "file must be UTF-8 text");
        }
        if (text.length() > maxChars) {
            throw new InvalidInputException(field, "must be at most " + maxChars + " characters");
        }
        return text;
    }
}
