package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.index.Eligibility;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.remember;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The files a commit writes and syncs. {@link SyncedOnce} under {@link TurnCache}, as the index uses
 * it: every file a commit names was synced after it was last written (so a commit is as durable as
 * before), and a file is synced once, not again by every later commit. And which flushes are one
 * compound file ({@link Handles#COMPOUND_DOCS}).
 */
class CommitFilesTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("L2 each file a commit names is synced after it was written, once: later commits sync only what was written since (Chinese and English text, a deletion and a merge between)")
    void commitsSyncWhatIsNew() throws IOException {
        Recording disk = new Recording(FSDirectory.open(dir));
        try (TurnCache cache = new TurnCache(disk);
                IndexWriter writer = new IndexWriter(cache, config())) {
            Set<String> synced = new HashSet<>();
            writer.addDocument(doc("1", "我每天早上喝乌龙茶 oolong tea every morning"));
            writer.addDocument(doc("2", "周末去香山爬山 hiking at Fragrant Hills"));
            writer.commit();
            assertThat(disk.syncedByLastCall()).as("the first commit syncs every file it names")
                    .containsExactlyInAnyOrderElementsOf(newFiles(disk, synced));
            disk.assertDurable();

            writer.addDocument(doc("3", "晚上练钢琴 piano practice at night"));
            writer.commit();
            assertThat(disk.syncedByLastCall()).as("the next, only the new segment's files").isNotEmpty()
                    .containsExactlyInAnyOrderElementsOf(newFiles(disk, synced));
            disk.assertDurable();

            writer.deleteDocuments(new Term("id", "1"));
            writer.forceMerge(1);
            writer.commit();
            assertThat(disk.syncedByLastCall()).as("after a deletion and a merge, the merged segment's").isNotEmpty()
                    .containsExactlyInAnyOrderElementsOf(newFiles(disk, synced));
            disk.assertDurable();
        }
    }

    /** The last commit's files (its commit point aside, synced alone before) not in {@code synced}, then added to it. */
    private static Set<String> newFiles(Directory d, Set<String> synced) throws IOException {
        Set<String> now = new HashSet<>(SegmentInfos.readLatestCommit(d).files(false));
        now.removeAll(synced);
        synced.addAll(now);
        return now;
    }

    @Test
    @DisplayName("L2 a catch-up of a turn flushes each kind as one compound file; a rebuild, catch-ups of many turns or many events, and merges write segments as their own files (Chinese, English and mixed text)")
    void fewDocumentsCompound() throws IOException {
        Random random = SeededRandom.create("CommitFilesTest.fewDocumentsCompound");
        try (Authority a = Authority.open(dir.resolve("jiyi.db"), List.of());
                LuceneIndex lucene = LuceneIndex.open(dir.resolve("lucene"), LuceneOptions.defaults())) {
            Archive.fill(a, DIARY, "built", 40, random);
            catchUp(lucene, a); // the first search builds the index
            Path index = lucene.directory().orElseThrow();
            assertThat(segments(index)).as("a rebuild").isNotEmpty()
                    .allSatisfy(seg -> assertThat(seg.info.getUseCompoundFile()).isFalse());

            Set<String> before = names(index);
            Memory tea = remember(a, DIARY, "tea", "我每天早上喝乌龙茶 oolong tea every morning");
            assertThat(Archive.rows(Archive.memories(a, lucene, "乌龙茶 oolong", Eligibility.current(DIARY, NOW), 10)))
                    .containsExactly(tea.rowId());
            catchUp(lucene, a);
            List<SegmentCommitInfo> turn = newSegments(index, before);
            assertThat(turn).as("a turn's event and memory, flushed apart").hasSize(2)
                    .allSatisfy(seg -> assertThat(seg.info.getUseCompoundFile()).isTrue());

            Set<String> beforeTurns = names(index);
            for (int i = 0; i < Handles.COMPOUND_DOCS + 36; i++) {
                remember(a, DIARY, "turn" + i, i % 2 == 0 ? "第" + i + "轮 周末去香山爬山" : "turn " + i + " hiking at Fragrant Hills 香山");
            }
            catchUp(lucene, a); // turn after turn in the log: each kind flushed at the kind switch, 100 documents
            assertThat(newSegments(index, beforeTurns)).as("a catch-up of many turns").isNotEmpty()
                    .allSatisfy(seg -> assertThat(seg.info.getUseCompoundFile()).isFalse());

            Set<String> beforeMany = names(index);
            List<EventSubmission> many = new ArrayList<>();
            for (int i = 0; i < 1_500; i++) {
                many.add(new EventSubmission("many-" + i, DIARY, Role.USER, "第" + i + "次 周末爬山 hiking " + random.nextInt(),
                        "lucene-test", Category.CONVERSATION, "s1", Archive.SAID));
            }
            assertThat(a.submitEvents(many).error()).as("precondition").isNull();
            catchUp(lucene, a);
            List<SegmentCommitInfo> large = newSegments(index, beforeMany);
            assertThat(large.stream().mapToInt(seg -> seg.info.maxDoc()).sum()).as("a catch-up of many events")
                    .isGreaterThan(Handles.COMPOUND_DOCS);
            assertThat(large).allSatisfy(seg -> assertThat(seg.info.getUseCompoundFile()).isFalse());
            assertThat(segments(index)).filteredOn(seg -> !"flush".equals(seg.info.getDiagnostics().get("source")))
                    .as("merged").allSatisfy(seg -> assertThat(seg.info.getUseCompoundFile()).isFalse());
        }
    }

    /** Catches up on the whole log, however many calls its time budget takes. */
    private static void catchUp(LuceneIndex lucene, Authority a) {
        while (lucene.catchUp(a).behind() > 0) {
            Thread.onSpinWait();
        }
    }

    private static List<SegmentCommitInfo> newSegments(Path index, Set<String> before) throws IOException {
        return segments(index).stream().filter(seg -> !before.contains(seg.info.name)).toList();
    }

    private static List<SegmentCommitInfo> segments(Path index) throws IOException {
        try (Directory d = FSDirectory.open(index)) {
            List<SegmentCommitInfo> all = new ArrayList<>();
            SegmentInfos.readLatestCommit(d).forEach(all::add);
            return all;
        }
    }

    private static Set<String> names(Path index) throws IOException {
        Set<String> names = new HashSet<>();
        for (SegmentCommitInfo seg : segments(index)) {
            names.add(seg.info.name);
        }
        return names;
    }

    @Test
    @DisplayName("L2 a process that opens the index takes the files of the commit it finds as synced (Lucene synced them before writing that commit): its first commit syncs only what it wrote")
    void aNewProcessTrustsTheLastCommit() throws IOException {
        Set<String> before;
        Recording first = new Recording(FSDirectory.open(dir));
        try (TurnCache cache = new TurnCache(first);
                IndexWriter writer = new IndexWriter(cache, config())) {
            writer.addDocument(doc("1", "我每天早上喝乌龙茶 oolong tea every morning"));
            writer.commit();
            before = Set.copyOf(SegmentInfos.readLatestCommit(first).files(true));
        }
        Recording second = new Recording(FSDirectory.open(dir));
        try (TurnCache cache = new TurnCache(second);
                IndexWriter writer = new IndexWriter(cache, config())) {
            writer.addDocument(doc("2", "周末去香山爬山 hiking at Fragrant Hills"));
            writer.commit();
            assertThat(second.syncedByLastCall()).as("the new segment and the commit point").isNotEmpty()
                    .doesNotContainAnyElementsOf(before);
            second.assertDurable();
        }
    }

    @Test
    @DisplayName("L2 a file written again under a name already synced, or renamed onto it, is synced again")
    void aNameWrittenAgainIsSyncedAgain() throws IOException {
        Recording disk = new Recording(FSDirectory.open(dir));
        try (SyncedOnce once = new SyncedOnce(disk)) {
            write(once, "a", "记忆");
            once.sync(List.of("a"));
            once.sync(List.of("a"));
            assertThat(disk.syncs("a")).as("synced once").isEqualTo(1);

            once.deleteFile("a");
            write(once, "a", "memory");
            once.sync(List.of("a"));
            assertThat(disk.syncs("a")).as("written again").isEqualTo(2);

            write(once, "b", "又一个 another");
            once.sync(List.of("b"));
            once.rename("b", "a");
            once.sync(List.of("a"));
            assertThat(disk.syncs("a")).as("renamed onto").isEqualTo(3);
            disk.assertDurable();
        }
    }

    /** jiyi's layout: no compound files, so a segment is its dozen and more files. */
    private static IndexWriterConfig config() {
        return new IndexWriterConfig(new StandardAnalyzer()).setUseCompoundFile(false);
    }

    private static Document doc(String id, String text) {
        Document d = new Document();
        d.add(new StringField("id", id, Field.Store.NO));
        d.add(new TextField("text", text, Field.Store.NO));
        return d;
    }

    private static void write(Directory d, String name, String text) throws IOException {
        try (IndexOutput out = d.createOutput(name, IOContext.DEFAULT)) {
            out.writeString(text);
        }
    }

    /** The disk, recording what is written, renamed and synced, in order. */
    private static final class Recording extends FilterDirectory {

        /** Per file: whether it was synced since it was last written. */
        private final Map<String, Boolean> durable = new HashMap<>();
        private final Map<String, Integer> syncs = new HashMap<>();
        private final List<String> lastCall = new ArrayList<>();

        Recording(Directory in) {
            super(in);
        }

        @Override
        public synchronized IndexOutput createOutput(String name, IOContext context) throws IOException {
            durable.put(name, false);
            return super.createOutput(name, context);
        }

        @Override
        public synchronized IndexOutput createTempOutput(String prefix, String suffix, IOContext context)
                throws IOException {
            IndexOutput out = super.createTempOutput(prefix, suffix, context);
            durable.put(out.getName(), false);
            return out;
        }

        @Override
        public synchronized void rename(String source, String dest) throws IOException {
            super.rename(source, dest);
            durable.put(dest, durable.remove(source));
        }

        @Override
        public synchronized void deleteFile(String name) throws IOException {
            super.deleteFile(name);
            durable.remove(name);
        }

        @Override
        public synchronized void sync(Collection<String> names) throws IOException {
            super.sync(names);
            lastCall.clear();
            lastCall.addAll(names);
            for (String name : names) {
                durable.put(name, true);
                syncs.merge(name, 1, Integer::sum);
            }
        }

        synchronized List<String> syncedByLastCall() {
            return List.copyOf(lastCall);
        }

        synchronized int syncs(String name) {
            return syncs.getOrDefault(name, 0);
        }

        /**
         * Every file of the last commit (every file, outside an index) written through this directory
         * was synced after its last write.
         */
        synchronized void assertDurable() throws IOException {
            Set<String> named = new HashSet<>(durable.keySet());
            if (SegmentInfos.getLastCommitGeneration(listAll()) >= 0) {
                named = new HashSet<>(SegmentInfos.readLatestCommit(this).files(true));
                named.retainAll(durable.keySet());
            }
            assertThat(named).isNotEmpty();
            for (String name : named) {
                assertThat(durable.get(name)).as("%s synced after it was written", name).isTrue();
            }
        }
    }
}
