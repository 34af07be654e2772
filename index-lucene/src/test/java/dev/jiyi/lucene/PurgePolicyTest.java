package dev.jiyi.lucene;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.InfoStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * D1 L4: a purge rewrites the named segments that hold deleted documents, and says when it had to
 * pass one over because a background merge was rewriting it (that merge carries the deleted text
 * into a new segment, which the follower then purges in another round).
 */
class PurgePolicyTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("D1 L4 a named segment with a deleted document is rewritten, or, while a merge holds it, passed over and reported")
    void passesOverAMergingSegmentAndSaysSo() throws IOException {
        try (FSDirectory directory = FSDirectory.open(dir)) {
            IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer()).setMergePolicy(NoMergePolicy.INSTANCE);
            try (IndexWriter w = new IndexWriter(directory, config)) {
                // Two documents a segment (a segment whose every document is deleted is dropped whole).
                for (List<String> segment : List.of(List.of("翡翠麒麟 zephyrquartz", "下雨 rain"),
                        List.of("咖啡 coffee", "地铁 subway"), List.of("周末 weekend", "钢琴 piano"))) {
                    for (String text : segment) {
                        Document d = new Document();
                        d.add(new StringField(Documents.KEY, text.substring(0, 2), Field.Store.NO));
                        d.add(new TextField(Documents.MEMORY_TEXT, text, Field.Store.NO));
                        w.addDocument(d);
                    }
                    w.flush();
                }
                w.deleteDocuments(new Term(Documents.KEY, "翡翠"));
                w.commit();
            }
            SegmentInfos infos = SegmentInfos.readLatestCommit(directory);
            SegmentCommitInfo held = infos.info(0);
            assertThat(held.getDelCount()).as("precondition: the first segment holds the deleted document").isOne();
            PurgePolicy policy = new PurgePolicy(new TieredMergePolicy());

            policy.purge(List.of(held.info.name, infos.info(1).info.name));
            MergePolicy.MergeSpecification merging = policy.findForcedDeletesMerges(infos, context(Set.of(held)));
            assertThat(merging).as("nothing to rewrite while the merge holds it").isNull();
            assertThat(policy.passedOver()).isTrue();

            policy.purge(List.of(held.info.name));
            MergePolicy.MergeSpecification free = policy.findForcedDeletesMerges(infos, context(Set.of()));
            assertThat(free.merges).hasSize(1);
            assertThat(free.merges.getFirst().segments).containsExactly(held);
            assertThat(policy.passedOver()).isFalse();

            policy.done();
            assertThat(policy.findForcedDeletesMerges(infos, context(Set.of()))).as("nothing named").isNull();
        }
    }

    private static MergePolicy.MergeContext context(Set<SegmentCommitInfo> merging) {
        return new MergePolicy.MergeContext() {
            @Override
            public int numDeletesToMerge(SegmentCommitInfo info) {
                return info.getDelCount();
            }

            @Override
            public int numDeletedDocs(SegmentCommitInfo info) {
                return info.getDelCount();
            }

            @Override
            public InfoStream getInfoStream() {
                return InfoStream.NO_OUTPUT;
            }

            @Override
            public Set<SegmentCommitInfo> getMergingSegments() {
                return merging;
            }
        };
    }
}
