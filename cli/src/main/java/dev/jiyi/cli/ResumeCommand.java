package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Views;
import dev.jiyi.pack.Pack;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/** {@code jiyi resume}: the budgeted context pack for the next model call (P1-P5). */
@Command(name = "resume", description = {"Pack a budgeted context for the next model call.",
        "The pack holds the persona, checkpoint, agreements and growth, recalled",
        "memories, current emotion and recent turns, each whole or omitted."})
final class ResumeCommand extends Verb {

    @Mixin
    PackOptions packOptions = new PackOptions();

    @Option(names = "--model", paramLabel = "M",
            description = "The model the context is for: OpenAI models count tokens (cl100k_base, o200k_base), "
                    + "any other counts UTF-8 bytes (default: bytes).")
    String model;

    @Option(names = "--query", paramLabel = "Q",
            description = "Recall by this (default: the checkpoint and the latest user turn).")
    String query;

    @Override
    int run(Jiyi jiyi, Output out) {
        Pack pack = jiyi.pack(packOptions.index, packOptions.request(scope(), model, query));
        jiyi.takeNotices().forEach(out::notice);
        if (out.json()) {
            out.json(Views.pack(pack));
            return ExitCode.OK;
        }
        if (pack.status().equals(Pack.INSUFFICIENT_BUDGET)) {
            out.warn("insufficient budget: the persona and framing alone need more than " + pack.budget() + " "
                    + unit(pack) + "; raise --budget or shorten the persona (jiyi persona edit)");
        } else {
            out.text(pack.context());
        }
        out.text("");
        out.text("-- " + pack.tokens() + " of " + pack.budget() + " " + unit(pack) + " (" + pack.tokenizer() + ")");
        List<String> included = new ArrayList<>();
        pack.included().forEach((k, n) -> included.add(k + " (" + n + ")"));
        out.text("included: " + (included.isEmpty() ? "nothing" : String.join(", ", included)));
        out.text("omitted (did not fit): " + (pack.omitted().isEmpty() ? "nothing" : String.join(", ", pack.omitted())));
        if (!pack.empty().isEmpty()) {
            out.text("empty: " + String.join(", ", pack.empty()));
        }
        out.text("recalled by: " + pack.recalledBy());
        pack.warnings().forEach(out::warn);
        return ExitCode.OK;
    }

    private static String unit(Pack pack) {
        return pack.tokenizer().equals("utf8_bytes") ? "bytes" : "tokens";
    }
}
