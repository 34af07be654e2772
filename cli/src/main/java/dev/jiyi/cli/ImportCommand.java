package dev.jiyi.cli;

import dev.jiyi.authority.archive.ArchiveReport;
import dev.jiyi.lucene.LuceneIndex;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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
            report = jiyi.authority().importArchive(in, progress);
            progress.finished();
        }
        return report(jiyi, out, "imported", report, started);
    }

    /**
     * After an import or a restore committed: rebuilds the home's Lucene index if it has one, and
     * reports the rows per table and what is left to do (vectors).
     */
    static int report(Jiyi jiyi, Output out, String verb, ArchiveReport report, long started) {
        boolean lucene = Files.isDirectory(jiyi.home().dir().resolve("lucene"));
        if (lucene) {
            LuceneIndex index = jiyi.lucene();
            try (Progress progress = out.progress(verb + ": lucene", report.rows().indexed())) {
                index.rebuild(jiyi.authority(), progress::advance);
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
            m.put("indexes", lucene ? java.util.List.of("fts5", "lucene") : java.util.List.of("fts5"));
            m.put("next", vectors);
            out.json(m);
        } else {
            out.text(String.format("%s %,d rows (archive format version %d, %,d bytes) in %d ms; rebuilt FTS5%s",
                    verb, report.total(), report.version(), report.bytes(), millis, lucene ? " and Lucene" : ""));
            report.rows().byName().forEach((table, rows) -> out.text(String.format("  %-16s %d", table, rows)));
            out.text(vectors);
        }
        return ExitCode.OK;
    }
}
