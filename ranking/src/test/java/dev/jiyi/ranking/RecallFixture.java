package dev.jiyi.ranking;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.fts5.Fts5Index;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;


/** An authority with the FTS5 index in a temporary directory, and the helpers recall tests share. */
abstract class RecallFixture {

    static final Instant NOW = Instant.parse("2026-06-01T00:00:00Z");

    /** The default configuration without conversation context. */
    static final RecallConfig NO_CONTEXT = RecallConfig.builder().precision(new RecallConfig.Precision(
            RecallConfig.Precision.DEFAULT.minEvidence(), 0, 0, 0, RecallConfig.Precision.DEFAULT.dialogueDecay())).build();

    @TempDir
    Path dir;

    Authority authority;
    Fts5Index index = new Fts5Index();
    Scope scope = Scope.DEFAULT;
    int next;

    @BeforeEach
    void open() {
        authority = Authority.open(dir.resolve("jiyi.db"), List.of(index));
    }

    @AfterEach
    void close() {
        authority.close();
    }

    Recall recall(RecallConfig config) {
        return new Recall(authority, new RecallIndex(index, new ExactVectorScan()), config, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    RecallResult query(String q) {
        return recall(RecallConfig.DEFAULT).recall(new RecallRequest(scope, q, RecallMode.FAST, 10, null, false));
    }

    /** An event in a session of its own, so that no other fixture is its conversational neighbour. */
    String event(Role role, String text, Instant at) {
        return event(role, text, at, Category.CONVERSATION, "solo-" + (next + 1));
    }

    String event(Role role, String text, Instant at, Category category, String session) {
        String id = "e" + (++next);
        authority.submitEvent(new EventSubmission(id, scope, role, text, null, category, session, at));
        return id;
    }

    Memory memory(String eventId, Kind kind, Basis basis, String text, String quote) {
        return authority.addMemory(scope, MemoryDraft.builder(eventId).kind(kind).basis(basis).text(text).quote(quote).build());
    }

    Memory said(String text, Instant at) {
        String e = event(Role.USER, text, at);
        return memory(e, Kind.OBSERVATION, Basis.USER_STATEMENT, text, text);
    }

    static List<String> ids(RecallResult r) {
        return r.items().stream().map(i -> i.memoryId() != null ? i.memoryId() : i.sourceEventId()).toList();
    }
}
