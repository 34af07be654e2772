package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.index.Eligibility;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * L2 (jiyi's layout): events and memories never share a segment, however the change log interleaves
 * them, so a search of one kind visits only that kind's segments ({@link OneKindMerges}).
 */
class OneKindSegmentsTest {

    @TempDir
    Path home;

    @Test
    @DisplayName("L2 an index that follows turn after turn (an event and its memory, Chinese, English and mixed) holds no segment of both kinds, also after its merges and a rebuild, and recall finds what it did")
    void followedTurnsKeepKindsApart() throws IOException {
        Random random = SeededRandom.create("OneKindSegmentsTest.followedTurnsKeepKindsApart");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            lucene.catchUp(a);
            List<Memory> all = new ArrayList<>();
            // Each round's change log holds events and memories in turn; each catch-up flushes a segment
            // of each kind, and 60 rounds of them make the merge policy merge.
            for (int round = 0; round < 60; round++) {
                all.addAll(Archive.fill(a, DIARY, "r" + round, 7, random));
                all.add(Archive.remember(a, DIARY, "zh" + round, "第" + round + "轮我们在杭州西湖边喝龙井茶"));
                all.add(Archive.remember(a, DIARY, "en" + round, "round " + round + " we sailed to Zanzibar"));
                lucene.catchUp(a);
            }
            LuceneIndex.Layout followed = lucene.layout();
            assertThat(followed.mixed()).as("segments holding events and memories").isZero();
            assertThat(followed.events()).as("segments of events").isPositive();
            assertThat(followed.memories()).as("segments of memories").isPositive();
            assertThat(followed.events() + followed.memories()).as("the flushes were merged").isLessThan(60);
            assertThat(Archive.memories(a, lucene, "龙井茶", Eligibility.current(DIARY, NOW), 100)).hasSize(60);
            assertThat(Archive.events(a, lucene, "Zanzibar", DIARY, 100)).hasSize(60);
            assertThat(Archive.memories(a, lucene, "西湖 Zanzibar", Eligibility.current(DIARY, NOW), 200))
                    .as("mixed query").hasSize(120);

            lucene.rebuild(a);
            assertThat(lucene.layout().mixed()).as("after a rebuild").isZero();
            assertThat(Archive.memories(a, lucene, "龙井茶", Eligibility.current(DIARY, NOW), 100)).hasSize(60);
        }
    }

    @Test
    @DisplayName("L2 the merge policy merges each kind on its own: forced to one segment, an index of events, memories and older mixed segments keeps one of each")
    void mergesStayWithinAKind() throws IOException {
        try (FSDirectory dir = FSDirectory.open(home.resolve("plain"))) {
            IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer());
            config.setMergePolicy(new OneKindMerges(new TieredMergePolicy()));
            try (IndexWriter w = new IndexWriter(dir, config)) {
                for (int i = 0; i < 4; i++) {
                    w.addDocument(doc(Documents.EVENT_TEXT, "event " + i));
                    w.flush();
                    w.addDocument(doc(Documents.MEMORY_TEXT, "memory " + i));
                    w.flush();
                    w.addDocument(doc(Documents.EVENT_TEXT, "both " + i));
                    w.addDocument(doc(Documents.MEMORY_TEXT, "both " + i));
                    w.flush();
                }
                w.forceMerge(1);
                w.commit();
            }
            try (DirectoryReader r = DirectoryReader.open(dir)) {
                List<OneKindMerges.Kind> kinds = new ArrayList<>();
                for (LeafReaderContext leaf : r.leaves()) {
                    kinds.add(OneKindMerges.kindOf(leaf.reader().getFieldInfos()));
                }
                assertThat(kinds).containsExactlyInAnyOrder(OneKindMerges.Kind.values());
                assertThat(r.numDocs()).isEqualTo(16);
            }
        }
    }

    private static Document doc(String field, String text) {
        Document d = new Document();
        d.add(new TextField(field, text, Field.Store.NO));
        return d;
    }
}
