package dev.jiyi.bench;

import dev.jiyi.authority.Deletion;
import dev.jiyi.bench.LuceneRecallHarness.QueryKind;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.lucene.LuceneBackend;
import dev.jiyi.pack.Pack;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Calls the JMH benchmark methods directly on small seeded archives (kept in a temporary directory
 * through {@link JmhArchives#ROOT_PROPERTY}), to prove each measures what it says: the work is done,
 * on the archive it names, and nothing is skipped. The timings themselves are JMH's, by hand.
 */
class JmhBenchmarksTest {

    static final int SIZE = 300;

    @TempDir
    static Path archives;

    @BeforeAll
    static void keepArchivesHere() {
        System.setProperty(JmhArchives.ROOT_PROPERTY, archives.toString());
    }

    @AfterAll
    static void forget() {
        System.clearProperty(JmhArchives.ROOT_PROPERTY);
    }

    @Test
    @DisplayName("B1 fast recall: both indexes answer the same window queries from the archive; common characters find nothing")
    void fastRecallOnBothIndexes() {
        UniformRecallBenchmark benchmark = new UniformRecallBenchmark();
        UniformRecallBenchmark.Archive a = archive(QueryKind.WINDOW);
        try {
            assertThat(Files.isDirectory(archives.resolve("chat-" + SIZE + "-s" + ChatCorpus.DEFAULT_SEED).resolve("lucene")))
                    .as("the archive's Lucene index is built in the archive").isTrue();
            int withItems = 0;
            for (int i = 0; i < 20; i++) {
                RecallResult f = benchmark.fts5(a);
                RecallResult l = benchmark.lucene(a);
                assertThat(f.warnings()).isEmpty();
                assertThat(l.warnings()).isEmpty();
                // The same query on both: the top memory agrees whenever both find one.
                if (!f.items().isEmpty() && !l.items().isEmpty()) {
                    withItems++;
                    assertThat(l.items().getFirst().memoryId()).isEqualTo(f.items().getFirst().memoryId());
                }
            }
            assertThat(withItems).as("window queries are cut from archive texts, so most find their memory")
                    .isGreaterThan(10);
        } finally {
            a.close();
        }

        UniformRecallBenchmark.Archive common = archive(QueryKind.COMMON);
        try {
            for (int i = 0; i < 10; i++) {
                assertThat(benchmark.fts5(common).items()).isEmpty();
                assertThat(benchmark.lucene(common).items()).isEmpty();
            }
        } finally {
            common.close();
        }
    }

    @Test
    @DisplayName("B1 fast recall on the realistic archive: four scopes, every kind of held-out query answered on both indexes, a turn a second ingested meanwhile")
    void fastRecallOnTheRealisticArchive() throws InterruptedException {
        FastRecallBenchmark benchmark = new FastRecallBenchmark();
        int answeredInAll = 0;
        for (ZipfCorpus.QueryKind kind : ZipfCorpus.QueryKind.values()) {
            FastRecallBenchmark.Archive a = new FastRecallBenchmark.Archive();
            a.size = SIZE;
            a.kind = kind;
            a.open();
            try {
                int answered = 0;
                java.util.Set<dev.jiyi.authority.Scope> scopes = new java.util.HashSet<>();
                for (int i = 0; i < 12; i++) {
                    RecallResult f = benchmark.fts5(a);
                    RecallResult l = benchmark.lucene(a);
                    assertThat(f.warnings()).isEmpty();
                    assertThat(l.warnings()).isEmpty();
                    answered += f.items().isEmpty() ? 0 : 1;
                    assertThat(l.items().isEmpty()).as("both indexes find something, or neither: " + kind)
                            .isEqualTo(f.items().isEmpty());
                    scopes.add(a.requests.get(i).scope());
                }
                assertThat(answered).as(kind + " queries are answered").isPositive();
                answeredInAll += answered;
                assertThat(scopes).as("queries in several scopes").hasSizeGreaterThan(1);
                if (kind == ZipfCorpus.QueryKind.KNOWN_ITEM) {
                    Thread.sleep(FastRecallBenchmark.INGEST_PERIOD * 2 + 200);
                    assertThat(a.background.submitted()).as("the background ingest runs during the trial").isPositive();
                    benchmark.lucene(a); // follows what was ingested meanwhile
                }
            } finally {
                a.close();
            }
        }
        // A topic's words are in few of 300 turns, so topical queries are answered least at this size.
        assertThat(answeredInAll).as("queries answered, of 48").isGreaterThan(24);
    }

    private static UniformRecallBenchmark.Archive archive(QueryKind kind) {
        UniformRecallBenchmark.Archive a = new UniformRecallBenchmark.Archive();
        a.size = SIZE;
        a.kind = kind;
        a.open();
        return a;
    }

    @Test
    @DisplayName("B1 semantic and deep recall compare the query's vector with the archive's, on the exact scan and on HNSW")
    void semanticRecallUsesVectors() {
        SemanticRecallBenchmark benchmark = new SemanticRecallBenchmark();
        for (RecallMode mode : List.of(RecallMode.SEMANTIC, RecallMode.DEEP)) {
            SemanticRecallBenchmark.Archive a = new SemanticRecallBenchmark.Archive();
            a.size = SIZE;
            a.mode = mode;
            a.open();
            try {
                for (int i = 0; i < 5; i++) {
                    int before = a.embedder.calls();
                    RecallResult exact = benchmark.exact(a);
                    RecallResult hnsw = benchmark.hnsw(a);
                    // Recall embeds the query only to compare it with stored vectors (R4): once per recall.
                    assertThat(a.embedder.calls()).as(mode + " recall embedded its query").isEqualTo(before + 2);
                    for (RecallResult r : List.of(exact, hnsw)) {
                        assertThat(r.warnings()).as(mode + " recall warns of nothing").isEmpty();
                        assertThat(r.items()).isNotEmpty();
                    }
                }
            } finally {
                a.close();
            }
        }
        SemanticRecallBenchmark.TableEmbedder table = new SemanticRecallBenchmark.TableEmbedder(List.of("记得 meeting"), 1);
        assertThat(table.embed(List.of("记得 meeting")).getFirst()).hasSize(JmhArchives.VECTORS.dimensions());
        assertThatThrownBy(() -> table.embed(List.of("another text")))
                .hasMessageContaining("outside the benchmark's queries");
    }

    @Test
    @DisplayName("B1 deletion: each invocation deletes another event and its memory, on a copy; with Lucene the index catches up")
    void deletionDeletesDistinctEventsOnACopy() {
        DeleteBenchmark benchmark = new DeleteBenchmark();
        DeleteBenchmark.Archive a = new DeleteBenchmark.Archive();
        a.size = SIZE;
        a.open();
        Path copy = a.scratch.dir();
        try {
            assertThat(a.victims).hasSize(SIZE / 2).doesNotHaveDuplicates();
            for (int i = 0; i < 5; i++) {
                Deletion d = benchmark.authority(a);
                assertThat(d.memoryIds()).hasSize(1);
            }
            Deletion d = benchmark.withLucene(a);
            assertThat(a.jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index().status().behind()).isZero();
            assertThat(a.jiyi.authority().tableCounts().byName().get("events")).isEqualTo(SIZE - 6);
            assertThat(d.memoryIds()).hasSize(1);
        } finally {
            a.close();
        }
        assertThat(copy).doesNotExist();
        try (dev.jiyi.engine.Jiyi cached = dev.jiyi.engine.Jiyi.open(JmhArchives.openZipf(SIZE).home())) {
            assertThat(cached.authority().tableCounts().byName().get("events")).as("the cached archive is untouched")
                    .isEqualTo(SIZE);
        }
    }

    @Test
    @DisplayName("B1 hits: per recall on the realistic archive, each index counts its searches and the hits they visited and collected; the table and chart are written")
    void hitsPerRecall() throws Exception {
        Map<String, SearchWorkHarness.Work> work = SearchWorkHarness.measure(SIZE, 10);
        assertThat(work).hasSize(8).containsKeys("fts5 kind=known_item", "lucene kind=dialogue");
        work.forEach((row, w) -> {
            assertThat(w.searches()).as(row).isPositive();
            assertThat(w.collected()).as(row).isPositive().isLessThanOrEqualTo(w.visited());
            // The windows bound what a search collects: 100 memories and 100 events a view, the best row of an evidence search.
            assertThat(w.collected()).as(row).isLessThanOrEqualTo(w.searches() * 100);
            assertThat(w.memories() + w.events() + w.evidence()).as(row + ": the searches' visits add up")
                    .isCloseTo(w.visited(), org.assertj.core.api.Assertions.within(1e-6));
        });
        Path out = archives.resolve("hits-out");
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        int code = SearchWorkHarness.command(new java.io.PrintStream(text, true, java.nio.charset.StandardCharsets.UTF_8))
                .execute("--sizes", String.valueOf(SIZE), "--queries", "5", "--out", out.toString());
        assertThat(code).isZero();
        assertThat(text.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("| lucene kind=topical |")
                .contains("by search: memories / events / evidence");
        assertThat(out.resolve("search-work.md")).exists();
        assertThat(out.resolve("search-work.png")).isNotEmptyFile();
        assertThat(out.resolve("search-work-collected.png")).isNotEmptyFile();
        assertThat(SearchWorkHarness.command(new java.io.PrintStream(text, true, java.nio.charset.StandardCharsets.UTF_8))
                .execute("--queries", "0")).as("refused").isEqualTo(2);
    }

    @Test
    @DisplayName("B1 tail: recalls alone, then beside a writer of a turn a second, then in conversation (a turn before each recall), on Lucene at a human pace too (each catch-up commits; or a keeper between the calls), then writes alone: the writes are timed and the recalls after them marked")
    void tailAloneAndBesideAWriter() {
        List<TailHarness.Phase> phases = TailHarness.run(SIZE, "lucene", ZipfCorpus.QueryKind.KNOWN_ITEM, 3, 10, 20);
        assertThat(phases).extracting(TailHarness.Phase::name).containsExactly("alone", "beside a writer",
                TailHarness.CONVERSATION, TailHarness.CONVERSATION_COMMITTED, TailHarness.CONVERSATION_KEPT_UP, "writes alone");
        assertThat(phases.get(5).nanos()).isEmpty();
        assertThat(phases.get(5).eventWrites()).hasSize(20).isSorted();
        assertThat(phases.get(5).memoryWrites()).hasSize(20).doesNotContain(0L);
        for (TailHarness.Phase conversation : phases.subList(2, 5)) {
            assertThat(conversation.nanos()).isNotEmpty();
            assertThat(conversation.eventWrites()).as("a turn before each recall").hasSameSizeAs(conversation.nanos())
                    .doesNotContain(0L);
        }
        assertThat(phases.get(4).keptUp()).as("the keeper between each turn and its recall")
                .hasSameSizeAs(phases.get(4).nanos()).doesNotContain(0L).isSorted();
        assertThat(phases.get(3).keptUp()).isEmpty();
        assertThat(TailHarness.run(SIZE, "fts5", ZipfCorpus.QueryKind.KNOWN_ITEM, 1, 0, 0))
                .as("FTS5 has no commit to pay").extracting(TailHarness.Phase::name)
                .containsExactly("alone", "beside a writer", TailHarness.CONVERSATION);
        TailHarness.Phase alone = phases.get(0);
        TailHarness.Phase beside = phases.get(1);
        assertThat(alone.nanos()).isNotEmpty();
        assertThat(alone.eventWrites()).isEmpty();
        assertThat(alone.slow()[3] + alone.slow()[2] + alone.slow()[1]).isEqualTo(alone.slow()[0]);
        assertThat(beside.eventWrites()).as("a turn a second for three seconds").hasSizeBetween(1, 4);
        assertThat(beside.memoryWrites()).hasSameSizeAs(beside.eventWrites());
        boolean anyAfter = false;
        for (boolean b : beside.afterIngest()) {
            anyAfter |= b;
        }
        assertThat(anyAfter).as("a recall after an ingest is marked").isTrue();
        assertThat(TailHarness.command(new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true,
                java.nio.charset.StandardCharsets.UTF_8)).execute("--seconds", "0")).as("refused").isEqualTo(2);
    }

    @Test
    @DisplayName("B1 L2 grown: an index grown by ingest and catch-ups keeps events and memories in segments of their own; recall is timed for two kinds, deletions with the catch-up, and a second run reuses the home")
    void grownByCatchUps(@TempDir Path dir) {
        Path home = dir.resolve("grown");
        java.io.PrintStream quiet = new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true,
                java.nio.charset.StandardCharsets.UTF_8);
        GrownHarness.Result first = GrownHarness.run(SIZE, home, 120, 3, 3, quiet);
        assertThat(first.layout().mixed()).as("segments of both kinds").isZero();
        assertThat(first.layout().events()).isPositive();
        assertThat(first.layout().memories()).isPositive();
        assertThat(first.recall()).extracting(GrownHarness.Timing::kind)
                .containsExactly(ZipfCorpus.QueryKind.KNOWN_ITEM, ZipfCorpus.QueryKind.TOPICAL);
        assertThat(first.recall()).allSatisfy(t -> assertThat(t.p99()).isGreaterThanOrEqualTo(t.p50()).isPositive());
        assertThat(first.deletionNanos()).hasSize(3).doesNotContain(0L);
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        int code = GrownHarness.command(new java.io.PrintStream(text, true, java.nio.charset.StandardCharsets.UTF_8))
                .execute("--size", String.valueOf(SIZE), "--home", home.toString(), "--rounds", "3", "--deletions", "2");
        assertThat(code).isZero();
        assertThat(text.toString(java.nio.charset.StandardCharsets.UTF_8)).as("reused, not grown again")
                .doesNotContain("grown:").contains("0 of both").contains("mean per round [")
                .contains("with its purge), 2 turns");
        assertThat(GrownHarness.command(quiet).execute("--home", home.toString(), "--rounds", "2")).as("refused").isEqualTo(2);
        assertThat(GrownHarness.command(quiet).execute()).as("no home").isEqualTo(2);
        assertThat(GrownHarness.command(quiet).execute("--home", home.toString(), "--size", "600"))
                .as("a home grown to another size").isEqualTo(2);
        assertThat(GrownHarness.command(quiet).execute("--home", dir.toString(), "--size", String.valueOf(SIZE)))
                .as("a folder no growth finished in").isEqualTo(2);
    }

    @Test
    @DisplayName("B1 resume: a whole pack over the realistic archive and a live session, by a query and by the latest turn, on both indexes")
    void resumePacksTheSession() {
        ResumeBenchmark benchmark = new ResumeBenchmark();
        for (ResumeBenchmark.Basis basis : ResumeBenchmark.Basis.values()) {
            ResumeBenchmark.Session s = new ResumeBenchmark.Session();
            s.size = SIZE;
            s.basis = basis;
            s.open();
            try {
                for (Pack p : List.of(benchmark.fts5(s), benchmark.lucene(s))) {
                    assertThat(p.status()).isEqualTo(Pack.OK);
                    assertThat(p.context()).contains("plan next week's project");
                    // With a query the pack recalls by it; without one, by the checkpoint and the latest user turn.
                    assertThat(p.recalledBy()).as(basis.name())
                            .isEqualTo(basis == ResumeBenchmark.Basis.QUERY ? "query" : "checkpoint+latest_user_turn");
                }
            } finally {
                s.close();
            }
        }
        ZipfCorpus corpus = new ZipfCorpus(ChatCorpus.DEFAULT_SEED, SIZE);
        assertThat(java.util.stream.IntStream.range(0, 20).mapToObj(i -> corpus.query(ZipfCorpus.QueryKind.TOPICAL, i).scope()))
                .as("precondition: the corpus asks questions in other scopes too").anyMatch(sc -> !sc.equals(ResumeBenchmark.SCOPE));
        assertThat(ResumeBenchmark.questions(corpus, 20)).as("held-out questions of the session's scope only")
                .hasSize(20).extracting(ZipfCorpus.Query::scope).containsOnly(ResumeBenchmark.SCOPE);
    }

    @Test
    @DisplayName("B1 ingestion onto a grown archive: single commits and a batch land on a copy of it")
    void ingestionOntoAnArchive() {
        IngestBenchmark benchmark = new IngestBenchmark();
        IngestBenchmark.SingleCommit single = new IngestBenchmark.SingleCommit();
        single.size = SIZE;
        single.seed = ChatCorpus.DEFAULT_SEED;
        single.open();
        try {
            for (int i = 0; i < 10; i++) {
                assertThat(benchmark.submitOne(single).created()).isTrue();
            }
            assertThat(IngestHarness.countEvents(single.scratch.home())).isEqualTo(SIZE + 10);
        } finally {
            single.close();
        }

        IngestBenchmark.BatchLoad batch = new IngestBenchmark.BatchLoad();
        batch.size = SIZE;
        batch.events = 120;
        batch.chunkSize = 50;
        batch.seed = ChatCorpus.DEFAULT_SEED;
        batch.generate();
        for (int iteration = 0; iteration < 2; iteration++) {
            batch.open();
            try {
                assertThat(benchmark.submitBatch(batch)).isEqualTo(120);
                assertThat(IngestHarness.countEvents(batch.scratch.home())).as("a fresh copy each iteration")
                        .isEqualTo(SIZE + 120);
            } finally {
                batch.close();
            }
        }
    }
}
