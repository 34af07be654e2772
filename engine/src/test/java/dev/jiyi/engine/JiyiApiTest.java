package dev.jiyi.engine;

import dev.jiyi.authority.ConflictException;
import dev.jiyi.authority.Deletion;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.NotFoundException;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Table;
import dev.jiyi.authority.archive.ArchiveFormat;
import dev.jiyi.authority.archive.ArchiveReport;
import dev.jiyi.authority.index.Backend;
import dev.jiyi.pack.Pack;
import dev.jiyi.pack.PackRequest;
import dev.jiyi.ranking.RecallMode;
import dev.jiyi.ranking.RecallRequest;
import dev.jiyi.ranking.RecallResult;
import dev.jiyi.ranking.RecalledItem;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine API as a Java program uses it, without the CLI: open a home, submit, recall on every
 * backend, pack, derive, delete, export, close; many threads on one engine. No extraction model is
 * configured, so events stay pending and recall answers with labeled raw events (R7).
 */
class JiyiApiTest {

    /** The backends of the machine itself; the OpenSearch backend's tests bring their cluster (index-opensearch, cli). */
    private static final List<IndexKind> LOCAL = List.of(IndexKind.FTS5, IndexKind.LUCENE);

    private static final Scope SCOPE = new Scope("小明", "工作");
    private static final Instant AT = Instant.parse("2026-11-02T09:30:00Z");

    @TempDir
    Path dir;

    private static EventSubmission said(String id, String text) {
        return new EventSubmission(id, SCOPE, Role.USER, text, "api-test", null, "s-1", AT);
    }

    private static RecallRequest fast(String query) {
        return new RecallRequest(SCOPE, query, RecallMode.FAST, 5, null, false);
    }

    @Test
    @DisplayName("E1 E2 R7 D1 one engine: submit Chinese, English and mixed text, recall it on FTS5 and Lucene, pack, delete, export")
    void wholeLifeThroughTheApi() throws Exception {
        try (Jiyi jiyi = Jiyi.open(dir)) {
            Ingest.Outcome tea = jiyi.submit(said("e-tea", "我最喜欢喝龙井茶，每天早上一杯"));
            jiyi.submit(said("e-rust", "I am rewriting the ingest service in Rust this quarter"));
            jiyi.submit(said("e-mixed", "下周三在杭州 office 开 design review"));
            assertThat(tea.created()).isTrue();
            assertThat(tea.status()).as("no extraction model: the event is kept, pending (X2)").isEqualTo(Ingest.Status.PENDING);
            assertThat(jiyi.submit(said("e-tea", "我最喜欢喝龙井茶，每天早上一杯")).created())
                    .as("E2 the same submission again changes nothing").isFalse();
            assertThatThrownBy(() -> jiyi.submit(said("e-tea", "另一段话")))
                    .isInstanceOf(ConflictException.class);

            for (IndexKind kind : LOCAL) {
                RecallResult zh = jiyi.recall(kind.code(), fast("龙井"));
                assertThat(zh.items()).as("%s finds the Chinese event", kind).isNotEmpty();
                RecalledItem top = zh.items().get(0);
                assertThat(top.sourceEventId()).isEqualTo("e-tea");
                assertThat(top.type()).as("R7 a raw event, labeled").isEqualTo(RecalledItem.Type.RAW_EVENT);
                assertThat(jiyi.recall(kind.code(), fast("Rust ingest")).items()).extracting(RecalledItem::sourceEventId)
                        .first().isEqualTo("e-rust");
                assertThat(jiyi.recall(kind.code(), fast("杭州 design review")).items())
                        .extracting(RecalledItem::sourceEventId).first().isEqualTo("e-mixed");
            }
            assertThat(jiyi.backend(IndexKind.LUCENE).built()).as("the first Lucene search built it").isTrue();
            assertThat(jiyi.backend(IndexKind.LUCENE).folder()).contains("lucene");
            assertThat(jiyi.backend(IndexKind.FTS5).folder()).as("FTS5 lives in the authority's file").isEmpty();

            Pack pack = jiyi.pack(null, new PackRequest(SCOPE, 2_000, null, "龙井茶", null, RecallMode.FAST));
            assertThat(pack.context()).contains("龙井");

            assertThatThrownBy(() -> jiyi.derive(SCOPE, "e-missing")).isInstanceOf(NotFoundException.class);

            Deletion gone = jiyi.deleteEvent(SCOPE, "e-tea");
            assertThat(gone.eventIds()).containsExactly("e-tea");
            for (IndexKind kind : LOCAL) {
                assertThat(jiyi.recall(kind.code(), fast("龙井")).items()).as("D1 on %s", kind)
                        .noneMatch(i -> i.sourceEventId().equals("e-tea"));
            }

            Path archive = dir.resolve("out.jsonl");
            ArchiveReport report = jiyi.export(archive, ArchiveFormat.JSONL, SCOPE);
            assertThat(report.rows().of(Table.EVENTS)).isEqualTo(2);
            assertThat(Files.readString(archive)).contains("杭州").doesNotContain("龙井");
        }
    }

    @Test
    @DisplayName("R2 bad input through the API: an unknown index is refused by field, and changes nothing")
    void badInputIsRefusedByField() {
        try (Jiyi jiyi = Jiyi.open(dir)) {
            jiyi.submit(said("e-1", "hello 世界"));
            assertThatThrownBy(() -> jiyi.recall("elasticsearch", fast("hello")))
                    .isInstanceOf(InvalidInputException.class).hasMessageContaining("index")
                    .hasMessageContaining("fts5 or lucene or opensearch").hasMessageNotContaining("elasticsearch");
            assertThatThrownBy(() -> jiyi.recall("opensearch", fast("hello")))
                    .as("a home that names no cluster").isInstanceOf(InvalidInputException.class)
                    .hasMessageContaining("index.opensearch.url");
            assertThatThrownBy(() -> IndexKind.parse("index", "FTS5")).isInstanceOf(InvalidInputException.class);
            assertThat(jiyi.recall("fts5", fast("hello OR 世界 NEAR(\"x\")")).items())
                    .as("FTS syntax is text").extracting(RecalledItem::sourceEventId).containsExactly("e-1");
            assertThat(jiyi.authority().tableCounts().of(Table.EVENTS)).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("O1 one engine, many threads: concurrent submits and recalls on both backends all land and all answer")
    void manyThreadsOneEngine() throws Exception {
        int threads = 4;
        int each = 25;
        try (Jiyi jiyi = Jiyi.open(dir); ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<Integer>> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                work.add(pool.submit(() -> {
                    int found = 0;
                    for (int i = 0; i < each; i++) {
                        String id = "t" + thread + "-" + i;
                        jiyi.submit(said(id, "线程" + thread + "的第" + i + "条笔记 about topic" + thread));
                        IndexKind kind = LOCAL.get((thread + i) % LOCAL.size());
                        found += jiyi.recall(kind.code(), fast("topic" + thread)).items().isEmpty() ? 0 : 1;
                    }
                    return found;
                }));
            }
            for (Future<Integer> f : work) {
                assertThat(f.get()).as("every recall after its own submit finds something").isEqualTo(each);
            }
            assertThat(jiyi.authority().tableCounts().of(Table.EVENTS)).isEqualTo((long) threads * each);
            for (Backend b : jiyi.builtBackends()) {
                assertThat(jiyi.recall(b.name(), fast("topic0")).items()).as(b.name()).isNotEmpty();
            }
        }
        try (Jiyi again = Jiyi.open(dir)) {
            assertThat(again.authority().tableCounts().of(Table.EVENTS)).as("all of it durable").isEqualTo((long) threads * each);
            assertThat(again.recall("lucene", fast("topic3")).warnings()).isEmpty();
            assertThat(again.takeNotices()).isEmpty();
        }
    }
}
