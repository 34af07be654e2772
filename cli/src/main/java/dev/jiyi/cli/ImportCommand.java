package dev.jiyi.cli;

import dev.jiyi.authority.archive.ArchiveReport;
import dev.jiyi.engine.BatchRunner;
import dev.jiyi.engine.ExitCode;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Output;
import dev.jiyi.engine.PhasedProgress;
import dev.jiyi.engine.Progress;
import dev.jiyi.authority.index.Backend;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code jiyi import FILE} (O4): an archive into an empty home, checked whole before anything
 * commits (one transaction), then indexed: FTS5 in the same transaction, the Lucene index after it
 * when the home has one. Vectors are not in archives: {@code reindex --vectors} computes them.
 */
@Command(name = "import", description = {"Load an archive made by export into an empty home.",
        "Everything is checked before anything is committed (one transaction): a bad archive",
        "is refused with its line, field and rule, and the home stays empty. FTS5 (and Lucene,",
        "if the home has one) is rebuilt; vectors need reindex --vectors."})
final class ImportCommand extends Verb {

    @Parameters(paramLabel = "FILE", description = "The archive (json or jsonl; - for stdin).")
    Path file;

    @Override
    int run(Jiyi jiyi, Output out) throws IOException {
        long started = System.nanoTime();
        ArchiveReport report;
        try (InputStream in = BatchRunner.open(file, root().stdin(), "file"); PhasedProgress progress = new PhasedProgress(out)) {
            report = jiyi.authority().archives().importFrom(in, progress);
            progress.finished();
        }
        return report(jiyi, out, "imported", report, started);
    }

    /**
     * After an import or a restore committed: rebuilds each derived index the home has a folder of
     * (Lucene), and reports the rows per table and what is left to do (vectors). FTS5 was rebuilt in
     * the import's transaction.
     */
    static int report(Jiyi jiyi, Output out, String verb, ArchiveReport report, long started) {
        List<String> indexes = new ArrayList<>(List.of(IndexKind.FTS5.code()));
        StringBuilder rebuilt = new StringBuilder();
        for (IndexKind kind : IndexKind.values()) {
            Backend backend = jiyi.backend(kind);
            if (backend.folder().isPresent() && Files.isDirectory(jiyi.home().dir().resolve(backend.folder().get()))) {
                try (Progress progress = out.progress(verb + ": " + backend.name(), report.rows().indexed())) {
                    backend.rebuild(jiyi.authority(), progress::advance);
                }
                indexes.add(backend.name());
                rebuilt.append(" and ").append(Character.toUpperCase(backend.name().charAt(0)))
                        .append(backend.name().substring(1));
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        String vectors = "no vectors: run reindex --vectors for semantic and deep recall";
        if (out.json()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put(verb, report.total());
            m.put("version", report.version());
            m.put("bytes", report.bytes());
            m.put("millis", millis);
            m.put("rows", report.rows().byName());
            m.put("indexes", indexes);
            m.put("next", vectors);
            out.json(m);
        } else {
            out.text(String.format("%s %,d rows (archive format version %d, %,d bytes) in %d ms; rebuilt FTS5%s",
                    verb, report.total(), report.version(), report.bytes(), millis, rebuilt));
            report.rows().byName().forEach((table, rows) -> out.text(String.format("  %-16s %d", table, rows)));
            out.text(vectors);
        }
        return ExitCode.OK;
    }
}
