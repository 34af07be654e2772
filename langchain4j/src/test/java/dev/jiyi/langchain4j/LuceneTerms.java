package dev.jiyi.langchain4j;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The terms of every Lucene index in a home, read through Lucene (a byte scan cannot see them: the
 * terms dictionary compresses its blocks), for deletion tests (D1).
 */
final class LuceneTerms {

    private LuceneTerms() {
    }

    /** Every term, in any field of any index under {@code home/lucene}, whose text contains {@code piece}. */
    static List<String> containing(Path home, String piece) throws IOException {
        List<String> found = new ArrayList<>();
        Path root = home.resolve("lucene");
        if (!Files.isDirectory(root)) {
            return found;
        }
        List<Path> indexes;
        try (Stream<Path> dirs = Files.walk(root)) {
            indexes = dirs.filter(Files::isDirectory).filter(LuceneTerms::hasCommit).toList();
        }
        for (Path dir : indexes) {
            try (FSDirectory directory = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(directory)) {
                for (LeafReaderContext leaf : reader.leaves()) {
                    for (FieldInfo field : leaf.reader().getFieldInfos()) {
                        Terms terms = leaf.reader().terms(field.name);
                        if (terms == null) {
                            continue;
                        }
                        TermsEnum each = terms.iterator();
                        for (BytesRef term = each.next(); term != null; term = each.next()) {
                            if (term.utf8ToString().contains(piece)) {
                                found.add(field.name + ":" + term.utf8ToString().replace('\u0000', '/'));
                            }
                        }
                    }
                }
            }
        }
        return found;
    }

    private static boolean hasCommit(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(f -> f.getFileName().toString().startsWith("segments_"));
        } catch (IOException e) {
            return false;
        }
    }
}
