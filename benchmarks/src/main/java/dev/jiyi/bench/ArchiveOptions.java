package dev.jiyi.bench;

import picocli.CommandLine.Option;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The options every harness over {@link CachedArchive}s shares (a picocli mixin): where archives are
 * kept, how they are loaded, the seed, and an optional JSON file for the figures.
 */
public final class ArchiveOptions {

    @Option(names = "--archives", paramLabel = "DIR",
            description = "Where built archives are kept and reused (default: jiyi-bench-archives under java.io.tmpdir).")
    Path archives = CachedArchive.DEFAULT_ROOT;

    @Option(names = "--chunk-size", paramLabel = "N", defaultValue = "2000",
            description = "Events and memories per batch call while building (default: ${DEFAULT-VALUE}).")
    int chunkSize;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "" + ChatCorpus.DEFAULT_SEED,
            description = "Corpus and query seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures to FILE as JSON.")
    Path json;

    /** The archive of {@code size} memories (with {@code vectors} when not null), cached or built now. */
    CachedArchive archive(int size, CachedArchive.VectorSpec vectors, PrintStream log) {
        return CachedArchive.open(archives, size, seed, vectors, chunkSize, log);
    }

    /** Writes {@code report} to the {@code --json} file, indented, if one was given. */
    void writeJson(Object report, PrintStream log) throws IOException {
        if (json == null) {
            return;
        }
        JsonMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
        Files.writeString(json, mapper.writeValueAsString(report) + "\n", StandardCharsets.UTF_8);
        log.println("figures written to " + json);
    }
}
