package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.Settings;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.memories;
import static dev.jiyi.lucene.Archive.remember;
import static dev.jiyi.lucene.Archive.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the index commits what it applied ({@link LuceneFollower}'s class comment): a search finds
 * what it applied at once without paying a commit; {@code catchUp}, closing and any deletion commit;
 * a process killed before committing loses nothing, because the next one applies the log again.
 */
class LuceneCommitTest {

    private static final Eligibility CURRENT = Eligibility.current(DIARY, NOW);

    @TempDir
    Path home;

    @Test
    @DisplayName("L2 L4 a search applies the log and finds it at once; catchUp, close and a deletion commit it (a deletion at once, with no residue of the deleted memory in the last commit)")
    void searchesCommitLater() throws IOException {
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            Memory tea = remember(a, DIARY, "tea", "我每天早上喝乌龙茶 oolong tea every morning");
            Path dir;
            Memory violin;
            try (LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                lucene.catchUp(a);
                dir = lucene.directory().orElseThrow();
                assertThat(committed(dir, tea)).as("catchUp commits").isTrue();

                Memory hike = remember(a, DIARY, "hike", "周末去香山爬山 hiking at Fragrant Hills");
                assertThat(rows(memories(a, lucene, "爬山 hiking", CURRENT, 10))).containsExactly(hike.rowId());
                assertThat(committed(dir, hike)).as("a search's catch-up is searched, not yet committed").isFalse();
                lucene.catchUp(a);
                assertThat(committed(dir, hike)).as("catchUp commits what searches applied before").isTrue();

                Memory piano = remember(a, DIARY, "piano", "晚上练钢琴 piano practice at night");
                assertThat(rows(memories(a, lucene, "钢琴 piano", CURRENT, 10))).containsExactly(piano.rowId());
                assertThat(committed(dir, piano)).isFalse();
                a.deleteMemory(DIARY, tea.id());
                assertThat(rows(memories(a, lucene, "乌龙茶 oolong", CURRENT, 10))).isEmpty();
                assertThat(committed(dir, tea)).as("a deletion is committed by the search that applies it").isFalse();
                assertThat(committed(dir, piano)).as("with everything applied before it").isTrue();

                violin = remember(a, DIARY, "swim", "周六学游泳 swimming lessons on Saturday");
                assertThat(rows(memories(a, lucene, "游泳 swimming", CURRENT, 10))).containsExactly(violin.rowId());
                assertThat(committed(dir, violin)).isFalse();
            }
            assertThat(committed(dir, violin)).as("closing commits").isTrue();
        }
    }

    @Test
    @DisplayName("L2 D1 L4 keepUp applies the log as a search would, with no search: current at once, committed only when due, a deletion purged and committed at once; the durable keepUp commits; an index not opened is left to its first search (Chinese, English)")
    void keepUpAppliesBetweenSearches() throws IOException {
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneBackend backend = new LuceneBackend(home, Settings.NONE)) {
            Memory tea = remember(a, DIARY, "tea", "我每天早上喝乌龙茶 oolong tea every morning");
            assertThat(backend.keepUp(a, true)).as("not opened: nothing to follow here").isEqualTo(Backend.CURRENT);
            assertThat(backend.opened()).as("left to its first search").isEmpty();

            LuceneIndex lucene = backend.index();
            lucene.catchUp(a);
            long committedAt = System.nanoTime();
            Path dir = lucene.directory().orElseThrow();
            Memory hike = remember(a, DIARY, "hike", "周末去香山爬山 hiking at Fragrant Hills");
            long head = a.read(s -> s.changeLogHead());
            assertThat(backend.keepUp(a, false)).as("applied through the head, with no search").isEqualTo(head);
            if (System.nanoTime() - committedAt < TimeUnit.SECONDS.toNanos(8)) { // (the index's own rule commits at 10 s)
                assertThat(committed(dir, hike)).as("the last commit is recent: not committed yet").isFalse();
            }
            assertThat(rows(memories(a, lucene, "爬山 hiking", CURRENT, 10))).containsExactly(hike.rowId());
            assertThat(backend.keepUp(a, true)).isEqualTo(head);
            assertThat(committed(dir, hike)).as("once writes pause, a durable keep-up commits").isTrue();

            assertThat(FileBytes.filesContaining(home.resolve("lucene"), "oolong")).as("the check can see the term").isNotEmpty();
            a.deleteMemory(DIARY, tea.id());
            backend.keepUp(a, false);
            assertThat(committed(dir, tea)).as("a deletion is committed by the keep-up that applies it").isFalse();
            assertThat(FileBytes.filesContaining(home.resolve("lucene"), "oolong")).as("and purged from the files").isEmpty();
        }
    }

    @Test
    @DisplayName("L2 L4 what a search applies between commits is kept in memory, not written to files: no file appears until catchUp commits it, and then the turns are on disk (Chinese, English, mixed)")
    void searchesWriteNoFileBeforeTheCommit() throws IOException {
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            remember(a, DIARY, "tea", "我每天早上喝乌龙茶 oolong tea every morning");
            lucene.catchUp(a);
            Path dir = lucene.directory().orElseThrow();
            Set<String> before = files(dir);
            List<Memory> said = new ArrayList<>();
            for (String text : List.of("周末去香山爬山", "piano practice at night", "晚上练钢琴 piano", "周六学游泳 swimming")) {
                said.add(remember(a, DIARY, "m" + said.size(), text));
                assertThat(rows(memories(a, lucene, text, CURRENT, 10))).as("found at once: %s", text)
                        .contains(said.get(said.size() - 1).rowId());
            }
            assertThat(files(dir)).as("files after four searches applied four turns").isEqualTo(before);
            lucene.catchUp(a);
            assertThat(files(dir)).as("files after the commit").isNotEqualTo(before);
            for (Memory m : said) {
                assertThat(committed(dir, m)).as("committed: %s", m.text()).isTrue();
            }
        }
    }

    @Test
    @DisplayName("D1 L4 a turn a search applied and a deletion removed before any commit never reaches the disk: no file holds its words before the deletion, after it or after closing; committed, they are there (Chinese, English)")
    void deletedBeforeTheCommitNeverReachesTheDisk() throws IOException {
        String secret = "我的秘方是鳄梨酱配榴莲 zanzibarmarmalade recipe";
        Path files = home.resolve("lucene");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            try (LuceneIndex lucene = LuceneIndex.open(files, LuceneOptions.defaults())) {
                remember(a, DIARY, "tea", "我每天早上喝乌龙茶 oolong tea every morning");
                lucene.catchUp(a);
                Memory said = remember(a, DIARY, "secret", secret);
                assertThat(rows(memories(a, lucene, "鳄梨酱 zanzibarmarmalade", CURRENT, 10))).containsExactly(said.rowId());
                assertThat(FileBytes.filesContaining(files, "zanzibarmarmalad")).as("applied, in memory only").isEmpty();
                assertThat(FileBytes.filesContaining(files, "鳄梨")).isEmpty();
                a.deleteEvent(DIARY, said.eventId());
                assertThat(memories(a, lucene, "鳄梨酱 zanzibarmarmalade", CURRENT, 10)).isEmpty();
                assertThat(FileBytes.filesContaining(files, "zanzibarmarmalad")).as("after the deletion's commit").isEmpty();
                assertThat(FileBytes.filesContaining(files, "鳄梨")).isEmpty();
            }
            assertThat(FileBytes.filesContaining(files, "zanzibarmarmalad")).as("after closing").isEmpty();
            assertThat(FileBytes.filesContaining(files, "鳄梨")).isEmpty();
            try (LuceneIndex lucene = LuceneIndex.open(files, LuceneOptions.defaults())) {
                remember(a, DIARY, "again", secret);
                lucene.catchUp(a);
                assertThat(FileBytes.filesContaining(files, "zanzibarmarmalad")).as("committed, the scan finds it").isNotEmpty();
                assertThat(FileBytes.filesContaining(files, "鳄梨")).as("and its Chinese").isNotEmpty();
            }
        }
    }

    /** The files in {@code dir} on disk. */
    private static Set<String> files(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @DisplayName("L2 a process killed with applied work not yet committed loses nothing: the next one applies the log again, without a rebuild")
    void killedBeforeCommitting() throws Exception {
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            remember(a, DIARY, "tea", "我每天早上喝乌龙茶 oolong tea every morning");
            Process holder = LuceneChild.start("hold", home);
            Memory piano;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.UTF_8));
                 Writer in = new java.io.OutputStreamWriter(holder.getOutputStream(), StandardCharsets.UTF_8)) {
                LuceneChild.await(out, "ready ");
                piano = remember(a, DIARY, "piano", "晚上练钢琴 piano practice at night");
                in.write("search 钢琴 piano\n");
                in.flush();
                assertThat(LuceneChild.await(out, "found ")).isEqualTo("found " + List.of(piano.rowId()));
                Path dir;
                try (LuceneIndex probe = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                    dir = probe.directory().orElseThrow();
                }
                assertThat(committed(dir, piano)).as("the holder applied it without committing").isFalse();
            } finally {
                holder.destroyForcibly();
                assertThat(holder.waitFor(20, TimeUnit.SECONDS)).isTrue();
            }
            try (LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                assertThat(rows(memories(a, lucene, "钢琴 piano", CURRENT, 10))).containsExactly(piano.rowId());
                assertThat(lucene.takeNotices()).as("applied again from the last commit, not rebuilt").isEmpty();
            }
        }
    }

    /** Whether the last commit in {@code dir} holds the memory's document. */
    private static boolean committed(Path dir, Memory m) throws IOException {
        try (FSDirectory d = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(d)) {
            return new IndexSearcher(reader).count(new TermQuery(Documents.id(Documents.MEMORY, m.id()))) > 0;
        }
    }
}
