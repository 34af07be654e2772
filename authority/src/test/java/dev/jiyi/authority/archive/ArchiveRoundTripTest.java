package dev.jiyi.authority.archive;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.AuthorityTestKit;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.CaptureCursor;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.CheckpointDraft;
import dev.jiyi.authority.ConflictException;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.ExtractionBatch;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.PhaseProgress;
import dev.jiyi.authority.RefusedException;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.jiyi.authority.AuthorityTestKit.ALICE_HOME;
import static dev.jiyi.authority.AuthorityTestKit.ALICE_WORK;
import static dev.jiyi.authority.AuthorityTestKit.CJK_SCOPE;
import static dev.jiyi.authority.AuthorityTestKit.event;
import static dev.jiyi.authority.AuthorityTestKit.submit;
import static dev.jiyi.authority.AuthorityTestKit.t;
import static dev.jiyi.authority.AuthorityTestKit.timelineFact;
import static dev.jiyi.authority.AuthorityTestKit.userFact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Archives (O3, O4, D4): export reads every authoritative table from one snapshot, import checks and
 * loads it into an empty database, and export after import gives the same bytes; every archive
 * format version this jiyi has written imports (a fixture per version). Hostile archives:
 * {@code ArchiveHostileTest}.
 */
class ArchiveRoundTripTest {

    /** Regenerates the fixture of the current format version: {@code -Djiyi.archive.fixtures=write}. */
    private static final boolean WRITE_FIXTURES = "write".equals(System.getProperty("jiyi.archive.fixtures"));

    @TempDir
    Path dir;

    /**
     * Every authoritative table in use, in three scopes, Chinese, English and mixed: a fact
     * timeline (one member closed by the next), a correction, a related link, an extraction record
     * with a rejection, checkpoints (one invalidated by the correction), persona versions, a capture
     * cursor, and a deleted last event, so the sequence counter is ahead of the last row.
     */
    static void fill(Authority a) {
        Event e1 = submit(a, event("e1", ALICE_WORK, Role.USER, "我住在广州，I love tea", t("2024-05-01T10:00:00+08:00")));
        Event e2 = submit(a, event("e2", ALICE_WORK, Role.ASSISTANT, "好的 noted：你喜欢绿茶 \"green\" tea\n第二行\ttab",
                t("2024-05-01T10:01:00+08:00")));
        Event e3 = submit(a, event("e3", ALICE_WORK, Role.USER, "I moved to 深圳 last month", t("2024-06-01T09:00:00+08:00")));
        Event h1 = submit(a, event("h1", ALICE_HOME, Role.USER, "我的猫叫 Mochi", t("2024-05-02T20:00:00+08:00")));
        Event c1 = submit(a, event("c1", CJK_SCOPE, Role.USER, "项目甲下周五上线 launch on Friday", t("2024-05-03T09:00:00Z")));
        a.submitEvent(new EventSubmission("ref1", ALICE_WORK, Role.USER, "参考资料 reference: 绿茶 brewing guide", "test",
                Category.REFERENCE, "s2", t("2024-05-01T11:00:00+08:00")));
        Memory guangzhou = a.addMemory(ALICE_WORK, timelineFact(e1, "user", "city", t("2024-05-01T10:00:00+08:00")));
        Memory shenzhen = a.addMemory(ALICE_WORK, timelineFact(e3, "user", "city", t("2024-06-01T09:00:00+08:00")));
        Memory tea = a.addMemory(ALICE_WORK, MemoryDraft.builder(e1.id()).kind(Kind.PREFERENCE).basis(Basis.USER_STATEMENT)
                .text("用户喜欢茶 likes tea").quote("I love tea").confidence(0.85).gist("茶").cue("饮品").cue("tea").build());
        Memory noted = a.addMemory(ALICE_WORK, MemoryDraft.builder(e2.id()).kind(Kind.AGREEMENT)
                .basis(Basis.ASSISTANT_EXPRESSION).text("助手记住了绿茶").quote("你喜欢绿茶")
                .emotion(new Emotion("warm", 0.6, 0.3)).build());
        a.relate(ALICE_WORK, tea.id(), guangzhou.id());
        a.addMemory(ALICE_HOME, userFact(h1, "猫叫 Mochi").build());
        a.addMemory(CJK_SCOPE, userFact(c1, "项目甲上线 launch").build());
        a.saveCheckpoint(ALICE_WORK, new CheckpointDraft(AuthorityTestKit.SESSION, "搬家 plan", List.of("找房 found a flat"),
                List.of("签约"), List.of("预算 5000"), "看房 Saturday", e2.sequence()));
        a.correctMemory(ALICE_WORK, noted.id(), new CorrectionDraft("助手记住了乌龙茶 oolong", null, null));
        a.saveCheckpoint(ALICE_WORK, new CheckpointDraft(AuthorityTestKit.SESSION, "新目标 new goal", List.of(), List.of(),
                List.of(), null, e3.sequence()));
        Event x = a.submitForExtraction(event("x1", ALICE_WORK, Role.USER, "我每天跑步 I run daily",
                t("2024-06-02T07:00:00+08:00"))).event();
        a.applyExtraction(ALICE_WORK, x.id(), new ExtractionBatch("test-extractor", "sha256:abc", List.of(
                new ExtractionBatch.Proposed(0, userFact(x, "每天跑步 runs daily").build()),
                new ExtractionBatch.Proposed(1, userFact(x, "bad").quote("not in the text").build())), List.of()));
        a.editPersona("alice", "温柔 gentle");
        a.editPersona("alice", "温柔 gentle, 简洁 concise");
        a.persona("小明", null);
        a.advanceCapture(ALICE_WORK, "host-1", 0, "e3", java.time.Instant.parse("2024-06-01T01:00:00Z"), List.of(), List.of());
        submit(a, event("gone", ALICE_WORK, Role.USER, "to be deleted 删除", t("2024-06-03T07:00:00+08:00")));
        a.deleteEvent(ALICE_WORK, "gone");
        assertThat(shenzhen.id()).isNotNull();
    }

    private Path export(Authority a, String name, ArchiveFormat format, Scope scope) {
        return a.archives().export(dir.resolve(name), format, scope, PhaseProgress.NONE).file();
    }

    private static ArchiveReport importFile(Authority a, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return a.archives().importFrom(in, PhaseProgress.NONE);
        }
    }

    @ParameterizedTest
    @EnumSource(ArchiveFormat.class)
    @DisplayName("O3 O4 round trip: export, import into an empty database, export again gives the same bytes, every table included")
    void roundTripIsByteIdentical(ArchiveFormat format) throws IOException {
        Path first;
        Map<String, Long> before;
        try (Authority a = Authority.open(dir.resolve("a.db"), List.of())) {
            fill(a);
            before = a.tableCounts().byName();
            first = export(a, "a." + format.code(), format, null);
        }
        try (Authority b = Authority.open(dir.resolve("b.db"), List.of())) {
            ArchiveReport read = importFile(b, first);
            assertThat(read.version()).isEqualTo(ArchiveVersion.CURRENT.number());
            Path second = export(b, "b." + format.code(), format, null);
            assertThat(Files.readAllBytes(second)).isEqualTo(Files.readAllBytes(first));
            Map<String, Long> after = b.tableCounts().byName();
            for (ArchiveTable t : ArchiveTable.values()) {
                assertThat(after.get(t.table())).as(t.table()).isEqualTo(before.get(t.table())).isPositive();
                assertThat(read.rows().byName().get(t.table())).as(t.table()).isEqualTo(before.get(t.table()));
            }
            assertThat(after.get("embeddings")).isZero();
            assertThat(b.doctor().healthy()).isTrue();
            // what recall and resume rely on came back as it was
            assertThat(b.captureCursor("host-1")).get().extracting(CaptureCursor::position, CaptureCursor::version)
                    .containsExactly("e3", 1L);
            assertThat(b.latestCheckpoint(ALICE_WORK, null)).as("the deletion invalidated them (D3), and stays so").isEmpty();
            assertThat(b.persona("alice", null).content()).isEqualTo("温柔 gentle, 简洁 concise");
            assertThat(b.extraction(ALICE_WORK, "x1")).get().satisfies(x -> {
                assertThat(x.memories()).hasSize(1);
                assertThat(x.rejected()).hasSize(1);
            });
        }
        String text = Files.readString(first, StandardCharsets.UTF_8);
        assertThat(text).contains("我住在广州，I love tea").doesNotContain("to be deleted").doesNotContain("embeddings")
                .doesNotContain("change_log");
    }

    @Test
    @DisplayName("O3 a JSONL archive imported and exported as JSON equals the JSON export of the source")
    void formatsCarryTheSameRows() throws IOException {
        Path jsonl;
        Path json;
        try (Authority a = Authority.open(dir.resolve("a.db"), List.of())) {
            fill(a);
            jsonl = export(a, "a.jsonl", ArchiveFormat.JSONL, null);
            json = export(a, "a.json", ArchiveFormat.JSON, null);
        }
        try (Authority b = Authority.open(dir.resolve("b.db"), List.of())) {
            importFile(b, jsonl);
            assertThat(Files.readAllBytes(export(b, "b.json", ArchiveFormat.JSON, null))).isEqualTo(Files.readAllBytes(json));
        }
    }

    @Test
    @DisplayName("O3 a scope's export holds that scope's rows only (its persona's versions, its extraction records) and imports alone")
    void scopeExport() throws IOException {
        Path work;
        try (Authority a = Authority.open(dir.resolve("a.db"), List.of())) {
            fill(a);
            work = export(a, "work.jsonl", ArchiveFormat.JSONL, ALICE_WORK);
        }
        String text = Files.readString(work);
        assertThat(text).contains("\"scope\":{\"persona\":\"alice\",\"project\":\"work\"}").contains("我住在广州")
                .doesNotContain("Mochi").doesNotContain("项目甲");
        try (Authority b = Authority.open(dir.resolve("b.db"), List.of())) {
            ArchiveReport read = importFile(b, work);
            assertThat(read.rows().byName().get("personas")).isEqualTo(3); // alice: neutral, then two edits
            assertThat(read.rows().byName().get("extractions")).isEqualTo(1);
            assertThat(b.event(ALICE_HOME, "h1")).isEmpty();
            assertThat(b.event(ALICE_WORK, "e1")).isPresent();
        }
    }

    @Test
    @DisplayName("O4 import keeps the sequence counters: a key of a deleted row is never given again")
    void countersSurvive() throws Exception {
        long deletedSequence;
        Path archive;
        try (Authority a = Authority.open(dir.resolve("a.db"), List.of())) {
            fill(a);
            deletedSequence = Long.parseLong(AuthorityTestKit.string(dir.resolve("a.db"),
                    "SELECT seq FROM sqlite_sequence WHERE name = 'events'"));
            archive = export(a, "a.jsonl", ArchiveFormat.JSONL, null);
        }
        try (Authority b = Authority.open(dir.resolve("b.db"), List.of())) {
            importFile(b, archive);
            Event next = submit(b, event("after", ALICE_WORK, Role.USER, "after the import 导入之后"));
            assertThat(next.sequence()).isEqualTo(deletedSequence + 1);
        }
    }

    @Test
    @DisplayName("D4 capture cursors travel in archives, bound to their scope")
    void cursorsTravel() throws IOException {
        Path archive;
        try (Authority a = Authority.open(dir.resolve("a.db"), List.of())) {
            fill(a);
            a.advanceCapture(ALICE_WORK, "host-1", 1, "x1", java.time.Instant.parse("2024-06-01T01:00:00Z"), List.of(), List.of());
            archive = export(a, "a.jsonl", ArchiveFormat.JSONL, null);
        }
        try (Authority b = Authority.open(dir.resolve("b.db"), List.of())) {
            importFile(b, archive);
            CaptureCursor c = b.captureCursor("host-1").orElseThrow();
            assertThat(c.scope()).isEqualTo(ALICE_WORK);
            assertThat(c.position()).isEqualTo("x1");
            assertThat(c.version()).isEqualTo(2);
            // the compare-and-set goes on from the archived version
            assertThatThrownBy(() -> b.advanceCapture(ALICE_WORK, "host-1", 1, "e3", java.time.Instant.parse("2024-06-01T01:00:00Z"), List.of(), List.of()))
                    .isInstanceOf(ConflictException.class);
            assertThat(b.advanceCapture(ALICE_WORK, "host-1", 2, "e3", java.time.Instant.parse("2024-06-01T01:00:00Z"), List.of(), List.of()).cursor().version()).isEqualTo(3);
        }
    }

    /** Every format version ever written, in both shapes: {@code v1.jsonl}, {@code v1.json}, ... */
    static java.util.stream.Stream<String> fixtures() {
        return java.util.Arrays.stream(ArchiveVersion.values())
                .flatMap(v -> java.util.stream.Stream.of("v" + v.number() + ".jsonl", "v" + v.number() + ".json"));
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("fixtures")
    @DisplayName("O4 every archive format version imports: the fixture written by each version loads whole")
    void everyFormatVersionImports(String fixture) throws IOException {
        Path file = Path.of("src/test/resources/dev/jiyi/authority/archives", fixture);
        if (WRITE_FIXTURES && fixture.startsWith("v" + ArchiveVersion.CURRENT.number() + ".")) {
            Files.deleteIfExists(file);
            try (Authority a = Authority.open(dir.resolve("fixture.db"), List.of())) {
                fill(a);
                a.archives().export(file, fixture.endsWith(".jsonl") ? ArchiveFormat.JSONL : ArchiveFormat.JSON, null,
                        PhaseProgress.NONE);
            }
        }
        try (Authority b = Authority.open(dir.resolve("b.db"), List.of())) {
            ArchiveReport read = importFile(b, file);
            assertThat(read.version()).isEqualTo(Integer.parseInt(fixture.substring(1, fixture.indexOf('.'))));
            assertThat(b.event(ALICE_WORK, "e1")).get().extracting(Event::text).isEqualTo("我住在广州，I love tea");
            assertThat(b.captureCursor("host-1")).isPresent();
            assertThat(b.doctor().healthy()).isTrue();
            for (ArchiveTable t : ArchiveTable.values()) {
                assertThat(read.rows().byName().get(t.table())).as(t.table()).isPositive();
            }
            if (read.version() == ArchiveVersion.CURRENT.number()) {
                Path again = export(b, "again", fixture.endsWith(".jsonl") ? ArchiveFormat.JSONL : ArchiveFormat.JSON, null);
                assertThat(Files.readAllBytes(again)).isEqualTo(Files.readAllBytes(file));
            }
        }
    }

    @Test
    @DisplayName("O3 an archive's strings keep version 1's escapes: quotes, backslashes, \\n \\r \\t, other controls as lower-case \\u00xx, nothing else")
    void stringsKeepTheirEscapes() throws IOException {
        StringBuilder text = new StringBuilder("我住在广州 \"quoted\" back\\slash / é ");
        for (char c = 1; c < 0x20; c++) { // NUL is refused in any text
            text.append(c);
        }
        text.append("\u007f\u2028 end");
        try (Authority a = Authority.open(dir.resolve("a.db"), List.of())) {
            a.submitEvent(new EventSubmission("e-esc", ALICE_WORK, Role.USER, text.toString(), "cli", null, "s1",
                    t("2024-05-01T10:00:00Z")));
            for (ArchiveFormat format : ArchiveFormat.values()) {
                String archive = Files.readString(export(a, "esc." + format.code(), format, null), StandardCharsets.UTF_8);
                StringBuilder quoted = new StringBuilder();
                dev.jiyi.authority.internal.JsonStrings.quote(quoted, text.toString());
                assertThat(archive).as(format.code()).contains(quoted)
                        .contains("\\u0001", "\\u0008", "\\u000c", "\\u001f", "\\n", "\\r", "\\t", "\\\"", "/ é", "\u2028");
            }
        }
    }

    @Test
    @DisplayName("O3 export never overwrites: an existing target is refused and left as it was")
    void exportRefusesAnExistingTarget() throws IOException {
        Path target = dir.resolve("exists.jsonl");
        Files.writeString(target, "keep me");
        try (Authority a = Authority.open(dir.resolve("a.db"), List.of())) {
            fill(a);
            assertThatThrownBy(() -> a.archives().export(target, ArchiveFormat.JSONL, null, PhaseProgress.NONE))
                    .isInstanceOf(RefusedException.class).hasMessageContaining("never overwrites");
        }
        assertThat(Files.readString(target)).isEqualTo("keep me");
    }

    @Test
    @DisplayName("O4 a home that only read its neutral persona (a host connected before the import) is still empty: the import goes in")
    void neutralPersonaIsEmpty() throws IOException {
        Path archive;
        try (Authority a = Authority.open(dir.resolve("a.db"), List.of())) {
            fill(a);
            archive = export(a, "a.jsonl", ArchiveFormat.JSONL, null);
        }
        try (Authority b = Authority.open(dir.resolve("b.db"), List.of())) {
            assertThat(b.persona("alice", null).content()).isEqualTo(Authority.NEUTRAL_PERSONA);
            assertThat(b.persona("someone-else", null).version()).isEqualTo(1);
            importFile(b, archive);
            assertThat(b.persona("alice", null).content()).isEqualTo("温柔 gentle, 简洁 concise");
            assertThat(Files.readAllBytes(export(b, "b.jsonl", ArchiveFormat.JSONL, null))).isEqualTo(Files.readAllBytes(archive));
        }
    }

    @Test
    @DisplayName("O3 an empty database exports a valid archive that imports as nothing")
    void emptyArchive() throws IOException {
        for (ArchiveFormat format : ArchiveFormat.values()) {
            Path file;
            try (Authority a = Authority.open(dir.resolve("empty-" + format.code() + ".db"), List.of())) {
                file = export(a, "empty." + format.code(), format, null);
            }
            try (Authority b = Authority.open(dir.resolve("into-" + format.code() + ".db"), List.of())) {
                assertThat(importFile(b, file).total()).isZero();
                assertThat(b.archives().importFrom(new ByteArrayInputStream(Files.readAllBytes(file)), PhaseProgress.NONE).total())
                        .as("still empty, so a second import is allowed").isZero();
            }
        }
    }
}
