package dev.jiyi.analysis;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Build step: compiles jieba's text dictionary and HMM model into the binary resource that
 * {@link JiebaDictionary#load()} reads. Run by the analysis module's build with the output path
 * {@code target/classes/dev/jiyi/analysis/jieba-dict.bin}.
 */
public final class DictionaryCompiler {

    private DictionaryCompiler() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: DictionaryCompiler OUTPUT_FILE");
        }
        Path output = Path.of(args[0]);
        Files.createDirectories(output.toAbsolutePath().getParent());
        JiebaDictionary dict = JiebaDictionary.compileFromJieba();
        Path tmp = output.resolveSibling(output.getFileName() + ".tmp");
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16))) {
            dict.write(out);
        }
        Files.move(tmp, output, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        System.out.println("jieba dictionary compiled: " + dict.size() + " words -> " + output);
    }
}
