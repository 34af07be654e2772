package dev.jiyi.lucene;

import org.apache.lucene.store.FlushInfo;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TurnCache}: which files stay in memory until a commit syncs them (small flushed segments,
 * a segment's stored fields), which go to disk at once (large segments, a segment's vectors and
 * every other file opened with no size known), and that closing never writes out what no commit
 * synced.
 */
class TurnCacheTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("L2 small flushes, stored fields and field infos stay in memory until synced; large flushes, vectors and other unsized files go to disk at once; closing drops what was never synced")
    void whatStaysInMemory() throws IOException {
        IOContext small = IOContext.flush(new FlushInfo(1, 1024));
        IOContext large = IOContext.flush(new FlushInfo(100_000, 64L * 1024 * 1024));
        String storedIndex;
        try (TurnCache cache = new TurnCache(dir)) {
            write(cache.createOutput("_0.fdt", IOContext.DEFAULT));
            write(cache.createOutput("_0.fdm", IOContext.DEFAULT));
            write(cache.createOutput("_0.fnm", IOContext.DEFAULT));
            write(cache.createOutput("_0_Lucene104_0.doc", small));
            storedIndex = written(cache.createTempOutput("_0", "Lucene90FieldsIndex-doc_ids", IOContext.DEFAULT));
            write(cache.createOutput("_0_Lucene99HnswVectorsFormat_0.vec", IOContext.DEFAULT));
            write(cache.createOutput("_1_Lucene104_0.doc", large));
            String points = written(cache.createTempOutput("_0", "bkd", IOContext.DEFAULT));

            assertThat(onDisk()).as("on disk at once").containsExactlyInAnyOrder(
                    "_0_Lucene99HnswVectorsFormat_0.vec", "_1_Lucene104_0.doc", points);
            assertThat(cache.listCachedFiles()).as("in memory").containsExactlyInAnyOrder(
                    "_0.fdt", "_0.fdm", "_0.fnm", "_0_Lucene104_0.doc", storedIndex);
            try (IndexInput in = cache.openInput("_0.fdt", IOContext.DEFAULT)) {
                assertThat(in.readString()).isEqualTo("记忆 memory");
            }

            cache.sync(List.of("_0.fdt", "_0_Lucene104_0.doc"));
            assertThat(onDisk()).as("synced").contains("_0.fdt", "_0_Lucene104_0.doc");
            assertThat(cache.listCachedFiles()).containsExactlyInAnyOrder("_0.fdm", "_0.fnm", storedIndex);
        }
        assertThat(onDisk()).as("after closing: what was synced, never what was not")
                .contains("_0.fdt", "_0_Lucene104_0.doc").doesNotContain("_0.fdm", "_0.fnm", storedIndex);
    }

    private static void write(IndexOutput out) throws IOException {
        written(out);
    }

    private static String written(IndexOutput out) throws IOException {
        try (out) {
            out.writeString("记忆 memory");
        }
        return out.getName();
    }

    private List<String> onDisk() throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> !n.equals("write.lock")).toList();
        }
    }
}
