package dev.jiyi.cli;

import dev.jiyi.engine.HostCapture;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;

/**
 * {@code jiyi host-ingest} (H1, D4): flags in, the capture itself is the engine's {@link HostCapture}
 * (the cursor rules are described there).
 */
@Command(name = "host-ingest", description = {"Capture a host's visible messages and checkpoints through the instance's cursor.",
        "One JSON object per line: a message {\"id\", \"role\", \"text\", \"session\", \"occurred_at\",",
        "\"source\"?, \"category\"?} or {\"checkpoint\": {\"session\", \"goal\", \"done\"?, \"pending\"?,",
        "\"constraints\"?, \"next\"?, \"covered_seq\" or \"covered_id\"}}. Messages older than the",
        "cursor's are skipped; new ones commit first; the cursor moves last, by compare-and-set",
        "(exit 3 when another capture of the instance moved it meanwhile: run again)."})
final class HostIngestCommand extends Verb {

    @Option(names = "--instance", required = true, paramLabel = "ID",
            description = "The host installation whose cursor this capture advances.")
    String instance;

    @Option(names = "--file", paramLabel = "F", description = "JSON-lines file (default: standard input).")
    Path file;

    @Option(names = "--chunk-size", paramLabel = "N", defaultValue = "500",
            description = "Messages per transaction at most (default: ${DEFAULT-VALUE}).")
    int chunkSize;

    @Override
    int run(Jiyi jiyi, Output out) throws IOException {
        return new HostCapture(instance, scope(), file, root().stdin(), chunkSize).run(jiyi, out);
    }
}
