package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.jiyi.lucene.Archive.ALL;
import static dev.jiyi.lucene.Archive.DIARY;
import static dev.jiyi.lucene.Archive.NOW;
import static dev.jiyi.lucene.Archive.WORK;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Recovery: a process killed during catch-up or rebuild, a corrupt, missing or outdated index. In
 * every case the next open answers as a fresh rebuild does, and nothing throws.
 */
class LuceneRecoveryTest {

    private static final String[] QUERIES = {"咖啡", "北京大学", "爬山 hiking", "周末 coffee", "note", "图书馆 library",
        "猫", "第12条", "更正 corrected", "钢琴 deadline"};

    @TempDir
    Path home;

    private final List<float[]> probes = new ArrayList<>();

    /**
     * An archive with a long change log: events and memories in two scopes, vectors, corrections and
     * deletions in the middle (so catch-up merges deleted documents away part-way).
     */
    private void prepare(Authority a, Random random, int half) {
        List<Memory> first = Archive.fill(a, DIARY, "a", half, random);
        int vectored = half / 5;
        List<float[]> vectors = new ArrayList<>();
        for (int i = 0; i < vectored; i++) {
            vectors.add(Archive.randomUnit(random, 8));
        }
        Archive.vectors(a, first.subList(0, vectored), vectors);
        for (int i = 0; i < half / 40; i++) {
            a.deleteMemory(DIARY, first.get(vectored + i * 3).id());
        }
        for (int i = 0; i < half / 80; i++) {
            a.correctMemory(DIARY, first.get(half / 2 + i * 5).id(), new CorrectionDraft("更正 corrected " + i, null, null));
        }
        a.deleteMemory(DIARY, first.get(7).id()); // a memory with a vector
        Archive.fill(a, WORK, "b", half, random);
        Archive.fill(a, DIARY, "c", half / 4, random);
        for (int i = 0; i < 8; i++) {
            probes.add(Archive.randomUnit(random, 8));
        }
    }

    /** What recall would ask the index: every lexical answer whole (as row sets) and the nearest five. */
    private Map<String, Object> answers(Authority a, LuceneIndex index) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String q : QUERIES) {
            for (var filter : List.of(Eligibility.current(DIARY, NOW), Eligibility.anyTime(WORK))) {
                out.put("memories " + q + " " + filter.scope(), new TreeSet<>(
                        Archive.rows(Archive.memories(a, index, q, filter, ALL))));
            }
            out.put("events " + q, new TreeSet<>(Archive.rows(Archive.events(a, index, q, DIARY, ALL))));
        }
        for (int i = 0; i < probes.size(); i++) {
            out.put("nearest " + i, Archive.nearest(a, index, probes.get(i), Eligibility.current(DIARY, NOW), 5)
                    .nearest().stream().map(Candidate::rowId).toList());
        }
        return out;
    }

    /** The answers of an index rebuilt from scratch in a directory of its own. */
    private Map<String, Object> fresh(Authority a, String name) {
        try (LuceneIndex fresh = LuceneIndex.open(home.resolve(name), LuceneOptions.defaults())) {
            caughtUp(a, fresh);
            return answers(a, fresh);
        }
    }

    private static void caughtUp(Authority a, LuceneIndex index) {
        for (int i = 0; i < 100 && index.catchUp(a).behind() > 0; i++) {
            // a large log takes several budgets
        }
        assertThat(index.status().behind()).as("caught up").isZero();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @DisplayName("L2 L1 a process killed during catch-up, then during rebuild, leaves an index the next open recovers to a fresh rebuild's answers")
    void killedMidWay() throws Exception {
        Random random = SeededRandom.create("LuceneRecoveryTest.killedMidWay");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            long t0 = System.nanoTime();
            Archive.fill(a, DIARY, "old", 100, random);
            try (LuceneIndex early = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                caughtUp(a, early);
            }
            prepare(a, random, 800);
            System.out.println("[prepared ms] " + (System.nanoTime() - t0) / 1_000_000);
            long head = a.read(s -> s.changeLogHead());
            assertThat(head).as("precondition: a long change log").isGreaterThan(3_500);
            Map<String, Object> expected = fresh(a, "fresh-1");
            System.out.println("[fresh ms] " + (System.nanoTime() - t0) / 1_000_000);
            assertThat(expected.values()).as("precondition: the queries find things")
                    .anySatisfy(v -> assertThat(v.toString()).isNotEqualTo("[]"));

            // Killed while applying the log a page at a time, a commit per page.
            Process child = LuceneChild.start("catchup", home);
            List<String> seen = new ArrayList<>();
            try (BufferedReader out = reader(child)) {
                seen.add(LuceneChild.await(out, "started"));
                seen.add(LuceneChild.await(out, "applied "));
                Thread.sleep(random.nextInt(100));
                child.destroyForcibly();
                assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
            }
            System.out.println("[killed during catch-up after] " + seen + " ms " + (System.nanoTime() - t0) / 1_000_000);
            try (LuceneIndex recovered = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                long appliedBefore = recovered.report(a).applied();
                assertThat(appliedBefore).as("killed part-way: some pages committed, not all").isBetween(1L, head - 1);
                caughtUp(a, recovered);
                assertThat(answers(a, recovered)).isEqualTo(expected);
                assertThat(recovered.takeNotices()).as("an interrupted catch-up needs no rebuild").isEmpty();
            }

            // Killed while rebuilding (perhaps mid-build, perhaps mid-swap) over that index.
            a.deleteMemory(DIARY, firstMemoryId(a)); // a memory with a vector
            Map<String, Object> expected2 = fresh(a, "fresh-2");
            for (int round = 0; round < 1; round++) {
                Process rebuilder = LuceneChild.start("rebuild", home);
                try (BufferedReader out = reader(rebuilder)) {
                    LuceneChild.await(out, "started");
                    Thread.sleep(100 + random.nextInt(1_200));
                    rebuilder.destroyForcibly();
                    assertThat(rebuilder.waitFor(20, TimeUnit.SECONDS)).isTrue();
                }
                try (LuceneIndex recovered = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                    caughtUp(a, recovered);
                    assertThat(answers(a, recovered)).as("round %d", round).isEqualTo(expected2);
                }
            }
        }
    }

    private static String firstMemoryId(Authority a) {
        return a.read(s -> s.memoriesAfter(0, 1)).get(0).id();
    }

    private static BufferedReader reader(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    // ------------------------------------------------------------------ corrupt, missing, outdated

    /** A small archive, an index built and closed, and its answers. */
    private Map<String, Object> built(Authority a, Random random) {
        prepare(a, random, 120);
        try (LuceneIndex index = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            caughtUp(a, index);
            index.takeNotices();
            return answers(a, index);
        }
    }

    private Path currentDirectory() throws IOException {
        return new IndexHome(home.resolve("lucene")).current().orElseThrow();
    }

    /** Opens the index again, answers, and checks it said it rebuilt, and why. */
    private void rebuiltWithNotice(Authority a, Map<String, Object> expected, String why) {
        try (LuceneIndex index = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            assertThat(answers(a, index)).isEqualTo(expected);
            assertThat(index.takeNotices()).singleElement().asString()
                    .contains("lucene index rebuilt from the authority").contains(why);
            assertThat(index.status().behind()).isZero();
            assertThat(index.report(a).present()).isTrue();
        }
        try (LuceneIndex again = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            assertThat(answers(a, again)).isEqualTo(expected);
            assertThat(again.takeNotices()).as("the rebuilt index is used as it is").isEmpty();
        }
    }

    @Test
    @DisplayName("L1 a corrupt index (every file overwritten with garbage) is rebuilt with a notice and never throws")
    void corruptRebuilt() throws IOException {
        Random random = SeededRandom.create("LuceneRecoveryTest.corruptRebuilt");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            Map<String, Object> expected = built(a, random);
            Path dir = currentDirectory();
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> !p.getFileName().toString().equals("write.lock")).toList()) {
                    byte[] garbage = new byte[(int) Files.size(f)];
                    random.nextBytes(garbage);
                    Files.write(f, garbage);
                }
            }
            rebuiltWithNotice(a, expected, "could not be read");
        }
    }

    @Test
    @DisplayName("L1 an index whose files are damaged inside (headers and footers intact) is rebuilt with a notice and never throws")
    void damagedInsideRebuilt() throws IOException {
        Random random = SeededRandom.create("LuceneRecoveryTest.damagedInsideRebuilt");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            Map<String, Object> expected = built(a, random);
            Path dir = currentDirectory();
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> !p.getFileName().toString().equals("write.lock")).toList()) {
                    byte[] bytes = Files.readAllBytes(f);
                    if (bytes.length > 200) {
                        for (int i = 100; i < bytes.length - 100; i++) {
                            bytes[i] = (byte) random.nextInt(256);
                        }
                        Files.write(f, bytes);
                    }
                }
            }
            try (LuceneIndex index = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                assertThat(answers(a, index)).isEqualTo(expected);
                assertThat(index.takeNotices()).singleElement().asString()
                        .contains("lucene index rebuilt from the authority");
            }
        }
    }

    @Test
    @DisplayName("L1 a missing index directory, a missing home and a garbled pointer are rebuilt with a notice and never throw")
    void missingRebuilt() throws IOException {
        Random random = SeededRandom.create("LuceneRecoveryTest.missingRebuilt");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            Map<String, Object> expected = built(a, random);
            IndexHome.deleteTree(currentDirectory());
            rebuiltWithNotice(a, expected, "its directory is missing");

            IndexHome.deleteTree(home.resolve("lucene"));
            rebuiltWithNotice(a, expected, "there was none yet");

            Files.writeString(home.resolve("lucene").resolve("current"), "../../etc\n");
            rebuiltWithNotice(a, expected, "there was none yet");
        }
    }

    @Test
    @DisplayName("L1 an index built with other settings (jiyi analysis opened as smartcn, float opened as int8) is rebuilt with a notice and never throws")
    void outdatedRebuilt() {
        Random random = SeededRandom.create("LuceneRecoveryTest.outdatedRebuilt");
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of())) {
            Map<String, Object> expected = built(a, random);
            String jiyiVersion;
            try (LuceneIndex jiyi = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
                jiyiVersion = jiyi.version();
            }
            try (LuceneIndex smartcn = LuceneIndex.open(home.resolve("lucene"),
                    LuceneOptions.defaults().withAnalysis(Analysis.SMARTCN))) {
                List<Long> found = Archive.rows(Archive.memories(a, smartcn, "图书馆", Eligibility.current(DIARY, NOW), ALL));
                assertThat(found).as("smartcn finds the word too").isNotEmpty();
                assertThat(smartcn.takeNotices()).singleElement().asString()
                        .contains("lucene index rebuilt from the authority").contains("built with other settings")
                        .contains("(" + jiyiVersion + ")"); // names the settings it was built with
                assertThat(smartcn.report(a).version()).contains("smartcn");
            }
            try (LuceneIndex int8 = LuceneIndex.open(home.resolve("lucene"),
                    LuceneOptions.defaults().withVectors(LuceneOptions.VectorFormat.INT8))) {
                assertThat(int8.takeNotices()).as("nothing happens before the first use").isEmpty();
                assertThat(answers(a, int8)).isEqualTo(expected);
                assertThat(int8.takeNotices()).singleElement().asString().contains("built with other settings")
                        .contains("smartcn");
            }
            rebuiltWithNotice(a, expected, "built with other settings");
        }
    }
}
