package dev.jiyi.cli;

import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.Progress;
import dev.jiyi.engine.VectorReindex;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.providers.ProviderException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code jiyi reindex}: rebuilds the FTS5 index from the stored text, in one transaction (indexes
 * rebuild themselves when their version changes; this is for an index that {@code doctor} reports
 * out of step). {@code --vectors} instead embeds the scope's memories that lack a vector of the
 * current embedding model (V3, V4); {@code --lucene} rebuilds the derived Lucene index from the
 * authority (L1), {@code --opensearch} the home's documents in the OpenSearch cluster. With
 * {@code --vectors} and one of them, the vectors come first, so that the rebuilt index holds them.
 */
@Command(name = "reindex", description = {"Rebuild the search indexes from the stored events and memories.",
        "Without options: the FTS5 index, in one transaction (readers keep the old index",
        "until it commits). With --vectors: embed the scope's memories that have no",
        "vector of the current embedding model, outside any transaction, and store the",
        "vectors only after every one was computed. With --lucene: rebuild the Lucene",
        "index from the authority into a fresh directory and switch to it. With",
        "--opensearch: rebuild the home's documents in the OpenSearch cluster",
        "(index.opensearch.url). With --vectors and one of them: vectors first."})
final class ReindexCommand extends Verb {

    @Option(names = "--vectors", description = "Complete the scope's vectors instead of rebuilding FTS5.")
    boolean vectors;

    @Option(names = "--lucene", description = "Rebuild the Lucene index ($JIYI_HOME/lucene) instead of FTS5.")
    boolean lucene;

    @Option(names = "--opensearch", description = "Rebuild the home's documents in the OpenSearch cluster instead of FTS5.")
    boolean opensearch;

    @Override
    int run(Jiyi jiyi, Output out) throws IOException {
        if (lucene && opensearch) {
            throw new dev.jiyi.authority.InvalidInputException("--opensearch", "cannot be combined with --lucene");
        }
        if (vectors) {
            int code = vectors(jiyi, out, System.nanoTime());
            if (code != ExitCode.OK || !(lucene || opensearch)) {
                return code; // a failed embedding stops here: the derived index is left as it was
            }
        }
        if (lucene || opensearch) {
            return derived(jiyi, out, lucene ? IndexKind.LUCENE : IndexKind.OPENSEARCH, System.nanoTime());
        }
        long started = System.nanoTime();
        Backend.Rebuilt fed;
        try (Progress progress = out.progress("reindex", rows(jiyi))) {
            fed = jiyi.backend(IndexKind.FTS5).rebuild(jiyi.authority(), progress::advance);
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rebuilt", IndexKind.FTS5.code());
            m.put("events", fed.events());
            m.put("memories", fed.memories());
            m.put("millis", millis);
            out.json(m);
        } else {
            out.text("rebuilt the FTS5 index: " + fed.events() + " events, " + fed.memories() + " memories in " + millis + " ms");
        }
        return ExitCode.OK;
    }

    /** Events and memories: what a rebuild feeds, the total its progress counts toward. */
    private static long rows(Jiyi jiyi) {
        return jiyi.authority().tableCounts().indexed();
    }

    /** Rebuilds a derived index (Lucene, OpenSearch) from the authority. */
    private int derived(Jiyi jiyi, Output out, IndexKind kind, long started) {
        Backend.Rebuilt fed;
        try (Progress progress = out.progress("reindex --" + kind.code(), rows(jiyi))) {
            fed = jiyi.backend(kind).rebuild(jiyi.authority(), progress::advance);
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        Optional<Path> directory = fed.directory();
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rebuilt", kind.code());
            m.put("events", fed.events());
            m.put("memories", fed.memories());
            m.put("vectors", fed.vectors());
            m.put("applied_seq", fed.head());
            m.put("directory", directory.map(d -> d.getFileName().toString()).orElse(null));
            m.put("millis", millis);
            out.json(m);
        } else {
            out.text("rebuilt the " + (kind == IndexKind.LUCENE ? "Lucene" : "OpenSearch") + " index: " + fed.events() + " events, " + fed.memories() + " memories, "
                    + fed.vectors() + " vectors, up to change-log sequence " + fed.head() + " in " + millis + " ms"
                    + directory.map(d -> " (" + d + ")").orElse(""));
        }
        return ExitCode.OK;
    }

    private int vectors(Jiyi jiyi, Output out, long started) throws IOException {
        VectorReindex.Report report;
        try {
            report = new VectorReindex(jiyi.authority(), jiyi.embedders(), jiyi.home().dir()).run(scope(), out);
        } catch (ProviderException e) {
            out.error(ExitCode.PROVIDER, "vectors not rebuilt, nothing was replaced: " + e.getMessage());
            return ExitCode.PROVIDER;
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rebuilt", "vectors");
            m.put("fingerprint", report.fingerprint());
            m.put("fingerprints", report.fingerprints());
            m.put("embedded", report.embedded());
            m.put("stored", report.stored());
            m.put("skipped", report.skipped());
            m.put("millis", millis);
            out.json(m);
        } else {
            out.text("vectors: " + report.embedded() + " memories embedded, " + report.stored() + " stored, "
                    + report.skipped() + " skipped (changed or deleted meanwhile) in " + millis + " ms");
        }
        return ExitCode.OK;
    }
}
