package dev.jiyi.lucene;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Correction;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.FileBytes;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.index.Eligibility;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Terms;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static dev.jiyi.lucene.Archive.ALL;
import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.Y2021;
import static dev.jiyi.lucene.Archive.events;
import static dev.jiyi.lucene.Archive.memories;
import static dev.jiyi.lucene.Archive.nearest;
import static dev.jiyi.lucene.Archive.remember;
import static dev.jiyi.lucene.Archive.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * L2, L4, D1: what the authority deletes, revokes or changes is never proposed once the index has
 * applied it, and after a deletion is applied no term unique to the deleted text is left in any file
 * of the index (a byte scan, and the terms dictionary itself).
 */
class LuceneDeletionTest {

    /** Deleted by deleteMemory, with a memory co-derived from its event and a correction of it. */
    private static final String SECRET = "我的秘密配方是鳄梨酱配榴莲 my secret recipe is zanzibar marmalade";
    private static final String CO_DERIVED = "鳄梨酱 guacamole 配方";
    private static final String CORRECTED = "其实是芒果酱 actually mango chutney";
    /** Deleted by deleteEvent. */
    private static final String DIARY_ENTRY = "今天在布达佩斯看见了独角兽 saw a unicorn in Budapest";

    @TempDir
    Path home;

    @Test
    @DisplayName("D1 L2 L4 after deleteMemory and deleteEvent are applied, no file of the Lucene index holds a term unique to the deleted texts (Chinese and English), the terms dictionary cannot seek them, and nothing deleted is proposed")
    void deletionLeavesNoTerm() throws IOException {
        Random random = SeededRandom.create("LuceneDeletionTest.deletionLeavesNoTerm");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            List<Memory> background = Archive.fill(a, DIARY, "bg", 300, random);
            Memory secret = remember(a, DIARY, "secret", SECRET);
            Memory coDerived = a.addMemory(DIARY, Archive.fact(secret.eventId(), "鳄梨酱")
                    .text(CO_DERIVED).quote("鳄梨酱").build());
            Correction correction = a.correctMemory(DIARY, secret.id(), new CorrectionDraft(CORRECTED, null, null));
            Memory diary = remember(a, DIARY, "diary", DIARY_ENTRY);
            float[] v = Archive.randomUnit(random, 16);
            Archive.vectors(a, List.of(correction.corrected(), diary), List.of(v, Archive.randomUnit(random, 16)));
            Eligibility now = Eligibility.current(DIARY, NOW);
            Eligibility any = Eligibility.anyTime(DIARY);
            lucene.catchUp(a);
            assertThat(lucene.takeNotices()).as("the first use builds the index").hasSize(1);

            List<String> survivors = new ArrayList<>();
            background.forEach(m -> survivors.add(m.searchText()));
            Set<String> unique = uniqueTerms(List.of(SECRET, CO_DERIVED, CORRECTED, DIARY_ENTRY,
                    correction.event().text()), survivors);
            assertThat(unique).as("precondition: Chinese and English unique terms")
                    .contains("鳄梨", "榴莲", "zanzibar", "marmalad", "芒果", "布达佩斯", "独角兽", "unicorn", "budapest");
            List<String> distinctive = unique.stream().filter(LuceneDeletionTest::distinctive).toList();

            // Before: found by queries, present in the files, seekable.
            assertThat(rows(memories(a, lucene, "鳄梨 zanzibar", now, ALL))).containsExactly(coDerived.rowId());
            assertThat(rows(memories(a, lucene, "鳄梨 zanzibar", any, ALL))).as("the revoked one never")
                    .containsExactly(coDerived.rowId());
            assertThat(rows(memories(a, lucene, "芒果 mango", now, ALL))).containsExactly(correction.corrected().rowId());
            assertThat(rows(memories(a, lucene, "布达佩斯 unicorn", now, ALL))).containsExactly(diary.rowId());
            assertThat(events(a, lucene, "鳄梨 zanzibar", DIARY, ALL)).hasSize(1);
            assertThat(rows(nearest(a, lucene, v, now, 3).nearest())).startsWith(correction.corrected().rowId());
            // The terms dictionary stores a term after the prefix its block shares, so a term in a block
            // of common prefix is not whole in the files. Every text term starts with its scope, and which
            // blocks form depends on the seeded background: the scan looks for the terms it finds whole now,
            // which must be at least half of them, Chinese and English.
            List<String> needles = filesContaining(distinctive);
            assertThat(needles).as("precondition: the byte scan finds Chinese and English unique terms before deletion")
                    .hasSizeGreaterThanOrEqualTo(distinctive.size() / 2)
                    .anyMatch(t -> t.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN))
                    .anyMatch(t -> t.chars().allMatch(c -> c >= 'a' && c <= 'z'));
            assertThat(seekable(lucene, DIARY, unique)).as("precondition: seekable before deletion")
                    .containsExactlyInAnyOrderElementsOf(unique);

            // A process that cannot write (this one holds the lock) still answers from the last commit,
            // and says it is behind: recall's recheck against the authority drops what was deleted.
            try (LuceneIndex reader = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                assertThat(rows(memories(a, reader, "鳄梨", now, ALL))).containsExactly(coDerived.rowId());
                Deletion d1 = a.deleteMemory(DIARY, correction.corrected().id());
                assertThat(d1.memoryIds()).as("the whole lineage and the co-derived memory")
                        .contains(secret.id(), coDerived.id(), correction.corrected().id());
                Deletion d2 = a.deleteEvent(DIARY, "ev-diary");
                assertThat(d2.memoryIds()).containsExactly(diary.id());
                assertThat(rows(memories(a, reader, "鳄梨", now, ALL))).as("the reader's last commit")
                        .containsExactly(coDerived.rowId());
                assertThat(reader.status().readOnly()).isTrue();
                assertThat(reader.status().behind()).isPositive();
                assertThat(reader.status().warning()).isPresent();

                // The writer applies the log at its next search: nothing deleted is proposed.
                assertThat(memories(a, lucene, "鳄梨酱 zanzibar 芒果 mango 布达佩斯 unicorn", any, ALL)).isEmpty();
                assertThat(events(a, lucene, "鳄梨酱 zanzibar 芒果 mango 布达佩斯 unicorn", DIARY, ALL)).isEmpty();
                assertThat(rows(nearest(a, lucene, v, any, ALL).nearest())).doesNotContain(
                        correction.corrected().rowId(), diary.rowId());
                assertThat(lucene.status().behind()).isZero();
                assertThat(rows(memories(a, reader, "鳄梨", now, ALL))).as("the reader sees the new commit").isEmpty();
                assertThat(reader.status().behind()).isZero();
            }

            // After: no unique term anywhere in the files, none seekable.
            assertThat(filesContaining(needles)).as("files of %s holding deleted terms", home.resolve("lucene")).isEmpty();
            assertThat(seekable(lucene, DIARY, unique)).isEmpty();
            assertThat(rows(memories(a, lucene, "咖啡", now, ALL))).as("the rest is still there").isNotEmpty();
            assertThat(lucene.takeNotices()).isEmpty();
        }
    }

    /** Terms of the deleted texts that no surviving text has. */
    private static Set<String> uniqueTerms(List<String> deleted, List<String> survivors) {
        Set<String> surviving = new LinkedHashSet<>();
        for (String s : survivors) {
            for (String t : ChineseTokens.terms(s)) {
                surviving.addAll(ChineseTokens.storedPieces(t));
            }
        }
        Set<String> out = new LinkedHashSet<>();
        for (String d : deleted) {
            for (String t : ChineseTokens.terms(d)) {
                for (String piece : ChineseTokens.storedPieces(t)) {
                    if (!surviving.contains(piece)) {
                        out.add(piece);
                    }
                }
            }
        }
        return out;
    }

    /**
     * Long enough that its bytes in a file are the term, not chance: two CJK characters or more, or
     * an English word of six letters or more.
     */
    private static boolean distinctive(String term) {
        return term.getBytes(StandardCharsets.UTF_8).length >= 6;
    }

    /** The needles found in any file under the Lucene home (every index directory, the pointer). */
    private List<String> filesContaining(List<String> needles) throws IOException {
        List<byte[]> contents = new ArrayList<>();
        try (Stream<Path> files = Files.walk(home.resolve("lucene"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                contents.add(Files.readAllBytes(f));
            }
        }
        List<String> found = new ArrayList<>();
        for (String n : needles) {
            byte[] needle = n.getBytes(StandardCharsets.UTF_8);
            if (contents.stream().anyMatch(c -> FileBytes.contains(c, needle))) {
                found.add(n);
            }
        }
        return found;
    }

    /** The terms that {@code TermsEnum.seekExact} finds in either text field of the current commit, as {@code scope} holds them. */
    private static List<String> seekable(LuceneIndex lucene, dev.jiyi.authority.Scope scope, Set<String> terms)
            throws IOException {
        List<String> found = new ArrayList<>();
        try (FSDirectory dir = FSDirectory.open(lucene.directory().orElseThrow());
             DirectoryReader reader = DirectoryReader.open(dir)) {
            for (String t : terms) {
                boolean seen = false;
                for (LeafReaderContext leaf : reader.leaves()) {
                    for (String field : List.of(Documents.MEMORY_TEXT, Documents.EVENT_TEXT)) {
                        Terms fieldTerms = leaf.reader().terms(field);
                        seen |= fieldTerms != null && fieldTerms.iterator().seekExact(Documents.text(field, scope, t).bytes());
                    }
                }
                if (seen) {
                    found.add(t);
                }
            }
        }
        return found;
    }

    @Test
    @DisplayName("L2 R8 T4 revoked and closed memories are never proposed by current recall, lexically or by vector; a closed one only with history")
    void revokedAndChangedNeverProposed() {
        Random random = SeededRandom.create("LuceneDeletionTest.revokedAndChangedNeverProposed");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of());
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            Eligibility now = Eligibility.current(DIARY, NOW);
            Memory wrong = remember(a, DIARY, "wrong", "我的猫叫咪咪 my cat is called Mimi");
            float[] v = Archive.randomUnit(random, 8);
            Archive.vectors(a, List.of(wrong), List.of(v));
            Event lived = Archive.say(a, DIARY, "ev-city1", "我住在杭州 I live in Hangzhou");
            Memory hangzhou = a.addMemory(DIARY, Archive.fact(lived.id(), "我住在杭州 I live in Hangzhou")
                    .subject("我").factKey("city").validAt(Archive.Y2020).build());
            assertThat(rows(memories(a, lucene, "咪咪 mimi", now, ALL))).containsExactly(wrong.rowId());
            assertThat(rows(nearest(a, lucene, v, now, 5).nearest())).containsExactly(wrong.rowId());
            assertThat(rows(memories(a, lucene, "杭州 hangzhou", now, ALL))).containsExactly(hangzhou.rowId());

            Correction c = a.correctMemory(DIARY, wrong.id(), new CorrectionDraft("我的猫叫花花 my cat is called Huahua", null, null));
            Event moved = Archive.say(a, DIARY, "ev-city2", "我搬到上海了 I moved to Shanghai");
            Memory shanghai = a.addMemory(DIARY, Archive.fact(moved.id(), "我搬到上海了 I moved to Shanghai")
                    .subject("我").factKey("city").validAt(Y2021).build());

            assertThat(rows(memories(a, lucene, "咪咪 mimi", now, ALL))).as("revoked").isEmpty();
            assertThat(rows(memories(a, lucene, "咪咪 mimi", Eligibility.anyTime(DIARY), ALL)))
                    .as("revoked, not even with history").isEmpty();
            assertThat(rows(memories(a, lucene, "猫 cat", now, ALL))).containsExactly(c.corrected().rowId());
            assertThat(rows(nearest(a, lucene, v, Eligibility.anyTime(DIARY), 5).nearest())).as("its vector neither")
                    .isEmpty();
            assertThat(rows(memories(a, lucene, "杭州 hangzhou", now, ALL))).as("closed by its successor (T4)").isEmpty();
            assertThat(rows(memories(a, lucene, "杭州 hangzhou", Eligibility.current(DIARY, Archive.Y2020), ALL)))
                    .as("as of 2020").containsExactly(hangzhou.rowId());
            assertThat(rows(memories(a, lucene, "杭州 hangzhou", Eligibility.anyTime(DIARY), ALL)))
                    .containsExactly(hangzhou.rowId());
            assertThat(rows(memories(a, lucene, "上海 shanghai", now, ALL))).containsExactly(shanghai.rowId());
            assertThat(events(a, lucene, "咪咪 mimi", DIARY, ALL)).as("the raw event stays searchable as a source")
                    .hasSize(1);
        }
    }
}
